package org.objrdma.session.internal;

import java.time.Duration;
import java.util.regex.Pattern;
import org.objrdma.api.session.SessionLimits;
import org.objrdma.wire.AddressPolicy;
import org.objrdma.wire.DialPacing;
import org.objrdma.wire.TokenResult;

/**
 * The validated configuration of a session manager: every field of {@code rc_device_opts}, the reaper
 * period, the lease deadline and the shutdown bound. Built only through {@link Builder#build()}, which
 * refuses zero, negative, out-of-range and inconsistent values with a message naming the property, so a
 * running core never holds a setting that silently denies everything.
 *
 * @param maxSessions         {@value #MAX_SESSIONS}
 * @param maxUserSessions     {@value #MAX_USER_SESSIONS}
 * @param maxStagingBytes     {@value #MAX_STAGING_BYTES}: deprecated and ignored (see {@link #deprecatedStagingKeys})
 * @param maxUserStagingBytes {@value #MAX_USER_STAGING_BYTES}: deprecated and ignored
 * @param maxQps              {@value #MAX_QPS}
 * @param maxUserQps          {@value #MAX_USER_QPS}
 * @param prepTimeoutMs       {@value #PREP_TIMEOUT_MS}
 * @param execTimeoutMs       {@value #EXEC_TIMEOUT_MS}
 * @param maxReadySlots       {@value #MAX_READY_SLOTS}
 * @param maxStageSlots       {@value #MAX_STAGE_SLOTS}
 * @param reaperPeriodMs      {@value #REAPER_PERIOD_MS}
 * @param leaseTimeoutMs      {@value #LEASE_TIMEOUT_MS}
 * @param shutdownTimeoutMs   {@value #SHUTDOWN_TIMEOUT_MS}
 * @param devName             {@value #DEV_NAME}, empty for "any transport"
 * @param controlPlaneOnly    {@value #CONTROL_PLANE_ONLY}: admit sessions without a client endpoint (a test mode)
 * @param addressPolicy       from {@value #ALLOW_ADDRESSES} and {@value #DENY_ADDRESSES}: which client endpoints
 *                            PREPARE admits (see {@link AddressPolicy}: loopback, link-local, broadcast, this host's
 *                            own addresses and the deny list only if the allow list names them)
 * @param dialPacing          from {@value #DIAL_FAILURE_DELAY_MS}: READY's dial of the client endpoint is cut off at
 *                            that delay, and a failed one answers only once it has passed (no port scanning)
 *
 * <p>The C core's {@code gid_hint}, {@code port} and {@code gid_index} are not settings here: the port and
 * GID a session uses are those of the verbs transport it runs on, chosen by that transport's own
 * configuration ({@code org.objrdma.verbs}: {@code port}, {@code gid.index}, {@code gid.prefix}).
 */
public record SessionSettings(long maxSessions, long maxUserSessions, long maxStagingBytes, long maxUserStagingBytes,
                              long maxQps, long maxUserQps, long prepTimeoutMs, long execTimeoutMs,
                              int maxReadySlots, int maxStageSlots, long reaperPeriodMs, long leaseTimeoutMs,
                              long shutdownTimeoutMs, String devName, boolean controlPlaneOnly,
                              AddressPolicy addressPolicy, DialPacing dialPacing) {

    public static final String MAX_SESSIONS = "max.sessions";
    public static final String MAX_USER_SESSIONS = "max.user.sessions";
    public static final String MAX_STAGING_BYTES = "max.staging.bytes";
    public static final String MAX_USER_STAGING_BYTES = "max.user.staging.bytes";
    /** Defaults of the deprecated staging-byte keys: a value other than these is worth a warning. */
    static final long DEFAULT_MAX_STAGING_BYTES = 4L << 30;
    static final long DEFAULT_MAX_USER_STAGING_BYTES = 1L << 30;
    public static final String MAX_QPS = "max.qps";
    public static final String MAX_USER_QPS = "max.user.qps";
    public static final String PREP_TIMEOUT_MS = "prep.timeout.ms";
    public static final String EXEC_TIMEOUT_MS = "exec.timeout.ms";
    public static final String MAX_READY_SLOTS = "max.ready.slots";
    public static final String MAX_STAGE_SLOTS = "max.stage.slots";
    public static final String REAPER_PERIOD_MS = "reaper.period.ms";
    public static final String LEASE_TIMEOUT_MS = "lease.timeout.ms";
    public static final String SHUTDOWN_TIMEOUT_MS = "shutdown.timeout.ms";
    public static final String DEV_NAME = "dev.name";
    public static final String CONTROL_PLANE_ONLY = "control.plane.only";
    public static final String ALLOW_ADDRESSES = "allow.addresses";
    public static final String DENY_ADDRESSES = "deny.addresses";
    public static final String DIAL_FAILURE_DELAY_MS = "dial.failure.delay.ms";

    /** Longest accepted timeout: one day. Keeps {@code now + timeout} far from overflow. */
    public static final long MAX_TIMEOUT_MS = 86_400_000L;
    /** The reaper must notice a passed deadline within 100 ms. */
    public static final long MAX_REAPER_PERIOD_MS = 100L;
    /** Most sessions and queue pairs: queue pair numbers are 24 bits. */
    public static final long MAX_SESSIONS_LIMIT = 1L << 24;
    /** Most slots of either kind. */
    public static final int MAX_SLOTS = 65_536;

    private static final Pattern DEV_NAME_SYNTAX = Pattern.compile("[A-Za-z0-9_.\\-]{1,64}");

    /** The defaults, as documented in the README and the metatype. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.maxSessions = maxSessions;
        b.maxUserSessions = maxUserSessions;
        b.maxStagingBytes = maxStagingBytes;
        b.maxUserStagingBytes = maxUserStagingBytes;
        b.maxQps = maxQps;
        b.maxUserQps = maxUserQps;
        b.prepTimeoutMs = prepTimeoutMs;
        b.execTimeoutMs = execTimeoutMs;
        b.maxReadySlots = maxReadySlots;
        b.maxStageSlots = maxStageSlots;
        b.reaperPeriodMs = reaperPeriodMs;
        b.leaseTimeoutMs = leaseTimeoutMs;
        b.shutdownTimeoutMs = shutdownTimeoutMs;
        b.devName = devName;
        b.controlPlaneOnly = controlPlaneOnly;
        b.allowAddresses = addressPolicy.allowList();
        b.denyAddresses = addressPolicy.denyList();
        b.dialFailureDelayMs = dialPacing.delay().toMillis();
        return b;
    }

    /**
     * Why the deprecated staging-byte keys are worth a warning, or null when both hold their defaults. The staging
     * pool is the one owner of staging bytes: a session's lease is refused by {@code max.total.bytes} and
     * {@code max.bytes.per.principal} of {@code org.objrdma.staging}; these two keys are accepted (old configurations
     * still activate, unvalidated) and change nothing.
     */
    public String deprecatedStagingKeys() {
        if (maxStagingBytes == DEFAULT_MAX_STAGING_BYTES && maxUserStagingBytes == DEFAULT_MAX_USER_STAGING_BYTES) {
            return null;
        }
        return MAX_STAGING_BYTES + " (" + maxStagingBytes + ") and " + MAX_USER_STAGING_BYTES + " ("
                + maxUserStagingBytes + ") of org.objrdma.session are deprecated and ignored: staging bytes are limited"
                + " by max.total.bytes and max.bytes.per.principal of org.objrdma.staging";
    }

    /** The limits part, as the API reports it (the two deprecated byte limits as configured, though ignored). */
    public SessionLimits toLimits() {
        return new SessionLimits(maxSessions, maxUserSessions, maxStagingBytes, maxUserStagingBytes, maxQps,
                maxUserQps, Duration.ofMillis(prepTimeoutMs), Duration.ofMillis(execTimeoutMs),
                Duration.ofMillis(leaseTimeoutMs), maxReadySlots, maxStageSlots);
    }

    /** Mutable collector of values; {@link #build()} validates them all. */
    public static final class Builder {
        long maxSessions = 1024;
        long maxUserSessions = 256;
        long maxStagingBytes = DEFAULT_MAX_STAGING_BYTES;
        long maxUserStagingBytes = DEFAULT_MAX_USER_STAGING_BYTES;
        long maxQps = 1024;
        long maxUserQps = 256;
        long prepTimeoutMs = 30_000;
        long execTimeoutMs = 30_000;
        int maxReadySlots = 64;
        int maxStageSlots = 32;
        long reaperPeriodMs = 50;
        long leaseTimeoutMs = 60_000;
        long shutdownTimeoutMs = 10_000;
        String devName = "";
        boolean controlPlaneOnly;
        String allowAddresses = "";
        String denyAddresses = "";
        long dialFailureDelayMs = DialPacing.DEFAULT_DELAY_MS;

        private Builder() {
        }

        public Builder maxSessions(long v) { maxSessions = v; return this; }
        public Builder maxUserSessions(long v) { maxUserSessions = v; return this; }
        public Builder maxStagingBytes(long v) { maxStagingBytes = v; return this; }
        public Builder maxUserStagingBytes(long v) { maxUserStagingBytes = v; return this; }
        public Builder maxQps(long v) { maxQps = v; return this; }
        public Builder maxUserQps(long v) { maxUserQps = v; return this; }
        public Builder prepTimeoutMs(long v) { prepTimeoutMs = v; return this; }
        public Builder execTimeoutMs(long v) { execTimeoutMs = v; return this; }
        public Builder maxReadySlots(int v) { maxReadySlots = v; return this; }
        public Builder maxStageSlots(int v) { maxStageSlots = v; return this; }
        public Builder reaperPeriodMs(long v) { reaperPeriodMs = v; return this; }
        public Builder leaseTimeoutMs(long v) { leaseTimeoutMs = v; return this; }
        public Builder shutdownTimeoutMs(long v) { shutdownTimeoutMs = v; return this; }
        public Builder devName(String v) { devName = v; return this; }
        public Builder controlPlaneOnly(boolean v) { controlPlaneOnly = v; return this; }
        /** Comma- or space-separated literal CIDR blocks (see {@link AddressPolicy#parse(String)}); empty: none. */
        public Builder allowAddresses(String v) { allowAddresses = v; return this; }
        /** As the allow list, plus the word {@code private} (see {@link AddressPolicy#parse(String, String)}). */
        public Builder denyAddresses(String v) { denyAddresses = v; return this; }
        public Builder dialFailureDelayMs(long v) { dialFailureDelayMs = v; return this; }

        /**
         * Validates every value and returns the settings.
         *
         * @throws IllegalArgumentException naming the first offending property, its value and the rule
         */
        public SessionSettings build() {
            range(MAX_SESSIONS, maxSessions, 1, MAX_SESSIONS_LIMIT);
            userWithinGlobal(MAX_USER_SESSIONS, maxUserSessions, MAX_SESSIONS, maxSessions);
            range(MAX_QPS, maxQps, 1, MAX_SESSIONS_LIMIT);
            userWithinGlobal(MAX_USER_QPS, maxUserQps, MAX_QPS, maxQps);
            timeout(PREP_TIMEOUT_MS, prepTimeoutMs);
            timeout(EXEC_TIMEOUT_MS, execTimeoutMs);
            timeout(LEASE_TIMEOUT_MS, leaseTimeoutMs);
            timeout(SHUTDOWN_TIMEOUT_MS, shutdownTimeoutMs);
            range(MAX_READY_SLOTS, maxReadySlots, 1, MAX_SLOTS);
            range(MAX_STAGE_SLOTS, maxStageSlots, 1, MAX_SLOTS);
            range(REAPER_PERIOD_MS, reaperPeriodMs, 1, MAX_REAPER_PERIOD_MS);
            String dev = devName == null ? "" : devName.trim();
            if (!dev.isEmpty() && !DEV_NAME_SYNTAX.matcher(dev).matches()) {
                throw refuse(DEV_NAME, "'" + devName + "'", "a verbs device name of 1..64 characters from [A-Za-z0-9_.-], or empty for any transport");
            }
            TokenResult<AddressPolicy> policy = AddressPolicy.parse(allowAddresses);
            if (!policy.isOk()) {
                throw refuse(ALLOW_ADDRESSES, "'" + allowAddresses + "'", "comma- or space-separated literal CIDR"
                        + " blocks such as 127.0.0.0/8, ::1 (" + policy.detail() + ")");
            }
            policy = AddressPolicy.parse(allowAddresses, denyAddresses);
            if (!policy.isOk()) {
                throw refuse(DENY_ADDRESSES, "'" + denyAddresses + "'", "comma- or space-separated literal CIDR"
                        + " blocks such as 198.51.100.0/24, or the word private (" + policy.detail() + ")");
            }
            range(DIAL_FAILURE_DELAY_MS, dialFailureDelayMs, DialPacing.MIN_DELAY_MS, DialPacing.MAX_DELAY_MS);
            return new SessionSettings(maxSessions, maxUserSessions, maxStagingBytes, maxUserStagingBytes, maxQps,
                    maxUserQps, prepTimeoutMs, execTimeoutMs, maxReadySlots, maxStageSlots, reaperPeriodMs,
                    leaseTimeoutMs, shutdownTimeoutMs, dev, controlPlaneOnly, policy.value(),
                    DialPacing.ofMillis(dialFailureDelayMs));
        }

        private static void userWithinGlobal(String property, long value, String globalProperty, long global) {
            if (value < 1 || value > global) {
                throw refuse(property, Long.toString(value), "1.." + global + " (at least 1 and at most "
                        + globalProperty + ")");
            }
        }

        private static void timeout(String property, long value) {
            range(property, value, 1, MAX_TIMEOUT_MS);
        }

        private static void range(String property, long value, long min, long max) {
            if (value < min || value > max) {
                throw refuse(property, Long.toString(value), min + ".." + max);
            }
        }

        private static IllegalArgumentException refuse(String property, String value, String rule) {
            return new IllegalArgumentException("objrdma session configuration: " + property + " = " + value
                    + " is invalid; it must be " + rule);
        }
    }
}
