package org.objrdma.api.store;

import java.lang.foreign.MemorySegment;
import java.util.Optional;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * What a host object store implements so objrdma can serve its objects over RDMA: credentials,
 * authorization, HEAD, a ranged read into staging memory, and writes from staging memory.
 *
 * <p>Shaped like a jclouds {@code BlobStore} cut down to what the data plane needs, so an adapter to a
 * real store is a small bundle. Register it as an OSGi service. objrdma never keeps a segment it passed
 * in beyond the call; the store must not either.
 */
@ConsumerType
public interface ObjectStore {

    /** Short name for logs and the shell. */
    String name();

    /** The secret of an access key, for signature checks; empty if the key is unknown. */
    Optional<String> secretKey(String accessKeyId);

    /** True if {@code accessKeyId} may perform {@code action} on {@code target}. */
    boolean isAuthorized(String accessKeyId, StoreAction action, ObjectTarget target);

    /** Size, etag, version and type of an object. */
    ObjectMetadata head(ObjectTarget target) throws StoreException;

    /**
     * Reads object bytes from {@code offset} into {@code destination} until it is full or the object ends.
     *
     * @throws StoreException NO_SUCH_BUCKET, NO_SUCH_KEY, INVALID_RANGE (offset at or past the end), IO
     */
    ReadResult read(ObjectTarget target, long offset, MemorySegment destination) throws StoreException;

    /**
     * Stores {@code source} as the whole object, atomically: readers see the old object or the new one.
     *
     * @throws StoreException NO_SUCH_BUCKET, INVALID_ARGUMENT, TOO_LARGE, IO
     */
    PutResult put(ObjectTarget target, MemorySegment source, String contentType) throws StoreException;

    /**
     * Stores {@code source} as part {@link ObjectTarget#partNumber()} of upload {@link ObjectTarget#uploadId()}.
     *
     * @throws StoreException NO_SUCH_UPLOAD, INVALID_ARGUMENT, IO
     */
    PutResult uploadPart(ObjectTarget target, MemorySegment source) throws StoreException;
}
