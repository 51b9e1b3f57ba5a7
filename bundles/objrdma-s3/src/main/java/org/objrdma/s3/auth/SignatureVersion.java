package org.objrdma.s3.auth;

/** Which AWS signature scheme verified a request. */
public enum SignatureVersion {
    /** {@code AWS AKID:signature} or {@code AWSAccessKeyId}/{@code Signature}/{@code Expires}: HMAC-SHA1. */
    V2,
    /** {@code AWS4-HMAC-SHA256}, header or presigned query. */
    V4
}
