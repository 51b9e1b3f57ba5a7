package org.objrdma.store.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Set;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CommitVerifier;
import org.objrdma.api.store.Digests;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.wire.SegmentStreams;
import software.amazon.awssdk.http.ContentStreamProvider;

/**
 * A client's body of known length on its way to the remote store in one streamed PutObject, with the commit
 * veto kept: every byte is digested as it passes, and the last bytes are handed to the SDK only after the body
 * was read to its end of stream (so a decoding stream parsed its trailer), its length checked and the verifier
 * accepted the digests. A refusal (short or long body, the verifier's veto, the body's own I/O error) surfaces
 * as {@link Refused} thrown from {@code read}: the remote got fewer bytes than the request's length, so it
 * commits nothing (an S3 PUT is whole or nothing), and the caller unwraps the cause.
 *
 * <p>Sent once: the SDK may ask for the stream again (a retry, the next endpoint) only while no byte was taken
 * from the client's body; after that a second stream is refused, since the body cannot be read twice.
 */
final class VerifiedBody extends InputStream implements ContentStreamProvider {
    /** Why the body was not sent whole: a {@link StoreException} or the body's {@link IOException}. Not an I/O error. */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(Exception cause) {
            super(cause.getMessage(), cause, false, false);
        }

        /** The {@code Refused} in {@code t}'s cause chain, or null. */
        static Refused in(Throwable t) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                if (c instanceof Refused r) {
                    return r;
                }
            }
            return null;
        }

        void rethrow() throws StoreException, IOException {
            if (getCause() instanceof StoreException e) {
                throw e;
            }
            throw (IOException) getCause();
        }
    }

    private final InputStream body;
    private final long length;
    private final Digester digester;
    private final CommitVerifier verifier;
    private long passed;
    private Digests digests;

    VerifiedBody(InputStream body, long length, Set<ChecksumAlgorithm> algorithms, CommitVerifier verifier) {
        this.body = body;
        this.length = length;
        this.digester = new Digester(algorithms);
        this.verifier = verifier;
    }

    @Override
    public InputStream newStream() {
        if (passed > 0) {
            throw new Refused(new StoreException(StoreError.INTERNAL_ERROR, "the remote store failed after "
                    + passed + " bytes of the body were sent; a streamed body cannot be sent again"));
        }
        return this;
    }

    /** The digests of the whole body, once it was accepted. */
    Digests digests() {
        return digests;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        if (passed == length) {
            return -1;
        }
        if (len == 0) {
            return 0;
        }
        try {
            int n = body.read(b, off, (int) Math.min(len, length - passed));
            if (n < 0) {
                throw new StoreException(StoreError.INCOMPLETE_BODY,
                        "the body ended after " + passed + " of " + length + " declared bytes");
            }
            digester.update(b, off, n);
            if (passed + n == length) {
                accept(); // before the last bytes leave: without them the remote commits nothing
            }
            passed += n;
            return n;
        } catch (StoreException | IOException e) {
            throw new Refused(e);
        }
    }

    private void accept() throws StoreException, IOException {
        if (body.read() >= 0) {
            byte[] rest = new byte[SegmentStreams.CHUNK];
            while (body.read(rest) >= 0) {
                // to the end, so a decoding stream parses its trailer; nothing of it is stored
            }
            throw new StoreException(StoreError.INVALID_ARGUMENT,
                    "the body is longer than its declared length of " + length + " bytes");
        }
        Digests done = digester.finish();
        verifier.verify(done);
        digests = done;
    }

    @Override
    public void close() {
        // the caller owns the client's body
    }
}
