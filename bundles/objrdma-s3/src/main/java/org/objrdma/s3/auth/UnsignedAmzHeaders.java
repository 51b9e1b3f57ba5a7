package org.objrdma.s3.auth;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Request;

/**
 * The rule that every {@code x-amz-*} header a request carries is covered by its verified signature, for header
 * auth and presigned URLs alike. An {@code x-amz-*} header steers what the gateway does (copy source, metadata
 * and its directive, checksums, RDMA addresses): one added on the way, or beside a presigned URL by whoever holds
 * it, would turn the signer's grant into something the signer never signed. S3 refuses such a request with
 * {@code 403 AccessDenied} "There were headers present in the request which were not signed"; so does this.
 */
final class UnsignedAmzHeaders {

    /** S3's own message for this refusal. */
    static final String MESSAGE = "There were headers present in the request which were not signed";

    /**
     * The {@code x-amz-*} headers a request may carry unsigned: the one place exceptions to the rule live (the
     * README's "Every x-amz-* header is signed" names the same list and the test that needs each entry). Empty:
     * every client the gateway is tested with (the AWS SDK v2, Debian's aws CLI, s3cmd, rclone, objrdma's own
     * clients) signs every {@code x-amz-*} header it sends, integrity and trailer headers included.
     */
    static final Set<String> MAY_BE_UNSIGNED = Set.of();

    private static final String PREFIX = "x-amz-";

    private UnsignedAmzHeaders() {
    }

    /**
     * Refuses the request with {@code 403 AccessDenied} when a header named {@code x-amz-*} (any case) is not in
     * {@code signed}, the lower-case SignedHeaders list its signature was verified over.
     */
    static void refuse(S3Request request, List<String> signed) throws S3Exception {
        Set<String> unsigned = new TreeSet<>();
        for (String name : request.headerNames()) {
            String n = name.toLowerCase(Locale.ROOT);
            if (n.startsWith(PREFIX) && !signed.contains(n) && !MAY_BE_UNSIGNED.contains(n)) {
                unsigned.add(n);
            }
        }
        if (!unsigned.isEmpty()) {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                    MESSAGE + " (HeadersNotSigned: " + String.join(", ", unsigned) + ")");
        }
    }
}
