package org.objrdma.store.s3.internal;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.wire.UserCredentials;

/**
 * The checked configuration of PID {@code org.objrdma.store.s3}. Every bad value is refused with an
 * {@link IllegalArgumentException} naming the property, so DS records a failed activation and nothing starts.
 */
record S3StoreSettings(List<URI> endpoints, String region, boolean pathStyle, String serviceAccessKey,
        String serviceSecretKey, Path trustStore, String trustStorePassword, int maxConnections,
        int connectTimeoutMs, int readTimeoutMs, int maxRetries, long multipartThreshold, long partSize,
        String bucketPrefix, String systemBucket, UserCredentials users, int failoverCooldownMs,
        Set<Integer> failoverStatuses, int catalogCacheMs) {

    static final long MAX_PART = 5L * 1024 * 1024 * 1024;

    S3StoreSettings {
        endpoints = List.copyOf(endpoints);
        failoverStatuses = Set.copyOf(failoverStatuses);
        if (partSize > multipartThreshold) {
            throw new IllegalArgumentException("multipart.part.size (" + partSize
                    + ") must not exceed multipart.threshold (" + multipartThreshold + ")");
        }
        try {
            StoreLimits.validateBucketName(systemBucket);
            if (!bucketPrefix.isEmpty()) {
                StoreLimits.validateBucketName(bucketPrefix + "abc");
            }
        } catch (StoreException e) {
            throw new IllegalArgumentException("system.bucket / bucket.prefix: " + e.detail());
        }
        if (bucketPrefix.length() > 60) {
            throw new IllegalArgumentException("bucket.prefix leaves no room for a bucket name (at most 60 chars)");
        }
    }

    static S3StoreSettings from(Map<String, ?> p) {
        List<URI> endpoints = endpoints(required(p, "endpoint"));
        Path trust = null;
        String trustSpec = string(p, "tls.truststore", "");
        if (!trustSpec.isBlank()) {
            trust = Path.of(trustSpec);
            if (!Files.isReadable(trust)) {
                throw new IllegalArgumentException("tls.truststore: " + trust + " is not a readable file");
            }
        }
        String region = string(p, "region", "us-east-1");
        if (!region.matches("[a-z0-9-]{1,64}")) {
            throw new IllegalArgumentException("region: 1..64 of a-z 0-9 -, was '" + region + "'");
        }
        return new S3StoreSettings(endpoints, region, bool(p, "path.style", true),
                required(p, "service.access.key"), required(p, "service.secret.key"), trust,
                string(p, "tls.truststore.password", ""),
                (int) number(p, "max.connections", 64, 1, 4096),
                (int) number(p, "connect.timeout.ms", 5000, 1, 600_000),
                (int) number(p, "read.timeout.ms", 60_000, 1, 3_600_000),
                (int) number(p, "max.retries", 3, 0, 20),
                number(p, "multipart.threshold", 64L << 20, StoreLimits.MIN_PART_SIZE, MAX_PART),
                number(p, "multipart.part.size", 16L << 20, StoreLimits.MIN_PART_SIZE, MAX_PART),
                string(p, "bucket.prefix", ""), string(p, "system.bucket", "objrdma-system"),
                users(string(p, "credentials", "")),
                (int) number(p, "failover.cooldown.ms", 30_000, 0, 3_600_000),
                statuses(string(p, "failover.statuses", "502,503,504")),
                (int) number(p, "catalog.cache.ms", 1000, 0, 60_000));
    }

    /** The gateway's users: the rules of {@link UserCredentials#parse}, and at least one. */
    private static UserCredentials users(String spec) {
        if (spec.isBlank()) {
            throw new IllegalArgumentException("credentials: at least one ACCESSKEY:SECRET is required");
        }
        try {
            return UserCredentials.parse(spec);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("credentials: " + e.getMessage());
        }
    }

    /** The first endpoint: the one the adapter prefers while it answers. */
    URI endpoint() {
        return endpoints.getFirst();
    }

    private static List<URI> endpoints(String spec) {
        List<URI> list = new ArrayList<>();
        for (String one : spec.split(",", -1)) {
            if (one.isBlank()) {
                throw new IllegalArgumentException("endpoint: an empty entry in the list '" + spec + "'");
            }
            URI uri = endpoint(one);
            if (list.contains(uri)) {
                throw new IllegalArgumentException("endpoint: " + uri + " is listed twice");
            }
            list.add(uri);
        }
        if (list.size() > 16) {
            throw new IllegalArgumentException("endpoint: at most 16 endpoints, was " + list.size());
        }
        return list;
    }

    private static Set<Integer> statuses(String spec) {
        Set<Integer> set = new TreeSet<>();
        for (String one : spec.split(",")) {
            if (one.isBlank()) {
                continue;
            }
            int status;
            try {
                status = Integer.parseInt(one.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("failover.statuses: not an HTTP status: '" + one.strip() + "'");
            }
            if (status < 500 || status > 599) {
                throw new IllegalArgumentException("failover.statuses: only 5xx statuses say the endpoint failed, was "
                        + status);
            }
            set.add(status);
        }
        return set;
    }

    private static URI endpoint(String spec) {
        try {
            URI uri = new URI(spec.strip());
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new IllegalArgumentException("endpoint: an http:// or https:// URI with a host, was '" + spec + "'");
            }
            if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
                throw new IllegalArgumentException("endpoint: no query or fragment allowed, was '" + spec + "'");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("endpoint: not a URI: " + e.getMessage());
        }
    }

    private static String required(Map<String, ?> p, String name) {
        String v = string(p, name, "");
        if (v.isBlank()) {
            throw new IllegalArgumentException(name + " is required");
        }
        return v.strip();
    }

    private static String string(Map<String, ?> p, String name, String fallback) {
        Object v = p.get(name);
        return v == null ? fallback : v.toString();
    }

    private static boolean bool(Map<String, ?> p, String name, boolean fallback) {
        Object v = p.get(name);
        if (v == null) {
            return fallback;
        }
        String s = v.toString().strip();
        if (!s.equalsIgnoreCase("true") && !s.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException(name + ": true or false, was '" + s + "'");
        }
        return Boolean.parseBoolean(s);
    }

    private static long number(Map<String, ?> p, String name, long fallback, long min, long max) {
        Object v = p.get(name);
        long n;
        try {
            n = v == null ? fallback : v instanceof Number num ? num.longValue() : Long.parseLong(v.toString().strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": not an integer: '" + v + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(name + ": must be " + min + ".." + max + ", was " + n);
        }
        return n;
    }

    /**
     * Every setting but the service secret key and the trust store password, which a record's own toString would
     * print (and with them into any log line or exception message that names the settings).
     */
    @Override
    public String toString() {
        return "S3StoreSettings[endpoints " + endpoints + ", region " + region + ", path style " + pathStyle
                + ", service access key " + serviceAccessKey + ", service secret key (not shown), trust store "
                + (trustStore == null ? "none" : trustStore + ", password (not shown)") + ", max connections "
                + maxConnections + ", timeouts " + connectTimeoutMs + "/" + readTimeoutMs + " ms, retries " + maxRetries
                + ", multipart " + multipartThreshold + "/" + partSize + ", bucket prefix '" + bucketPrefix
                + "', system bucket " + systemBucket + ", users " + users + ", failover cooldown " + failoverCooldownMs
                + " ms on " + failoverStatuses + ", catalog cache " + catalogCacheMs + " ms]";
    }

    /** The remote name of a gateway bucket. */
    String remoteBucket(String bucket) {
        return bucketPrefix + bucket;
    }
}
