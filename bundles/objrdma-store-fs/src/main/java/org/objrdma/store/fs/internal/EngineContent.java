package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PartRange;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;

/** An opened version: reads go to the backend's reader, which pins that version until closed. */
final class EngineContent implements ObjectContent {
    private static final int STREAM_CHUNK = 64 * 1024;
    private static final long MAX_SLICE = 1L << 30;

    private final Backend.BlobReader reader;

    EngineContent(Backend.BlobReader reader) {
        this.reader = reader;
    }

    @Override
    public ObjectInfo info() {
        return reader.info();
    }

    @Override
    public PartRange part(int partNumber) throws StoreException {
        return reader.parts().range(partNumber);
    }

    @Override
    public long read(long offset, MemorySegment destination) throws StoreException {
        long size = reader.info().size();
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative");
        }
        if (size == 0 && offset == 0) {
            return 0;
        }
        if (offset >= size) {
            throw new StoreException(StoreError.INVALID_RANGE,
                    "offset " + offset + " is at or past the end of the " + size + "-byte object");
        }
        long want = Math.min(destination.byteSize(), size - offset);
        long done = 0;
        try {
            while (done < want) {
                // a native segment is seen as a direct buffer over the same memory: the file is read straight into it
                ByteBuffer slice = destination.asSlice(done, Math.min(MAX_SLICE, want - done)).asByteBuffer();
                while (slice.hasRemaining()) {
                    int n = reader.read(offset + done + slice.position(), slice);
                    if (n < 0) {
                        throw new IOException("the object ended early at " + (offset + done + slice.position()));
                    }
                }
                done += slice.capacity();
            }
        } catch (IOException e) {
            throw StoreEngine.internal("reading " + reader.info().key(), e);
        }
        return done;
    }

    @Override
    public InputStream stream(long offset, long length) throws StoreException {
        long size = reader.info().size();
        if (offset < 0 || length < 0 || offset > size || length > size - offset) {
            throw new StoreException(StoreError.INVALID_RANGE, "bytes " + offset + " + " + length
                    + " are not inside the " + size + "-byte object");
        }
        return new RangeStream(offset, length);
    }

    @Override
    public void close() {
        reader.close();
    }

    /** Reads the range on demand, a chunk at a time. */
    private final class RangeStream extends InputStream {
        private final ByteBuffer chunk = ByteBuffer.allocate(STREAM_CHUNK).flip();
        private long position;
        private final long end;

        RangeStream(long offset, long length) {
            this.position = offset;
            this.end = offset + length;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (!chunk.hasRemaining()) {
                if (position >= end) {
                    return -1;
                }
                chunk.clear().limit((int) Math.min(STREAM_CHUNK, end - position));
                while (chunk.hasRemaining()) {
                    int n = reader.read(position + chunk.position(), chunk);
                    if (n < 0) {
                        throw new IOException("the object ended early");
                    }
                }
                position += chunk.flip().remaining();
            }
            int n = Math.min(len, chunk.remaining());
            chunk.get(b, off, n);
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long buffered = Math.min(Math.max(n, 0), chunk.remaining());
            chunk.position(chunk.position() + (int) buffered);
            long further = Math.min(n - buffered, end - position);
            position += Math.max(further, 0);
            return buffered + Math.max(further, 0);
        }

        @Override
        public int available() {
            return chunk.remaining();
        }
    }
}
