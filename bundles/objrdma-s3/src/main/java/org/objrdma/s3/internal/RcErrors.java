package org.objrdma.s3.internal;

import org.objrdma.api.session.RcStatus;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.rdma.RdmaSettings.RcStatusStyle;

/**
 * The hipobj-rc-v2 error table (rc-session.md §1.5; the objrdma-s3 README, "hipobj-rc-v2 status codes"):
 * session-core status to HTTP status and S3 code. Where versitygw's routes and hipObject's reference server answer
 * the same case differently, {@link RcStatusStyle} picks the convention; the S3 code and what the case changes are
 * the same in both.
 */
final class RcErrors {

    static final String BAD_REQUEST = "InvalidRdmaRequest";
    static final String NO_SESSION = "NoSuchRdmaSession";
    static final String CONFLICT = "RdmaSessionConflict";
    static final String LIMIT = "RdmaResourceLimit";
    static final String WIRE = "RdmaTransferFailed";
    static final String TIMEOUT = "RdmaTransferTimeout";
    static final String COOKIE = "RdmaCookieMismatch";
    static final String UNAVAILABLE = "RdmaServiceUnavailable";

    private RcErrors() {
    }

    static S3Exception bad(String message) {
        return new S3Exception(BAD_REQUEST, 400, message);
    }

    static S3Exception unavailable(String message) {
        return new S3Exception(UNAVAILABLE, 503, message);
    }

    /** {@link #of(RcStatus, String, RcStatusStyle)} in the objrdma style. */
    static S3Exception of(RcStatus status, String step) {
        return of(status, step, RcStatusStyle.OBJRDMA);
    }

    /** {@code step} names the call, for the message. An owner mismatch answers exactly as no session. */
    static S3Exception of(RcStatus status, String step, RcStatusStyle style) {
        boolean hip = style == RcStatusStyle.HIPOBJ;
        return switch (status) {
            case ARG, SHORT, TRUNC -> bad(step + ": " + status.description());
            case NO_SESSION, SESSION -> new S3Exception(NO_SESSION, hip ? 409 : 404, "The RDMA session does not exist");
            case STALE, STATE, DOUBLE -> new S3Exception(CONFLICT, 409, step + ": " + status.description());
            case LIMIT -> new S3Exception(LIMIT, hip ? 503 : 429, step + ": " + status.description());
            case WIRE -> new S3Exception(WIRE, hip ? 500 : 502, step + ": " + status.description());
            case SHUTDOWN -> unavailable(step + ": " + status.description());
            default -> new S3Exception("InternalError", 500, step + ": " + status.description());
        };
    }

    /** The data phase did not complete within exec.timeout.ms (the session is ended). */
    static S3Exception timeout(RcStatusStyle style) {
        return new S3Exception(TIMEOUT, style == RcStatusStyle.HIPOBJ ? 408 : 504, "The data phase did not complete in time");
    }

    /**
     * READY of the session's own principal with another cookie: the session is kept (the right cookie may still
     * come). objrdma answers as for no session (versitygw's core reports it so); the reference server 403.
     */
    static S3Exception cookieMismatch(RcStatusStyle style) {
        return style == RcStatusStyle.HIPOBJ
                ? new S3Exception(COOKIE, 403, "The cookie is not the one this session was prepared with")
                : new S3Exception(NO_SESSION, 404, "The RDMA session does not exist");
    }
}
