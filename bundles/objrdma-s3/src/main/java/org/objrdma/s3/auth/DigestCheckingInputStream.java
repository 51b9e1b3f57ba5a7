package org.objrdma.s3.auth;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.S3ErrorCode;

/**
 * Passes a body through while digesting it and, at end of stream, compares the digest with the declared
 * one: a mismatch is thrown instead of returning EOF (so a store that commits at EOF commits nothing).
 * Used for a signed {@code x-amz-content-sha256} and for {@code Content-MD5}.
 */
public final class DigestCheckingInputStream extends FilterInputStream {

    private final MessageDigest digest;
    private final byte[] expected;
    private final S3ErrorCode code;
    private final String message;
    private boolean checked;

    public DigestCheckingInputStream(InputStream in, MessageDigest digest, byte[] expected, S3ErrorCode code,
            String message) {
        super(in);
        this.digest = digest;
        this.expected = expected.clone();
        this.code = code;
        this.message = message;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, len);
        if (n > 0) {
            digest.update(b, off, n);
        } else if (n < 0 && !checked) {
            if (!MessageDigest.isEqual(digest.digest(), expected)) {
                throw new S3BodyException(code, message);
            }
            checked = true;
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        // skipping would leave bytes out of the digest
        byte[] buf = new byte[(int) Math.min(8192, Math.max(0, n))];
        int r = read(buf, 0, buf.length);
        return Math.max(r, 0);
    }

    @Override
    public boolean markSupported() {
        return false;
    }
}
