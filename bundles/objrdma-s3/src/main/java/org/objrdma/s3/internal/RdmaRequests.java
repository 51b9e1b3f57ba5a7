package org.objrdma.s3.internal;

import java.security.MessageDigest;
import java.util.Locale;
import org.objrdma.api.PrincipalId;
import org.objrdma.cuobj.CuObjPrincipal;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.auth.SigV4;
import org.objrdma.s3.rdma.RdmaHeaders;

/** What both RDMA protocols check on an authenticated request: signed RDMA headers, the principal. */
final class RdmaRequests {

    private RdmaRequests() {
    }

    /**
     * Refuses (403 AccessDenied) a request carrying an {@code x-amz-rdma-*} header that its signature does
     * not cover: such a header could have been added on the way, and it steers where bytes go. The authenticator
     * already refuses every unsigned {@code x-amz-*} header; this check stays at the RDMA routes so that no
     * exception ever added to that rule reaches an address-steering header. It asks the one SignedHeaders list
     * the signature was verified over ({@link org.objrdma.s3.auth.Authentication#signedHeaders()}), never the raw
     * Authorization header or query again.
     */
    static void requireSignedRdmaHeaders(Exchange x) throws S3Exception {
        for (String name : x.request.headerNames()) {
            String n = name.toLowerCase(Locale.ROOT);
            if (n.startsWith(RdmaHeaders.PREFIX) && !x.auth.signs(n)) {
                throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                        "The header " + n + " must be signed (listed in SignedHeaders)");
            }
        }
    }

    /**
     * The cuObject principal of the request: its access key and the secret that verified its signature, so that
     * the facade dials the client's agent with that principal's own agent key ({@code AgentKeys.forPrincipal}).
     * The secret is looked up again and checked against the request's signing key (a credential rotated since
     * the signature was verified would otherwise key the transfer with a secret the client never signed with).
     */
    static CuObjPrincipal cuObjPrincipal(Exchange x) throws S3Exception {
        String ak = x.auth.accessKeyId();
        String secret = x.store.secretKey(ak).orElseThrow(() -> new S3Exception(S3ErrorCode.INVALID_ACCESS_KEY_ID));
        String[] scope = x.auth.scope().split("/", 4); // date/region/s3/aws4_request, as verified
        byte[] signingKey = SigV4.signingKey(secret, scope[0], scope[1], scope[2]);
        if (!MessageDigest.isEqual(signingKey, x.auth.signingKey())) {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                    "The credential of " + ak + " changed while the request was served; sign it again");
        }
        return CuObjPrincipal.fromCredential(ak, secret);
    }

    /** SHA-256 of {@code access:secret}: owner checks compare the credential, not a name. */
    static PrincipalId principal(Exchange x) throws S3Exception {
        String ak = x.auth.accessKeyId();
        String secret = x.store.secretKey(ak).orElseThrow(() -> new S3Exception(S3ErrorCode.INVALID_ACCESS_KEY_ID));
        return PrincipalId.fromCredentials(ak, secret);
    }
}
