package org.objrdma.client.sdk;

/**
 * A transfer the gateway refused or that failed on the RDMA path, with the HTTP status and S3 error code when
 * the gateway answered (0 and null for a failure on this side, e.g. the client's data phase).
 */
public final class RdmaS3Exception extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;

    public RdmaS3Exception(int status, String code, String message) {
        super(message);
        this.status = status;
        this.code = code;
    }

    public RdmaS3Exception(String message, Throwable cause) {
        super(message, cause);
        this.status = 0;
        this.code = null;
    }

    /** The gateway's HTTP status, 0 when it gave none. */
    public int status() {
        return status;
    }

    /** The gateway's S3 error code, or null. */
    public String code() {
        return code;
    }
}
