package org.objrdma.s3.internal;

import org.objrdma.api.session.RcStatus;
import org.objrdma.s3.S3Exception;

/** The hipobj-rc-v2 error table (rc-session.md §1.5): session-core status to HTTP status and S3 code. */
final class RcErrors {

    static final String BAD_REQUEST = "InvalidRdmaRequest";
    static final String NO_SESSION = "NoSuchRdmaSession";
    static final String CONFLICT = "RdmaSessionConflict";
    static final String LIMIT = "RdmaResourceLimit";
    static final String WIRE = "RdmaTransferFailed";
    static final String UNAVAILABLE = "RdmaServiceUnavailable";

    private RcErrors() {
    }

    static S3Exception bad(String message) {
        return new S3Exception(BAD_REQUEST, 400, message);
    }

    static S3Exception unavailable(String message) {
        return new S3Exception(UNAVAILABLE, 503, message);
    }

    /** {@code step} names the call, for the message. An owner mismatch answers exactly as no session. */
    static S3Exception of(RcStatus status, String step) {
        return switch (status) {
            case ARG, SHORT, TRUNC -> bad(step + ": " + status.description());
            case NO_SESSION, SESSION -> new S3Exception(NO_SESSION, 404, "The RDMA session does not exist");
            case STALE, STATE, DOUBLE -> new S3Exception(CONFLICT, 409, step + ": " + status.description());
            case LIMIT -> new S3Exception(LIMIT, 429, step + ": " + status.description());
            case WIRE -> new S3Exception(WIRE, 502, step + ": " + status.description());
            case SHUTDOWN -> unavailable(step + ": " + status.description());
            default -> new S3Exception("InternalError", 500, step + ": " + status.description());
        };
    }
}
