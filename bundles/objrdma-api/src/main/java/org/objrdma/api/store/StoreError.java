package org.objrdma.api.store;

/** Why a store call failed; each maps to one S3 error code. */
public enum StoreError {
    /** S3 NoSuchBucket (404). */
    NO_SUCH_BUCKET,
    /** S3 NoSuchKey (404). */
    NO_SUCH_KEY,
    /** S3 NoSuchUpload (404). */
    NO_SUCH_UPLOAD,
    /** S3 AccessDenied (403). */
    ACCESS_DENIED,
    /** S3 InvalidRange (416): the range starts at or beyond the object's end. */
    INVALID_RANGE,
    /** S3 InvalidArgument (400): a malformed name or part number. */
    INVALID_ARGUMENT,
    /** S3 EntityTooLarge (400). */
    TOO_LARGE,
    /** S3 InternalError (500): the store failed; nothing was committed. */
    IO
}
