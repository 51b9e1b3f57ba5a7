package org.objrdma.api.store;

/**
 * Why a store call failed: a closed set, each member one S3 error code with its HTTP status, so a
 * gateway maps a {@link StoreException} to a response without a table of its own.
 */
public enum StoreError {
    /** The bucket does not exist. */
    NO_SUCH_BUCKET("NoSuchBucket", 404),
    /** The key does not exist in the bucket. */
    NO_SUCH_KEY("NoSuchKey", 404),
    /** The multipart upload does not exist (never created, completed or aborted). */
    NO_SUCH_UPLOAD("NoSuchUpload", 404),
    /** The bucket name is taken by another owner. */
    BUCKET_ALREADY_EXISTS("BucketAlreadyExists", 409),
    /** The bucket already exists and the caller owns it. */
    BUCKET_ALREADY_OWNED_BY_YOU("BucketAlreadyOwnedByYou", 409),
    /** Delete of a bucket that still holds objects or multipart uploads. */
    BUCKET_NOT_EMPTY("BucketNotEmpty", 409),
    /** The bucket name breaks the S3 naming rules ({@link StoreLimits#validateBucketName}). */
    INVALID_BUCKET_NAME("InvalidBucketName", 400),
    /** The key is longer than {@link StoreLimits#MAX_KEY_BYTES} UTF-8 bytes. */
    KEY_TOO_LONG("KeyTooLong", 400),
    /** User metadata larger than {@link StoreLimits#MAX_USER_METADATA_BYTES}. */
    METADATA_TOO_LARGE("MetadataTooLarge", 400),
    /** A completed part is missing or its ETag (or checksum) does not match the uploaded part. */
    INVALID_PART("InvalidPart", 400),
    /** The completed part list is not strictly ascending by part number. */
    INVALID_PART_ORDER("InvalidPartOrder", 400),
    /** A part other than the last is smaller than {@link StoreLimits#MIN_PART_SIZE}. */
    ENTITY_TOO_SMALL("EntityTooSmall", 400),
    /** The object (or part) exceeds the store's maximum size. */
    ENTITY_TOO_LARGE("EntityTooLarge", 400),
    /** The body ended before its declared length. */
    INCOMPLETE_BODY("IncompleteBody", 400),
    /** The Content-MD5 or a checksum sent with the body does not match the bytes (commit vetoed). */
    BAD_DIGEST("BadDigest", 400),
    /** The Content-MD5 (or a checksum value) is malformed. */
    INVALID_DIGEST("InvalidDigest", 400),
    /** The x-amz-content-sha256 sent does not match the body (commit vetoed). */
    CONTENT_SHA256_MISMATCH("XAmzContentSHA256Mismatch", 400),
    /** The requested range starts at or past the end of the object. */
    INVALID_RANGE("InvalidRange", 416),
    /** GET / HEAD {@code ?partNumber=N} past the object's last part (or above 1 for a single put). Since 2.1. */
    INVALID_PART_NUMBER("InvalidPartNumber", 416),
    /** The store cannot serve this request (e.g. part boundaries it did not record). Since 2.1. */
    NOT_IMPLEMENTED("NotImplemented", 501),
    /** If-Match / If-Unmodified-Since (or a copy-source condition) failed. */
    PRECONDITION_FAILED("PreconditionFailed", 412),
    /** If-None-Match / If-Modified-Since on a read: the caller's copy is current (no body, no error XML). */
    NOT_MODIFIED("NotModified", 304),
    /** The caller may not perform the action on the bucket or object. */
    ACCESS_DENIED("AccessDenied", 403),
    /** A request that makes no sense as a whole (e.g. copying an object onto itself changing nothing). */
    INVALID_REQUEST("InvalidRequest", 400),
    /** A malformed argument: part number out of range, bad continuation token, too many keys. */
    INVALID_ARGUMENT("InvalidArgument", 400),
    /** A structurally invalid request body (e.g. complete with no parts). */
    MALFORMED_XML("MalformedXML", 400),
    /** The store failed; a failed write committed nothing. */
    INTERNAL_ERROR("InternalError", 500);

    private final String s3Code;
    private final int httpStatus;

    StoreError(String s3Code, int httpStatus) {
        this.s3Code = s3Code;
        this.httpStatus = httpStatus;
    }

    /** The S3 error code, as in the {@code <Code>} element of an error response. */
    public String s3Code() {
        return s3Code;
    }

    /** The HTTP status S3 answers this error with. */
    public int httpStatus() {
        return httpStatus;
    }
}
