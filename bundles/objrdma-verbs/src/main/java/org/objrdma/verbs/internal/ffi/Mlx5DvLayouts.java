package org.objrdma.verbs.internal.ffi;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.StructLayout;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The structs of the Dynamic Connection path (the extended QP API of {@code <infiniband/verbs.h>} and the DC
 * parts of {@code <infiniband/mlx5dv.h>}) as FFM layouts of rdma-core 44 on Linux x86-64, named the way
 * {@link IbvLayouts} names members so {@link IbvLayouts#facts} gives the {@code offsetof} paths C uses.
 *
 * <p>{@code Mlx5DvLayoutAgainstHeaderTest} compiles a probe against the installed headers that prints every one of
 * these facts and every constant of {@link Mlx5DvConstants}, and fails on any difference. The function pointers of
 * {@code ibv_qp_ex} and {@code mlx5dv_qp_ex} are ABI (rdma-core appends, never reorders), which is why the
 * data path may read them by offset.
 */
public final class Mlx5DvLayouts {

    private Mlx5DvLayouts() {
    }

    /** {@code struct ibv_qp_ex}: the QP, then the work-request builder (every slot modelled, in header order). */
    public static final StructLayout IBV_QP_EX = structLayout(
            IbvLayouts.IBV_QP.withName("qp_base"),
            JAVA_LONG.withName("comp_mask"),
            JAVA_LONG.withName("wr_id"),
            JAVA_INT.withName("wr_flags"),
            paddingLayout(4),
            ADDRESS.withName("wr_atomic_cmp_swp"),
            ADDRESS.withName("wr_atomic_fetch_add"),
            ADDRESS.withName("wr_bind_mw"),
            ADDRESS.withName("wr_local_inv"),
            ADDRESS.withName("wr_rdma_read"),
            ADDRESS.withName("wr_rdma_write"),
            ADDRESS.withName("wr_rdma_write_imm"),
            ADDRESS.withName("wr_send"),
            ADDRESS.withName("wr_send_imm"),
            ADDRESS.withName("wr_send_inv"),
            ADDRESS.withName("wr_send_tso"),
            ADDRESS.withName("wr_set_ud_addr"),
            ADDRESS.withName("wr_set_xrc_srqn"),
            ADDRESS.withName("wr_set_inline_data"),
            ADDRESS.withName("wr_set_inline_data_list"),
            ADDRESS.withName("wr_set_sge"),
            ADDRESS.withName("wr_set_sge_list"),
            ADDRESS.withName("wr_start"),
            ADDRESS.withName("wr_complete"),
            ADDRESS.withName("wr_abort"),
            ADDRESS.withName("wr_atomic_write")).withName("ibv_qp_ex");

    /** {@code struct mlx5dv_qp_ex}: the mlx5 builder slots; only {@code wr_set_dc_addr} is called. */
    public static final StructLayout MLX5DV_QP_EX = structLayout(
            JAVA_LONG.withName("comp_mask"),
            ADDRESS.withName("wr_set_dc_addr"),
            ADDRESS.withName("wr_mr_interleaved"),
            ADDRESS.withName("wr_mr_list"),
            ADDRESS.withName("wr_mkey_configure"),
            ADDRESS.withName("wr_set_mkey_access_flags"),
            ADDRESS.withName("wr_set_mkey_layout_list"),
            ADDRESS.withName("wr_set_mkey_layout_interleaved"),
            ADDRESS.withName("wr_set_mkey_sig_block"),
            ADDRESS.withName("wr_raw_wqe"),
            ADDRESS.withName("wr_set_dc_addr_stream"),
            ADDRESS.withName("wr_memcpy"),
            ADDRESS.withName("wr_set_mkey_crypto")).withName("mlx5dv_qp_ex");

    public static final StructLayout IBV_RX_HASH_CONF = structLayout(
            JAVA_BYTE.withName("rx_hash_function"),
            JAVA_BYTE.withName("rx_hash_key_len"),
            paddingLayout(6),
            ADDRESS.withName("rx_hash_key"),
            JAVA_LONG.withName("rx_hash_fields_mask")).withName("ibv_rx_hash_conf");

    /** {@code struct ibv_qp_init_attr_ex}: what {@code mlx5dv_create_qp} takes for both DCI and DCT. */
    public static final StructLayout IBV_QP_INIT_ATTR_EX = structLayout(
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            IbvLayouts.IBV_QP_CAP.withName("cap"),
            JAVA_INT.withName("qp_type"),
            JAVA_INT.withName("sq_sig_all"),
            JAVA_INT.withName("comp_mask"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("xrcd"),
            JAVA_INT.withName("create_flags"),
            JAVA_SHORT.withName("max_tso_header"),
            paddingLayout(2),
            ADDRESS.withName("rwq_ind_tbl"),
            IBV_RX_HASH_CONF.withName("rx_hash_conf"),
            JAVA_INT.withName("source_qpn"),
            paddingLayout(4),
            JAVA_LONG.withName("send_ops_flags")).withName("ibv_qp_init_attr_ex");

    public static final StructLayout MLX5DV_DCI_STREAMS = structLayout(
            JAVA_BYTE.withName("log_num_concurent"),
            JAVA_BYTE.withName("log_num_errored")).withName("mlx5dv_dci_streams");

    /** {@code struct mlx5dv_dc_init_attr}: the DC type and, for a DCT, the access key it demands. */
    public static final StructLayout MLX5DV_DC_INIT_ATTR = structLayout(
            JAVA_INT.withName("dc_type"),
            paddingLayout(4),
            unionLayout(
                    JAVA_LONG.withName("dct_access_key"),
                    MLX5DV_DCI_STREAMS.withName("dci_streams")).withName("anon_key")).withName("mlx5dv_dc_init_attr");

    public static final StructLayout MLX5DV_QP_INIT_ATTR = structLayout(
            JAVA_LONG.withName("comp_mask"),
            JAVA_INT.withName("create_flags"),
            paddingLayout(4),
            MLX5DV_DC_INIT_ATTR.withName("dc_init_attr"),
            JAVA_LONG.withName("send_ops_flags")).withName("mlx5dv_qp_init_attr");

    public static final StructLayout IBV_SRQ_ATTR = structLayout(
            JAVA_INT.withName("max_wr"),
            JAVA_INT.withName("max_sge"),
            JAVA_INT.withName("srq_limit")).withName("ibv_srq_attr");

    public static final StructLayout IBV_SRQ_INIT_ATTR = structLayout(
            ADDRESS.withName("srq_context"),
            IBV_SRQ_ATTR.withName("attr"),
            paddingLayout(4)).withName("ibv_srq_init_attr");

    /**
     * The leading members of {@code struct mlx5dv_context} that {@code mlx5dv_query_device} is read for. The
     * struct grows with rdma-core, so the buffer handed to the library is {@link #MLX5DV_CONTEXT_BUFFER_SIZE}
     * bytes, more than the whole struct of any release so far (the probe checks it against this header).
     */
    public static final StructLayout MLX5DV_CONTEXT_HEAD = structLayout(
            JAVA_BYTE.withName("version"),
            paddingLayout(7),
            JAVA_LONG.withName("flags"),
            JAVA_LONG.withName("comp_mask")).withName("mlx5dv_context");

    /** Bytes allocated for {@code struct mlx5dv_context} (the header's sizeof is checked to be smaller). */
    public static final long MLX5DV_CONTEXT_BUFFER_SIZE = 1024;

    /** Every layout, in the order the probe prints them; nested ones included. */
    public static final List<GroupLayout> ALL = List.of(IBV_QP_EX, MLX5DV_QP_EX, IBV_RX_HASH_CONF,
            IBV_QP_INIT_ATTR_EX, MLX5DV_DCI_STREAMS, MLX5DV_DC_INIT_ATTR, MLX5DV_QP_INIT_ATTR, IBV_SRQ_ATTR,
            IBV_SRQ_INIT_ATTR);

    /** Offset of {@code path} in {@code layout} (see {@link IbvLayouts#offset}). */
    public static long offset(GroupLayout layout, String path) {
        return IbvLayouts.offset(layout, path);
    }

    /**
     * The facts of every layout in {@link #ALL}, plus the offsets of {@link #MLX5DV_CONTEXT_HEAD}'s members
     * (its size is deliberately not the C size).
     */
    public static Map<String, Long> allFacts() {
        Map<String, Long> all = new LinkedHashMap<>();
        for (GroupLayout g : ALL) {
            all.putAll(IbvLayouts.facts(g));
        }
        IbvLayouts.facts(MLX5DV_CONTEXT_HEAD).forEach((k, v) -> {
            if (!k.endsWith(".size") && !k.endsWith(".align")) {
                all.put(k, v);
            }
        });
        return all;
    }
}
