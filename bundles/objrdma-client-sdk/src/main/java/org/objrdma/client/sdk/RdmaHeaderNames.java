package org.objrdma.client.sdk;

/**
 * The request and reply headers of both protocols (cuobj.md §10, rc-session.md §1.5–1.6). The gateway keeps its
 * own copy of these names (objrdma-s3's {@code RdmaHeaders}): a client must not depend on a server bundle.
 */
final class RdmaHeaderNames {
    static final String TOKEN = "x-amz-rdma-token";
    static final String REPLY = "x-amz-rdma-reply";
    static final String DECLINE_REASON = "x-amz-rdma-decline-reason";
    static final String BYTES_TRANSFERRED = "x-amz-rdma-bytes-transferred";
    static final String PROTOCOL = "x-amz-rdma-protocol";
    static final String RC_PROTOCOL = "hipobj-rc-v2";
    static final String OP = "x-amz-rdma-op";
    static final String TARGET = "x-amz-rdma-target";
    static final String SIZE = "x-amz-rdma-size";
    static final String OFFSET = "x-amz-rdma-offset";
    static final String PSN = "x-amz-rdma-psn";
    static final String COOKIE = "x-amz-rdma-cookie";
    static final String SESSION = "x-amz-rdma-session";
    static final String QPN = "x-amz-rdma-qpn";
    static final String MR_ADDR = "x-amz-rdma-mr-addr";
    static final String MR_RKEY = "x-amz-rdma-mr-rkey";
    static final String CHANNEL_KEY = "x-amz-rdma-channel-key";

    private RdmaHeaderNames() {
    }
}
