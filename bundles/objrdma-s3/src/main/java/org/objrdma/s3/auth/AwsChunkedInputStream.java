package org.objrdma.s3.auth;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.S3ErrorCode;

/**
 * Decodes an {@code aws-chunked} body ({@code <hex size>[;chunk-signature=<sig>]CRLF <data> CRLF ...
 * 0[;chunk-signature=<sig>]CRLF [trailer lines CRLF] CRLF}) into the object bytes, verifying as it goes: every
 * chunk signature chained from the seed signature, the trailer signature, and the decoded length. A
 * violation surfaces as {@link S3BodyException} no later than the read that would have returned end of
 * stream, so a store that commits only at EOF commits nothing. Memory is bounded: chunk data is passed
 * through, only header and trailer lines (at most {@value #MAX_LINE} bytes each) are buffered.
 */
public final class AwsChunkedInputStream extends InputStream {

    static final int MAX_LINE = 4096;
    private static final int MAX_TRAILER_LINES = 16;

    private final InputStream in;
    private final PayloadMode mode;
    private final Authentication auth;
    private final long decodedLength;
    private final Map<String, String> trailers = new LinkedHashMap<>();

    private String previousSignature;
    private String chunkSignature;
    private MessageDigest chunkDigest;
    private long chunkRemaining;
    private long delivered;
    private boolean finished;
    private boolean inTrailer;
    private S3BodyException failure;

    /**
     * @param decodedLength {@code x-amz-decoded-content-length}: the body must decode to exactly this many bytes
     */
    public AwsChunkedInputStream(InputStream in, Authentication auth, long decodedLength) {
        if (!auth.payload().chunked()) {
            throw new IllegalArgumentException("not an aws-chunked payload: " + auth.payload());
        }
        this.in = in;
        this.mode = auth.payload();
        this.auth = auth;
        this.decodedLength = decodedLength;
        this.previousSignature = auth.seedSignature();
    }

    /** Trailer headers (lower-case name to value, signature line excluded), complete once EOF was read. */
    public Map<String, String> trailers() {
        return Collections.unmodifiableMap(trailers);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (len == 0) {
            return 0;
        }
        try {
            while (chunkRemaining == 0) {
                if (finished) {
                    return -1;
                }
                nextChunk();
            }
            int n = in.read(b, off, (int) Math.min(len, chunkRemaining));
            if (n < 0) {
                throw fail(S3ErrorCode.INCOMPLETE_BODY, "The aws-chunked body ended inside a chunk");
            }
            if (chunkDigest != null) {
                chunkDigest.update(b, off, n);
            }
            chunkRemaining -= n;
            delivered += n;
            if (delivered > decodedLength) {
                throw fail(S3ErrorCode.INCOMPLETE_BODY,
                        "The aws-chunked body is longer than x-amz-decoded-content-length " + decodedLength);
            }
            if (chunkRemaining == 0) {
                endChunk();
            }
            return n;
        } catch (S3BodyException e) {
            failure = e;
            throw e;
        }
    }

    /** Reads a chunk header; a zero-size chunk ends the data and reads the trailer. */
    private void nextChunk() throws IOException {
        String line = readLine();
        int semi = line.indexOf(';');
        String sizeText = semi < 0 ? line : line.substring(0, semi);
        long size;
        try {
            size = Long.parseLong(sizeText.strip(), 16);
        } catch (NumberFormatException e) {
            throw fail(S3ErrorCode.INCOMPLETE_BODY, "Bad aws-chunked chunk size '" + sizeText + "'");
        }
        if (size < 0) {
            throw fail(S3ErrorCode.INCOMPLETE_BODY, "Negative aws-chunked chunk size");
        }
        if (mode.signedChunks()) {
            String prefix = "chunk-signature=";
            if (semi < 0 || !line.startsWith(prefix, semi + 1)) {
                throw fail(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, "A chunk has no chunk-signature");
            }
            chunkSignature = line.substring(semi + 1 + prefix.length());
            chunkDigest = SigV4.sha256();
        }
        chunkRemaining = size;
        if (size == 0) {
            if (mode.signedChunks()) {
                verifyChunk();
            }
            if (mode.trailer()) {
                readTrailer();
            } else {
                String end = readLine();
                if (!end.isEmpty()) {
                    throw fail(S3ErrorCode.INCOMPLETE_BODY, "Unexpected data after the final aws-chunked chunk");
                }
            }
            if (delivered != decodedLength) {
                throw fail(S3ErrorCode.INCOMPLETE_BODY, "The aws-chunked body decoded to " + delivered
                        + " bytes but x-amz-decoded-content-length says " + decodedLength);
            }
            finished = true;
        }
    }

    private void endChunk() throws IOException {
        if (mode.signedChunks()) {
            verifyChunk();
        }
        String crlf = readLine();
        if (!crlf.isEmpty()) {
            throw fail(S3ErrorCode.INCOMPLETE_BODY, "A chunk is longer than its declared size");
        }
    }

    private void verifyChunk() throws S3BodyException {
        String toSign = "AWS4-HMAC-SHA256-PAYLOAD\n" + auth.amzDate() + '\n' + auth.scope() + '\n' + previousSignature
                + '\n' + SigV4.EMPTY_SHA256 + '\n' + SigV4.hex(chunkDigest.digest());
        String expected = SigV4.signature(auth.signingKey(), toSign);
        if (!SigV4.sameSignature(expected, chunkSignature)) {
            throw fail(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH,
                    "The chunk signature after byte " + delivered + " does not match");
        }
        previousSignature = expected;
        chunkDigest = null;
    }

    private void readTrailer() throws IOException {
        StringBuilder canonical = new StringBuilder();
        String trailerSignature = null;
        inTrailer = true;
        for (int lines = 0;; lines++) {
            String line = readLine();
            if (line.isEmpty()) {
                break;
            }
            if (lines == MAX_TRAILER_LINES) {
                throw fail(S3ErrorCode.INVALID_REQUEST, "Too many aws-chunked trailer lines");
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw fail(S3ErrorCode.INVALID_REQUEST, "Malformed aws-chunked trailer line");
            }
            String name = line.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).strip();
            if (name.equals("x-amz-trailer-signature")) {
                trailerSignature = value;
            } else {
                trailers.put(name, value);
                canonical.append(name).append(':').append(value).append('\n');
            }
        }
        if (mode == PayloadMode.STREAMING_SIGNED_TRAILER) {
            String toSign = "AWS4-HMAC-SHA256-TRAILER\n" + auth.amzDate() + '\n' + auth.scope() + '\n'
                    + previousSignature + '\n' + SigV4.sha256Hex(canonical.toString());
            String expected = SigV4.signature(auth.signingKey(), toSign);
            if (!SigV4.sameSignature(expected, trailerSignature)) {
                throw fail(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, trailerSignature == null
                        ? "The signed trailer has no x-amz-trailer-signature" : "The trailer signature does not match");
            }
        }
    }

    /** One CRLF-terminated line (CRLF stripped); the stream ending first is an incomplete body. */
    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(96);
        int prev = -1;
        while (true) {
            int c = in.read();
            if (c < 0) {
                // some clients omit the empty line that ends the trailer; the body is complete then
                if (line.size() == 0 && inTrailer) {
                    return "";
                }
                throw fail(S3ErrorCode.INCOMPLETE_BODY, "The aws-chunked body ended early");
            }
            if (c == '\n' && prev == '\r') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.ISO_8859_1);
            }
            if (line.size() == MAX_LINE) {
                throw fail(S3ErrorCode.INCOMPLETE_BODY, "An aws-chunked header or trailer line is longer than "
                        + MAX_LINE + " bytes");
            }
            line.write(c);
            prev = c;
        }
    }

    private S3BodyException fail(S3ErrorCode code, String message) {
        failure = new S3BodyException(code, message);
        return failure;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
