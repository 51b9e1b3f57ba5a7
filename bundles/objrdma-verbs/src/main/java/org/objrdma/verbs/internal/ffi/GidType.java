package org.objrdma.verbs.internal.ffi;

/**
 * {@code enum ibv_gid_type}: how packets from a GID are framed. RoCE v1 is Ethernet with a GRH (link-local
 * GIDs, one L2 domain), RoCE v2 is UDP/IP (IPv4-mapped or IPv6 GIDs, routable). The two ends of an RC
 * connection must use the same one; InfiniBand ports have only {@link #IB}.
 */
public enum GidType {
    IB(IbvConstants.IBV_GID_TYPE_IB),
    ROCE_V1(IbvConstants.IBV_GID_TYPE_ROCE_V1),
    ROCE_V2(IbvConstants.IBV_GID_TYPE_ROCE_V2),
    /** A value this binding does not know, or a library without {@code ibv_query_gid_ex}. */
    UNKNOWN(-1);

    private final int code;

    GidType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static GidType fromCode(int code) {
        for (GidType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        return UNKNOWN;
    }
}
