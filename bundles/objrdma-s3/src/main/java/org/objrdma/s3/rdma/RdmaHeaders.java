package org.objrdma.s3.rdma;

/**
 * Header names and values of the two S3-over-RDMA protocols (lower case, as SigV4 signs them): the gateway's names
 * for objrdma-wire's {@link org.objrdma.wire.RdmaHeaders}, the one list clients share (compile-time constants, so
 * they serve in {@code switch} and annotations as before).
 */
public final class RdmaHeaders {

    /** Every RDMA header starts with this; each one a request carries must be in SignedHeaders. */
    public static final String PREFIX = org.objrdma.wire.RdmaHeaders.PREFIX;

    /** cuObject: the client's descriptor; hipobj-rc-v2 PREPARE: the client's 88-hex token. */
    public static final String TOKEN = org.objrdma.wire.RdmaHeaders.TOKEN;
    /** The answer: cuObject {@code 200}/{@code 206}/{@code 501}; hipobj-rc-v2 {@code 200:<88hex>}. */
    public static final String REPLY = org.objrdma.wire.RdmaHeaders.REPLY;
    public static final String BYTES_TRANSFERRED = org.objrdma.wire.RdmaHeaders.BYTES_TRANSFERRED;
    /** NooBaa's name for {@link #BYTES_TRANSFERRED}; sent as well. */
    public static final String BYTES = org.objrdma.wire.RdmaHeaders.BYTES;
    /** NooBaa's request marker; accepted and ignored. */
    public static final String AGENT = org.objrdma.wire.RdmaHeaders.AGENT;

    public static final String PROTOCOL = org.objrdma.wire.RdmaHeaders.PROTOCOL;
    public static final String PROTOCOL_STATUS = org.objrdma.wire.RdmaHeaders.PROTOCOL_STATUS;
    public static final String PSN = org.objrdma.wire.RdmaHeaders.PSN;
    public static final String COOKIE = org.objrdma.wire.RdmaHeaders.COOKIE;
    public static final String OP = org.objrdma.wire.RdmaHeaders.OP;
    public static final String TARGET = org.objrdma.wire.RdmaHeaders.TARGET;
    public static final String SIZE = org.objrdma.wire.RdmaHeaders.SIZE;
    public static final String OFFSET = org.objrdma.wire.RdmaHeaders.OFFSET;
    public static final String SESSION = org.objrdma.wire.RdmaHeaders.SESSION;
    public static final String QPN = org.objrdma.wire.RdmaHeaders.QPN;
    public static final String MR_ADDR = org.objrdma.wire.RdmaHeaders.MR_ADDR;
    public static final String MR_RKEY = org.objrdma.wire.RdmaHeaders.MR_RKEY;
    public static final String ETAG = org.objrdma.wire.RdmaHeaders.ETAG;
    public static final String VERSION_ID = org.objrdma.wire.RdmaHeaders.VERSION_ID;
    /**
     * objrdma's: the TCP channel key (hex, 16..64 bytes) of a TCP-transport token, which has no room for it
     * (the client's in PREPARE, the server's in the PREPARE answer). Not sent for verbs tokens. Defined in
     * objrdma-wire ({@link org.objrdma.wire.RcTokenHeader#CHANNEL_KEY_HEADER}), shared with clients.
     */
    public static final String CHANNEL_KEY = org.objrdma.wire.RdmaHeaders.CHANNEL_KEY;

    /** The value of {@link #PROTOCOL}. */
    public static final String RC_PROTOCOL = org.objrdma.wire.RdmaHeaders.RC_PROTOCOL;
    /** The path prefix of the hipobj-rc-v2 routes. */
    public static final String RC_ROUTE_PREFIX = org.objrdma.wire.RdmaHeaders.RC_ROUTE_PREFIX;

    private RdmaHeaders() {
    }
}
