package org.objrdma.verbs.internal.ffi;

/**
 * Enum values of {@code <infiniband/verbs.h>} and {@code <infiniband/mlx5dv.h>} the DC path passes to the
 * library. Field names are the C names: {@code Mlx5DvLayoutAgainstHeaderTest} compares each with the header.
 */
public final class Mlx5DvConstants {

    private Mlx5DvConstants() {
    }

    /** {@code enum ibv_qp_type}: the type of every mlx5dv-created DC queue pair. */
    public static final int IBV_QPT_DRIVER = 0xff;

    /** {@code enum ibv_qp_init_attr_mask}. */
    public static final int IBV_QP_INIT_ATTR_PD = 1;
    public static final int IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6;

    /** {@code enum ibv_qp_create_send_ops_flags}: the opcodes a DCI is built for. */
    public static final int IBV_QP_EX_WITH_RDMA_WRITE = 1;
    public static final int IBV_QP_EX_WITH_RDMA_READ = 1 << 4;

    /** {@code enum mlx5dv_qp_init_attr_mask}. */
    public static final int MLX5DV_QP_INIT_ATTR_MASK_DC = 1 << 1;

    /** {@code enum mlx5dv_dc_type}. */
    public static final int MLX5DV_DCTYPE_DCT = 1;
    public static final int MLX5DV_DCTYPE_DCI = 2;

    /** {@code enum ibv_wc_status} values a DC transfer is refused with. */
    public static final int IBV_WC_LOC_LEN_ERR = 1;
    public static final int IBV_WC_LOC_PROT_ERR = 4;
    public static final int IBV_WC_REM_INV_REQ_ERR = 9;
    public static final int IBV_WC_REM_ACCESS_ERR = 10;
    public static final int IBV_WC_REM_OP_ERR = 11;
    public static final int IBV_WC_RETRY_EXC_ERR = 12;
    public static final int IBV_WC_RNR_RETRY_EXC_ERR = 13;
}
