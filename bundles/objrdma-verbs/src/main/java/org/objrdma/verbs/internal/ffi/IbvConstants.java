package org.objrdma.verbs.internal.ffi;

/**
 * Enum and flag values of {@code <infiniband/verbs.h>} (rdma-core 44) that the bindings use, named exactly as
 * in C so a test can compare each with what gcc prints for the real header.
 */
public final class IbvConstants {
    private IbvConstants() {
    }

    // enum ibv_qp_state
    public static final int IBV_QPS_RESET = 0;
    public static final int IBV_QPS_INIT = 1;
    public static final int IBV_QPS_RTR = 2;
    public static final int IBV_QPS_RTS = 3;
    public static final int IBV_QPS_SQD = 4;
    public static final int IBV_QPS_SQE = 5;
    public static final int IBV_QPS_ERR = 6;
    public static final int IBV_QPS_UNKNOWN = 7;

    // enum ibv_gid_type (struct ibv_gid_entry.gid_type)
    public static final int IBV_GID_TYPE_IB = 0;
    public static final int IBV_GID_TYPE_ROCE_V1 = 1;
    public static final int IBV_GID_TYPE_ROCE_V2 = 2;

    // enum ibv_qp_type
    public static final int IBV_QPT_RC = 2;

    // enum ibv_wr_opcode
    public static final int IBV_WR_RDMA_WRITE = 0;
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    public static final int IBV_WR_SEND = 2;
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    public static final int IBV_WR_RDMA_READ = 4;
    public static final int IBV_WR_LOCAL_INV = 7;
    public static final int IBV_WR_BIND_MW = 8;

    // enum ibv_mw_type, and the device capability bits that say which windows a device has
    public static final int IBV_MW_TYPE_2 = 2;
    public static final int IBV_DEVICE_MEM_WINDOW = 1 << 17;
    public static final int IBV_DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24;

    // enum ibv_send_flags
    public static final int IBV_SEND_FENCE = 1;
    public static final int IBV_SEND_SIGNALED = 2;
    public static final int IBV_SEND_SOLICITED = 4;
    public static final int IBV_SEND_INLINE = 8;

    // enum ibv_access_flags
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;
    public static final int IBV_ACCESS_REMOTE_WRITE = 2;
    public static final int IBV_ACCESS_REMOTE_READ = 4;
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 8;
    public static final int IBV_ACCESS_MW_BIND = 16;

    // enum ibv_qp_attr_mask
    public static final int IBV_QP_STATE = 0x1;
    public static final int IBV_QP_CUR_STATE = 0x2;
    public static final int IBV_QP_ACCESS_FLAGS = 0x8;
    public static final int IBV_QP_PKEY_INDEX = 0x10;
    public static final int IBV_QP_PORT = 0x20;
    public static final int IBV_QP_QKEY = 0x40;
    public static final int IBV_QP_AV = 0x80;
    public static final int IBV_QP_PATH_MTU = 0x100;
    public static final int IBV_QP_TIMEOUT = 0x200;
    public static final int IBV_QP_RETRY_CNT = 0x400;
    public static final int IBV_QP_RNR_RETRY = 0x800;
    public static final int IBV_QP_RQ_PSN = 0x1000;
    public static final int IBV_QP_MAX_QP_RD_ATOMIC = 0x2000;
    public static final int IBV_QP_MIN_RNR_TIMER = 0x8000;
    public static final int IBV_QP_SQ_PSN = 0x10000;
    public static final int IBV_QP_MAX_DEST_RD_ATOMIC = 0x20000;
    public static final int IBV_QP_CAP = 0x80000;
    public static final int IBV_QP_DEST_QPN = 0x100000;

    // enum ibv_wc_opcode
    public static final int IBV_WC_SEND = 0;
    public static final int IBV_WC_RDMA_WRITE = 1;
    public static final int IBV_WC_RDMA_READ = 2;
    public static final int IBV_WC_RECV = 128;
    public static final int IBV_WC_RECV_RDMA_WITH_IMM = 129;

    // enum ibv_wc_flags
    public static final int IBV_WC_WITH_IMM = 2;

    // enum ibv_wc_status (the two the bindings name; the transport maps all through WcStatus)
    public static final int IBV_WC_SUCCESS = 0;
    public static final int IBV_WC_WR_FLUSH_ERR = 5;
    public static final int IBV_WC_MW_BIND_ERR = 6;

    // enum ibv_mtu
    public static final int IBV_MTU_256 = 1;
    public static final int IBV_MTU_4096 = 5;

    // enum ibv_port_state
    public static final int IBV_PORT_ACTIVE = 4;

    // enum ibv_event_type: the asynchronous events the transport acts on
    public static final int IBV_EVENT_PORT_ACTIVE = 9;
    public static final int IBV_EVENT_PORT_ERR = 10;
    public static final int IBV_EVENT_DEVICE_FATAL = 8;

    // link layer
    public static final int IBV_LINK_LAYER_UNSPECIFIED = 0;
    public static final int IBV_LINK_LAYER_INFINIBAND = 1;
    public static final int IBV_LINK_LAYER_ETHERNET = 2;
}
