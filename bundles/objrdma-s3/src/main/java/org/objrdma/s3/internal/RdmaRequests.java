package org.objrdma.s3.internal;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.objrdma.api.PrincipalId;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.rdma.RdmaHeaders;

/** What both RDMA protocols check on an authenticated request: signed RDMA headers, the principal. */
final class RdmaRequests {

    private RdmaRequests() {
    }

    /**
     * Refuses (403 AccessDenied) a request carrying an {@code x-amz-rdma-*} header that its signature does
     * not cover: such a header could have been added on the way, and it steers where bytes go.
     */
    static void requireSignedRdmaHeaders(Exchange x) throws S3Exception {
        Set<String> signed = signedHeaders(x);
        for (String name : x.request.headerNames()) {
            String n = name.toLowerCase(Locale.ROOT);
            if (n.startsWith(RdmaHeaders.PREFIX) && !signed.contains(n)) {
                throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                        "The header " + n + " must be signed (listed in SignedHeaders)");
            }
        }
    }

    private static Set<String> signedHeaders(Exchange x) {
        String list = x.query.get("X-Amz-SignedHeaders");
        if (list == null) {
            String auth = x.header("Authorization");
            int at = auth == null ? -1 : auth.indexOf("SignedHeaders=");
            if (at >= 0) {
                int end = auth.indexOf(',', at);
                list = auth.substring(at + "SignedHeaders=".length(), end < 0 ? auth.length() : end);
            }
        }
        Set<String> out = new HashSet<>();
        if (list != null) {
            for (String h : list.strip().split(";")) {
                out.add(h.strip().toLowerCase(Locale.ROOT));
            }
        }
        return out;
    }

    /** SHA-256 of {@code access:secret}: owner checks compare the credential, not a name. */
    static PrincipalId principal(Exchange x) throws S3Exception {
        String ak = x.auth.accessKeyId();
        String secret = x.store.secretKey(ak).orElseThrow(() -> new S3Exception(S3ErrorCode.INVALID_ACCESS_KEY_ID));
        return PrincipalId.fromCredentials(ak, secret);
    }
}
