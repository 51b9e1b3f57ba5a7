package org.objrdma.metrics.internal;

import java.util.regex.Pattern;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;

/**
 * The validated configuration of the endpoint. {@link #from} refuses a bad value with an
 * {@link IllegalArgumentException} naming the property (never showing a token).
 *
 * @param path          the exact path served; its first segment is never a legal S3 bucket name, so the
 *                      endpoint cannot hide a bucket from path-style requests
 * @param enabled       whether the servlet is registered
 * @param bearerToken   the token a scrape must present as {@code Authorization: Bearer <token>}; empty for none
 * @param loopbackOnly  whether only clients connecting from a loopback address are answered
 */
record MetricsSettings(String path, boolean enabled, String bearerToken, boolean loopbackOnly) {

    static final String PID = "org.objrdma.metrics";
    /** Under a first segment that starts with '.', which no S3 bucket name may. */
    static final String DEFAULT_PATH = "/.objrdma/metrics";
    /** Shortest bearer token accepted: a guessable one would be no protection. */
    static final int MIN_TOKEN_CHARS = 16;

    // exact paths only: a wildcard would take other requests from the S3 gateway's "/*"
    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._-]+)+");
    // RFC 6750's b64token
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9._~+/-]+=*");

    MetricsSettings {
        if (path == null || !PATH.matcher(path).matches()) {
            throw new IllegalArgumentException(PID + ": path = " + path + " must be an exact path such as "
                    + DEFAULT_PATH + ": '/' then segments of letters, digits, '-', '_', '.' separated by '/', no "
                    + "wildcard, no trailing '/'");
        }
        String[] segments = path.substring(1).split("/");
        for (String segment : segments) {
            if (segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException(PID + ": path = " + path + " must not hold a '.' or '..' segment");
            }
        }
        if (isBucketName(segments[0])) {
            throw new IllegalArgumentException(PID + ": path = " + path + " starts with '" + segments[0] + "', a legal "
                    + "S3 bucket name, so it would hide that bucket from path-style requests; start the path with a "
                    + "segment no bucket may have (one with '.', '_' or an upper-case letter first or in it, as "
                    + DEFAULT_PATH + ")");
        }
        bearerToken = bearerToken == null ? "" : bearerToken.strip();
        if (!bearerToken.isEmpty() && (bearerToken.length() < MIN_TOKEN_CHARS || !TOKEN.matcher(bearerToken).matches())) {
            // the value itself is never shown: it is a secret
            throw new IllegalArgumentException(PID + ": bearer.token must be empty or at least " + MIN_TOKEN_CHARS
                    + " characters of A-Z a-z 0-9 - . _ ~ + / (then '=' padding), was " + bearerToken.length()
                    + " characters not matching that");
        }
    }

    MetricsSettings(String path, boolean enabled) {
        this(path, enabled, "", true);
    }

    private static boolean isBucketName(String segment) {
        try {
            StoreLimits.validateBucketName(segment);
            return true;
        } catch (StoreException notABucket) {
            return false;
        }
    }

    static MetricsSettings from(MetricsConfig c) {
        return new MetricsSettings(c.path() == null ? null : c.path().strip(), c.enabled(), c.bearer_token(),
                c.loopback_only());
    }

    /** What a log line may say: the token's presence, never its value. */
    @Override
    public String toString() {
        return path + " (" + (bearerToken.isEmpty() ? "no bearer token" : "bearer token required")
                + (loopbackOnly ? ", loopback clients only" : ", any client") + ")";
    }
}
