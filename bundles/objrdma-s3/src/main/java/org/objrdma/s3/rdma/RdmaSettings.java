package org.objrdma.s3.rdma;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How the gateway runs the RDMA paths (PID {@code org.objrdma.s3}, properties {@code rdma.*}).
 *
 * @param minBytes              smallest object (GET range, PUT size) moved over cuObject; smaller ones are
 *                              declined with {@code x-amz-rdma-reply: 501} (a GET answers with the body), where
 *                              RDMA does not pay. At least 1: a 0-byte transfer is always declined
 * @param chunkBytes            bytes per staging buffer of a cuObject transfer; larger objects move in chunks of
 *                              this size through two staging buffers, the next chunk staged while the previous
 *                              one moves (4096 .. 1 GiB)
 * @param foreignSessions       what a READY or CANCEL of another fleet node's session gets
 *                              ({@code rdma.foreign.sessions}); since 1.1.0
 * @param forwardConnectTimeout how long a forwarding node waits to connect to the owner
 *                              ({@code rdma.forward.connect.timeout.ms}, 1 ms .. 60 s); since 1.1.0
 * @param forwardReadTimeout    how long a forwarding node waits for each read of the owner's answer
 *                              ({@code rdma.forward.read.timeout.ms}, 1 ms .. 1 h); must exceed the owner's
 *                              {@code exec.timeout.ms}, since a READY answers when the data phase ends; since 1.1.0
 * @param declinedPut           how a declined cuObject PUT or UploadPart answers ({@code rdma.declined.put}): either
 *                              way nothing is stored and the reply header is {@code 501}; since 1.2.0
 * @param rcStatusStyle         which HTTP statuses the hipobj-rc-v2 routes answer where versitygw's routes and
 *                              hipObject's reference server differ ({@code rdma.rc.status.style}); since 1.2.0
 */
public record RdmaSettings(long minBytes, long chunkBytes, ForeignSessions foreignSessions,
        Duration forwardConnectTimeout, Duration forwardReadTimeout, DeclinedPut declinedPut,
        RcStatusStyle rcStatusStyle) {

    public static final Duration DEFAULT_FORWARD_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_FORWARD_READ_TIMEOUT = Duration.ofSeconds(60);

    public static final RdmaSettings DEFAULTS = new RdmaSettings(1, 8L << 20);

    /** What a node does with a READY or CANCEL whose session id carries another fleet node's tag. */
    public enum ForeignSessions {
        /** {@code 307 Temporary Redirect} to the owner's advertised endpoint; the client signs again. */
        REDIRECT,
        /** The node sends the client's request, as signed, to the owner and relays the owner's answer. */
        FORWARD;

        /** {@code redirect} or {@code forward}, any case; anything else names the property. */
        public static ForeignSessions parse(String value) {
            String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
            return switch (v) {
                case "redirect" -> REDIRECT;
                case "forward" -> FORWARD;
                default -> throw new IllegalArgumentException(
                        "rdma.foreign.sessions must be redirect or forward, was '" + value + "'");
            };
        }
    }

    /**
     * The HTTP status of a declined cuObject PUT or UploadPart. The clients of the field disagree: NVIDIA's contract
     * (cuobj.md §10.3), objrdma's own client and MinIO-style clients read an HTTP error as "not stored"; a
     * Cloudian-style client falls back to HTTP only on an HTTP 2xx whose {@code x-amz-rdma-reply} is not {@code 200}
     * and fails the PUT on anything else.
     */
    public enum DeclinedPut {
        /** {@code 501 NotImplemented} with {@code x-amz-rdma-reply: 501} (the default). */
        STATUS_501,
        /**
         * {@code 200} with {@code x-amz-rdma-reply: 501}, no {@code ETag} and {@code x-amz-rdma-bytes-transferred: 0}:
         * for Cloudian-style clients. A client that reads the HTTP status only would take it for a stored object.
         */
        STATUS_200;

        /** {@code 501} or {@code 200}; anything else names the property. */
        public static DeclinedPut parse(String value) {
            String v = value == null ? "" : value.strip();
            return switch (v) {
                case "501" -> STATUS_501;
                case "200" -> STATUS_200;
                default -> throw new IllegalArgumentException("rdma.declined.put must be 501 or 200, was '" + value + "'");
            };
        }
    }

    /**
     * The two conventions for the same hipobj-rc-v2 failures (see the objrdma-s3 README, "hipobj-rc-v2 status
     * codes"): every other answer is the same in both.
     */
    public enum RcStatusStyle {
        /** versitygw's routes: unknown session 404, cookie mismatch 404, limit 429, timeout 504, transfer 502. */
        OBJRDMA,
        /** hipObject's reference server: unknown session 409, cookie mismatch 403, limit 503, timeout 408, transfer 500. */
        HIPOBJ;

        /** {@code objrdma} or {@code hipobj}, any case; anything else names the property. */
        public static RcStatusStyle parse(String value) {
            String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
            return switch (v) {
                case "objrdma" -> OBJRDMA;
                case "hipobj" -> HIPOBJ;
                default -> throw new IllegalArgumentException(
                        "rdma.rc.status.style must be objrdma or hipobj, was '" + value + "'");
            };
        }
    }

    /** As the canonical constructor, a declined PUT answering {@code 501} and the objrdma status style. */
    public RdmaSettings(long minBytes, long chunkBytes, ForeignSessions foreignSessions,
            Duration forwardConnectTimeout, Duration forwardReadTimeout) {
        this(minBytes, chunkBytes, foreignSessions, forwardConnectTimeout, forwardReadTimeout, DeclinedPut.STATUS_501,
                RcStatusStyle.OBJRDMA);
    }

    /** Redirect mode with the default forwarding timeouts. */
    public RdmaSettings(long minBytes, long chunkBytes) {
        this(minBytes, chunkBytes, ForeignSessions.REDIRECT, DEFAULT_FORWARD_CONNECT_TIMEOUT,
                DEFAULT_FORWARD_READ_TIMEOUT);
    }

    public RdmaSettings {
        if (minBytes < 1) {
            throw new IllegalArgumentException("rdma.min.bytes must be at least 1, was " + minBytes);
        }
        if (chunkBytes < 4096 || chunkBytes > (1L << 30)) {
            throw new IllegalArgumentException("rdma.chunk.bytes must be 4096 .. 1073741824, was " + chunkBytes);
        }
        Objects.requireNonNull(foreignSessions, "rdma.foreign.sessions");
        Objects.requireNonNull(declinedPut, "rdma.declined.put");
        Objects.requireNonNull(rcStatusStyle, "rdma.rc.status.style");
        checkTimeout("rdma.forward.connect.timeout.ms", forwardConnectTimeout, Duration.ofSeconds(60));
        checkTimeout("rdma.forward.read.timeout.ms", forwardReadTimeout, Duration.ofHours(1));
    }

    private static void checkTimeout(String property, Duration d, Duration max) {
        if (d == null || d.toMillis() < 1 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException(property + " must be 1 .. " + max.toMillis() + " ms, was "
                    + (d == null ? "unset" : d.toMillis()));
        }
    }

    /** The same settings with another foreign-session mode and timeouts. */
    public RdmaSettings withForeignSessions(ForeignSessions mode, Duration connectTimeout, Duration readTimeout) {
        return new RdmaSettings(minBytes, chunkBytes, mode, connectTimeout, readTimeout, declinedPut,
                rcStatusStyle);
    }

    /** The same settings with another answer to a declined PUT. */
    public RdmaSettings withDeclinedPut(DeclinedPut mode) {
        return new RdmaSettings(minBytes, chunkBytes, foreignSessions, forwardConnectTimeout, forwardReadTimeout, mode,
                rcStatusStyle);
    }

    /** The same settings with another hipobj-rc-v2 status style. */
    public RdmaSettings withRcStatusStyle(RcStatusStyle style) {
        return new RdmaSettings(minBytes, chunkBytes, foreignSessions, forwardConnectTimeout, forwardReadTimeout,
                declinedPut, style);
    }
}
