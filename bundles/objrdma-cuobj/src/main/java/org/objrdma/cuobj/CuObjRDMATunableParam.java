package org.objrdma.cuobj;

/**
 * {@code struct cuObjRDMATunableParam} as a mutable Java struct with the C field names, filled by
 * {@link RDMAConnection#getConfigTunableParam}. {@link CuObjRDMATunable} documents each field and its default.
 */
@SuppressWarnings("checkstyle:MemberName") // the C names, on purpose
public final class CuObjRDMATunableParam {
    public int num_dcis;
    public long cq_depth;
    public long dc_key;
    public int ibv_poll_max_comp_event;
    public int service_level;
    public int timeout;
    public long hop_limit;
    public int pkey_index;
    public int max_wr;
    public int max_sge;
    public long delay_interval;
    public CuObjDelayMode delay_mode;
    public boolean qp_reset_on_failure;
    public int retry_cnt;
    public long traffic_class;
    public int max_rd_atomic;
}
