package org.objrdma.api.store;

import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * One version of an object, opened for reading: every read through it sees the same bytes, even while
 * the key is overwritten or deleted. Close it (idempotent); streams it handed out end with it.
 */
@ConsumerType
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

    /**
     * Where part {@code partNumber} of this version lies (GET / HEAD {@code ?partNumber=N}). An object from a
     * single put is one part, the whole object; a completed multipart upload has the parts it was completed
     * with, in order.
     *
     * <p>The default is right for every single-put object and for every part number past
     * {@link ObjectInfo#partsCount()}; for a part of a multipart object it cannot know the boundaries and
     * answers NOT_IMPLEMENTED. A store that completes multipart uploads overrides it (since 2.1).
     *
     * @throws StoreException INVALID_ARGUMENT outside 1..{@link StoreLimits#MAX_PART_NUMBER},
     *                        INVALID_PART_NUMBER past the last part, NOT_IMPLEMENTED (default only)
     * @since 2.1
     */
    default PartRange part(int partNumber) throws StoreException {
        StoreLimits.validatePartNumber(partNumber);
        ObjectInfo info = info();
        int parts = Math.max(1, info.partsCount());
        if (partNumber > parts) {
            throw PartRange.notSatisfiable(partNumber, parts);
        }
        if (info.partsCount() == 0) {
            return PartRange.whole(info.size());
        }
        throw new StoreException(StoreError.NOT_IMPLEMENTED,
                "this store does not know the part boundaries of the multipart object " + info.key());
    }

    /** The whole object as a stream. */
    default InputStream stream() throws StoreException {
        return stream(0, info().size());
    }

    @Override
    void close();
}
