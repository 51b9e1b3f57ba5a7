package org.objrdma.staging.internal;

import java.time.Duration;

/**
 * The validated configuration of one pool. Built only through {@link #of} or {@link #from}, which refuse
 * any zero, negative or inconsistent value with an {@link IllegalArgumentException} naming the property:
 * a pool that could never lend anything is a configuration error, not a pool that quietly says LIMIT.
 */
public record StagingSettings(long minBufferSize, long maxBufferSize, long maxTotalBytes,
                              long maxBytesPerPrincipal, int maxBuffersPerClass, int maxBuffersPerPrincipalPerClass,
                              int idlePerClass,
                              Duration idleTimeout, Duration borrowWait, Duration leaseDeadline,
                              Duration leaseCheckPeriod, boolean trackStacks, Duration shutdownTimeout,
                              boolean scrubOnReturn) {

    /** One page: buffers are page aligned and never smaller. */
    public static final long PAGE_SIZE = 4096;
    /** The largest size class the pool ever offers. */
    public static final long LARGEST_CLASS = 1L << 30;

    public StagingSettings {
        requirePowerOfTwo("min.buffer.size", minBufferSize);
        if (minBufferSize < PAGE_SIZE || minBufferSize > LARGEST_CLASS) {
            throw invalid("min.buffer.size", minBufferSize, "must be between " + PAGE_SIZE + " and " + LARGEST_CLASS);
        }
        requirePowerOfTwo("max.buffer.size", maxBufferSize);
        if (maxBufferSize < minBufferSize || maxBufferSize > LARGEST_CLASS) {
            throw invalid("max.buffer.size", maxBufferSize,
                    "must be between min.buffer.size (" + minBufferSize + ") and " + LARGEST_CLASS);
        }
        if (maxTotalBytes < maxBufferSize) {
            throw invalid("max.total.bytes", maxTotalBytes,
                    "must be at least max.buffer.size (" + maxBufferSize + "), or the largest buffer could never be lent");
        }
        if (maxBytesPerPrincipal < maxBufferSize) {
            throw invalid("max.bytes.per.principal", maxBytesPerPrincipal,
                    "must be at least max.buffer.size (" + maxBufferSize + "), or the largest buffer could never be lent");
        }
        if (maxBytesPerPrincipal > maxTotalBytes) {
            throw invalid("max.bytes.per.principal", maxBytesPerPrincipal,
                    "must not exceed max.total.bytes (" + maxTotalBytes + ")");
        }
        if (maxBuffersPerClass < 1) {
            throw invalid("max.buffers.per.class", maxBuffersPerClass, "must be at least 1");
        }
        if (maxBuffersPerPrincipalPerClass < 1 || maxBuffersPerPrincipalPerClass > maxBuffersPerClass) {
            throw invalid("max.buffers.per.principal.per.class", maxBuffersPerPrincipalPerClass,
                    "must be between 1 and max.buffers.per.class (" + maxBuffersPerClass + ")");
        }
        if (idlePerClass < 1 || idlePerClass > maxBuffersPerClass) {
            throw invalid("idle.per.class", idlePerClass,
                    "must be between 1 and max.buffers.per.class (" + maxBuffersPerClass + ")");
        }
        requirePositive("idle.timeout", idleTimeout);
        requireNotNegative("borrow.wait", borrowWait);
        requirePositive("lease.deadline", leaseDeadline);
        requirePositive("lease.check.period", leaseCheckPeriod);
        requireNotNegative("shutdown.timeout", shutdownTimeout);
    }

    /** Validates a configuration as Configuration Admin delivers it. */
    public static StagingSettings from(StagingPoolConfig c) {
        return new StagingSettings(c.min_buffer_size(), c.max_buffer_size(), c.max_total_bytes(),
                c.max_bytes_per_principal(), c.max_buffers_per_class(), c.max_buffers_per_principal_per_class(),
                c.idle_per_class(),
                millis("idle.timeout", c.idle_timeout()), millis("borrow.wait", c.borrow_wait()),
                millis("lease.deadline", c.lease_deadline()), millis("lease.check.period", c.lease_check_period()),
                c.lease_trackStacks(), millis("shutdown.timeout", c.shutdown_timeout()), c.scrub_on_return());
    }

    /** The documented defaults (the same as {@link StagingPoolConfig}'s). */
    public static StagingSettings defaults() {
        return new StagingSettings(4096, 64L << 20, 1L << 30, 256L << 20, 256, 64, 4, Duration.ofSeconds(60),
                Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofSeconds(5), false, Duration.ofSeconds(5), true);
    }

    /**
     * Each property whose value differs, as {@code name old -> new}, comma separated, in the metatype's order;
     * empty when none does. Durations are in milliseconds, as configured.
     */
    public static String differences(StagingSettings a, StagingSettings b) {
        java.util.StringJoiner out = new java.util.StringJoiner(", ");
        differ(out, "min.buffer.size", a.minBufferSize, b.minBufferSize);
        differ(out, "max.buffer.size", a.maxBufferSize, b.maxBufferSize);
        differ(out, "max.total.bytes", a.maxTotalBytes, b.maxTotalBytes);
        differ(out, "max.bytes.per.principal", a.maxBytesPerPrincipal, b.maxBytesPerPrincipal);
        differ(out, "max.buffers.per.class", a.maxBuffersPerClass, b.maxBuffersPerClass);
        differ(out, "max.buffers.per.principal.per.class", a.maxBuffersPerPrincipalPerClass,
                b.maxBuffersPerPrincipalPerClass);
        differ(out, "idle.per.class", a.idlePerClass, b.idlePerClass);
        differ(out, "idle.timeout", a.idleTimeout.toMillis(), b.idleTimeout.toMillis());
        differ(out, "borrow.wait", a.borrowWait.toMillis(), b.borrowWait.toMillis());
        differ(out, "lease.deadline", a.leaseDeadline.toMillis(), b.leaseDeadline.toMillis());
        differ(out, "lease.check.period", a.leaseCheckPeriod.toMillis(), b.leaseCheckPeriod.toMillis());
        differ(out, "lease.trackStacks", a.trackStacks, b.trackStacks);
        differ(out, "shutdown.timeout", a.shutdownTimeout.toMillis(), b.shutdownTimeout.toMillis());
        differ(out, "scrub.on.return", a.scrubOnReturn, b.scrubOnReturn);
        return out.toString();
    }

    private static void differ(java.util.StringJoiner out, String property, Object was, Object now) {
        if (!was.equals(now)) {
            out.add(property + " " + was + " -> " + now);
        }
    }

    /** Number of size classes, min to max. */
    public int classCount() {
        return Long.numberOfTrailingZeros(maxBufferSize) - Long.numberOfTrailingZeros(minBufferSize) + 1;
    }

    private static Duration millis(String property, long value) {
        if (value < 0) {
            throw invalid(property, value, "must not be negative");
        }
        return Duration.ofMillis(value);
    }

    private static void requirePowerOfTwo(String property, long value) {
        if (value <= 0 || Long.bitCount(value) != 1) {
            throw invalid(property, value, "must be a positive power of two");
        }
    }

    private static void requirePositive(String property, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw invalid(property, inMillis(value), "must be positive");
        }
    }

    private static void requireNotNegative(String property, Duration value) {
        if (value == null || value.isNegative()) {
            throw invalid(property, inMillis(value), "must not be negative");
        }
    }

    private static String inMillis(Duration value) {
        return value == null ? "null" : value.toMillis() + " ms";
    }

    private static IllegalArgumentException invalid(String property, Object value, String rule) {
        return new IllegalArgumentException("org.objrdma.staging: " + property + " = " + value + " " + rule);
    }
}
