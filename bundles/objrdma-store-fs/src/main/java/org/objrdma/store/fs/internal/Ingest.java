package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CommitVerifier;
import org.objrdma.api.store.Digests;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;

/**
 * Moves the bytes of one write into a {@link Backend.Staging}, digesting them on the way, enforcing the
 * declared length and the size limit, and asking the caller's verifier after the end of the body. Only
 * the body's own failures leave as {@link IOException}; the medium's become INTERNAL_ERROR.
 */
final class Ingest {
    private static final int STREAM_CHUNK = 256 * 1024;
    private static final long SEGMENT_CHUNK = 4L * 1024 * 1024;
    /** Below this a second thread costs more than it saves. */
    private static final long PARALLEL_FROM = 2 * SEGMENT_CHUNK;
    /** A streamed body of at least this declared length is digested and written on two threads. */
    static final long OVERLAP_STREAM_FROM = 1L << 20;
    /** Chunks in circulation between the reading and the writing thread of a streamed body. */
    private static final int OVERLAP_BUFFERS = 3;

    private Ingest() {
    }

    /** @param maxBytes the largest body accepted (ENTITY_TOO_LARGE beyond) */
    static Digests fromStream(InputStream body, long length, long maxBytes, Set<ChecksumAlgorithm> checksums,
            CommitVerifier verifier, Backend.Staging target) throws StoreException, IOException {
        if (length < -1) {
            throw new StoreException(StoreError.INVALID_ARGUMENT, "the length must be -1 (unknown) or at least 0");
        }
        if (length > maxBytes) {
            throw tooLarge(length, maxBytes);
        }
        StreamDigester digester = new StreamDigester(checksums);
        if (length >= OVERLAP_STREAM_FROM) {
            return overlapped(body, length, digester, verifier, target);
        }
        byte[] chunk = new byte[(int) Math.min(STREAM_CHUNK, length < 0 ? STREAM_CHUNK : Math.max(length, 1))];
        long remaining = length;
        while (length < 0 || remaining > 0) {
            int want = length < 0 ? chunk.length : (int) Math.min(chunk.length, remaining);
            int n = body.read(chunk, 0, want);
            if (n < 0) {
                if (length >= 0) {
                    throw new StoreException(StoreError.INCOMPLETE_BODY, "the body ended after "
                            + digester.length() + " of " + length + " bytes");
                }
                break;
            }
            if (digester.length() + n > maxBytes) {
                throw tooLarge(digester.length() + n, maxBytes);
            }
            digester.update(chunk, 0, n);
            write(target, ByteBuffer.wrap(chunk, 0, n));
            remaining -= n;
        }
        if (length >= 0 && body.read(chunk, 0, 1) >= 0) {
            // read to the end even with a declared length: a decoding body parses its trailer only there
            throw new StoreException(StoreError.INVALID_ARGUMENT,
                    "the body is longer than its declared length of " + length + " bytes");
        }
        return verified(digester, verifier);
    }

    /**
     * A body of known length: this thread reads and digests each chunk while {@link WriteBehind} writes the one
     * before, so MD5 and the file write overlap (the profile's PUT was their sum, MD5 the larger part). Chunks
     * are filled whole (many socket reads each), so the hand-overs are few.
     */
    private static Digests overlapped(InputStream body, long length, StreamDigester digester,
            CommitVerifier verifier, Backend.Staging target) throws StoreException, IOException {
        try (WriteBehind writes = new WriteBehind(target, OVERLAP_BUFFERS, STREAM_CHUNK)) {
            long remaining = length;
            while (remaining > 0) {
                byte[] chunk = writes.buffer();
                int want = (int) Math.min(chunk.length, remaining);
                int n = 0;
                while (n < want) {
                    int r = body.read(chunk, n, want - n);
                    if (r < 0) {
                        throw new StoreException(StoreError.INCOMPLETE_BODY, "the body ended after "
                                + (digester.length() + n) + " of " + length + " bytes");
                    }
                    n += r;
                }
                digester.update(chunk, 0, n);
                writes.write(chunk, n);
                remaining -= n;
            }
            if (body.read(new byte[1], 0, 1) >= 0) {
                // read to the end even with a declared length: a decoding body parses its trailer only there
                throw new StoreException(StoreError.INVALID_ARGUMENT,
                        "the body is longer than its declared length of " + length + " bytes");
            }
            writes.finish();
        }
        return verified(digester, verifier);
    }

    static Digests fromSegment(MemorySegment source, long maxBytes, Set<ChecksumAlgorithm> checksums,
            CommitVerifier verifier, Backend.Staging target) throws StoreException {
        if (source.byteSize() > maxBytes) {
            throw tooLarge(source.byteSize(), maxBytes);
        }
        StreamDigester digester = new StreamDigester(checksums);
        AtomicReference<Throwable> writeFailure = new AtomicReference<>();
        Thread writer = Thread.ofPlatform().name("objrdma-store-write").unstarted(() -> {
            try {
                for (long offset = 0; offset < source.byteSize(); offset += SEGMENT_CHUNK) {
                    target.write(slice(source, offset));
                }
                // the page cache is written long before MD5 ends: flush it to the medium meanwhile, so the
                // seal's force finds (almost) nothing left to write
                target.forceWritten();
            } catch (Throwable t) {
                writeFailure.set(t);
            }
        });
        if (source.byteSize() < PARALLEL_FROM || !source.isAccessibleBy(writer)) {
            for (long offset = 0; offset < source.byteSize(); offset += SEGMENT_CHUNK) {
                ByteBuffer slice = slice(source, offset);
                digester.update(slice);
                write(target, slice);
            }
            return verified(digester, verifier);
        }
        // the bytes are all there and do not change: write them on another thread while this one digests
        // them, so a put takes as long as the slower of the two rather than their sum (a segment confined
        // to the caller's thread is done in turn instead)
        writer.start();
        try {
            for (long offset = 0; offset < source.byteSize(); offset += SEGMENT_CHUNK) {
                digester.update(slice(source, offset));
            }
        } finally {
            joinUninterruptibly(writer);
        }
        Throwable failed = writeFailure.get();
        if (failed != null) {
            rethrowWriteFailure(failed);
        }
        return verified(digester, verifier);
    }

    /** A native segment gives a direct buffer over the same memory: no heap copy on the way to the file. */
    private static ByteBuffer slice(MemorySegment source, long offset) {
        return source.asSlice(offset, Math.min(SEGMENT_CHUNK, source.byteSize() - offset)).asByteBuffer();
    }

    /** A writer thread's failure on the caller's thread: the medium's as INTERNAL_ERROR, the rest as it was. */
    static void rethrowWriteFailure(Throwable failed) throws StoreException {
        if (failed instanceof IOException e) {
            throw StoreEngine.internal("writing the staged bytes", e);
        } else if (failed instanceof RuntimeException e) {
            throw e;
        } else if (failed instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("the store's writer failed", failed);
    }

    /** The staging must not be closed under the writer, so wait for it even when interrupted. */
    static void joinUninterruptibly(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static Digests verified(StreamDigester digester, CommitVerifier verifier) throws StoreException {
        Digests digests = digester.finish();
        verifier.verify(digests);
        return digests;
    }

    /** A failure of the store's own medium is the store's error, not the body's. */
    private static void write(Backend.Staging target, ByteBuffer bytes) throws StoreException {
        try {
            target.write(bytes);
        } catch (IOException e) {
            throw StoreEngine.internal("writing the staged bytes", e);
        }
    }

    static StoreException tooLarge(long size, long max) {
        return new StoreException(StoreError.ENTITY_TOO_LARGE,
                "the body is at least " + size + " bytes, the most allowed is " + max);
    }
}
