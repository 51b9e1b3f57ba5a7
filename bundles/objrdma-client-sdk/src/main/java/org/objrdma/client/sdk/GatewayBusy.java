package org.objrdma.client.sdk;

/**
 * The gateway refused an RDMA transfer before any byte moved because its RDMA resources are exhausted for now:
 * staging memory (globally or for this principal), RC connections, queue pairs. Such a refusal is back-pressure on
 * the RDMA path only; the same request over plain HTTP needs none of those resources, so {@link RdmaS3} moves the
 * bytes over HTTP instead of failing the call, as for a decline. Thrown inside a transfer to unwind it (the
 * cuObject agent closes its grant on the way out) and caught in {@link CuObjPath} / {@link RcPath}; never reaches a
 * caller.
 *
 * <p>What counts (objrdma-s3 README, "hipobj-rc-v2 status codes" and the cuObject routes): any 429 (PREPARE's
 * {@code RdmaResourceLimit} in the objrdma style), and a 503 whose S3 code is {@code RdmaResourceLimit} (the same
 * limit in the hipObject style, the RC connection table's bounds) or {@code SlowDown} (the cuObject GET/PUT when
 * its staging is exhausted). Any other 503 ({@code RdmaServiceUnavailable}: no RC service, stopping) stays an
 * error: it is not a passing shortage.
 */
final class GatewayBusy extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private GatewayBusy(String reason) {
        super(reason, null, false, false);
    }

    /** The decline reason this client reports: {@code busy: <status> <code>: <message>}. */
    String reason() {
        return getMessage();
    }

    /** True when {@code status} with S3 error {@code code} (may be null) is a resource limit, as described above. */
    static boolean isBusy(int status, String code) {
        return status == 429 || status == 503 && ("SlowDown".equals(code) || "RdmaResourceLimit".equals(code));
    }

    /** The refusal as a busy signal, or null when it is not one. {@code code} and {@code message} may be null. */
    static GatewayBusy of(int status, String code, String message) {
        if (!isBusy(status, code)) {
            return null;
        }
        return new GatewayBusy("busy: " + status + (code == null ? "" : " " + code)
                + (message == null || message.isBlank() ? "" : ": " + message));
    }
}
