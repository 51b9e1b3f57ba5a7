package org.objrdma.wire;

/**
 * The header names and fixed values of both S3-over-RDMA protocols (cuObject, hipobj-rc-v2), lower case as SigV4
 * signs them. The one list: the gateway ({@code objrdma-s3}) and the client SDK ({@code objrdma-client-sdk}) both
 * take their names from here.
 *
 * @since 1.3
 */
public final class RdmaHeaders {

    /** Every RDMA header starts with this; each one a request carries must be in SignedHeaders. */
    public static final String PREFIX = "x-amz-rdma-";

    /** cuObject: the client's descriptor; hipobj-rc-v2 PREPARE: the client's 88-hex token. */
    public static final String TOKEN = "x-amz-rdma-token";
    /** The answer: cuObject {@code 200}/{@code 206}/{@code 501}; hipobj-rc-v2 {@code 200:<88hex>}. */
    public static final String REPLY = "x-amz-rdma-reply";
    /** cuObject: why the gateway declined the RDMA path (the answer then carries the body over HTTP). */
    public static final String DECLINE_REASON = "x-amz-rdma-decline-reason";
    public static final String BYTES_TRANSFERRED = "x-amz-rdma-bytes-transferred";
    /** NooBaa's name for {@link #BYTES_TRANSFERRED}; sent as well. */
    public static final String BYTES = "x-amz-rdma-bytes";
    /** NooBaa's request marker; accepted and ignored. */
    public static final String AGENT = "x-amz-rdma-agent";

    public static final String PROTOCOL = "x-amz-rdma-protocol";
    public static final String PROTOCOL_STATUS = "x-amz-rdma-protocol-status";
    public static final String PSN = "x-amz-rdma-psn";
    public static final String COOKIE = "x-amz-rdma-cookie";
    public static final String OP = "x-amz-rdma-op";
    public static final String TARGET = "x-amz-rdma-target";
    public static final String SIZE = "x-amz-rdma-size";
    public static final String OFFSET = "x-amz-rdma-offset";
    public static final String SESSION = "x-amz-rdma-session";
    public static final String QPN = "x-amz-rdma-qpn";
    public static final String MR_ADDR = "x-amz-rdma-mr-addr";
    public static final String MR_RKEY = "x-amz-rdma-mr-rkey";
    public static final String ETAG = "x-amz-rdma-etag";
    public static final String VERSION_ID = "x-amz-rdma-version-id";
    /** objrdma's: the TCP channel key beside a TCP-transport token ({@link RcTokenHeader#CHANNEL_KEY_HEADER}). */
    public static final String CHANNEL_KEY = RcTokenHeader.CHANNEL_KEY_HEADER;

    /** The value of {@link #PROTOCOL}. */
    public static final String RC_PROTOCOL = "hipobj-rc-v2";
    /** The path prefix of the hipobj-rc-v2 routes. */
    public static final String RC_ROUTE_PREFIX = "/.hipobj-rc/";

    private RdmaHeaders() {
    }
}
