package org.objrdma.verbs.internal.ffi;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The libibverbs structs the bindings read or write, as FFM layouts of rdma-core 44 on Linux x86-64.
 * (On aarch64 only the pthread members differ in size; the fields used here all sit before them, but the
 * reference table is x86-64's, so other platforms are refused rather than assumed.)
 *
 * <p>Naming: a member is named as in {@code <infiniband/verbs.h>}; anonymous unions are named
 * {@code anon_*} and padding {@code pad*}, and {@link #facts} leaves both out of the keys, so a key is the
 * {@code offsetof} path C uses ({@code ibv_send_wr.wr.rdma.rkey}). Mutexes and condition variables are
 * opaque bytes: only their size matters here.
 *
 * <p>Two checks keep these honest: a unit test compares every key with what gcc says through the real
 * header ({@code layout.c}), and {@link #mismatchesAgainstReference()} compares them with the table of
 * the rdma-core release they were written for, at component activation.
 */
public final class IbvLayouts {

    private IbvLayouts() {
    }

    private static final AddressLayout PTR = ADDRESS;

    private static MemoryLayout chars(int n) {
        return sequenceLayout(n, JAVA_BYTE);
    }

    private static PaddingLayout pad(int n) {
        return paddingLayout(n);
    }

    public static final StructLayout IBV_DEVICE = structLayout(
            // struct _ibv_device_ops: two obsolete function pointers
            sequenceLayout(2, PTR).withName("_ops"),
            JAVA_INT.withName("node_type"),
            JAVA_INT.withName("transport_type"),
            chars(64).withName("name"),
            chars(64).withName("dev_name"),
            chars(256).withName("dev_path"),
            chars(256).withName("ibdev_path")).withName("ibv_device");

    public static final StructLayout IBV_DEVICE_ATTR = structLayout(
            chars(64).withName("fw_ver"),
            JAVA_LONG.withName("node_guid"),
            JAVA_LONG.withName("sys_image_guid"),
            JAVA_LONG.withName("max_mr_size"),
            JAVA_LONG.withName("page_size_cap"),
            JAVA_INT.withName("vendor_id"),
            JAVA_INT.withName("vendor_part_id"),
            JAVA_INT.withName("hw_ver"),
            JAVA_INT.withName("max_qp"),
            JAVA_INT.withName("max_qp_wr"),
            JAVA_INT.withName("device_cap_flags"),
            JAVA_INT.withName("max_sge"),
            JAVA_INT.withName("max_sge_rd"),
            JAVA_INT.withName("max_cq"),
            JAVA_INT.withName("max_cqe"),
            JAVA_INT.withName("max_mr"),
            JAVA_INT.withName("max_pd"),
            JAVA_INT.withName("max_qp_rd_atom"),
            JAVA_INT.withName("max_ee_rd_atom"),
            JAVA_INT.withName("max_res_rd_atom"),
            JAVA_INT.withName("max_qp_init_rd_atom"),
            JAVA_INT.withName("max_ee_init_rd_atom"),
            JAVA_INT.withName("atomic_cap"),
            JAVA_INT.withName("max_ee"),
            JAVA_INT.withName("max_rdd"),
            JAVA_INT.withName("max_mw"),
            JAVA_INT.withName("max_raw_ipv6_qp"),
            JAVA_INT.withName("max_raw_ethy_qp"),
            JAVA_INT.withName("max_mcast_grp"),
            JAVA_INT.withName("max_mcast_qp_attach"),
            JAVA_INT.withName("max_total_mcast_qp_attach"),
            JAVA_INT.withName("max_ah"),
            JAVA_INT.withName("max_fmr"),
            JAVA_INT.withName("max_map_per_fmr"),
            JAVA_INT.withName("max_srq"),
            JAVA_INT.withName("max_srq_wr"),
            JAVA_INT.withName("max_srq_sge"),
            JAVA_SHORT.withName("max_pkeys"),
            JAVA_BYTE.withName("local_ca_ack_delay"),
            JAVA_BYTE.withName("phys_port_cnt"),
            pad(4)).withName("ibv_device_attr");

    /**
     * rdma-core 44's {@code struct ibv_port_attr}. The exported {@code ibv_query_port} writes only the first
     * {@link #COMPAT_PORT_ATTR_SIZE} bytes; newer releases append fields, so callers pass a zeroed buffer of
     * {@link #PORT_ATTR_BUFFER_SIZE}.
     */
    public static final StructLayout IBV_PORT_ATTR = structLayout(
            JAVA_INT.withName("state"),
            JAVA_INT.withName("max_mtu"),
            JAVA_INT.withName("active_mtu"),
            JAVA_INT.withName("gid_tbl_len"),
            JAVA_INT.withName("port_cap_flags"),
            JAVA_INT.withName("max_msg_sz"),
            JAVA_INT.withName("bad_pkey_cntr"),
            JAVA_INT.withName("qkey_viol_cntr"),
            JAVA_SHORT.withName("pkey_tbl_len"),
            JAVA_SHORT.withName("lid"),
            JAVA_SHORT.withName("sm_lid"),
            JAVA_BYTE.withName("lmc"),
            JAVA_BYTE.withName("max_vl_num"),
            JAVA_BYTE.withName("sm_sl"),
            JAVA_BYTE.withName("subnet_timeout"),
            JAVA_BYTE.withName("init_type_reply"),
            JAVA_BYTE.withName("active_width"),
            JAVA_BYTE.withName("active_speed"),
            JAVA_BYTE.withName("phys_state"),
            JAVA_BYTE.withName("link_layer"),
            JAVA_BYTE.withName("flags"),
            JAVA_SHORT.withName("port_cap_flags2"),
            pad(2)).withName("ibv_port_attr");

    /** What the exported compat {@code ibv_query_port} writes: everything before {@code port_cap_flags2}. */
    public static final long COMPAT_PORT_ATTR_SIZE = 48;

    /** Zeroed buffer handed to {@code ibv_query_port}: room for fields later releases add. */
    public static final long PORT_ATTR_BUFFER_SIZE = 128;

    public static final UnionLayout IBV_GID = unionLayout(
            chars(16).withName("raw"),
            structLayout(JAVA_LONG.withName("subnet_prefix"), JAVA_LONG.withName("interface_id")).withName("global"))
            .withName("ibv_gid");

    /** {@code struct ibv_gid_entry}: one GID table slot as {@code _ibv_query_gid_ex} fills it (rdma-core 32+). */
    public static final StructLayout IBV_GID_ENTRY = structLayout(
            IBV_GID.withName("gid"),
            JAVA_INT.withName("gid_index"),
            JAVA_INT.withName("port_num"),
            JAVA_INT.withName("gid_type"),
            JAVA_INT.withName("ndev_ifindex")).withName("ibv_gid_entry");

    public static final StructLayout IBV_QP_CAP = structLayout(
            JAVA_INT.withName("max_send_wr"),
            JAVA_INT.withName("max_recv_wr"),
            JAVA_INT.withName("max_send_sge"),
            JAVA_INT.withName("max_recv_sge"),
            JAVA_INT.withName("max_inline_data")).withName("ibv_qp_cap");

    public static final StructLayout IBV_QP_INIT_ATTR = structLayout(
            PTR.withName("qp_context"),
            PTR.withName("send_cq"),
            PTR.withName("recv_cq"),
            PTR.withName("srq"),
            IBV_QP_CAP.withName("cap"),
            JAVA_INT.withName("qp_type"),
            JAVA_INT.withName("sq_sig_all"),
            pad(4)).withName("ibv_qp_init_attr");

    public static final StructLayout IBV_GLOBAL_ROUTE = structLayout(
            IBV_GID.withName("dgid"),
            JAVA_INT.withName("flow_label"),
            JAVA_BYTE.withName("sgid_index"),
            JAVA_BYTE.withName("hop_limit"),
            JAVA_BYTE.withName("traffic_class"),
            pad(1)).withName("ibv_global_route");

    public static final StructLayout IBV_AH_ATTR = structLayout(
            IBV_GLOBAL_ROUTE.withName("grh"),
            JAVA_SHORT.withName("dlid"),
            JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("src_path_bits"),
            JAVA_BYTE.withName("static_rate"),
            JAVA_BYTE.withName("is_global"),
            JAVA_BYTE.withName("port_num"),
            pad(1)).withName("ibv_ah_attr");

    public static final StructLayout IBV_QP_ATTR = structLayout(
            JAVA_INT.withName("qp_state"),
            JAVA_INT.withName("cur_qp_state"),
            JAVA_INT.withName("path_mtu"),
            JAVA_INT.withName("path_mig_state"),
            JAVA_INT.withName("qkey"),
            JAVA_INT.withName("rq_psn"),
            JAVA_INT.withName("sq_psn"),
            JAVA_INT.withName("dest_qp_num"),
            JAVA_INT.withName("qp_access_flags"),
            IBV_QP_CAP.withName("cap"),
            IBV_AH_ATTR.withName("ah_attr"),
            IBV_AH_ATTR.withName("alt_ah_attr"),
            JAVA_SHORT.withName("pkey_index"),
            JAVA_SHORT.withName("alt_pkey_index"),
            JAVA_BYTE.withName("en_sqd_async_notify"),
            JAVA_BYTE.withName("sq_draining"),
            JAVA_BYTE.withName("max_rd_atomic"),
            JAVA_BYTE.withName("max_dest_rd_atomic"),
            JAVA_BYTE.withName("min_rnr_timer"),
            JAVA_BYTE.withName("port_num"),
            JAVA_BYTE.withName("timeout"),
            JAVA_BYTE.withName("retry_cnt"),
            JAVA_BYTE.withName("rnr_retry"),
            JAVA_BYTE.withName("alt_port_num"),
            JAVA_BYTE.withName("alt_timeout"),
            pad(1),
            JAVA_INT.withName("rate_limit"),
            pad(4)).withName("ibv_qp_attr");

    public static final StructLayout IBV_SGE = structLayout(
            JAVA_LONG.withName("addr"),
            JAVA_INT.withName("length"),
            JAVA_INT.withName("lkey")).withName("ibv_sge");

    private static StructLayout mwBindInfo() {
        return structLayout(
                PTR.withName("mr"),
                JAVA_LONG.withName("addr"),
                JAVA_LONG.withName("length"),
                JAVA_INT.withName("mw_access_flags"),
                pad(4));
    }

    public static final StructLayout IBV_MW_BIND_INFO = mwBindInfo().withName("ibv_mw_bind_info");

    public static final StructLayout IBV_MW = structLayout(
            PTR.withName("context"),
            PTR.withName("pd"),
            JAVA_INT.withName("rkey"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("type"),
            pad(4)).withName("ibv_mw");

    public static final StructLayout IBV_SEND_WR = structLayout(
            JAVA_LONG.withName("wr_id"),
            PTR.withName("next"),
            PTR.withName("sg_list"),
            JAVA_INT.withName("num_sge"),
            JAVA_INT.withName("opcode"),
            JAVA_INT.withName("send_flags"),
            unionLayout(JAVA_INT.withName("imm_data"), JAVA_INT.withName("invalidate_rkey")).withName("anon_imm"),
            unionLayout(
                    structLayout(JAVA_LONG.withName("remote_addr"), JAVA_INT.withName("rkey"), pad(4)).withName("rdma"),
                    structLayout(JAVA_LONG.withName("remote_addr"), JAVA_LONG.withName("compare_add"),
                            JAVA_LONG.withName("swap"), JAVA_INT.withName("rkey"), pad(4)).withName("atomic"),
                    structLayout(PTR.withName("ah"), JAVA_INT.withName("remote_qpn"), JAVA_INT.withName("remote_qkey"))
                            .withName("ud")).withName("wr"),
            unionLayout(structLayout(JAVA_INT.withName("remote_srqn")).withName("xrc")).withName("qp_type"),
            pad(4),
            unionLayout(
                    structLayout(PTR.withName("mw"), JAVA_INT.withName("rkey"), pad(4),
                            mwBindInfo().withName("bind_info")).withName("bind_mw"),
                    structLayout(PTR.withName("hdr"), JAVA_SHORT.withName("hdr_sz"), JAVA_SHORT.withName("mss"), pad(4))
                            .withName("tso")).withName("anon_bind_tso")).withName("ibv_send_wr");

    public static final StructLayout IBV_RECV_WR = structLayout(
            JAVA_LONG.withName("wr_id"),
            PTR.withName("next"),
            PTR.withName("sg_list"),
            JAVA_INT.withName("num_sge"),
            pad(4)).withName("ibv_recv_wr");

    public static final StructLayout IBV_WC = structLayout(
            JAVA_LONG.withName("wr_id"),
            JAVA_INT.withName("status"),
            JAVA_INT.withName("opcode"),
            JAVA_INT.withName("vendor_err"),
            JAVA_INT.withName("byte_len"),
            unionLayout(JAVA_INT.withName("imm_data"), JAVA_INT.withName("invalidated_rkey")).withName("anon_imm"),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("src_qp"),
            JAVA_INT.withName("wc_flags"),
            JAVA_SHORT.withName("pkey_index"),
            JAVA_SHORT.withName("slid"),
            JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("dlid_path_bits"),
            pad(2)).withName("ibv_wc");

    public static final StructLayout IBV_MR = structLayout(
            PTR.withName("context"),
            PTR.withName("pd"),
            PTR.withName("addr"),
            JAVA_LONG.withName("length"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("lkey"),
            JAVA_INT.withName("rkey"),
            pad(4)).withName("ibv_mr");

    public static final StructLayout IBV_PD = structLayout(
            PTR.withName("context"),
            JAVA_INT.withName("handle"),
            pad(4)).withName("ibv_pd");

    public static final StructLayout IBV_COMP_CHANNEL = structLayout(
            PTR.withName("context"),
            JAVA_INT.withName("fd"),
            JAVA_INT.withName("refcnt")).withName("ibv_comp_channel");

    public static final StructLayout IBV_CQ = structLayout(
            PTR.withName("context"),
            PTR.withName("channel"),
            PTR.withName("cq_context"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("cqe"),
            chars(40).withName("mutex"),
            chars(48).withName("cond"),
            JAVA_INT.withName("comp_events_completed"),
            JAVA_INT.withName("async_events_completed")).withName("ibv_cq");

    public static final StructLayout IBV_QP = structLayout(
            PTR.withName("context"),
            PTR.withName("qp_context"),
            PTR.withName("pd"),
            PTR.withName("send_cq"),
            PTR.withName("recv_cq"),
            PTR.withName("srq"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("state"),
            JAVA_INT.withName("qp_type"),
            chars(40).withName("mutex"),
            chars(48).withName("cond"),
            JAVA_INT.withName("events_completed"),
            pad(4)).withName("ibv_qp");

    /** {@code struct ibv_context_ops}: the slot order is ABI; the data-path verbs are called through it. */
    public static final StructLayout IBV_CONTEXT_OPS = structLayout(
            PTR.withName("_compat_query_device"),
            PTR.withName("_compat_query_port"),
            PTR.withName("_compat_alloc_pd"),
            PTR.withName("_compat_dealloc_pd"),
            PTR.withName("_compat_reg_mr"),
            PTR.withName("_compat_rereg_mr"),
            PTR.withName("_compat_dereg_mr"),
            PTR.withName("alloc_mw"),
            PTR.withName("bind_mw"),
            PTR.withName("dealloc_mw"),
            PTR.withName("_compat_create_cq"),
            PTR.withName("poll_cq"),
            PTR.withName("req_notify_cq"),
            PTR.withName("_compat_cq_event"),
            PTR.withName("_compat_resize_cq"),
            PTR.withName("_compat_destroy_cq"),
            PTR.withName("_compat_create_srq"),
            PTR.withName("_compat_modify_srq"),
            PTR.withName("_compat_query_srq"),
            PTR.withName("_compat_destroy_srq"),
            PTR.withName("post_srq_recv"),
            PTR.withName("_compat_create_qp"),
            PTR.withName("_compat_query_qp"),
            PTR.withName("_compat_modify_qp"),
            PTR.withName("_compat_destroy_qp"),
            PTR.withName("post_send"),
            PTR.withName("post_recv"),
            PTR.withName("_compat_create_ah"),
            PTR.withName("_compat_destroy_ah"),
            PTR.withName("_compat_attach_mcast"),
            PTR.withName("_compat_detach_mcast"),
            PTR.withName("_compat_async_event")).withName("ibv_context_ops");

    public static final StructLayout IBV_CONTEXT = structLayout(
            PTR.withName("device"),
            IBV_CONTEXT_OPS.withName("ops"),
            JAVA_INT.withName("cmd_fd"),
            JAVA_INT.withName("async_fd"),
            JAVA_INT.withName("num_comp_vectors"),
            pad(4),
            chars(40).withName("mutex"),
            PTR.withName("abi_compat")).withName("ibv_context");

    /** {@code struct ibv_async_event}: what {@code ibv_get_async_event} fills in. */
    public static final StructLayout IBV_ASYNC_EVENT = structLayout(
            unionLayout(PTR.withName("cq"), PTR.withName("qp"), PTR.withName("srq"), PTR.withName("wq"),
                    JAVA_INT.withName("port_num")).withName("element"),
            JAVA_INT.withName("event_type"),
            pad(4)).withName("ibv_async_event");

    /** Every layout above, in header order. */
    public static final List<GroupLayout> ALL = List.of(IBV_DEVICE, IBV_DEVICE_ATTR, IBV_PORT_ATTR, IBV_GID,
            IBV_QP_CAP, IBV_QP_INIT_ATTR, IBV_GLOBAL_ROUTE, IBV_AH_ATTR, IBV_QP_ATTR, IBV_SGE, IBV_SEND_WR,
            IBV_RECV_WR, IBV_WC, IBV_MR, IBV_MW, IBV_MW_BIND_INFO, IBV_PD, IBV_COMP_CHANNEL, IBV_CQ, IBV_QP,
            IBV_CONTEXT_OPS, IBV_CONTEXT, IBV_ASYNC_EVENT, IBV_GID_ENTRY);

    /** Offset of {@code path} (dot-separated C member names, anonymous unions skipped) in {@code layout}. */
    public static long offset(GroupLayout layout, String path) {
        Long off = facts(layout).get(layout.name().orElseThrow() + "." + path);
        if (off == null) {
            throw new IllegalArgumentException("no member " + path + " in " + layout.name().orElseThrow());
        }
        return off;
    }

    /**
     * The layout as the {@code name=value} facts {@code layout.c} prints for it: {@code S.size},
     * {@code S.align}, {@code S.path} (offset) and {@code sizeof.S.path} for every named member, nested
     * members included.
     */
    public static Map<String, Long> facts(GroupLayout layout) {
        String name = layout.name().orElseThrow();
        Map<String, Long> facts = new LinkedHashMap<>();
        facts.put(name + ".size", layout.byteSize());
        facts.put(name + ".align", layout.byteAlignment());
        walk(layout, name, 0, facts);
        return facts;
    }

    private static void walk(GroupLayout group, String prefix, long base, Map<String, Long> facts) {
        long offset = 0;
        for (MemoryLayout member : group.memberLayouts()) {
            long memberOffset = base + (group instanceof StructLayout ? offset : 0);
            String memberName = member.name().orElse("");
            if (member instanceof PaddingLayout || memberName.startsWith("pad")) {
                // padding has no C name
            } else if (memberName.startsWith("anon_")) {
                walk((GroupLayout) member, prefix, memberOffset, facts);
            } else {
                String key = prefix + "." + memberName;
                facts.put(key, memberOffset);
                facts.put("sizeof." + key, member.byteSize());
                if (member instanceof GroupLayout g) {
                    walk(g, key, memberOffset, facts);
                }
            }
            offset += member.byteSize();
        }
    }

    /** Facts of every layout in {@link #ALL}. */
    public static Map<String, Long> allFacts() {
        Map<String, Long> all = new LinkedHashMap<>();
        for (GroupLayout g : ALL) {
            all.putAll(facts(g));
        }
        return all;
    }

    /** Name of the reference table: the layout.c output of the release these layouts were written for. */
    public static final String REFERENCE_RESOURCE = "rdma-core-44-x86_64.layout";

    /** The reference table, parsed. */
    public static Map<String, Long> reference() {
        try (InputStream in = IbvLayouts.class.getResourceAsStream(REFERENCE_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("layout reference " + REFERENCE_RESOURCE + " missing from the bundle");
            }
            return parseFacts(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses {@code name=value} lines; blank lines and {@code #} comments are skipped. */
    public static Map<String, Long> parseFacts(String text) {
        Map<String, Long> facts = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            int eq = l.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("not a name=value line: " + l);
            }
            facts.put(l.substring(0, eq), Long.parseLong(l.substring(eq + 1)));
        }
        return facts;
    }

    /**
     * Differences between these layouts and the reference table, one line each ({@code key: java X, C Y});
     * empty when they agree. Also refuses a platform the layouts were not written for (Linux x86-64).
     */
    public static List<String> mismatchesAgainstReference() {
        List<String> problems = new ArrayList<>();
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            problems.add("libibverbs bindings need Linux, this is " + os);
        }
        if (!(arch.equals("amd64") || arch.equals("x86_64"))) {
            problems.add("libibverbs layouts are written and checked for x86-64 only, this is " + arch);
        }
        if (ValueLayout.ADDRESS.byteSize() != 8) {
            problems.add("libibverbs layouts need 8-byte pointers, this JVM has " + ValueLayout.ADDRESS.byteSize());
        }
        problems.addAll(compare(allFacts(), reference()));
        return problems;
    }

    /** For every key both maps have, a line when the values differ; plus the Java keys {@code c} lacks entirely. */
    public static List<String> compare(Map<String, Long> java, Map<String, Long> c) {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Long> e : java.entrySet()) {
            Long cValue = c.get(e.getKey());
            if (cValue != null && !cValue.equals(e.getValue())) {
                problems.add(e.getKey() + ": java " + e.getValue() + ", C " + cValue);
            }
        }
        for (GroupLayout g : ALL) {
            String size = g.name().orElseThrow() + ".size";
            if (!c.containsKey(size)) {
                problems.add(size + ": missing from the C table");
            }
        }
        return problems;
    }
}
