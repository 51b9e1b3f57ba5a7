/*
 * layout.c - print the x86-64 layout of the libibverbs structs and enums that
 * the Java (FFM) binding hard-codes, as seen by gcc through the real
 * <infiniband/verbs.h>.  A Java test parses this and compares it with its own
 * MemoryLayouts, so header drift (a new rdma-core) cannot go unnoticed.
 *
 * Output: one fact per line, "name=value", value in decimal:
 *   <struct>.size=N            sizeof(struct)
 *   <struct>.align=N           _Alignof(struct)
 *   <struct>.<path>=N          offsetof(struct, path); path may be nested
 *                              (ibv_send_wr.wr.rdma.rkey, ibv_context.ops.post_send)
 *   sizeof.<struct>.<path>=N   size of that field
 *   <ENUM_CONSTANT>=N          enum and #define values (IBV_QP_STATE=1)
 * No field of these structs is called "size" or "align", so keys are unambiguous.
 *
 * "layout dc" prints instead the facts of the Dynamic Connection ABI (the
 * extended QP API of verbs.h and what mlx5dv.h declares for DC): kept apart so
 * the default output, and the reference table built from it, stay as they are.
 */
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <string.h>

#include <stddef.h>
#include <stdio.h>

static void put(const char *key, long long v) { printf("%s=%lld\n", key, v); }

static void put2(const char *a, const char *b, long long v) { printf("%s.%s=%lld\n", a, b, v); }

/* Works for struct and union tags: K is the keyword. */
#define AGG(K, T)                                                     \
	do {                                                          \
		put2(#T, "size", (long long)sizeof(K T));             \
		put2(#T, "align", (long long)_Alignof(K T));          \
	} while (0)
#define FLD(K, T, F)                                                         \
	do {                                                                 \
		put2(#T, #F, (long long)offsetof(K T, F));                   \
		printf("sizeof.%s.%s=%zu\n", #T, #F, sizeof(((K T *)0)->F)); \
	} while (0)
#define S(T) AGG(struct, T)
#define F(T, Fld) FLD(struct, T, Fld)
#define E(C) put(#C, (long long)(C))

static void structs(void)
{
	S(ibv_device_attr);
	F(ibv_device_attr, fw_ver); F(ibv_device_attr, node_guid); F(ibv_device_attr, sys_image_guid);
	F(ibv_device_attr, max_mr_size); F(ibv_device_attr, page_size_cap); F(ibv_device_attr, vendor_id);
	F(ibv_device_attr, vendor_part_id); F(ibv_device_attr, hw_ver); F(ibv_device_attr, max_qp);
	F(ibv_device_attr, max_qp_wr); F(ibv_device_attr, device_cap_flags); F(ibv_device_attr, max_sge);
	F(ibv_device_attr, max_sge_rd); F(ibv_device_attr, max_cq); F(ibv_device_attr, max_cqe);
	F(ibv_device_attr, max_mr); F(ibv_device_attr, max_pd); F(ibv_device_attr, max_qp_rd_atom);
	F(ibv_device_attr, max_ee_rd_atom); F(ibv_device_attr, max_res_rd_atom);
	F(ibv_device_attr, max_qp_init_rd_atom); F(ibv_device_attr, max_ee_init_rd_atom);
	F(ibv_device_attr, atomic_cap); F(ibv_device_attr, max_ee); F(ibv_device_attr, max_rdd);
	F(ibv_device_attr, max_mw); F(ibv_device_attr, max_raw_ipv6_qp); F(ibv_device_attr, max_raw_ethy_qp);
	F(ibv_device_attr, max_mcast_grp); F(ibv_device_attr, max_mcast_qp_attach);
	F(ibv_device_attr, max_total_mcast_qp_attach); F(ibv_device_attr, max_ah); F(ibv_device_attr, max_fmr);
	F(ibv_device_attr, max_map_per_fmr); F(ibv_device_attr, max_srq); F(ibv_device_attr, max_srq_wr);
	F(ibv_device_attr, max_srq_sge); F(ibv_device_attr, max_pkeys); F(ibv_device_attr, local_ca_ack_delay);
	F(ibv_device_attr, phys_port_cnt);

	S(ibv_port_attr);
	F(ibv_port_attr, state); F(ibv_port_attr, max_mtu); F(ibv_port_attr, active_mtu);
	F(ibv_port_attr, gid_tbl_len); F(ibv_port_attr, port_cap_flags); F(ibv_port_attr, max_msg_sz);
	F(ibv_port_attr, bad_pkey_cntr); F(ibv_port_attr, qkey_viol_cntr); F(ibv_port_attr, pkey_tbl_len);
	F(ibv_port_attr, lid); F(ibv_port_attr, sm_lid); F(ibv_port_attr, lmc); F(ibv_port_attr, max_vl_num);
	F(ibv_port_attr, sm_sl); F(ibv_port_attr, subnet_timeout); F(ibv_port_attr, init_type_reply);
	F(ibv_port_attr, active_width); F(ibv_port_attr, active_speed); F(ibv_port_attr, phys_state);
	F(ibv_port_attr, link_layer); F(ibv_port_attr, flags); F(ibv_port_attr, port_cap_flags2);
	/* What the exported compat ibv_query_port() writes: everything before port_cap_flags2. */
	put("compat_ibv_port_attr.size", (long long)offsetof(struct ibv_port_attr, port_cap_flags2));

	AGG(union, ibv_gid);
	FLD(union, ibv_gid, raw); FLD(union, ibv_gid, global);
	FLD(union, ibv_gid, global.subnet_prefix); FLD(union, ibv_gid, global.interface_id);

	S(ibv_qp_cap);
	F(ibv_qp_cap, max_send_wr); F(ibv_qp_cap, max_recv_wr); F(ibv_qp_cap, max_send_sge);
	F(ibv_qp_cap, max_recv_sge); F(ibv_qp_cap, max_inline_data);

	S(ibv_qp_init_attr);
	F(ibv_qp_init_attr, qp_context); F(ibv_qp_init_attr, send_cq); F(ibv_qp_init_attr, recv_cq);
	F(ibv_qp_init_attr, srq); F(ibv_qp_init_attr, cap); F(ibv_qp_init_attr, cap.max_send_wr);
	F(ibv_qp_init_attr, cap.max_recv_wr); F(ibv_qp_init_attr, cap.max_send_sge);
	F(ibv_qp_init_attr, cap.max_recv_sge); F(ibv_qp_init_attr, cap.max_inline_data);
	F(ibv_qp_init_attr, qp_type); F(ibv_qp_init_attr, sq_sig_all);

	S(ibv_global_route);
	F(ibv_global_route, dgid); F(ibv_global_route, flow_label); F(ibv_global_route, sgid_index);
	F(ibv_global_route, hop_limit); F(ibv_global_route, traffic_class);

	S(ibv_ah_attr);
	F(ibv_ah_attr, grh); F(ibv_ah_attr, grh.dgid); F(ibv_ah_attr, grh.flow_label);
	F(ibv_ah_attr, grh.sgid_index); F(ibv_ah_attr, grh.hop_limit); F(ibv_ah_attr, grh.traffic_class);
	F(ibv_ah_attr, dlid); F(ibv_ah_attr, sl); F(ibv_ah_attr, src_path_bits); F(ibv_ah_attr, static_rate);
	F(ibv_ah_attr, is_global); F(ibv_ah_attr, port_num);

	S(ibv_qp_attr);
	F(ibv_qp_attr, qp_state); F(ibv_qp_attr, cur_qp_state); F(ibv_qp_attr, path_mtu);
	F(ibv_qp_attr, path_mig_state); F(ibv_qp_attr, qkey); F(ibv_qp_attr, rq_psn); F(ibv_qp_attr, sq_psn);
	F(ibv_qp_attr, dest_qp_num); F(ibv_qp_attr, qp_access_flags); F(ibv_qp_attr, cap);
	F(ibv_qp_attr, cap.max_send_wr); F(ibv_qp_attr, cap.max_recv_wr); F(ibv_qp_attr, cap.max_send_sge);
	F(ibv_qp_attr, cap.max_recv_sge); F(ibv_qp_attr, cap.max_inline_data);
	F(ibv_qp_attr, ah_attr); F(ibv_qp_attr, ah_attr.grh); F(ibv_qp_attr, ah_attr.grh.dgid);
	F(ibv_qp_attr, ah_attr.grh.flow_label); F(ibv_qp_attr, ah_attr.grh.sgid_index);
	F(ibv_qp_attr, ah_attr.grh.hop_limit); F(ibv_qp_attr, ah_attr.grh.traffic_class);
	F(ibv_qp_attr, ah_attr.dlid); F(ibv_qp_attr, ah_attr.sl); F(ibv_qp_attr, ah_attr.src_path_bits);
	F(ibv_qp_attr, ah_attr.static_rate); F(ibv_qp_attr, ah_attr.is_global); F(ibv_qp_attr, ah_attr.port_num);
	F(ibv_qp_attr, alt_ah_attr); F(ibv_qp_attr, pkey_index); F(ibv_qp_attr, alt_pkey_index);
	F(ibv_qp_attr, en_sqd_async_notify); F(ibv_qp_attr, sq_draining); F(ibv_qp_attr, max_rd_atomic);
	F(ibv_qp_attr, max_dest_rd_atomic); F(ibv_qp_attr, min_rnr_timer); F(ibv_qp_attr, port_num);
	F(ibv_qp_attr, timeout); F(ibv_qp_attr, retry_cnt); F(ibv_qp_attr, rnr_retry);
	F(ibv_qp_attr, alt_port_num); F(ibv_qp_attr, alt_timeout); F(ibv_qp_attr, rate_limit);

	S(ibv_sge);
	F(ibv_sge, addr); F(ibv_sge, length); F(ibv_sge, lkey);

	S(ibv_send_wr);
	F(ibv_send_wr, wr_id); F(ibv_send_wr, next); F(ibv_send_wr, sg_list); F(ibv_send_wr, num_sge);
	F(ibv_send_wr, opcode); F(ibv_send_wr, send_flags); F(ibv_send_wr, imm_data);
	F(ibv_send_wr, invalidate_rkey); F(ibv_send_wr, wr); F(ibv_send_wr, wr.rdma.remote_addr);
	F(ibv_send_wr, wr.rdma.rkey); F(ibv_send_wr, wr.atomic.remote_addr); F(ibv_send_wr, wr.atomic.compare_add);
	F(ibv_send_wr, wr.atomic.swap); F(ibv_send_wr, wr.atomic.rkey); F(ibv_send_wr, wr.ud.ah);
	F(ibv_send_wr, wr.ud.remote_qpn); F(ibv_send_wr, wr.ud.remote_qkey); F(ibv_send_wr, qp_type);
	F(ibv_send_wr, qp_type.xrc.remote_srqn); F(ibv_send_wr, bind_mw); F(ibv_send_wr, bind_mw.mw);
	F(ibv_send_wr, bind_mw.rkey); F(ibv_send_wr, bind_mw.bind_info); F(ibv_send_wr, tso.hdr);
	F(ibv_send_wr, tso.hdr_sz); F(ibv_send_wr, tso.mss);
	F(ibv_send_wr, bind_mw.bind_info.mr); F(ibv_send_wr, bind_mw.bind_info.addr);
	F(ibv_send_wr, bind_mw.bind_info.length); F(ibv_send_wr, bind_mw.bind_info.mw_access_flags);

	/* memory windows: allocated through ops.alloc_mw, bound by IBV_WR_BIND_MW */
	S(ibv_mw);
	F(ibv_mw, context); F(ibv_mw, pd); F(ibv_mw, rkey); F(ibv_mw, handle); F(ibv_mw, type);
	S(ibv_mw_bind_info);
	F(ibv_mw_bind_info, mr); F(ibv_mw_bind_info, addr); F(ibv_mw_bind_info, length);
	F(ibv_mw_bind_info, mw_access_flags);

	S(ibv_recv_wr);
	F(ibv_recv_wr, wr_id); F(ibv_recv_wr, next); F(ibv_recv_wr, sg_list); F(ibv_recv_wr, num_sge);

	S(ibv_wc);
	F(ibv_wc, wr_id); F(ibv_wc, status); F(ibv_wc, opcode); F(ibv_wc, vendor_err); F(ibv_wc, byte_len);
	F(ibv_wc, imm_data); F(ibv_wc, invalidated_rkey); F(ibv_wc, qp_num); F(ibv_wc, src_qp);
	F(ibv_wc, wc_flags); F(ibv_wc, pkey_index); F(ibv_wc, slid); F(ibv_wc, sl); F(ibv_wc, dlid_path_bits);

	S(ibv_async_event);
	F(ibv_async_event, element); F(ibv_async_event, element.cq); F(ibv_async_event, element.qp);
	F(ibv_async_event, element.srq); F(ibv_async_event, element.wq); F(ibv_async_event, element.port_num);
	F(ibv_async_event, event_type);

	S(ibv_mr);
	F(ibv_mr, context); F(ibv_mr, pd); F(ibv_mr, addr); F(ibv_mr, length); F(ibv_mr, handle);
	F(ibv_mr, lkey); F(ibv_mr, rkey);

	S(ibv_pd);
	F(ibv_pd, context); F(ibv_pd, handle);

	S(ibv_comp_channel);
	F(ibv_comp_channel, context); F(ibv_comp_channel, fd); F(ibv_comp_channel, refcnt);

	S(ibv_cq);
	F(ibv_cq, context); F(ibv_cq, channel); F(ibv_cq, cq_context); F(ibv_cq, handle); F(ibv_cq, cqe);
	F(ibv_cq, mutex); F(ibv_cq, cond); F(ibv_cq, comp_events_completed); F(ibv_cq, async_events_completed);

	S(ibv_qp);
	F(ibv_qp, context); F(ibv_qp, qp_context); F(ibv_qp, pd); F(ibv_qp, send_cq); F(ibv_qp, recv_cq);
	F(ibv_qp, srq); F(ibv_qp, handle); F(ibv_qp, qp_num); F(ibv_qp, state); F(ibv_qp, qp_type);
	F(ibv_qp, mutex); F(ibv_qp, cond); F(ibv_qp, events_completed);

	S(ibv_device);
	F(ibv_device, _ops); F(ibv_device, node_type); F(ibv_device, transport_type); F(ibv_device, name);
	F(ibv_device, dev_name); F(ibv_device, dev_path); F(ibv_device, ibdev_path);

	/* The data-path verbs are inline and dispatch through ops: these offsets
	 * (from the start of ibv_context) are what Java reads function pointers at. */
	S(ibv_context);
	F(ibv_context, device); F(ibv_context, ops); F(ibv_context, ops.alloc_mw); F(ibv_context, ops.bind_mw);
	F(ibv_context, ops.dealloc_mw); F(ibv_context, ops.poll_cq); F(ibv_context, ops.req_notify_cq);
	F(ibv_context, ops.post_srq_recv); F(ibv_context, ops.post_send); F(ibv_context, ops.post_recv);
	F(ibv_context, cmd_fd); F(ibv_context, async_fd); F(ibv_context, num_comp_vectors);
	F(ibv_context, mutex); F(ibv_context, abi_compat);

	S(ibv_context_ops);
	F(ibv_context_ops, _compat_query_device); F(ibv_context_ops, _compat_query_port);
	F(ibv_context_ops, _compat_alloc_pd); F(ibv_context_ops, _compat_dealloc_pd);
	F(ibv_context_ops, _compat_reg_mr); F(ibv_context_ops, _compat_rereg_mr);
	F(ibv_context_ops, _compat_dereg_mr); F(ibv_context_ops, alloc_mw); F(ibv_context_ops, bind_mw);
	F(ibv_context_ops, dealloc_mw); F(ibv_context_ops, _compat_create_cq); F(ibv_context_ops, poll_cq);
	F(ibv_context_ops, req_notify_cq); F(ibv_context_ops, _compat_cq_event);
	F(ibv_context_ops, _compat_resize_cq); F(ibv_context_ops, _compat_destroy_cq);
	F(ibv_context_ops, _compat_create_srq); F(ibv_context_ops, _compat_modify_srq);
	F(ibv_context_ops, _compat_query_srq); F(ibv_context_ops, _compat_destroy_srq);
	F(ibv_context_ops, post_srq_recv); F(ibv_context_ops, _compat_create_qp);
	F(ibv_context_ops, _compat_query_qp); F(ibv_context_ops, _compat_modify_qp);
	F(ibv_context_ops, _compat_destroy_qp); F(ibv_context_ops, post_send); F(ibv_context_ops, post_recv);
	F(ibv_context_ops, _compat_create_ah); F(ibv_context_ops, _compat_destroy_ah);
	F(ibv_context_ops, _compat_attach_mcast); F(ibv_context_ops, _compat_detach_mcast);
	F(ibv_context_ops, _compat_async_event);

	/* verbs_context sits in front of ibv_context when abi_compat == (void*)-1;
	 * a field's offset from the ibv_context is offset - verbs_context.context. */
	S(verbs_context);
	F(verbs_context, query_port); F(verbs_context, modify_cq); F(verbs_context, create_cq_ex);
	F(verbs_context, priv); F(verbs_context, query_device_ex); F(verbs_context, create_qp_ex);
	F(verbs_context, sz); F(verbs_context, context);

	S(ibv_gid_entry);
	F(ibv_gid_entry, gid); F(ibv_gid_entry, gid_index); F(ibv_gid_entry, port_num);
	F(ibv_gid_entry, gid_type); F(ibv_gid_entry, ndev_ifindex);
}

static void enums(void)
{
	/* ibv_qp_state */
	E(IBV_QPS_RESET); E(IBV_QPS_INIT); E(IBV_QPS_RTR); E(IBV_QPS_RTS); E(IBV_QPS_SQD);
	E(IBV_QPS_SQE); E(IBV_QPS_ERR); E(IBV_QPS_UNKNOWN);
	/* ibv_qp_type */
	E(IBV_QPT_RC); E(IBV_QPT_UC); E(IBV_QPT_UD); E(IBV_QPT_RAW_PACKET); E(IBV_QPT_XRC_SEND);
	E(IBV_QPT_XRC_RECV); E(IBV_QPT_DRIVER);
	/* ibv_wr_opcode */
	E(IBV_WR_RDMA_WRITE); E(IBV_WR_RDMA_WRITE_WITH_IMM); E(IBV_WR_SEND); E(IBV_WR_SEND_WITH_IMM);
	E(IBV_WR_RDMA_READ); E(IBV_WR_ATOMIC_CMP_AND_SWP); E(IBV_WR_ATOMIC_FETCH_AND_ADD);
	E(IBV_WR_LOCAL_INV); E(IBV_WR_BIND_MW); E(IBV_WR_SEND_WITH_INV); E(IBV_WR_TSO); E(IBV_WR_DRIVER1);
	E(IBV_WR_ATOMIC_WRITE);
	/* memory windows */
	E(IBV_MW_TYPE_1); E(IBV_MW_TYPE_2); E(IBV_DEVICE_MEM_WINDOW); E(IBV_DEVICE_MEM_WINDOW_TYPE_2A);
	E(IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	/* ibv_send_flags */
	E(IBV_SEND_FENCE); E(IBV_SEND_SIGNALED); E(IBV_SEND_SOLICITED); E(IBV_SEND_INLINE); E(IBV_SEND_IP_CSUM);
	/* ibv_access_flags */
	E(IBV_ACCESS_LOCAL_WRITE); E(IBV_ACCESS_REMOTE_WRITE); E(IBV_ACCESS_REMOTE_READ);
	E(IBV_ACCESS_REMOTE_ATOMIC); E(IBV_ACCESS_MW_BIND); E(IBV_ACCESS_ZERO_BASED); E(IBV_ACCESS_ON_DEMAND);
	E(IBV_ACCESS_HUGETLB); E(IBV_ACCESS_RELAXED_ORDERING); E(IBV_ACCESS_OPTIONAL_RANGE);
	/* ibv_qp_attr_mask */
	E(IBV_QP_STATE); E(IBV_QP_CUR_STATE); E(IBV_QP_EN_SQD_ASYNC_NOTIFY); E(IBV_QP_ACCESS_FLAGS);
	E(IBV_QP_PKEY_INDEX); E(IBV_QP_PORT); E(IBV_QP_QKEY); E(IBV_QP_AV); E(IBV_QP_PATH_MTU);
	E(IBV_QP_TIMEOUT); E(IBV_QP_RETRY_CNT); E(IBV_QP_RNR_RETRY); E(IBV_QP_RQ_PSN);
	E(IBV_QP_MAX_QP_RD_ATOMIC); E(IBV_QP_ALT_PATH); E(IBV_QP_MIN_RNR_TIMER); E(IBV_QP_SQ_PSN);
	E(IBV_QP_MAX_DEST_RD_ATOMIC); E(IBV_QP_PATH_MIG_STATE); E(IBV_QP_CAP); E(IBV_QP_DEST_QPN);
	E(IBV_QP_RATE_LIMIT);
	/* ibv_wc_status */
	E(IBV_WC_SUCCESS); E(IBV_WC_LOC_LEN_ERR); E(IBV_WC_LOC_QP_OP_ERR); E(IBV_WC_LOC_EEC_OP_ERR);
	E(IBV_WC_LOC_PROT_ERR); E(IBV_WC_WR_FLUSH_ERR); E(IBV_WC_MW_BIND_ERR); E(IBV_WC_BAD_RESP_ERR);
	E(IBV_WC_LOC_ACCESS_ERR); E(IBV_WC_REM_INV_REQ_ERR); E(IBV_WC_REM_ACCESS_ERR); E(IBV_WC_REM_OP_ERR);
	E(IBV_WC_RETRY_EXC_ERR); E(IBV_WC_RNR_RETRY_EXC_ERR); E(IBV_WC_LOC_RDD_VIOL_ERR);
	E(IBV_WC_REM_INV_RD_REQ_ERR); E(IBV_WC_REM_ABORT_ERR); E(IBV_WC_INV_EECN_ERR);
	E(IBV_WC_INV_EEC_STATE_ERR); E(IBV_WC_FATAL_ERR); E(IBV_WC_RESP_TIMEOUT_ERR); E(IBV_WC_GENERAL_ERR);
	E(IBV_WC_TM_ERR); E(IBV_WC_TM_RNDV_INCOMPLETE);
	/* ibv_wc_opcode */
	E(IBV_WC_SEND); E(IBV_WC_RDMA_WRITE); E(IBV_WC_RDMA_READ); E(IBV_WC_COMP_SWAP); E(IBV_WC_FETCH_ADD);
	E(IBV_WC_BIND_MW); E(IBV_WC_LOCAL_INV); E(IBV_WC_TSO); E(IBV_WC_ATOMIC_WRITE); E(IBV_WC_RECV);
	E(IBV_WC_RECV_RDMA_WITH_IMM); E(IBV_WC_TM_ADD); E(IBV_WC_TM_DEL); E(IBV_WC_TM_SYNC);
	E(IBV_WC_TM_RECV); E(IBV_WC_TM_NO_TAG); E(IBV_WC_DRIVER1); E(IBV_WC_DRIVER2); E(IBV_WC_DRIVER3);
	/* ibv_wc_flags */
	E(IBV_WC_GRH); E(IBV_WC_WITH_IMM); E(IBV_WC_IP_CSUM_OK); E(IBV_WC_WITH_INV); E(IBV_WC_TM_SYNC_REQ);
	E(IBV_WC_TM_MATCH); E(IBV_WC_TM_DATA_VALID);
	/* ibv_mtu */
	E(IBV_MTU_256); E(IBV_MTU_512); E(IBV_MTU_1024); E(IBV_MTU_2048); E(IBV_MTU_4096);
	/* ibv_port_state */
	E(IBV_PORT_NOP); E(IBV_PORT_DOWN); E(IBV_PORT_INIT); E(IBV_PORT_ARMED); E(IBV_PORT_ACTIVE);
	E(IBV_PORT_ACTIVE_DEFER);
	/* ibv_event_type: the ones the transport acts on */
	E(IBV_EVENT_DEVICE_FATAL); E(IBV_EVENT_PORT_ACTIVE); E(IBV_EVENT_PORT_ERR);
	/* smaller enums the binding touches */
	E(IBV_LINK_LAYER_UNSPECIFIED); E(IBV_LINK_LAYER_INFINIBAND); E(IBV_LINK_LAYER_ETHERNET);
	E(IBV_MIG_MIGRATED); E(IBV_MIG_REARM); E(IBV_MIG_ARMED);
	E(IBV_ATOMIC_NONE); E(IBV_ATOMIC_HCA); E(IBV_ATOMIC_GLOB);
	E(IBV_NODE_UNKNOWN); E(IBV_NODE_CA); E(IBV_NODE_SWITCH); E(IBV_NODE_ROUTER); E(IBV_NODE_RNIC);
	E(IBV_TRANSPORT_UNKNOWN); E(IBV_TRANSPORT_IB); E(IBV_TRANSPORT_IWARP);
	E(IBV_GID_TYPE_IB); E(IBV_GID_TYPE_ROCE_V1); E(IBV_GID_TYPE_ROCE_V2);
	E(IBV_FORK_DISABLED); E(IBV_FORK_ENABLED); E(IBV_FORK_UNNEEDED);
	E(IBV_SYSFS_NAME_MAX); E(IBV_SYSFS_PATH_MAX);
}

/* The DC ABI: ibv_qp_ex and its builders, SRQ / AH objects, mlx5dv's DC structs and constants. */
static void dc(void)
{
	S(ibv_qp_init_attr_ex);
	F(ibv_qp_init_attr_ex, qp_context); F(ibv_qp_init_attr_ex, send_cq); F(ibv_qp_init_attr_ex, recv_cq);
	F(ibv_qp_init_attr_ex, srq); F(ibv_qp_init_attr_ex, cap); F(ibv_qp_init_attr_ex, qp_type);
	F(ibv_qp_init_attr_ex, sq_sig_all); F(ibv_qp_init_attr_ex, comp_mask); F(ibv_qp_init_attr_ex, pd);
	F(ibv_qp_init_attr_ex, xrcd); F(ibv_qp_init_attr_ex, create_flags); F(ibv_qp_init_attr_ex, max_tso_header);
	F(ibv_qp_init_attr_ex, rwq_ind_tbl); F(ibv_qp_init_attr_ex, rx_hash_conf); F(ibv_qp_init_attr_ex, source_qpn);
	F(ibv_qp_init_attr_ex, send_ops_flags);

	S(ibv_qp_ex);
	F(ibv_qp_ex, qp_base); F(ibv_qp_ex, comp_mask); F(ibv_qp_ex, wr_id); F(ibv_qp_ex, wr_flags);
	F(ibv_qp_ex, wr_atomic_cmp_swp); F(ibv_qp_ex, wr_atomic_fetch_add); F(ibv_qp_ex, wr_bind_mw);
	F(ibv_qp_ex, wr_local_inv); F(ibv_qp_ex, wr_rdma_read); F(ibv_qp_ex, wr_rdma_write);
	F(ibv_qp_ex, wr_rdma_write_imm); F(ibv_qp_ex, wr_send); F(ibv_qp_ex, wr_send_imm); F(ibv_qp_ex, wr_send_inv);
	F(ibv_qp_ex, wr_send_tso); F(ibv_qp_ex, wr_set_ud_addr); F(ibv_qp_ex, wr_set_xrc_srqn);
	F(ibv_qp_ex, wr_set_inline_data); F(ibv_qp_ex, wr_set_inline_data_list); F(ibv_qp_ex, wr_set_sge);
	F(ibv_qp_ex, wr_set_sge_list); F(ibv_qp_ex, wr_start); F(ibv_qp_ex, wr_complete); F(ibv_qp_ex, wr_abort);
	F(ibv_qp_ex, wr_atomic_write);

	S(ibv_srq_attr);
	F(ibv_srq_attr, max_wr); F(ibv_srq_attr, max_sge); F(ibv_srq_attr, srq_limit);
	S(ibv_srq_init_attr);
	F(ibv_srq_init_attr, srq_context); F(ibv_srq_init_attr, attr);
	S(ibv_srq);
	F(ibv_srq, context); F(ibv_srq, srq_context); F(ibv_srq, pd); F(ibv_srq, handle); F(ibv_srq, mutex);
	F(ibv_srq, cond); F(ibv_srq, events_completed);
	S(ibv_ah);
	F(ibv_ah, context); F(ibv_ah, pd); F(ibv_ah, handle);

	S(mlx5dv_dc_init_attr);
	F(mlx5dv_dc_init_attr, dc_type); F(mlx5dv_dc_init_attr, dct_access_key); F(mlx5dv_dc_init_attr, dci_streams);
	F(mlx5dv_dc_init_attr, dci_streams.log_num_concurent); F(mlx5dv_dc_init_attr, dci_streams.log_num_errored);
	S(mlx5dv_qp_init_attr);
	F(mlx5dv_qp_init_attr, comp_mask); F(mlx5dv_qp_init_attr, create_flags); F(mlx5dv_qp_init_attr, dc_init_attr);
	F(mlx5dv_qp_init_attr, dc_init_attr.dc_type); F(mlx5dv_qp_init_attr, dc_init_attr.dct_access_key);
	F(mlx5dv_qp_init_attr, send_ops_flags);

	S(mlx5dv_qp_ex);
	F(mlx5dv_qp_ex, comp_mask); F(mlx5dv_qp_ex, wr_set_dc_addr); F(mlx5dv_qp_ex, wr_mr_interleaved);
	F(mlx5dv_qp_ex, wr_mr_list); F(mlx5dv_qp_ex, wr_mkey_configure); F(mlx5dv_qp_ex, wr_set_mkey_access_flags);
	F(mlx5dv_qp_ex, wr_set_mkey_layout_list); F(mlx5dv_qp_ex, wr_set_mkey_layout_interleaved);
	F(mlx5dv_qp_ex, wr_set_mkey_sig_block); F(mlx5dv_qp_ex, wr_raw_wqe); F(mlx5dv_qp_ex, wr_set_dc_addr_stream);
	F(mlx5dv_qp_ex, wr_memcpy); F(mlx5dv_qp_ex, wr_set_mkey_crypto);

	S(mlx5dv_context);
	F(mlx5dv_context, version); F(mlx5dv_context, flags); F(mlx5dv_context, comp_mask);
	F(mlx5dv_context, cqe_comp_caps); F(mlx5dv_context, sw_parsing_caps); F(mlx5dv_context, striding_rq_caps);
	F(mlx5dv_context, tunnel_offloads_caps); F(mlx5dv_context, max_dynamic_bfregs);
	F(mlx5dv_context, max_clock_info_update_nsec); F(mlx5dv_context, flow_action_flags);
	F(mlx5dv_context, dc_odp_caps); F(mlx5dv_context, hca_core_clock); F(mlx5dv_context, num_lag_ports);
	F(mlx5dv_context, sig_caps); F(mlx5dv_context, dci_streams_caps); F(mlx5dv_context, max_wr_memcpy_length);
	F(mlx5dv_context, crypto_caps);

	/* ibv_qp_init_attr_mask */
	E(IBV_QP_INIT_ATTR_PD); E(IBV_QP_INIT_ATTR_XRCD); E(IBV_QP_INIT_ATTR_CREATE_FLAGS);
	E(IBV_QP_INIT_ATTR_MAX_TSO_HEADER); E(IBV_QP_INIT_ATTR_IND_TABLE); E(IBV_QP_INIT_ATTR_RX_HASH);
	E(IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	/* ibv_qp_create_send_ops_flags */
	E(IBV_QP_EX_WITH_RDMA_WRITE); E(IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM); E(IBV_QP_EX_WITH_SEND);
	E(IBV_QP_EX_WITH_SEND_WITH_IMM); E(IBV_QP_EX_WITH_RDMA_READ); E(IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP);
	E(IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD); E(IBV_QP_EX_WITH_LOCAL_INV); E(IBV_QP_EX_WITH_BIND_MW);
	E(IBV_QP_EX_WITH_SEND_WITH_INV); E(IBV_QP_EX_WITH_TSO);
	/* ibv_srq_attr_mask */
	E(IBV_SRQ_MAX_WR); E(IBV_SRQ_LIMIT);
	/* ibv_odp_transport_cap_bits (mlx5dv_context.dc_odp_caps) */
	E(IBV_ODP_SUPPORT_SEND); E(IBV_ODP_SUPPORT_RECV); E(IBV_ODP_SUPPORT_WRITE); E(IBV_ODP_SUPPORT_READ);
	E(IBV_ODP_SUPPORT_ATOMIC); E(IBV_ODP_SUPPORT_SRQ_RECV);
	/* mlx5dv */
	E(MLX5DV_DCTYPE_DCT); E(MLX5DV_DCTYPE_DCI);
	E(MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS); E(MLX5DV_QP_INIT_ATTR_MASK_DC);
	E(MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS); E(MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS);
	E(MLX5DV_CONTEXT_MASK_CQE_COMPRESION); E(MLX5DV_CONTEXT_MASK_SWP); E(MLX5DV_CONTEXT_MASK_STRIDING_RQ);
	E(MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS); E(MLX5DV_CONTEXT_MASK_DYN_BFREGS);
	E(MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE); E(MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS);
	E(MLX5DV_CONTEXT_MASK_DC_ODP_CAPS); E(MLX5DV_CONTEXT_MASK_HCA_CORE_CLOCK); E(MLX5DV_CONTEXT_MASK_NUM_LAG_PORTS);
	E(MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD); E(MLX5DV_CONTEXT_MASK_DCI_STREAMS);
	E(MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH); E(MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD);
	E(MLX5DV_CONTEXT_FLAGS_CQE_V1); E(MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED); E(MLX5DV_CONTEXT_FLAGS_ENHANCED_MPW);
	E(MLX5DV_CONTEXT_FLAGS_CQE_128B_COMP); E(MLX5DV_CONTEXT_FLAGS_CQE_128B_PAD);
	E(MLX5DV_CONTEXT_FLAGS_PACKET_BASED_CREDIT_MODE); E(MLX5DV_CONTEXT_FLAGS_REAL_TIME_TS);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "dc")) {
		dc();
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: layout [dc]\n");
		return 2;
	}
	put("pointer.size", (long long)sizeof(void *));
	structs();
	enums();
	return 0;
}
