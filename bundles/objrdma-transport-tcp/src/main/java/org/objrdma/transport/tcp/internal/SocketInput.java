package org.objrdma.transport.tcp.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * The reader's side of a connection's socket, with a small read-ahead buffer: frame headers and small payloads
 * come out of one system call together (a 4 KiB WRITE is a request header, a data header and the payload, and
 * its acknowledgement may follow other frames), while a read of at least half the buffer's size goes straight
 * from the socket into its destination once the bytes already buffered are used, so large payloads still land
 * in registered memory without an intermediate copy. Used by the reader thread only.
 */
final class SocketInput {
    static final int BUFFER_BYTES = 16 * 1024;

    private final ReadableByteChannel socket;
    private final ByteBuffer ahead = ByteBuffer.allocateDirect(BUFFER_BYTES).flip(); // empty, ready to drain

    SocketInput(ReadableByteChannel socket) {
        this.socket = socket;
    }

    /** Like {@link ReadableByteChannel#read}: at least one byte into {@code dst} (it has room), or -1 at end of stream. */
    int read(ByteBuffer dst) throws IOException {
        if (!ahead.hasRemaining()) {
            if (dst.remaining() >= BUFFER_BYTES / 2) {
                return socket.read(dst);
            }
            ahead.clear();
            int n;
            try {
                n = socket.read(ahead);
            } finally {
                ahead.flip();
            }
            if (n < 0) {
                return -1;
            }
        }
        int k = Math.min(ahead.remaining(), dst.remaining());
        int limit = ahead.limit();
        ahead.limit(ahead.position() + k);
        dst.put(ahead);
        ahead.limit(limit);
        return k;
    }
}
