package org.objrdma.s3;

import java.io.IOException;

/**
 * Thrown from a request body stream (while the store is reading it) when the body breaks an S3 rule: a
 * payload hash, chunk signature, checksum or length that does not match. The store sees an
 * {@link IOException}, so it commits nothing; the gateway unwraps {@link #s3()} into the answer.
 */
public final class S3BodyException extends IOException {

    private static final long serialVersionUID = 1L;

    private final S3Exception s3;

    public S3BodyException(S3ErrorCode code, String message) {
        super(code.code() + ": " + message);
        this.s3 = new S3Exception(code, message);
    }

    public S3Exception s3() {
        return s3;
    }
}
