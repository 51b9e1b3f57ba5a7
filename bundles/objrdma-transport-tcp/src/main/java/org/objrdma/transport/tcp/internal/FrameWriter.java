package org.objrdma.transport.tcp.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.transport.WcStatus;

/**
 * Everything a connection sends, on its writer thread (or, for a small request on an idle socket, on the
 * posting thread): our requests and their payloads (gathering writes of header and registered memory),
 * acknowledgements, READ responses and pings. The reader never writes to the socket, so two peers serving each
 * other's large READs cannot deadlock with full socket buffers; it only queues work here. Its own class
 * because who may hold the socket for writing ({@link #sendLock}, {@link #unsent}) is one rule, kept here.
 */
final class FrameWriter {

    /**
     * Largest payload a posting thread sends itself when the connection has nothing else to send: small enough
     * that the write fits the socket buffer of a reading peer, so the poster is not held long.
     */
    static final long DIRECT_SEND_MAX = 64 * 1024;

    private final TcpConnection connection;
    private final SocketChannel socket;
    private final int frameSize;

    private final LinkedBlockingQueue<Outbound> outbox = new LinkedBlockingQueue<>();
    /**
     * Items queued for the socket and not yet written (or dropped): in the outbox, or held back by the writer
     * behind a payload in progress. Zero means the socket has nothing waiting, so a poster may send inline.
     */
    private final AtomicInteger unsent = new AtomicInteger();
    /** Held by whoever writes to the socket: the writer thread, or a poster sending inline. */
    private final ReentrantLock sendLock = new ReentrantLock();
    /** The region whose lease the writer holds right now (for region close escalation). */
    private volatile TcpRegion region;

    private final ByteBuffer outHeader = ByteBuffer.allocateDirect(Wire.HEADER_BYTES);
    private final ByteBuffer dataHeader = ByteBuffer.allocateDirect(Wire.HEADER_BYTES);
    private final ByteBuffer[] gather = new ByteBuffer[2];
    private final ByteBuffer[] firstFrame = new ByteBuffer[3];

    /** Thrown inside the writer to stop after a refusal went out or on STOP. */
    private static final class WriterDone extends Exception {
        private static final long serialVersionUID = 1L;

        WriterDone() {
            super(null, null, false, false);
        }
    }

    FrameWriter(TcpConnection connection, SocketChannel socket, int frameSize) {
        this.connection = connection;
        this.socket = socket;
        this.frameSize = frameSize;
    }

    TcpRegion region() {
        return region;
    }

    /**
     * Hands a posted request to the socket, in posting order (the caller holds the channel's lock). If nothing
     * is waiting to be sent, the request is small and the caller is not one of the transport's threads, the
     * caller claims the socket and must then call {@link #sendClaimed} once it has released the channel's lock:
     * the request goes out from the posting thread, without waking the writer (one thread hand-off less per
     * operation). Otherwise the request is queued for the writer and false is returned.
     */
    boolean send(SendOp op) {
        if (op.length <= DIRECT_SEND_MAX && !TcpConnection.onTransportThread() && unsent.get() == 0
                && sendLock.tryLock()) {
            if (unsent.compareAndSet(0, 1)) {
                return true; // claimed: later posts queue behind us, the writer waits for the lock
            }
            sendLock.unlock();
        }
        enqueue(new Outbound.SendRequest(op));
        return false;
    }

    /**
     * Sends a request {@link #send} let the caller claim, on the caller's thread, then releases the socket.
     * Failures end the connection as they would on the writer.
     */
    void sendClaimed(SendOp op) {
        assert sendLock.isHeldByCurrentThread();
        try {
            sendRequest(op, null);
        } catch (WriterDone done) {
            // the request's source region was closed: the connection is ending already
        } catch (IOException | RuntimeException | Error e) {
            endAfter(e, "sending inline");
        } finally {
            region = null;
            unsent.decrementAndGet();
            sendLock.unlock();
        }
    }

    void enqueue(Outbound item) {
        unsent.incrementAndGet();
        outbox.add(item);
    }

    /** Queues the graceful end behind what is queued already; not counted as unsent (nothing follows it). */
    void enqueueFinish() {
        outbox.add(Outbound.FINISH);
    }

    /** The writer thread's body. */
    void writeLoop() {
        ArrayDeque<Outbound> waitingData = new ArrayDeque<>();
        try {
            while (true) {
                Outbound item = outbox.poll();
                if (item != null && Outbound.isData(item) && !waitingData.isEmpty()) {
                    waitingData.addLast(item); // keep data in posting order
                    continue;
                }
                if (item == null) {
                    item = waitingData.pollFirst();
                }
                if (item == null) {
                    item = outbox.take();
                }
                // a poster sending inline holds the socket: wait for it (it claimed only with nothing queued,
                // so whatever we hold was posted after its request)
                sendLock.lock();
                try {
                    if (Outbound.isData(item)) {
                        sendData(item, waitingData);
                    } else {
                        sendControl(item);
                    }
                    unsent.decrementAndGet();
                } finally {
                    sendLock.unlock();
                }
            }
        } catch (WriterDone done) {
            // normal end
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            endAfter(e, "writer");
        } finally {
            region = null;
        }
    }

    /**
     * Ends the connection after a send failed, with the cause the failure names: a socket someone closed
     * (or an interrupt) is a local close, any other I/O failure a vanished peer, anything else our own error.
     */
    private void endAfter(Throwable failure, String who) {
        switch (failure) {
            case ClosedChannelException _, InterruptedException _ -> connection.abort(EndCause.LOCAL_CLOSE);
            case IOException e -> {
                TcpTransport.LOG.debug("channel {}: sending to {} failed: {}", connection.channel().id(),
                        connection.peer(), e.toString());
                connection.abort(EndCause.PEER_VANISHED);
            }
            default -> {
                TcpTransport.LOG.error("channel {}: {} failed", connection.channel().id(), who, failure);
                connection.abort(EndCause.LOCAL_ERROR);
            }
        }
    }

    /** Sends the control items waiting in the outbox; data items found on the way wait their turn. */
    private void drainControl(ArrayDeque<Outbound> waitingData) throws IOException, WriterDone {
        Outbound o;
        while ((o = outbox.poll()) != null) {
            if (Outbound.isData(o)) {
                waitingData.addLast(o);
            } else {
                sendControl(o);
                unsent.decrementAndGet();
            }
        }
    }

    private void sendControl(Outbound item) throws IOException, WriterDone {
        switch (item) {
            case Outbound.Stop _ -> throw new WriterDone();
            case Outbound.Finish _ -> {
                // everything queued before the close went out (control first): end of stream, then stop
                socket.shutdownOutput();
                throw new WriterDone();
            }
            case Outbound.Ping _ -> {
                connection.keepalive().pingTaken();
                Wire.header(outHeader, Wire.PING, 0, 0, 0, 0, 0, 0, 0, 0);
                writeFully(outHeader);
            }
            case Outbound.Ack a -> {
                connection.backlog().settle(Wire.HEADER_BYTES);
                writeAck(a);
            }
            default -> throw new IllegalStateException("not a control item: " + item);
        }
    }

    private void writeAck(Outbound.Ack a) throws IOException, WriterDone {
        Wire.header(outHeader, Wire.ACK, 0, a.status().code(), 0, a.seq(), 0, 0, 0, 0);
        writeFully(outHeader);
        if (a.refusal()) {
            // nothing else goes out after a refusal; the peer hangs up when it reads it
            socket.shutdownOutput();
            throw new WriterDone();
        }
    }

    private void sendData(Outbound item, ArrayDeque<Outbound> waitingData) throws IOException, WriterDone {
        switch (item) {
            case Outbound.SendRequest s -> sendRequest(s.op(), waitingData);
            case Outbound.ReadResponse r -> sendReadResponse(r, waitingData);
            default -> throw new IllegalStateException("not a data item: " + item);
        }
    }

    /**
     * Sends one request: its header, then its payload in frames of at most {@code frame.size}; the header goes
     * out in the same gathering write as the first frame (one system call for a small WRITE or SEND). Between
     * frames the control items waiting in the outbox go out, unless {@code waitingData} is null (a poster
     * sending a small request inline: one frame, the writer sends the rest).
     */
    private void sendRequest(SendOp op, ArrayDeque<Outbound> waitingData) throws IOException, WriterDone {
        TcpChannel channel = connection.channel();
        if (channel.isFailed(connection) || op.done) {
            return; // flushed with the rest when the connection ends
        }
        var r = op.request;
        boolean imm = r.opcode().hasImmediate();
        Wire.header(outHeader, Wire.REQUEST, r.opcode().verbsOpcode(), 0, r.immediate(), op.seq, r.remoteAddress(),
                op.length, r.rkey(), imm ? Wire.FLAG_IMMEDIATE : 0);
        if (!op.carriesPayload() || op.length == 0) {
            writeFully(outHeader);
            return;
        }
        boolean headerSent = false;
        MemoryCursor source = MemoryCursor.over(r.sgList());
        while (source.remaining() > 0) {
            TcpRegion sourceRegion = source.region();
            long k = Math.min(frameSize, source.pieceRemaining());
            if (!sourceRegion.acquire()) {
                // our own source region was closed under the request: stop, nothing half-sent is acknowledged
                connection.recordCause(EndCause.LOCAL_ERROR);
                channel.finish(connection, op, WcStatus.LOC_PROT_ERR, EndCause.LOCAL_ERROR.vendorCode());
                connection.abort(EndCause.LOCAL_ERROR);
                throw new WriterDone();
            }
            region = sourceRegion;
            try {
                Wire.header(dataHeader, Wire.REQUEST_DATA, 0, 0, 0, op.seq, 0, k, 0, 0);
                ByteBuffer payload = sourceRegion.segment().asSlice(source.regionOffset(), k).asByteBuffer();
                if (headerSent) {
                    gather[0] = dataHeader;
                    gather[1] = payload;
                    writeFully(gather);
                } else {
                    firstFrame[0] = outHeader;
                    firstFrame[1] = dataHeader;
                    firstFrame[2] = payload;
                    writeFully(firstFrame);
                    headerSent = true;
                }
            } finally {
                gather[1] = null;
                firstFrame[2] = null;
                region = null;
                sourceRegion.release();
            }
            source.advance(k);
            if (waitingData != null) {
                drainControl(waitingData);
            }
            if (channel.isFailed(connection)) {
                throw new WriterDone(); // refused or closed meanwhile: the rest of the payload is moot
            }
        }
    }

    private void sendReadResponse(Outbound.ReadResponse r, ArrayDeque<Outbound> waitingData)
            throws IOException, WriterDone {
        try {
            long offset = r.offset();
            long left = r.length();
            while (left > 0) {
                long k = Math.min(frameSize, left);
                if (!r.acquire()) {
                    // closed while we serve it: the requester gets REM_ACCESS_ERR, never the partial bytes as success
                    connection.transport().telemetry().increment(Counter.TRANSPORT_REMOTE_ACCESS_DENIED);
                    connection.recordCause(EndCause.REFUSED_PEER);
                    connection.startRefusing();
                    writeAck(new Outbound.Ack(r.seq(), WcStatus.REM_ACCESS_ERR, true));
                    return; // not reached: a refusal ends the writer
                }
                region = r.region();
                try {
                    Wire.header(outHeader, Wire.RESPONSE_DATA, 0, 0, 0, r.seq(), 0, k, 0, 0);
                    gather[0] = outHeader;
                    gather[1] = r.region().segment().asSlice(offset, k).asByteBuffer();
                    writeFully(gather);
                } finally {
                    gather[1] = null;
                    region = null;
                    r.release();
                }
                offset += k;
                left -= k;
                drainControl(waitingData);
            }
            Wire.header(outHeader, Wire.ACK, 0, WcStatus.SUCCESS.code(), 0, r.seq(), 0, 0, 0, 0);
            writeFully(outHeader);
        } finally {
            connection.responder().readServed();
            connection.backlog().settle(Wire.HEADER_BYTES + r.length());
        }
    }

    private void writeFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            socket.write(b);
            connection.keepalive().sent();
        }
    }

    private void writeFully(ByteBuffer[] bufs) throws IOException {
        ByteBuffer last = bufs[bufs.length - 1];
        while (last.hasRemaining()) {
            socket.write(bufs);
            connection.keepalive().sent();
        }
    }
}
