/*
 * softverbs_stubs.c - symbols softverbs does not emulate but that programs
 * built with BIND_NOW (Debian's perftest, librdmacm, and the libmlx5/libefa
 * providers perftest links directly) need to resolve at load time.
 *
 * None of them is reached on the softrc0 path: the provider libraries only
 * call verbs_register_driver_34 from their constructors (a no-op here, so they
 * never claim a device), and the rest is the kernel-command layer softverbs
 * replaces.  Each stub fails cleanly if it is called after all:
 *   SV_STUB_INT   returns EOPNOTSUPP (the ibv_cmd_* and ECE convention: a positive errno);
 *   SV_STUB_PTR   returns NULL with errno = EOPNOTSUPP;
 *   SV_STUB_VOID  does nothing;
 *   SV_STUB_ZERO  returns 0 (fork protection: nothing is pinned, so nothing to do).
 * The C prototypes are deliberately not repeated: only the symbol and the
 * return register matter to a caller.
 */
#include <errno.h>

#define SV_API __attribute__((visibility("default")))
#define SV_STUB_INT(n)  SV_API int n(void); int n(void) { return EOPNOTSUPP; }
#define SV_STUB_PTR(n)  SV_API void *n(void); void *n(void) { errno = EOPNOTSUPP; return 0; }
#define SV_STUB_VOID(n) SV_API void n(void); void n(void) { }
#define SV_STUB_ZERO(n) SV_API int n(void); int n(void) { return 0; }

SV_STUB_VOID(__verbs_log)
SV_STUB_PTR(_verbs_init_and_alloc_context)
SV_STUB_INT(execute_ioctl)
SV_STUB_INT(ibv_cmd_advise_mr)
SV_STUB_INT(ibv_cmd_alloc_dm)
SV_STUB_INT(ibv_cmd_alloc_mw)
SV_STUB_INT(ibv_cmd_alloc_pd)
SV_STUB_INT(ibv_cmd_attach_mcast)
SV_STUB_INT(ibv_cmd_close_xrcd)
SV_STUB_INT(ibv_cmd_create_ah)
SV_STUB_INT(ibv_cmd_create_counters)
SV_STUB_INT(ibv_cmd_create_cq_ex)
SV_STUB_INT(ibv_cmd_create_flow)
SV_STUB_INT(ibv_cmd_create_flow_action_esp)
SV_STUB_INT(ibv_cmd_create_qp_ex)
SV_STUB_INT(ibv_cmd_create_qp_ex2)
SV_STUB_INT(ibv_cmd_create_rwq_ind_table)
SV_STUB_INT(ibv_cmd_create_srq)
SV_STUB_INT(ibv_cmd_create_srq_ex)
SV_STUB_INT(ibv_cmd_create_wq)
SV_STUB_INT(ibv_cmd_dealloc_mw)
SV_STUB_INT(ibv_cmd_dealloc_pd)
SV_STUB_INT(ibv_cmd_dereg_mr)
SV_STUB_INT(ibv_cmd_destroy_ah)
SV_STUB_INT(ibv_cmd_destroy_counters)
SV_STUB_INT(ibv_cmd_destroy_cq)
SV_STUB_INT(ibv_cmd_destroy_flow)
SV_STUB_INT(ibv_cmd_destroy_flow_action)
SV_STUB_INT(ibv_cmd_destroy_qp)
SV_STUB_INT(ibv_cmd_destroy_rwq_ind_table)
SV_STUB_INT(ibv_cmd_destroy_srq)
SV_STUB_INT(ibv_cmd_destroy_wq)
SV_STUB_INT(ibv_cmd_detach_mcast)
SV_STUB_INT(ibv_cmd_free_dm)
SV_STUB_INT(ibv_cmd_get_context)
SV_STUB_INT(ibv_cmd_modify_cq)
SV_STUB_INT(ibv_cmd_modify_flow_action_esp)
SV_STUB_INT(ibv_cmd_modify_qp)
SV_STUB_INT(ibv_cmd_modify_qp_ex)
SV_STUB_INT(ibv_cmd_modify_srq)
SV_STUB_INT(ibv_cmd_modify_wq)
SV_STUB_INT(ibv_cmd_open_qp)
SV_STUB_INT(ibv_cmd_open_xrcd)
SV_STUB_INT(ibv_cmd_query_context)
SV_STUB_INT(ibv_cmd_query_device_any)
SV_STUB_INT(ibv_cmd_query_mr)
SV_STUB_INT(ibv_cmd_query_port)
SV_STUB_INT(ibv_cmd_query_qp)
SV_STUB_INT(ibv_cmd_query_srq)
SV_STUB_INT(ibv_cmd_read_counters)
SV_STUB_INT(ibv_cmd_reg_dm_mr)
SV_STUB_INT(ibv_cmd_reg_dmabuf_mr)
SV_STUB_INT(ibv_cmd_reg_mr)
SV_STUB_INT(ibv_cmd_rereg_mr)
SV_STUB_INT(ibv_cmd_resize_cq)
SV_STUB_VOID(ibv_copy_ah_attr_from_kern)
SV_STUB_VOID(ibv_copy_path_rec_from_kern)
SV_STUB_VOID(ibv_copy_qp_attr_from_kern)
SV_STUB_PTR(ibv_create_ah_from_wc)
SV_STUB_ZERO(ibv_dofork_range)
SV_STUB_ZERO(ibv_dontfork_range)
SV_STUB_PTR(ibv_get_sysfs_path)
SV_STUB_INT(ibv_query_ece)
SV_STUB_INT(ibv_resolve_eth_l2_from_gid)
SV_STUB_INT(ibv_set_ece)
SV_STUB_VOID(verbs_allow_disassociate_destroy)
SV_STUB_VOID(verbs_init_cq)
SV_STUB_PTR(verbs_open_device)
SV_STUB_VOID(verbs_register_driver_34)
SV_STUB_VOID(verbs_set_ops)
SV_STUB_VOID(verbs_uninit_context)
