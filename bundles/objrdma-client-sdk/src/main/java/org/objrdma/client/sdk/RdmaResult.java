package org.objrdma.client.sdk;

import java.util.Objects;

/**
 * What a transfer did.
 *
 * @param response      the SDK response (for an RDMA PUT over hipobj-rc-v2 built from READY's answer: ETag)
 * @param bytes         the object bytes moved into or out of the memory
 * @param path          the path that moved them: the protocol asked for, or {@link RdmaProtocol#HTTP} after a decline
 * @param declineReason the gateway's reason when it declined RDMA ({@code x-amz-rdma-reply: 501}, an RC route's 501)
 *                      or refused it as busy before any byte moved ({@code busy: <status> <code>: <message>}),
 *                      else null
 */
public record RdmaResult<T>(T response, long bytes, RdmaProtocol path, String declineReason) {
    public RdmaResult {
        Objects.requireNonNull(path, "path");
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0");
        }
    }

    /** True when the gateway declined RDMA (or was busy) and the bytes went over HTTP instead. */
    public boolean fellBack() {
        return declineReason != null;
    }
}
