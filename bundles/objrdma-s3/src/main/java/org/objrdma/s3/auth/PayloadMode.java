package org.objrdma.s3.auth;

/** How the request body is protected, from {@code x-amz-content-sha256} (or the presigned default). */
public enum PayloadMode {
    /** {@code UNSIGNED-PAYLOAD}: the body is not covered by the signature. */
    UNSIGNED,
    /** A hex SHA-256 of the body, checked while the body streams. */
    SIGNED_HASH,
    /** {@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD}: aws-chunked, every chunk signed. */
    STREAMING_SIGNED,
    /** {@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER}: signed chunks and a signed trailer. */
    STREAMING_SIGNED_TRAILER,
    /** {@code STREAMING-UNSIGNED-PAYLOAD-TRAILER}: aws-chunked without signatures, with a trailer. */
    STREAMING_UNSIGNED_TRAILER;

    public boolean chunked() {
        return this == STREAMING_SIGNED || this == STREAMING_SIGNED_TRAILER || this == STREAMING_UNSIGNED_TRAILER;
    }

    public boolean trailer() {
        return this == STREAMING_SIGNED_TRAILER || this == STREAMING_UNSIGNED_TRAILER;
    }

    public boolean signedChunks() {
        return this == STREAMING_SIGNED || this == STREAMING_SIGNED_TRAILER;
    }
}
