/*
 * softverbs_mlx5.c - a stand-in libmlx5.so.1 for softrc0.
 *
 * The mlx5 direct-verbs entry points a DC binding calls, with the real
 * library's symbol versions (softverbs_mlx5.map, checked by check_symbols.sh
 * against the real libmlx5.so.1), so code that looks them up by name runs
 * unchanged on the software device and on a ConnectX NIC.  Each forwards to a
 * SOFTVERBS_1.0 hook of the software libibverbs.so.1, which this library is
 * linked against: loaded beside the real libibverbs it fails at load time
 * (undefined symbol softverbs_dc_*), never half-works.  The DC transport
 * itself is softverbs_dc.c.
 */
#define _GNU_SOURCE
#include <infiniband/mlx5dv.h>
#include <stdbool.h>

#define SV_API __attribute__((visibility("default")))

/* The hooks (softverbs_dc.c). */
extern struct ibv_qp *softverbs_dc_create_qp(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *a,
					     struct mlx5dv_qp_init_attr *dv);
extern struct mlx5dv_qp_ex *softverbs_dc_qp_ex(struct ibv_qp_ex *ex);
extern int softverbs_dc_query_device(struct ibv_context *ctx, struct mlx5dv_context *out);
extern int softverbs_dc_is_supported(struct ibv_device *dev);

SV_API struct ibv_qp *mlx5dv_create_qp(struct ibv_context *context, struct ibv_qp_init_attr_ex *qp_attr,
				       struct mlx5dv_qp_init_attr *mlx5_qp_attr)
{
	return softverbs_dc_create_qp(context, qp_attr, mlx5_qp_attr);
}

SV_API struct mlx5dv_qp_ex *mlx5dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qp)
{
	return softverbs_dc_qp_ex(qp);
}

SV_API int mlx5dv_query_device(struct ibv_context *ctx_in, struct mlx5dv_context *attrs_out)
{
	return softverbs_dc_query_device(ctx_in, attrs_out);
}

SV_API bool mlx5dv_is_supported(struct ibv_device *device)
{
	return softverbs_dc_is_supported(device) != 0;
}
