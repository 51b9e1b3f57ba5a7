package org.objrdma.verbs.internal.ffi;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

/** The parts of {@code struct ibv_device_attr} objrdma uses. */
public record DeviceAttributes(String firmwareVersion, long nodeGuid, long maxMrSize, int vendorId, int vendorPartId,
                               int maxQp, int maxQpWr, int maxSge, int maxCq, int maxCqe, int maxMr, int maxPd,
                               int maxQpRdAtom, int maxQpInitRdAtom, int physPortCount, int deviceCapFlags,
                               int maxMw) {

    private static long off(String field) {
        return IbvLayouts.offset(IbvLayouts.IBV_DEVICE_ATTR, field);
    }

    private static final long FW_VER = off("fw_ver");
    private static final long NODE_GUID = off("node_guid");
    private static final long MAX_MR_SIZE = off("max_mr_size");
    private static final long VENDOR_ID = off("vendor_id");
    private static final long VENDOR_PART_ID = off("vendor_part_id");
    private static final long MAX_QP = off("max_qp");
    private static final long MAX_QP_WR = off("max_qp_wr");
    private static final long MAX_SGE = off("max_sge");
    private static final long MAX_CQ = off("max_cq");
    private static final long MAX_CQE = off("max_cqe");
    private static final long MAX_MR = off("max_mr");
    private static final long MAX_PD = off("max_pd");
    private static final long MAX_QP_RD_ATOM = off("max_qp_rd_atom");
    private static final long MAX_QP_INIT_RD_ATOM = off("max_qp_init_rd_atom");
    private static final long PHYS_PORT_CNT = off("phys_port_cnt");
    private static final long DEVICE_CAP_FLAGS = off("device_cap_flags");
    private static final long MAX_MW = off("max_mw");

    /**
     * True if the device binds type-2 memory windows with the 2B semantics (bound to one QP, invalidated
     * before they are bound again): what grants are made of.
     */
    public boolean memoryWindowsType2B() {
        return (deviceCapFlags & IbvConstants.IBV_DEVICE_MEM_WINDOW_TYPE_2B) != 0 && maxMw > 0;
    }

    static DeviceAttributes read(MemorySegment a) {
        byte[] fw = a.asSlice(FW_VER, 64).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        int len = 0;
        while (len < fw.length && fw[len] != 0) {
            len++;
        }
        return new DeviceAttributes(new String(fw, 0, len, java.nio.charset.StandardCharsets.US_ASCII),
                VerbsLibrary.be64(a, NODE_GUID), a.get(JAVA_LONG, MAX_MR_SIZE),
                a.get(JAVA_INT, VENDOR_ID), a.get(JAVA_INT, VENDOR_PART_ID), a.get(JAVA_INT, MAX_QP),
                a.get(JAVA_INT, MAX_QP_WR), a.get(JAVA_INT, MAX_SGE), a.get(JAVA_INT, MAX_CQ),
                a.get(JAVA_INT, MAX_CQE), a.get(JAVA_INT, MAX_MR), a.get(JAVA_INT, MAX_PD),
                a.get(JAVA_INT, MAX_QP_RD_ATOM), a.get(JAVA_INT, MAX_QP_INIT_RD_ATOM),
                VerbsLibrary.u8(a, PHYS_PORT_CNT), a.get(JAVA_INT, DEVICE_CAP_FLAGS), a.get(JAVA_INT, MAX_MW));
    }
}
