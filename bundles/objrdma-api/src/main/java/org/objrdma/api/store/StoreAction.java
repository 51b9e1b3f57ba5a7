package org.objrdma.api.store;

/**
 * What a principal asks to do. Service-level actions name no bucket, bucket-level actions name a bucket,
 * object-level actions a bucket and a key ({@link #level()}); see
 * {@link ObjectStore#isAuthorized(String, StoreAction, String, String)}.
 */
public enum StoreAction {
    /** ListBuckets (the caller's own buckets). */
    LIST_BUCKETS(Level.SERVICE),
    /** CreateBucket. */
    CREATE_BUCKET(Level.BUCKET),
    /** HeadBucket, GetBucketLocation. */
    HEAD_BUCKET(Level.BUCKET),
    /** DeleteBucket. */
    DELETE_BUCKET(Level.BUCKET),
    /** ListObjectsV2. */
    LIST_OBJECTS(Level.BUCKET),
    /** ListMultipartUploads. */
    LIST_MULTIPART_UPLOADS(Level.BUCKET),
    /** GetObject, HeadObject, a range, and the source of a copy. */
    GET_OBJECT(Level.OBJECT),
    /** PutObject, the target of a copy, CreateMultipartUpload, UploadPart, CompleteMultipartUpload. */
    PUT_OBJECT(Level.OBJECT),
    /** DeleteObject, and each key of DeleteObjects. */
    DELETE_OBJECT(Level.OBJECT),
    /** AbortMultipartUpload. */
    ABORT_MULTIPART_UPLOAD(Level.OBJECT),
    /** ListParts. */
    LIST_PARTS(Level.OBJECT);

    /** What an action applies to. */
    public enum Level {
        /** No bucket: bucket and key are null. */
        SERVICE,
        /** One bucket: key is null. */
        BUCKET,
        /** One object: bucket and key given. */
        OBJECT
    }

    private final Level level;

    StoreAction(Level level) {
        this.level = level;
    }

    public Level level() {
        return level;
    }
}
