package org.objrdma.store.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Holds the bytes of a streamed put or part between its end of stream and the verifier's verdict, because
 * the remote store must not see them before (a stream cannot be read twice). Up to {@code memoryLimit} in
 * heap chunks, the rest in a temporary file deleted on close. This is the price of the commit veto on the
 * plain-HTTP path; puts from a staging segment need no spool (the segment is re-read instead).
 */
final class Spool implements AutoCloseable {
    private static final int CHUNK = 1024 * 1024;

    private final long memoryLimit;
    private final List<byte[]> chunks = new ArrayList<>();
    private long inMemory;
    private Path file;
    private FileChannel channel;
    private long length;

    Spool(long memoryLimit) {
        this.memoryLimit = memoryLimit;
    }

    void write(byte[] b, int off, int len) throws IOException {
        while (len > 0 && inMemory < memoryLimit) {
            int at = (int) (inMemory % CHUNK);
            if (at == 0) {
                chunks.add(new byte[CHUNK]);
            }
            int n = (int) Math.min(Math.min(len, CHUNK - at), memoryLimit - inMemory);
            System.arraycopy(b, off, chunks.getLast(), at, n);
            inMemory += n;
            length += n;
            off += n;
            len -= n;
        }
        if (len > 0) {
            if (channel == null) {
                file = Files.createTempFile("objrdma-s3-spool", ".part");
                channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            }
            ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
            while (buffer.hasRemaining()) {
                channel.write(buffer, length - inMemory + (len - buffer.remaining()));
            }
            length += len;
        }
    }

    long length() {
        return length;
    }

    /** The bytes {@code [offset, offset + count)}, readable as often as the SDK retries. */
    InputStream open(long offset, long count) {
        return new InputStream() {
            private long position = offset;
            private final long end = offset + count;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (position >= end) {
                    return len == 0 ? 0 : -1;
                }
                int n = (int) Math.min(len, end - position);
                if (position < inMemory) {
                    int at = (int) (position % CHUNK);
                    n = (int) Math.min(Math.min(n, CHUNK - at), inMemory - position);
                    System.arraycopy(chunks.get((int) (position / CHUNK)), at, b, off, n);
                } else {
                    n = channel.read(ByteBuffer.wrap(b, off, n), position - inMemory);
                    if (n < 0) {
                        throw new IOException("the spool file ended early");
                    }
                }
                position += n;
                return n;
            }
        };
    }

    @Override
    public void close() {
        chunks.clear();
        if (channel != null) {
            try {
                channel.close();
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete the spool file " + file, e);
            } finally {
                channel = null;
            }
        }
    }
}
