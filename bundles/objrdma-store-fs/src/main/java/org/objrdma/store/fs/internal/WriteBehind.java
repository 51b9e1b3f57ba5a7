package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.objrdma.api.store.StoreException;

/**
 * Writes the chunks of one streamed body into a {@link Backend.Staging} on its own thread, in the order handed
 * over, while the caller reads and digests the next ones: a put then takes about as long as the slower of MD5 and
 * the file write, not their sum. A fixed set of buffers circulates between the two threads, so memory is bounded
 * and a slow medium holds the reader back. After a write failure the writer drops the rest (returning their
 * buffers, so the reader never waits for ever) and {@link #finish()} reports it.
 */
final class WriteBehind implements AutoCloseable {
    private static final ByteBuffer END = ByteBuffer.allocate(0);

    private final Backend.Staging target;
    /** Capacity buffers + 1: every buffer plus the END mark fit, so handing over never blocks. */
    private final BlockingQueue<ByteBuffer> filled;
    private final BlockingQueue<byte[]> empty;
    private final Thread writer;
    private volatile Throwable failure;
    private boolean ended;

    WriteBehind(Backend.Staging target, int buffers, int bufferSize) {
        this.target = target;
        this.filled = new ArrayBlockingQueue<>(buffers + 1);
        this.empty = new ArrayBlockingQueue<>(buffers);
        for (int i = 0; i < buffers; i++) {
            empty.add(new byte[bufferSize]);
        }
        this.writer = Thread.ofPlatform().name("objrdma-store-write").start(this::writeLoop);
    }

    /** A buffer to fill; waits while every buffer is still being written. */
    byte[] buffer() throws IOException {
        try {
            return empty.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while the store was writing the body");
        }
    }

    /** Hands the first {@code count} bytes of {@code buffer} (one of {@link #buffer()}'s) to the writer. */
    void write(byte[] buffer, int count) throws StoreException {
        rethrowFailure();
        filled.add(ByteBuffer.wrap(buffer, 0, count));
    }

    /** Waits until every handed-over byte is written; a failed write as the store's INTERNAL_ERROR. */
    void finish() throws StoreException {
        close();
        rethrowFailure();
    }

    private void rethrowFailure() throws StoreException {
        Throwable failed = failure;
        if (failed != null) {
            Ingest.rethrowWriteFailure(failed);
        }
    }

    private void writeLoop() {
        while (true) {
            ByteBuffer chunk;
            try {
                chunk = filled.take();
            } catch (InterruptedException e) {
                continue; // nobody interrupts this thread; END is what ends it
            }
            if (chunk == END) {
                return;
            }
            if (failure == null) {
                try {
                    target.write(chunk);
                } catch (Throwable t) {
                    failure = t;
                }
            }
            empty.add(chunk.array());
        }
    }

    /** Ends the writer after what was handed over and waits for it (the staging must not close under it). */
    @Override
    public void close() {
        if (!ended) {
            ended = true;
            filled.add(END);
            Ingest.joinUninterruptibly(writer);
        }
    }
}
