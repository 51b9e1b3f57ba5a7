package org.objrdma.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Base64;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CommitVerifier;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.auth.AwsChunkedInputStream;
import org.objrdma.s3.auth.DigestCheckingInputStream;
import org.objrdma.s3.auth.PayloadMode;
import org.objrdma.s3.auth.SigV4;

/**
 * A request body opened for the store: decoded (aws-chunked) and verified while it streams (payload hash,
 * chunk signatures), plus the commit verifier that compares Content-MD5 and {@code x-amz-checksum-*}
 * (header or trailer) with the digests the store computed, so a mismatch commits nothing.
 */
final class Bodies {

    /**
     * @param stream     the object bytes
     * @param length     their number (decoded length for aws-chunked)
     * @param checksums  the algorithms the store is asked to compute
     * @param verifier   the veto the store runs before it commits
     */
    record Body(InputStream stream, long length, Set<ChecksumAlgorithm> checksums, CommitVerifier verifier) {
    }

    private Bodies() {
    }

    /** The body of a request that carries an object or part. */
    static Body open(Exchange x) throws S3Exception, IOException {
        return open(x, true);
    }

    /**
     * @param checksumHeadersCoverBody whether {@code x-amz-checksum-*} headers are digests of this body (false for
     *                                 CompleteMultipartUpload, whose headers describe the object it completes)
     */
    private static Body open(Exchange x, boolean checksumHeadersCoverBody) throws S3Exception, IOException {
        PayloadMode mode = x.auth.payload();
        long length;
        InputStream in = x.request.body();
        AwsChunkedInputStream chunked = null;
        if (mode.chunked()) {
            length = parseLength(x.header("x-amz-decoded-content-length"), "x-amz-decoded-content-length");
            if (length < 0) {
                throw new S3Exception(S3ErrorCode.MISSING_CONTENT_LENGTH,
                        "An aws-chunked body needs x-amz-decoded-content-length");
            }
            chunked = new AwsChunkedInputStream(in, x.auth, length);
            in = chunked;
        } else {
            length = parseLength(x.header("Content-Length"), "Content-Length");
            if (length < 0) {
                if (!Http.chunkedTransfer(x.header("Transfer-Encoding"))) {
                    throw new S3Exception(S3ErrorCode.MISSING_CONTENT_LENGTH);
                }
                // plain HTTP chunking: the length is known only at the end, the limit is held while it streams
                in = new BoundedBodyStream(in, x.settings.maxPutBytes());
            }
            if (mode == PayloadMode.SIGNED_HASH) {
                in = new DigestCheckingInputStream(in, SigV4.sha256(), HexFormat.of().parseHex(x.auth.payloadSha256()),
                        S3ErrorCode.X_AMZ_CONTENT_SHA256_MISMATCH,
                        "The provided 'x-amz-content-sha256' header does not match what was computed");
            }
        }
        if (length > x.settings.maxPutBytes()) {
            throw new S3Exception(S3ErrorCode.ENTITY_TOO_LARGE, "Your proposed upload of " + length
                    + " bytes exceeds the maximum allowed size of " + x.settings.maxPutBytes() + " bytes");
        }
        return checked(x, in, length, trailerAlgorithm(x, mode), chunked, checksumHeadersCoverBody);
    }

    /**
     * Object bytes that did not come in the HTTP body (an RDMA PUT): the store computes the digests the
     * request asks for over the bytes that arrived, and the verifier compares them with the declared ones.
     */
    static Body arrived(Exchange x, InputStream in, long length) throws S3Exception {
        return checked(x, in, length, null, null, true);
    }

    private static Body checked(Exchange x, InputStream in, long length, ChecksumAlgorithm trailerAlgorithm,
            AwsChunkedInputStream chunked, boolean checksumHeadersCoverBody) throws S3Exception {
        String md5 = contentMd5(x.header("Content-MD5"));
        Map<ChecksumAlgorithm, String> declared = checksumHeadersCoverBody ? declaredChecksums(x) : Map.of();
        Set<ChecksumAlgorithm> compute = EnumSet.noneOf(ChecksumAlgorithm.class);
        compute.addAll(declared.keySet());
        if (trailerAlgorithm != null) {
            compute.add(trailerAlgorithm);
        }
        algorithmHeader(x).ifPresent(compute::add);
        AwsChunkedInputStream trailerSource = chunked;
        CommitVerifier verifier = digests -> {
            if (md5 != null && !md5.equals(digests.md5Base64())) {
                throw new StoreException(StoreError.BAD_DIGEST, "The Content-MD5 you specified did not match what we received");
            }
            for (Map.Entry<ChecksumAlgorithm, String> e : declared.entrySet()) {
                checkChecksum(e.getKey(), e.getValue(), digests.checksums().get(e.getKey()));
            }
            if (trailerAlgorithm != null) {
                String sent = trailerSource.trailers().get(trailerAlgorithm.headerName());
                if (sent == null) {
                    throw new StoreException(StoreError.INVALID_REQUEST,
                            "The trailer " + trailerAlgorithm.headerName() + " declared in x-amz-trailer was not sent");
                }
                if (!trailerAlgorithm.isWellFormed(sent)) {
                    throw new StoreException(StoreError.INVALID_REQUEST,
                            "Value for " + trailerAlgorithm.headerName() + " trailer is invalid");
                }
                checkChecksum(trailerAlgorithm, sent, digests.checksums().get(trailerAlgorithm));
            }
        };
        return new Body(in, length, compute, verifier);
    }

    private static void checkChecksum(ChecksumAlgorithm algorithm, String sent, String computed) throws StoreException {
        if (!sent.equals(computed)) {
            throw new StoreException(StoreError.BAD_DIGEST,
                    "The " + algorithm.s3Name() + " you specified did not match the calculated checksum");
        }
    }

    /** -1 when absent. */
    static long parseLength(String v, String name) throws S3Exception {
        if (v == null) {
            return -1;
        }
        try {
            long n = Long.parseLong(v.strip());
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, name + " must be a non-negative integer, was '" + v + "'");
        }
    }

    /** The Content-MD5 in canonical base64, null when absent; malformed is InvalidDigest. */
    static String contentMd5(String header) throws S3Exception {
        if (header == null) {
            return null;
        }
        try {
            byte[] raw = Base64.getDecoder().decode(header.strip());
            if (raw.length == 16) {
                return Base64.getEncoder().encodeToString(raw);
            }
        } catch (IllegalArgumentException e) {
            // falls through to the error
        }
        throw new S3Exception(S3ErrorCode.INVALID_DIGEST, "The Content-MD5 you specified is not valid: '" + header + "'");
    }

    /** {@code x-amz-checksum-<alg>} headers with values; at most one, well-formed. */
    static Map<ChecksumAlgorithm, String> declaredChecksums(Exchange x) throws S3Exception {
        Map<ChecksumAlgorithm, String> out = new EnumMap<>(ChecksumAlgorithm.class);
        for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
            String v = x.header(a.headerName());
            if (v != null) {
                if (!a.isWellFormed(v.strip())) {
                    // a value that is no checksum at all cannot match the body: S3-compatible servers and ceph's
                    // s3-tests answer it BadDigest, as a wrong one
                    throw new S3Exception(S3ErrorCode.BAD_DIGEST, "Value for " + a.headerName() + " header is invalid: "
                            + "not the base64 of a " + a.s3Name() + " checksum, so it cannot match the body");
                }
                out.put(a, v.strip());
            }
        }
        if (out.size() > 1) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.");
        }
        return out;
    }

    /**
     * The object checksum CompleteMultipartUpload declares: {@code x-amz-checksum-<alg>} as S3's composite
     * ({@code base64-N}) or plain base64; at most one; a value of neither form is BadDigest (it cannot match).
     */
    static Map<ChecksumAlgorithm, String> declaredObjectChecksums(Exchange x) throws S3Exception {
        Map<ChecksumAlgorithm, String> out = new EnumMap<>(ChecksumAlgorithm.class);
        for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
            String v = x.header(a.headerName());
            if (v != null) {
                String value = v.strip();
                int dash = value.lastIndexOf('-');
                boolean partCount = dash > 0 && value.substring(dash + 1).matches("[1-9][0-9]{0,4}");
                if (!a.isWellFormed(partCount ? value.substring(0, dash) : value)) {
                    throw new S3Exception(S3ErrorCode.BAD_DIGEST, "Value for " + a.headerName() + " header is invalid: "
                            + "not the base64 of a " + a.s3Name() + " checksum (optionally -N), so it cannot match");
                }
                out.put(a, value);
            }
        }
        if (out.size() > 1) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.");
        }
        return out;
    }

    /** {@code x-amz-sdk-checksum-algorithm} (or {@code x-amz-checksum-algorithm}), if sent. */
    static Optional<ChecksumAlgorithm> algorithmHeader(Exchange x) throws S3Exception {
        String v = x.header("x-amz-sdk-checksum-algorithm");
        if (v == null) {
            v = x.header("x-amz-checksum-algorithm");
        }
        if (v == null) {
            return Optional.empty();
        }
        String name = v.strip();
        return Optional.of(ChecksumAlgorithm.fromS3Name(name).orElseThrow(() -> new S3Exception(
                S3ErrorCode.INVALID_REQUEST, "Checksum algorithm '" + name + "' is not one of CRC32, CRC32C, CRC64NVME, SHA1, SHA256")));
    }

    private static ChecksumAlgorithm trailerAlgorithm(Exchange x, PayloadMode mode) throws S3Exception {
        String trailer = x.header("x-amz-trailer");
        if (trailer == null) {
            // a trailer mode without a declared trailer has nothing to check
            return null;
        }
        if (!mode.trailer()) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
                    "x-amz-trailer needs a STREAMING-*-TRAILER x-amz-content-sha256");
        }
        String name = trailer.strip().toLowerCase(Locale.ROOT);
        return ChecksumAlgorithm.fromHeaderName(name).orElseThrow(() -> new S3Exception(S3ErrorCode.INVALID_REQUEST,
                "The trailer '" + name + "' is not an x-amz-checksum-* header"));
    }

    /**
     * A small body (XML) as it streams, never read whole: decoded and verified like an object body (payload
     * hash, chunk signatures) with Content-MD5 checked at its end, so its reader reaches the end before it acts.
     * A declared length over the XML limit is MaxMessageLengthExceeded before a byte is read; a body without a
     * declared length is held to the limit by its reader ({@link org.objrdma.s3.xml.XmlBodies}).
     */
    static InputStream xml(Exchange x) throws S3Exception, IOException {
        return xml(x, true);
    }

    /** As {@link #xml(Exchange)}; {@code checksumHeadersCoverBody} as for {@link #open(Exchange, boolean)}. */
    static InputStream xml(Exchange x, boolean checksumHeadersCoverBody) throws S3Exception, IOException {
        long declared = x.auth.payload().chunked()
                ? parseLength(x.header("x-amz-decoded-content-length"), "x-amz-decoded-content-length")
                : parseLength(x.header("Content-Length"), "Content-Length");
        if (declared > x.settings.maxXmlBodyBytes()) {
            throw tooBig(x);
        }
        InputStream in = openForXml(x, checksumHeadersCoverBody).stream();
        String md5 = contentMd5(x.header("Content-MD5"));
        if (md5 != null) {
            try {
                in = new DigestCheckingInputStream(in, java.security.MessageDigest.getInstance("MD5"),
                        Base64.getDecoder().decode(md5), S3ErrorCode.BAD_DIGEST,
                        "The Content-MD5 you specified did not match what we received");
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
        return in;
    }

    /** A small body the operation does not need (CreateBucket's configuration): verified to its end, not kept. */
    static void discardSmall(Exchange x) throws S3Exception, IOException {
        InputStream in = xml(x);
        byte[] sink = new byte[8192];
        long total = 0;
        int n;
        while ((n = in.read(sink)) >= 0) {
            total += n;
            if (total > x.settings.maxXmlBodyBytes()) {
                throw tooBig(x);
            }
        }
    }

    private static S3Exception tooBig(Exchange x) {
        return new S3Exception(S3ErrorCode.MAX_MESSAGE_LENGTH_EXCEEDED,
                "Your request was too big: an XML body may have at most " + x.settings.maxXmlBodyBytes() + " bytes");
    }

    private static Body openForXml(Exchange x, boolean checksumHeadersCoverBody) throws S3Exception, IOException {
        if (x.auth.payload().chunked() || x.header("Content-Length") != null) {
            return open(x, checksumHeadersCoverBody);
        }
        // chunked transfer encoding without a length: read to the end, bounded by its reader
        InputStream in = x.request.body();
        if (x.auth.payload() == PayloadMode.SIGNED_HASH) {
            in = new DigestCheckingInputStream(in, SigV4.sha256(), HexFormat.of().parseHex(x.auth.payloadSha256()),
                    S3ErrorCode.X_AMZ_CONTENT_SHA256_MISMATCH,
                    "The provided 'x-amz-content-sha256' header does not match what was computed");
        }
        return new Body(in, -1, Set.of(), CommitVerifier.ACCEPT_ALL);
    }
}
