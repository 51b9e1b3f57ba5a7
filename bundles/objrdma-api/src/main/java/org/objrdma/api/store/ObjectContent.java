package org.objrdma.api.store;

import java.io.InputStream;
import java.lang.foreign.MemorySegment;

/**
 * One version of an object, opened for reading: every read through it sees the same bytes, even while
 * the key is overwritten or deleted. Close it (idempotent); streams it handed out end with it.
 */
public interface ObjectContent extends AutoCloseable {

    /** The version opened. */
    ObjectInfo info();

    /**
     * Reads from {@code offset} into {@code destination} until it is full or the object ends; a file
     * store reads straight into the segment (no heap copy).
     *
     * @return bytes read (0 only for an empty object at offset 0)
     * @throws StoreException INVALID_RANGE when {@code offset} is at or past the end of a non-empty
     *                        object (or past 0 of an empty one), INTERNAL_ERROR
     */
    long read(long offset, MemorySegment destination) throws StoreException;

    /**
     * The bytes {@code [offset, offset + length)} as a stream that reads on demand (the object is never
     * buffered whole).
     *
     * @throws StoreException INVALID_RANGE when the range is not inside the object
     */
    InputStream stream(long offset, long length) throws StoreException;

    /** The whole object as a stream. */
    default InputStream stream() throws StoreException {
        return stream(0, info().size());
    }

    @Override
    void close();
}
