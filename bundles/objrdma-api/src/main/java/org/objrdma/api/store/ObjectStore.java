package org.objrdma.api.store;

import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * What a host object store implements so objrdma can serve it over RDMA and S3: credentials and
 * authorization, buckets, objects (read into staging memory or streamed, written from staging memory or a
 * stream), listing, multipart uploads.
 *
 * <p>Shaped after the stores Java users know (s3proxy's {@code BlobStore}, versitygw's backend), cut to
 * what an S3 gateway serves. Register it as an OSGi service. Contracts every implementation keeps (the
 * store TCK checks them):
 * <ul>
 * <li>A write is atomic: a reader sees the old object or the new one, never a mix; a failed write
 *     (any exception, including an {@link java.io.IOException} from the body or a veto by the
 *     {@link CommitVerifier}) commits nothing.</li>
 * <li>MD5, ETag and requested checksums are computed while the bytes stream in.</li>
 * <li>Keys are compared and listed as unsigned UTF-8 bytes.</li>
 * <li>Names are checked with {@link StoreLimits}; errors are {@link StoreException}s whose
 *     {@link StoreError} is the S3 code to answer with.</li>
 * <li>objrdma never keeps a segment it passed in beyond the call; the store must not either.</li>
 * </ul>
 * Authorization is asked separately ({@link #isAuthorized}); the operations themselves do not check it.
 */
@ConsumerType
public interface ObjectStore {

    /** Short name for logs and the shell. */
    String name();

    // ---- principals

    /** The secret of an access key, for signature checks; empty if the key is unknown. */
    Optional<String> secretKey(String accessKeyId);

    /**
     * True if {@code accessKeyId} may perform {@code action}. {@code bucket} is null for service-level
     * actions, {@code key} null for bucket-level ones ({@link StoreAction#level()}). For a bucket that does
     * not exist a store should answer true for a known key, so that the operation reports NoSuchBucket.
     */
    boolean isAuthorized(String accessKeyId, StoreAction action, String bucket, String key);

    // ---- buckets

    /**
     * Creates an empty bucket owned by {@code owner}.
     *
     * @throws StoreException INVALID_BUCKET_NAME, BUCKET_ALREADY_OWNED_BY_YOU, BUCKET_ALREADY_EXISTS
     */
    BucketInfo createBucket(String owner, String bucket) throws StoreException;

    /** @throws StoreException NO_SUCH_BUCKET */
    BucketInfo headBucket(String bucket) throws StoreException;

    /** {@code owner}'s buckets, by name. */
    List<BucketInfo> listBuckets(String owner) throws StoreException;

    /**
     * Deletes an empty bucket (no objects, no multipart uploads in progress).
     *
     * @throws StoreException NO_SUCH_BUCKET, BUCKET_NOT_EMPTY
     */
    void deleteBucket(String bucket) throws StoreException;

    /**
     * True if this store keeps canned ACLs: {@link BucketInfo#acl()} through {@link #setBucketAcl}, and
     * {@link ObjectAttributes#acl()} committed with an object (put, copy with a replacement, multipart creation).
     * The gateway refuses an ACL other than private (501 NotImplemented) to a store that does not, rather than
     * dropping it.
     *
     * @since 2.4
     */
    default boolean supportsAcls() {
        return false;
    }

    /**
     * Replaces a bucket's canned ACL, durably.
     *
     * @throws StoreException NO_SUCH_BUCKET; NOT_IMPLEMENTED unless {@link #supportsAcls()}
     * @since 2.4
     */
    default BucketInfo setBucketAcl(String bucket, CannedAcl acl) throws StoreException {
        throw new StoreException(StoreError.NOT_IMPLEMENTED, "the store " + name() + " keeps no ACLs");
    }

    // ---- reading

    /**
     * Opens the current version of an object after checking {@code conditions} against it.
     *
     * @throws StoreException NO_SUCH_BUCKET, NO_SUCH_KEY, PRECONDITION_FAILED, NOT_MODIFIED, KEY_TOO_LONG
     */
    ObjectContent open(String bucket, String key, Conditions conditions) throws StoreException;

    /** HEAD: what {@link #open} would report, without the bytes. */
    default ObjectInfo head(String bucket, String key, Conditions conditions) throws StoreException {
        try (ObjectContent content = open(bucket, key, conditions)) {
            return content.info();
        }
    }

    /** Reads from {@code offset} into {@code destination}; see {@link ObjectContent#read}. */
    default ReadResult read(String bucket, String key, long offset, MemorySegment destination) throws StoreException {
        try (ObjectContent content = open(bucket, key, Conditions.NONE)) {
            return new ReadResult(content.read(offset, destination), content.info());
        }
    }

    // ---- writing

    /**
     * Stores {@code source} as the whole object.
     *
     * @throws StoreException NO_SUCH_BUCKET, KEY_TOO_LONG, METADATA_TOO_LARGE, ENTITY_TOO_LARGE, a veto
     *                        from the verifier, INTERNAL_ERROR
     */
    PutResult put(String bucket, String key, MemorySegment source, PutOptions options) throws StoreException;

    /**
     * Stores the bytes of {@code body} as the whole object. The body is always read to its end of stream
     * (-1), so a decoding stream (aws-chunked) has parsed its trailer before the verifier runs. With a known
     * {@code length} the body must hold exactly that many bytes (fewer: INCOMPLETE_BODY, more:
     * INVALID_ARGUMENT); with {@code length == -1} any length up to the store's maximum is accepted. The
     * verifier runs after the end, before the commit. The caller owns and closes {@code body}.
     *
     * @throws StoreException NO_SUCH_BUCKET, KEY_TOO_LONG, METADATA_TOO_LARGE, ENTITY_TOO_LARGE,
     *                        INCOMPLETE_BODY, INVALID_ARGUMENT (body longer than {@code length}), a veto
     *                        from the verifier, INTERNAL_ERROR
     * @throws java.io.IOException from {@code body}, unchanged; nothing is committed
     */
    PutResult put(String bucket, String key, InputStream body, long length, PutOptions options)
            throws StoreException, java.io.IOException;

    /**
     * True if this store keeps {@link PutOptions#condition()} atomically with the commit of a whole object.
     * The gateway refuses a conditional write (501 NotImplemented) to a store that does not, rather than
     * ignoring the condition.
     *
     * @since 2.2
     */
    default boolean supportsConditionalWrites() {
        return false;
    }

    /**
     * Deletes an object; deleting a missing key succeeds, as in S3.
     *
     * @throws StoreException NO_SUCH_BUCKET, KEY_TOO_LONG
     */
    void delete(String bucket, String key) throws StoreException;

    /**
     * DeleteObjects: deletes each key, one result per key in request order.
     *
     * @throws StoreException NO_SUCH_BUCKET, INVALID_ARGUMENT past {@link StoreLimits#MAX_DELETE_KEYS} keys
     */
    List<DeleteResult> deleteMany(String bucket, List<String> keys) throws StoreException;

    /**
     * CopyObject within this store. The target gets the source's bytes and checksum algorithms, and either
     * the source's attributes ({@code replacement == null}, S3's COPY directive) or {@code replacement}
     * (REPLACE). An ACL is never copied (since 2.4): with COPY the target is {@link CannedAcl#PRIVATE}, as S3
     * gives a copy its own ACL; a caller wanting another ACL passes a replacement. Copying an object onto itself without a replacement changes nothing and is refused.
     *
     * @throws StoreException NO_SUCH_BUCKET, NO_SUCH_KEY, PRECONDITION_FAILED (source conditions),
     *                        INVALID_REQUEST, ENTITY_TOO_LARGE
     */
    PutResult copy(String sourceBucket, String sourceKey, Conditions sourceConditions, String bucket, String key,
            ObjectAttributes replacement) throws StoreException;

    // ---- listing

    /**
     * ListObjectsV2.
     *
     * @throws StoreException NO_SUCH_BUCKET, INVALID_ARGUMENT for a continuation token it did not issue
     */
    ListPage list(String bucket, ListRequest request) throws StoreException;

    // ---- multipart

    /**
     * CreateMultipartUpload. {@code checksumAlgorithm} (or null) is computed for every part and combined
     * into S3's composite checksum at completion.
     *
     * @throws StoreException NO_SUCH_BUCKET, KEY_TOO_LONG, METADATA_TOO_LARGE
     */
    UploadInfo createMultipartUpload(String bucket, String key, ObjectAttributes attributes,
            ChecksumAlgorithm checksumAlgorithm) throws StoreException;

    /**
     * UploadPart from staging memory; replaces an earlier part of the same number.
     *
     * @throws StoreException NO_SUCH_BUCKET, NO_SUCH_UPLOAD, INVALID_ARGUMENT (part number),
     *                        ENTITY_TOO_LARGE, a veto from the verifier
     */
    PartInfo uploadPart(String bucket, String key, String uploadId, int partNumber, MemorySegment source,
            PutOptions options) throws StoreException;

    /**
     * UploadPart from a stream, with the length rules and the veto of
     * {@link #put(String, String, InputStream, long, PutOptions)}; replaces an earlier part of the same
     * number only once committed.
     *
     * @throws StoreException NO_SUCH_BUCKET, NO_SUCH_UPLOAD, INVALID_ARGUMENT (part number),
     *                        ENTITY_TOO_LARGE, INCOMPLETE_BODY, a veto from the verifier
     * @throws java.io.IOException from {@code body}; nothing is committed
     */
    PartInfo uploadPart(String bucket, String key, String uploadId, int partNumber, InputStream body, long length,
            PutOptions options) throws StoreException, java.io.IOException;

    /**
     * ListParts: up to {@code maxParts} (capped at 1000) parts numbered above {@code partNumberMarker}.
     *
     * @throws StoreException NO_SUCH_BUCKET, NO_SUCH_UPLOAD
     */
    PartsPage listParts(String bucket, String key, String uploadId, int partNumberMarker, int maxParts)
            throws StoreException;

    /**
     * CompleteMultipartUpload: the parts named, strictly ascending, each existing with a matching ETag (and
     * checksums if given), every one but the last at least {@link StoreLimits#MIN_PART_SIZE}, become the
     * object atomically; ETag {@code hex(md5(md5(part1) .. md5(partN)))-N}. Parts not named are dropped.
     * A completion repeated after it succeeded (an SDK retrying) answers the first result while the store
     * remembers it, at least {@link CompletedUpload#RETENTION} (since 2.2); naming other parts then is
     * INVALID_PART.
     *
     * @throws StoreException NO_SUCH_BUCKET, NO_SUCH_UPLOAD, MALFORMED_XML (no parts), INVALID_PART,
     *                        INVALID_PART_ORDER, ENTITY_TOO_SMALL, ENTITY_TOO_LARGE
     */
    PutResult completeMultipartUpload(String bucket, String key, String uploadId, List<CompletedPart> parts)
            throws StoreException;

    /** @throws StoreException NO_SUCH_BUCKET, NO_SUCH_UPLOAD */
    void abortMultipartUpload(String bucket, String key, String uploadId) throws StoreException;

    /** @throws StoreException NO_SUCH_BUCKET */
    UploadsPage listMultipartUploads(String bucket, ListUploadsRequest request) throws StoreException;
}
