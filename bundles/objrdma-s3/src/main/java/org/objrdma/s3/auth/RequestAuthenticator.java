package org.objrdma.s3.auth;

import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Request;
import org.objrdma.s3.rdma.RdmaHeaders;

/**
 * The gateway's authentication: SigV4 ({@link SigV4Authenticator}) always, SigV2 ({@link SigV2Authenticator}) unless
 * turned off; and the RDMA routes (cuObject, hipobj-rc-v2) only with SigV4, whose chunk signatures and scoped
 * signing key they build on.
 */
public final class RequestAuthenticator {

    /** The hipobj-rc-v2 routes' pseudo-bucket ({@code /.hipobj-rc/...}). */
    private static final String RC_BUCKET = RdmaHeaders.RC_ROUTE_PREFIX.substring(1, RdmaHeaders.RC_ROUTE_PREFIX.length() - 1);

    private final SigV4Authenticator v4;
    /** Null when SigV2 is refused. */
    private final SigV2Authenticator v2;

    public RequestAuthenticator(String region, Duration maxSkew, boolean acceptSigV2, Clock clock,
            CredentialSource credentials) {
        this.v4 = new SigV4Authenticator(region, maxSkew, clock, credentials);
        this.v2 = acceptSigV2 ? new SigV2Authenticator(maxSkew, clock, credentials) : null;
    }

    /**
     * @param bucket       the bucket the request names (null for the service)
     * @param virtualHost  whether the bucket came from the Host header
     */
    public Authentication authenticate(S3Request request, QueryString query, String bucket, boolean virtualHost)
            throws S3Exception {
        if (!SigV2Authenticator.isSigV2(request, query)) {
            // the hipobj-rc-v2 control POSTs also take hipObject's signing convention (SigV4Authenticator)
            return v4.authenticate(request, query, RC_BUCKET.equals(bucket) && !virtualHost);
        }
        if (v2 == null) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "The authorization mechanism you have provided is not "
                    + "supported (AWS Signature Version 2 is turned off on this gateway: org.objrdma.s3 "
                    + "sigv2.enabled = false). Please use AWS4-HMAC-SHA256.");
        }
        if (RC_BUCKET.equals(bucket) || hasRdmaHeader(request)) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "The RDMA routes (cuObject, hipobj-rc-v2) require AWS "
                    + "Signature Version 4; this request is signed with Version 2. Please use AWS4-HMAC-SHA256.");
        }
        return v2.authenticate(request, query, virtualHost ? bucket : null);
    }

    private static boolean hasRdmaHeader(S3Request request) {
        for (String name : request.headerNames()) {
            if (name.toLowerCase(Locale.ROOT).startsWith(RdmaHeaders.PREFIX)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "RequestAuthenticator[sigV2=" + (v2 != null) + "]";
    }

}
