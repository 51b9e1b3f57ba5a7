/*
 * softverbs_dc.c - the Dynamic Connection transport of softrc0, as mlx5 exposes it.
 *
 * Included by softverbs.c (not compiled alone), at its end: it works on the
 * device's own objects under the device's one lock.
 *
 * A DC initiator (DCI) has no peer: every work request names its target with
 * an address handle, a DCT number and a dc_key (mlx5dv_wr_set_dc_addr).  A DC
 * target (DCT) answers every initiator that presents its key; its number is
 * its QPN, so the fabric finds it across processes the way it finds an RC QP.
 * The objects come from mlx5dv_create_qp in the stand-in libmlx5.so.1
 * (softverbs_mlx5.c), which calls the softverbs_dc_* hooks below; the
 * work-request builders are the ibv_qp_ex / mlx5dv_qp_ex function pointers of
 * <infiniband/verbs.h> and <infiniband/mlx5dv.h>.
 *
 * What is modelled: RDMA WRITE and RDMA READ from a DCI (send_ops_flags
 * IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ), in one process and
 * across processes; the DCT checks its key, then rkey, PD, rights and range
 * with the RC code (remote_map).  Not modelled: SEND and atomics over DC, DCI
 * streams, inline data; mlx5dv_create_qp refuses what it cannot do.
 */

/* ---- shared receive queues (a DCT needs one) ----------------------------- */

/*
 * An SRQ.  DC here carries RDMA WRITE and READ only, which consume no
 * receive, so a posted receive is counted against max_wr and never completes;
 * it is dropped when the SRQ is destroyed (as on a NIC, without completion).
 */
struct sv_srq {
	struct ibv_srq ibv;
	struct sv_list link;                       /* ctx->srqs */
	struct sv_pd *pd;
	uint32_t max_wr, max_sge, limit;
	uint32_t posted;
	int users;                                 /* DCTs: destroy_srq -> EBUSY */
};

struct sv_ah {
	struct ibv_ah ibv;
	struct sv_list link;                       /* ctx->ahs */
	struct sv_pd *pd;
	struct ibv_ah_attr attr;
	int no_route;                              /* names a GID or LID no process of the fabric has */
};

SV_API struct ibv_srq *ibv_create_srq(struct ibv_pd *ibpd, struct ibv_srq_init_attr *a)
{
	struct sv_srq *srq;

	if (!ibpd || !a || !a->attr.max_wr || a->attr.max_wr > SV_MAX_QP_WR ||
	    a->attr.max_sge > SV_MAX_SGE || a->attr.srq_limit > a->attr.max_wr) {
		errno = EINVAL;
		return NULL;
	}
	if (!(srq = calloc(1, sizeof(*srq)))) {
		errno = ENOMEM;
		return NULL;
	}
	srq->ibv.context = ibpd->context;
	srq->ibv.srq_context = a->srq_context;
	srq->ibv.pd = ibpd;
	pthread_mutex_init(&srq->ibv.mutex, NULL);
	pthread_cond_init(&srq->ibv.cond, NULL);
	srq->pd = to_pd(ibpd);
	srq->max_wr = a->attr.max_wr;
	srq->max_sge = a->attr.max_sge ? a->attr.max_sge : 1;
	srq->limit = a->attr.srq_limit;
	a->attr.max_sge = srq->max_sge;            /* what was granted, as the provider reports it */
	lock();
	srq->ibv.handle = g_next_handle++;
	srq->pd->users++;
	list_add_tail(&to_ctx(ibpd->context)->srqs, &srq->link);
	unlock();
	return &srq->ibv;
}

/* IBV_SRQ_LIMIT only: resizing (IBV_SRQ_MAX_WR) is refused with EINVAL, as mlx5 does. */
SV_API int ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *a, int mask)
{
	struct sv_srq *srq = (struct sv_srq *)ibsrq;
	int rc = 0;

	lock();
	if ((mask & ~IBV_SRQ_LIMIT) || ((mask & IBV_SRQ_LIMIT) && a->srq_limit > srq->max_wr))
		rc = EINVAL;
	else if (mask & IBV_SRQ_LIMIT)
		srq->limit = a->srq_limit;
	unlock();
	return rc;
}

SV_API int ibv_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *a)
{
	struct sv_srq *srq = (struct sv_srq *)ibsrq;

	lock();
	a->max_wr = srq->max_wr;
	a->max_sge = srq->max_sge;
	a->srq_limit = srq->limit;
	unlock();
	return 0;
}

static void free_srq(struct sv_srq *srq)
{
	list_del(&srq->link);
	srq->pd->users--;
	pthread_mutex_destroy(&srq->ibv.mutex);
	pthread_cond_destroy(&srq->ibv.cond);
	free(srq);
}

SV_API int ibv_destroy_srq(struct ibv_srq *ibsrq)
{
	struct sv_srq *srq = (struct sv_srq *)ibsrq;

	lock();
	if (srq->users) {
		unlock();
		return EBUSY;  /* a DCT still uses it */
	}
	free_srq(srq);
	unlock();
	return 0;
}

static int sv_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct sv_srq *srq = (struct sv_srq *)ibsrq;
	int err = 0;

	lock();
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_sge || (wr->num_sge && !wr->sg_list)) {
			err = EINVAL;
			break;
		}
		if (srq->posted >= srq->max_wr) {
			err = ENOMEM;
			break;
		}
		srq->posted++;
	}
	if (err)
		*bad = wr;
	unlock();
	return err;
}

/* ---- address handles ---------------------------------------------------- */

/*
 * An AH names a port of the fabric: LID 1 (is_global 0, InfiniBand port only)
 * or a GID of the device's table (is_global 1, grh.sgid_index a filled entry).
 * Every process of the fabric is the same device, so the table is the same
 * everywhere; an AH naming another LID, or a GID nobody has, is accepted (the
 * kernel does not know either) and its requests are lost: the DCI retries and
 * completes RETRY_EXC_ERR.
 */
SV_API struct ibv_ah *ibv_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *a)
{
	struct sv_ah *ah;
	int no_route = 0;

	if (!ibpd || !a || a->port_num != 1) {
		errno = EINVAL;
		return NULL;
	}
	if (!(ah = calloc(1, sizeof(*ah)))) {
		errno = ENOMEM;
		return NULL;
	}
	lock();
	if (gid_check_av(a, &no_route)) {
		unlock();
		free(ah);
		errno = EINVAL;  /* a RoCE port without a GRH, or no such source GID index */
		return NULL;
	}
	if (!a->is_global && a->dlid != SV_LID)
		no_route = 1;
	ah->attr = *a;
	ah->no_route = no_route;
	ah->pd = to_pd(ibpd);
	ah->ibv.context = ibpd->context;
	ah->ibv.pd = ibpd;
	ah->ibv.handle = g_next_handle++;
	ah->pd->users++;
	list_add_tail(&to_ctx(ibpd->context)->ahs, &ah->link);
	unlock();
	return &ah->ibv;
}

SV_API int ibv_destroy_ah(struct ibv_ah *ibah)
{
	struct sv_ah *ah = (struct sv_ah *)ibah;

	lock();
	list_del(&ah->link);
	ah->pd->users--;
	unlock();
	free(ah);
	return 0;
}

/* ---- DC QP states ------------------------------------------------------- */

/*
 * The attribute masks mlx5 asks of DC QPs: a DCI goes RESET -> INIT (port,
 * P_Key index) -> RTR (path MTU, optionally the AV) -> RTS (timeout, retry
 * counts, SQ PSN, max_rd_atomic); a DCT RESET -> INIT (port, P_Key index,
 * access flags) -> RTR (AV, path MTU, min_rnr_timer) and no further.
 */
static int dc_transition(int kind, enum ibv_qp_state cur, enum ibv_qp_state nxt, int *req, int *opt)
{
	*req = *opt = 0;
	if (nxt == IBV_QPS_RESET || nxt == IBV_QPS_ERR)
		return 1;
	if (cur == IBV_QPS_RESET && nxt == IBV_QPS_INIT) {
		*req = IBV_QP_PKEY_INDEX | IBV_QP_PORT | (kind == SV_DCT ? IBV_QP_ACCESS_FLAGS : 0);
		*opt = kind == SV_DCI ? IBV_QP_ACCESS_FLAGS : 0;
		return 1;
	}
	if (cur == IBV_QPS_INIT && nxt == IBV_QPS_RTR) {
		if (kind == SV_DCT) {
			*req = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER;
		} else {
			*req = IBV_QP_PATH_MTU;
			*opt = IBV_QP_AV;
		}
		return 1;
	}
	if (cur == IBV_QPS_RTR && nxt == IBV_QPS_RTS && kind == SV_DCI) {
		*req = M_RTR2RTS;
		*opt = IBV_QP_MIN_RNR_TIMER;
		return 1;
	}
	return 0;  /* a DCT never sends, so it has no RTS */
}

/* ---- the responder side: which DCT a DCI's request reaches --------------- */

/*
 * The DCT of this process a DCI's WR reaches (g_lock), or NULL and the
 * initiator's status: RETRY_EXC_ERR when no DCT of that number can answer
 * (destroyed, never created, not yet in RTR - a NIC's request would go
 * unanswered; here in one process the DCI learns it at once instead of after
 * its retries), REM_ACCESS_ERR for a wrong dc_key (the DCT refuses the
 * request before touching memory; mlx5 initiators see this status).
 */
static struct sv_qp *dc_target(const struct sv_op *op, enum ibv_wc_status *st)
{
	struct sv_qp *t = find_qp(op->dctn);

	if (!t || t->kind != SV_DCT || (t->state != IBV_QPS_RTR && t->state != IBV_QPS_RTS)) {
		*st = IBV_WC_RETRY_EXC_ERR;
		return NULL;
	}
	if (t->dct_key != op->dc_key) {
		*st = IBV_WC_REM_ACCESS_ERR;
		return NULL;
	}
	return t;
}

/* Whether the target is served by another process (or by none: then the worker's retries run out). */
static int dc_remote(const struct sv_dc_dest *dc)
{
	return dc->no_route || !find_qp(dc->dctn);
}

static void dc_fill_op(struct sv_op *op, const struct sv_dc_dest *dc)
{
	if (!dc)
		return;
	op->dc = 1;
	op->dctn = dc->dctn;
	op->dc_key = dc->key;
	op->dc_no_route = dc->no_route;
}

/* ---- the initiator side: ibv_qp_ex / mlx5dv_qp_ex builders --------------- */

/*
 * One WR being built between wr_start and wr_complete.  The builders run
 * without g_lock, on the caller's thread: as with mlx5, one thread builds a
 * QP's list at a time.  A builder misused (no WR open, too many SGEs, bad
 * address) makes wr_complete fail with EINVAL and post nothing.
 */
struct sv_xwr {
	struct ibv_send_wr wr;
	struct ibv_sge sge[SV_MAX_SGE];
	struct sv_dc_dest dc;
};

static struct sv_qp *xqp(struct ibv_qp_ex *ex) { return container_of(ex, struct sv_qp, ex); }

static struct sv_xwr *xwr_current(struct sv_qp *qp)
{
	if (!qp->xbuilding || qp->xerr)
		return NULL;
	if (!qp->xn) {
		qp->xerr = EINVAL;  /* a setter before any wr_rdma_* */
		return NULL;
	}
	return &qp->xwr[qp->xn - 1];
}

static void xwr_new(struct ibv_qp_ex *ex, enum ibv_wr_opcode opcode, uint32_t rkey, uint64_t addr)
{
	struct sv_qp *qp = xqp(ex);
	struct sv_xwr *x;

	if (!qp->xbuilding || qp->xerr)
		return;
	if (qp->xn == qp->xcap) {
		int cap = qp->xcap ? qp->xcap * 2 : 16;
		struct sv_xwr *n = realloc(qp->xwr, sizeof(*n) * (size_t)cap);
		if (!n) {
			qp->xerr = ENOMEM;
			return;
		}
		qp->xwr = n;
		qp->xcap = cap;
	}
	x = &qp->xwr[qp->xn++];
	memset(x, 0, sizeof(*x));
	x->wr.wr_id = ex->wr_id;
	/* Inline data comes only through wr_set_inline_data (not offered), never from a flag. */
	x->wr.send_flags = ex->wr_flags & ~IBV_SEND_INLINE;
	x->wr.opcode = opcode;
	x->wr.wr.rdma.rkey = rkey;
	x->wr.wr.rdma.remote_addr = addr;
}

static void xwr_rdma_write(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr)
{
	xwr_new(ex, IBV_WR_RDMA_WRITE, rkey, addr);
}

static void xwr_rdma_read(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr)
{
	xwr_new(ex, IBV_WR_RDMA_READ, rkey, addr);
}

static void xwr_set_sge(struct ibv_qp_ex *ex, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct sv_xwr *x = xwr_current(xqp(ex));

	if (!x)
		return;
	x->sge[0] = (struct ibv_sge){ .addr = addr, .length = length, .lkey = lkey };
	x->wr.num_sge = 1;
}

static void xwr_set_sge_list(struct ibv_qp_ex *ex, size_t n, const struct ibv_sge *list)
{
	struct sv_qp *qp = xqp(ex);
	struct sv_xwr *x = xwr_current(qp);

	if (!x)
		return;
	if (n > qp->init.cap.max_send_sge || (n && !list)) {
		qp->xerr = EINVAL;
		return;
	}
	if (n)
		memcpy(x->sge, list, sizeof(*list) * n);
	x->wr.num_sge = (int)n;
}

static void xwr_set_dc_addr(struct mlx5dv_qp_ex *mqp, struct ibv_ah *ibah, uint32_t dctn, uint64_t key)
{
	struct sv_qp *qp = container_of(mqp, struct sv_qp, dv);
	struct sv_xwr *x = xwr_current(qp);

	if (!x)
		return;
	if (!ibah || ibah->context != qp->ibv.context || dctn > 0xffffff) {
		qp->xerr = EINVAL;
		return;
	}
	x->dc = (struct sv_dc_dest){
		.set = 1,
		.no_route = ((struct sv_ah *)ibah)->no_route,  /* fixed at create_ah */
		.dctn = dctn,
		.key = key,
	};
}

static void xwr_start(struct ibv_qp_ex *ex)
{
	struct sv_qp *qp = xqp(ex);

	qp->xbuilding = 1;
	qp->xn = 0;
	qp->xerr = 0;
}

static void xwr_abort(struct ibv_qp_ex *ex)
{
	struct sv_qp *qp = xqp(ex);

	qp->xbuilding = 0;
	qp->xn = 0;
	qp->xerr = 0;
}

/*
 * Posts every WR built since wr_start, or none: each must name its target
 * (wr_set_dc_addr) and pass the checks ibv_post_send makes (QP in RTS or ERR,
 * SGE count, message size), and the send queue must have room for all.
 * 0, EINVAL or ENOMEM.
 */
static int xwr_complete(struct ibv_qp_ex *ex)
{
	struct sv_qp *qp = xqp(ex);
	int err = qp->xbuilding ? qp->xerr : EINVAL;

	qp->xbuilding = 0;
	if (!err) {
		lock();
		for (int i = 0; i < qp->xn && !err; i++) {
			struct sv_xwr *x = &qp->xwr[i];
			uint32_t inl;

			x->wr.sg_list = x->sge;
			if (!x->dc.set)
				err = EINVAL;  /* a DCI's WR has no default target */
			else
				err = validate_send_wr(qp, &x->wr, &inl);
		}
		if (!err && qp->sq_posted - qp->sq_retired + (uint64_t)qp->xn > qp->init.cap.max_send_wr)
			err = ENOMEM;  /* send queue full */
		for (int i = 0; i < qp->xn && !err; i++)
			err = post_one(qp, &qp->xwr[i].wr, 0, &qp->xwr[i].dc);
		unlock();
	}
	qp->xn = 0;
	qp->xerr = 0;
	return err;
}

SV_API struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *ibqp)
{
	struct sv_qp *qp = to_qp(ibqp);

	if (qp->kind == SV_DCI && qp->ex.wr_start)
		return &qp->ex;
	errno = EOPNOTSUPP;  /* RC QPs and DCTs have no extended post API here */
	return NULL;
}

/* ---- hooks for the stand-in libmlx5.so.1 (softverbs_mlx5.c) -------------- */

#define SV_DC_SEND_OPS (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ)

/*
 * mlx5dv_create_qp for DC: qp_type IBV_QPT_DRIVER, dv comp_mask
 * MLX5DV_QP_INIT_ATTR_MASK_DC.  DCI: send CQ (receive CQ optional), send_ops_flags
 * within RDMA WRITE | READ.  DCT: SRQ and receive CQ, dct_access_key is its
 * dc_key.  Anything else the device cannot do fails with EOPNOTSUPP, bad
 * arguments with EINVAL, and nothing is created.
 */
SV_API struct ibv_qp *softverbs_dc_create_qp(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *a,
					     struct mlx5dv_qp_init_attr *dv)
{
	struct ibv_qp_init_attr ia;
	struct sv_qp *qp;
	uint64_t send_ops = 0;
	int kind;

	if (!ctx || !a || !dv) {
		errno = EINVAL;
		return NULL;
	}
	if (a->qp_type != IBV_QPT_DRIVER || !(dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DC) ||
	    (dv->comp_mask & ~(uint64_t)MLX5DV_QP_INIT_ATTR_MASK_DC) ||
	    (a->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))) {
		errno = EOPNOTSUPP;  /* only DC, without create flags, dv send ops or DCI streams */
		return NULL;
	}
	if (!(a->comp_mask & IBV_QP_INIT_ATTR_PD) || !a->pd || a->pd->context != ctx) {
		errno = EINVAL;
		return NULL;
	}
	if (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		send_ops = a->send_ops_flags;
	memset(&ia, 0, sizeof(ia));
	ia.qp_context = a->qp_context;
	ia.send_cq = a->send_cq;
	ia.recv_cq = a->recv_cq;
	ia.cap = a->cap;
	ia.qp_type = IBV_QPT_DRIVER;
	ia.sq_sig_all = a->sq_sig_all;
	switch (dv->dc_init_attr.dc_type) {
	case MLX5DV_DCTYPE_DCI:
		if (a->srq || !a->send_cq) {
			errno = EINVAL;
			return NULL;
		}
		if (send_ops & ~(uint64_t)SV_DC_SEND_OPS) {
			errno = EOPNOTSUPP;
			return NULL;
		}
		if (!ia.recv_cq)
			ia.recv_cq = ia.send_cq;
		ia.cap.max_recv_wr = ia.cap.max_recv_sge = 0;
		kind = SV_DCI;
		break;
	case MLX5DV_DCTYPE_DCT:
		if (!a->srq || a->srq->context != ctx || !a->recv_cq || send_ops) {
			errno = EINVAL;
			return NULL;
		}
		if (!ia.send_cq)
			ia.send_cq = ia.recv_cq;
		ia.srq = a->srq;  /* reported by ibv_query_qp */
		memset(&ia.cap, 0, sizeof(ia.cap));  /* no send queue, receives on the SRQ */
		kind = SV_DCT;
		break;
	default:
		errno = EINVAL;
		return NULL;
	}
	if (!(qp = qp_create(a->pd, &ia, kind)))
		return NULL;
	lock();
	if (kind == SV_DCT) {
		qp->dct_key = dv->dc_init_attr.dct_access_key;
		qp->srq = (struct sv_srq *)a->srq;
		qp->srq->users++;
		qp->ibv.srq = a->srq;
	} else if (send_ops) {
		qp->ex.wr_start = xwr_start;
		qp->ex.wr_complete = xwr_complete;
		qp->ex.wr_abort = xwr_abort;
		qp->ex.wr_set_sge = xwr_set_sge;
		qp->ex.wr_set_sge_list = xwr_set_sge_list;
		if (send_ops & IBV_QP_EX_WITH_RDMA_WRITE)
			qp->ex.wr_rdma_write = xwr_rdma_write;
		if (send_ops & IBV_QP_EX_WITH_RDMA_READ)
			qp->ex.wr_rdma_read = xwr_rdma_read;
		qp->dv.wr_set_dc_addr = xwr_set_dc_addr;
	}
	unlock();
	return &qp->ibv;
}

/* mlx5dv_qp_ex_from_ibv_qp_ex: the DCI's mlx5dv_qp_ex, NULL (EOPNOTSUPP) for anything else. */
SV_API struct mlx5dv_qp_ex *softverbs_dc_qp_ex(struct ibv_qp_ex *ex)
{
	struct sv_qp *qp = ex ? xqp(ex) : NULL;

	if (qp && qp->kind == SV_DCI && qp->ex.wr_start)
		return &qp->dv;
	errno = EOPNOTSUPP;
	return NULL;
}

/*
 * mlx5dv_query_device.  The header has no "DC supported" bit: a binding probes
 * DC with mlx5dv_is_supported and by creating a DCT.  What is answered: version
 * 0, no flags (no direct WQE/CQE access: mlx5dv_init_obj is not offered), and,
 * when asked (MLX5DV_CONTEXT_MASK_DC_ODP_CAPS), dc_odp_caps 0 - no on-demand
 * paging over DC.  Fields of masks not answered are left alone, as the
 * caller's struct may be older than ours.
 */
SV_API int softverbs_dc_query_device(struct ibv_context *ctx, struct mlx5dv_context *out)
{
	uint64_t asked;

	if (!ctx || !out || ctx->device != &g_dev)
		return EINVAL;
	asked = out->comp_mask;
	out->version = 0;
	out->flags = 0;
	out->comp_mask = 0;
	if (asked & MLX5DV_CONTEXT_MASK_DC_ODP_CAPS) {
		out->dc_odp_caps = 0;
		out->comp_mask |= MLX5DV_CONTEXT_MASK_DC_ODP_CAPS;
	}
	return 0;
}

/* mlx5dv_is_supported: softrc0 is the device this libmlx5 drives. */
SV_API int softverbs_dc_is_supported(struct ibv_device *dev)
{
	return dev == &g_dev;
}

/* ---- teardown ----------------------------------------------------------- */

/* free_qp's DC part (g_lock). */
static void dc_free_qp(struct sv_qp *qp)
{
	if (qp->srq)
		qp->srq->users--;
	free(qp->xwr);
}

/* ibv_close_device, after its QPs are gone (g_lock). */
static void dc_close_context(struct sv_ctx *ctx)
{
	while (!list_empty(&ctx->srqs))
		free_srq(container_of(ctx->srqs.next, struct sv_srq, link));
	while (!list_empty(&ctx->ahs)) {
		struct sv_ah *ah = container_of(ctx->ahs.next, struct sv_ah, link);
		list_del(&ah->link);
		ah->pd->users--;
		free(ah);
	}
}
