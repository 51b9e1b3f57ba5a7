package org.objrdma.transport.tcp.internal;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;

/**
 * A connection's reader thread: reads frame headers, hands each frame to the side it belongs to — a peer's
 * request and its payload to the {@link Responder}, the answers to our own requests to the {@link Requester} —
 * and reads payloads straight from the socket into registered memory ({@link #receiveInto}: a
 * {@code ByteBuffer} view of the segment, no intermediate copy). Blocking sockets with a dedicated platform
 * thread keep the data path free of selector hand-offs: each byte is moved by one system call into its final
 * place. Its own class because the framing (headers, lengths, skipping what is refused) is one concept, apart
 * from what each frame means.
 */
final class FrameReader {
    private static final int SKIP_BUFFER = 64 * 1024;

    private final TcpConnection connection;
    private final SocketInput input;
    private final ByteBuffer inHeader = ByteBuffer.allocateDirect(Wire.HEADER_BYTES);
    private ByteBuffer skipBuffer;
    /** The region whose lease the reader holds right now (for region close escalation). */
    private volatile TcpRegion region;

    FrameReader(TcpConnection connection, SocketChannel socket) {
        this.connection = connection;
        this.input = new SocketInput(socket);
    }

    TcpRegion region() {
        return region;
    }

    /** The reader thread's body. */
    void readLoop() {
        long channelId = connection.channel().id();
        try {
            while (true) {
                inHeader.clear();
                if (!readHeader()) {
                    connection.abort(connection.isRefusing() ? EndCause.REFUSED_PEER : EndCause.PEER_CLOSED);
                    return;
                }
                dispatch();
            }
        } catch (ProtocolViolation e) {
            TcpTransport.LOG.warn("channel {}: {} from {}; closing the connection", channelId, e.getMessage(),
                    connection.peer());
            connection.abort(EndCause.PROTOCOL_VIOLATION);
        } catch (ClosedChannelException e) {
            connection.abort(EndCause.LOCAL_CLOSE); // someone closed the socket: the cause is already recorded
        } catch (IOException e) {
            TcpTransport.LOG.debug("channel {}: connection to {} broke: {}", channelId, connection.peer(), e.toString());
            connection.abort(EndCause.PEER_VANISHED);
        } catch (InterruptedException e) {
            connection.abort(EndCause.LOCAL_CLOSE);
        } catch (RuntimeException | Error e) {
            TcpTransport.LOG.error("channel {}: reader failed", channelId, e);
            connection.abort(EndCause.LOCAL_ERROR);
        } finally {
            region = null;
        }
    }

    /** Reads one header; false on a clean end of stream before its first byte. */
    private boolean readHeader() throws IOException {
        while (inHeader.hasRemaining()) {
            int n = input.read(inHeader);
            if (n < 0) {
                if (inHeader.position() == 0) {
                    return false;
                }
                throw new EOFException("end of stream inside a frame header");
            }
            connection.keepalive().received();
        }
        return true;
    }

    private void readFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (input.read(b) < 0) {
                throw new EOFException("end of stream inside a frame");
            }
            connection.keepalive().received();
        }
    }

    /** Reads and drops {@code n} payload bytes, keeping the stream in step. */
    void skip(long n) throws IOException {
        if (skipBuffer == null) {
            skipBuffer = ByteBuffer.allocateDirect(SKIP_BUFFER);
        }
        while (n > 0) {
            skipBuffer.clear().limit((int) Math.min(SKIP_BUFFER, n));
            readFully(skipBuffer);
            n -= skipBuffer.limit();
        }
    }

    private void dispatch() throws IOException, InterruptedException {
        boolean refusing = connection.isRefusing();
        byte type = Wire.type(inHeader);
        switch (type) {
            case Wire.PING -> {
                // liveness only; the keepalive saw the bytes already
            }
            case Wire.REQUEST -> {
                if (!refusing) {
                    connection.responder().onRequest(inHeader);
                }
            }
            case Wire.REQUEST_DATA -> {
                long n = dataLength();
                if (refusing) {
                    skip(n);
                } else {
                    connection.responder().onRequestData(Wire.seq(inHeader), n);
                }
            }
            case Wire.RESPONSE_DATA -> {
                long n = dataLength();
                if (refusing) {
                    skip(n);
                } else {
                    connection.requester().onResponseData(Wire.seq(inHeader), n);
                }
            }
            case Wire.ACK -> {
                if (!refusing) {
                    connection.requester().onAck(Wire.seq(inHeader), Wire.status(inHeader));
                }
            }
            default -> throw new ProtocolViolation("unknown frame type " + type);
        }
    }

    private long dataLength() throws ProtocolViolation {
        long n = Wire.length(inHeader);
        if (n <= 0 || n > TcpSettings.MAX_FRAME) {
            throw new ProtocolViolation("payload frame of " + n + " bytes");
        }
        return n;
    }

    /**
     * Reads {@code n} payload bytes straight into the memory under {@code cursor}, one lease per piece. If a
     * region is closed on the way, the rest of the bytes are read and dropped (the stream stays in step) and
     * false is returned.
     */
    boolean receiveInto(MemoryCursor cursor, long n) throws IOException {
        while (n > 0) {
            TcpRegion target = cursor.region();
            long k = Math.min(n, Math.min(cursor.pieceRemaining(), TcpSettings.MAX_FRAME));
            if (!cursor.acquire()) {
                skip(n);
                return false;
            }
            region = target;
            try {
                readFully(target.segment().asSlice(cursor.regionOffset(), k).asByteBuffer());
            } catch (IllegalStateException e) {
                // the owner freed the memory without closing the region first: the stream is lost
                throw new IOException("memory of " + target + " is no longer accessible", e);
            } finally {
                region = null;
                cursor.release();
            }
            cursor.advance(k);
            n -= k;
        }
        return true;
    }
}
