package org.objrdma.s3.auth;

import java.io.InputStream;
import java.security.MessageDigest;
import org.objrdma.s3.CheckedBodyStream;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.S3ErrorCode;

/**
 * Passes a body through while digesting it and, at end of stream, compares the digest with the declared
 * one: a mismatch is thrown instead of returning EOF (so a store that commits at EOF commits nothing).
 * Used for a signed {@code x-amz-content-sha256} and for {@code Content-MD5}.
 */
public final class DigestCheckingInputStream extends CheckedBodyStream {

    private final MessageDigest digest;
    private final byte[] expected;
    private final S3ErrorCode code;
    private final String message;
    private boolean checked;

    public DigestCheckingInputStream(InputStream in, MessageDigest digest, byte[] expected, S3ErrorCode code,
            String message) {
        super(in, Long.MAX_VALUE);
        this.digest = digest;
        this.expected = expected.clone();
        this.code = code;
        this.message = message;
    }

    @Override
    protected void onBytes(byte[] b, int off, int n) {
        digest.update(b, off, n);
    }

    @Override
    protected void onEnd(long total) throws S3BodyException {
        if (checked) {
            return;
        }
        if (!MessageDigest.isEqual(digest.digest(), expected)) {
            throw new S3BodyException(code, message);
        }
        checked = true;
    }
}
