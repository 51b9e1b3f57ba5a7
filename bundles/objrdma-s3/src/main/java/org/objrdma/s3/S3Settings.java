package org.objrdma.s3;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What the protocol layer is configured with (the servlet component reads it from PID {@code org.objrdma.s3}).
 *
 * @param region             the region signatures must be scoped to and GetBucketLocation reports
 * @param virtualHostDomain  base domain for virtual-host-style requests ({@code bucket.<domain>}); empty
 *                           for path style only
 * @param maxClockSkew       how far a header-signed request's time may be from the server's
 * @param maxXmlBodyBytes    largest XML request body (CompleteMultipartUpload, DeleteObjects)
 * @param maxPutBytes        largest PutObject / UploadPart body
 * @param acceptSigV2        whether AWS Signature Version 2 is accepted (header and presigned) besides SigV4;
 *                           false is the stricter choice (the RDMA routes take SigV4 only either way)
 * @param publicAccess       whether public canned ACLs (public-read, public-read-write, authenticated-read) may be
 *                           set and are honoured, and anonymous requests served where such an ACL grants them; false
 *                           (the default, as S3's Block Public Access) refuses those ACLs with 403 AccessDenied,
 *                           ignores any already stored, and refuses every anonymous request before any lookup
 *                           (since 1.4)
 */
public record S3Settings(String region, String virtualHostDomain, Duration maxClockSkew, int maxXmlBodyBytes,
        long maxPutBytes, boolean acceptSigV2, boolean publicAccess) {

    private static final Pattern REGION = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

    public static final S3Settings DEFAULTS = new S3Settings("us-east-1", "", Duration.ofMinutes(15), 3 << 20,
            5L << 30, true, false);

    /** As the canonical constructor, with SigV2 accepted (the default). */
    public S3Settings(String region, String virtualHostDomain, Duration maxClockSkew, int maxXmlBodyBytes,
            long maxPutBytes) {
        this(region, virtualHostDomain, maxClockSkew, maxXmlBodyBytes, maxPutBytes, true, false);
    }

    /** As the canonical constructor, public access off (the 1.3 form). */
    public S3Settings(String region, String virtualHostDomain, Duration maxClockSkew, int maxXmlBodyBytes,
            long maxPutBytes, boolean acceptSigV2) {
        this(region, virtualHostDomain, maxClockSkew, maxXmlBodyBytes, maxPutBytes, acceptSigV2, false);
    }

    /** These settings with SigV2 accepted or refused. */
    public S3Settings withSigV2(boolean accept) {
        return new S3Settings(region, virtualHostDomain, maxClockSkew, maxXmlBodyBytes, maxPutBytes, accept,
                publicAccess);
    }

    /** These settings with public access allowed or blocked. @since 1.4 */
    public S3Settings withPublicAccess(boolean allow) {
        return new S3Settings(region, virtualHostDomain, maxClockSkew, maxXmlBodyBytes, maxPutBytes, acceptSigV2, allow);
    }

    /** Checks every value; a bad one throws {@link IllegalArgumentException} naming the property. */
    public S3Settings {
        Objects.requireNonNull(region, "region");
        if (!REGION.matcher(region).matches()) {
            throw new IllegalArgumentException("region must be lower-case letters, digits and '-', was '" + region + "'");
        }
        virtualHostDomain = virtualHostDomain == null ? "" : virtualHostDomain.strip().toLowerCase(Locale.ROOT);
        if (virtualHostDomain.startsWith(".") || virtualHostDomain.endsWith(".") || virtualHostDomain.contains(":")) {
            throw new IllegalArgumentException("virtual.host.domain must be a host name without port or leading/trailing "
                    + "dot, was '" + virtualHostDomain + "'");
        }
        if (maxClockSkew == null || maxClockSkew.isNegative() || maxClockSkew.isZero()
                || maxClockSkew.compareTo(Duration.ofHours(24)) > 0) {
            throw new IllegalArgumentException("max.clock.skew must be 1 s to 24 h, was " + maxClockSkew);
        }
        if (maxXmlBodyBytes < 1024) {
            throw new IllegalArgumentException("max.xml.body.bytes must be at least 1024, was " + maxXmlBodyBytes);
        }
        if (maxPutBytes < 1) {
            throw new IllegalArgumentException("max.put.bytes must be positive, was " + maxPutBytes);
        }
    }
}
