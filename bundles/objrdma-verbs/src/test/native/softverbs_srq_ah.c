/*
 * softverbs_srq_ah.c - shared receive queues and address handles of softrc0.
 *
 * Included by softverbs.c (not compiled alone), before softverbs_dc.c, which
 * is what uses them: a DCT receives on an SRQ, and a DCI's work request names
 * its target through an address handle.
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

static int g_n_srq, g_n_ah;                  /* live in this process (g_lock): max_srq / max_ah */

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
	if (g_n_srq >= SV_MAX_SRQ) {
		unlock();
		free(srq);
		errno = ENOMEM;
		return NULL;
	}
	g_n_srq++;
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
	g_n_srq--;
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
	if (g_n_ah >= SV_MAX_AH) {
		unlock();
		free(ah);
		errno = ENOMEM;
		return NULL;
	}
	g_n_ah++;
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
	g_n_ah--;
	ah->pd->users--;
	unlock();
	free(ah);
	return 0;
}

/* ibv_close_device's part, after the context's QPs are gone (g_lock). */
static void srq_ah_close_context(struct sv_ctx *ctx)
{
	while (!list_empty(&ctx->srqs))
		free_srq(container_of(ctx->srqs.next, struct sv_srq, link));
	while (!list_empty(&ctx->ahs)) {
		struct sv_ah *ah = container_of(ctx->ahs.next, struct sv_ah, link);
		list_del(&ah->link);
		g_n_ah--;
		ah->pd->users--;
		free(ah);
	}
}
