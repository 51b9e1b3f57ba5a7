/*
 * softverbs_dc_test.c - the Dynamic Connection transport of softrc0, through
 * the stand-in libmlx5.so.1 and exactly the mlx5dv / ibv_qp_ex calls a
 * program makes on a ConnectX NIC.
 *
 * The test forks before any process touches the device.  A child owns a DCT
 * and its memory and answers commands on a socketpair (hash a range, destroy
 * the DCT, write into the parent's DCT); the parent runs the in-process cases
 * on its own DCTs, then drives the child's DCT from its DCI across the fabric.
 * A second child is killed with SIGKILL while the parent's DCI targets it.
 */
#define _GNU_SOURCE
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BUF   (1u << 20)
#define KEY   0xffeeddccULL
#define KEY2  0x0123456789abcdefULL

/* test control of the soft libibverbs (SOFTVERBS_1.0): 4 QPs, 7 SRQs, 8 address handles */
extern int softverbs_live_objects(int kind);

static int passed, failed;
#define CHECK(c, ...) do { if (c) passed++; else { failed++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	unsigned char *buf;
	struct ibv_mr *mr;
};

static uint64_t fnv(const unsigned char *p, uint64_t n)
{
	uint64_t h = 1469598103934665603ULL;
	while (n--) { h ^= *p++; h *= 1099511628211ULL; }
	return h;
}

static void fill(unsigned char *p, uint64_t n, unsigned seed)
{
	for (uint64_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 31 + seed + (i >> 8));
}

static void xfer(int fd, void *p, size_t n, int out)
{
	while (n) {
		ssize_t r = out ? write(fd, p, n) : read(fd, p, n);
		if (r <= 0) { perror("control socket"); _exit(3); }
		p = (char *)p + r; n -= (size_t)r;
	}
}

static void side_open(struct side *s)
{
	int n;
	struct ibv_device **l = ibv_get_device_list(&n);
	if (!l || n < 1) { fprintf(stderr, "no softrc0\n"); _exit(2); }
	s->ctx = ibv_open_device(l[0]);
	ibv_free_device_list(l);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 256, NULL, NULL, 0);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	s->srq = ibv_create_srq(s->pd, &sa);
	s->buf = aligned_alloc(4096, BUF);
	memset(s->buf, 0, BUF);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ);
	if (!s->ctx || !s->pd || !s->cq || !s->srq || !s->mr) { fprintf(stderr, "device setup failed\n"); _exit(2); }
}

/* A DCT with key, RESET -> INIT -> RTR, as mlx5 wants it. */
static struct ibv_qp *dct_new(struct side *s, uint64_t key)
{
	struct ibv_qp_init_attr_ex ia = { .qp_type = IBV_QPT_DRIVER, .send_cq = s->cq, .recv_cq = s->cq,
		.srq = s->srq, .comp_mask = IBV_QP_INIT_ATTR_PD, .pd = s->pd };
	struct mlx5dv_qp_init_attr dv = { .comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC,
		.dc_init_attr = { .dc_type = MLX5DV_DCTYPE_DCT, .dct_access_key = key } };
	struct ibv_qp *qp = mlx5dv_create_qp(s->ctx, &ia, &dv);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ };
	if (!qp || ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		perror("dct init"); _exit(2);
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR; a.path_mtu = IBV_MTU_4096; a.min_rnr_timer = 12;
	a.ah_attr.port_num = 1; a.ah_attr.is_global = 1; a.ah_attr.grh.sgid_index = 0; a.ah_attr.grh.hop_limit = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_MIN_RNR_TIMER)) {
		perror("dct rtr"); _exit(2);
	}
	return qp;
}

/* DCI RESET -> INIT -> RTR -> RTS with the ACK timeout exponent and retry count given. */
static void dci_up(struct ibv_qp *qp, uint8_t timeout, uint8_t retry_cnt)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE)) { perror("dci reset"); _exit(2); }
	a.qp_state = IBV_QPS_INIT; a.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT)) { perror("dci init"); _exit(2); }
	a.qp_state = IBV_QPS_RTR; a.path_mtu = IBV_MTU_4096; a.ah_attr.port_num = 1; a.ah_attr.dlid = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_AV)) { perror("dci rtr"); _exit(2); }
	a.qp_state = IBV_QPS_RTS; a.timeout = timeout; a.retry_cnt = retry_cnt; a.rnr_retry = 7; a.sq_psn = 0;
	a.max_rd_atomic = 16;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) { perror("dci rts"); _exit(2); }
}

static struct ibv_qp *dci_new(struct side *s)
{
	struct ibv_qp_init_attr_ex ia = { .qp_type = IBV_QPT_DRIVER, .send_cq = s->cq, .recv_cq = s->cq,
		.cap = { .max_send_wr = 64, .max_send_sge = 4 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, .pd = s->pd,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ };
	struct mlx5dv_qp_init_attr dv = { .comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC,
		.dc_init_attr = { .dc_type = MLX5DV_DCTYPE_DCI } };
	struct ibv_qp *qp = mlx5dv_create_qp(s->ctx, &ia, &dv);
	if (!qp) { perror("dci create"); _exit(2); }
	dci_up(qp, 8, 2);  /* ~1 ms ACK timeout, 2 retries: a lost request fails fast */
	return qp;
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	return ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) ? -1 : (int)a.qp_state;
}

/* One signaled RDMA WRITE or READ from the DCI to (ah, dctn, key); wr_complete's result. */
static int dc_post(struct ibv_qp *dci, int is_read, struct ibv_ah *ah, uint32_t dctn, uint64_t key,
		   uint32_t lkey, void *laddr, uint32_t len, uint32_t rkey, uint64_t raddr, uint64_t wr_id)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(dci);
	struct mlx5dv_qp_ex *mx = mlx5dv_qp_ex_from_ibv_qp_ex(qx);

	ibv_wr_start(qx);
	qx->wr_id = wr_id;
	qx->wr_flags = IBV_SEND_SIGNALED;
	if (is_read)
		ibv_wr_rdma_read(qx, rkey, raddr);
	else
		ibv_wr_rdma_write(qx, rkey, raddr);
	mlx5dv_wr_set_dc_addr(mx, ah, dctn, key);
	ibv_wr_set_sge(qx, lkey, (uint64_t)(uintptr_t)laddr, len);
	return ibv_wr_complete(qx);
}

/* Polls one completion, waiting up to ms (cross-process WRs complete on the worker); 0 or 1. */
static int poll1(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	struct timespec t = { 0, 1000000 };
	for (int i = 0; i <= ms; i++) {
		int n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n;
		nanosleep(&t, NULL);
	}
	return 0;
}

/* wr_complete, then the completion's status (-1: none within 5 s, -2: wr_complete failed). */
static int dc_op(struct side *s, struct ibv_qp *dci, int is_read, struct ibv_ah *ah, uint32_t dctn, uint64_t key,
		 void *laddr, uint32_t len, uint32_t rkey, uint64_t raddr)
{
	struct ibv_wc wc;
	if (dc_post(dci, is_read, ah, dctn, key, s->mr->lkey, laddr, len, rkey, raddr, 7))
		return -2;
	if (!poll1(s->cq, &wc, 5000))
		return -1;
	if (wc.wr_id != 7 || wc.qp_num != dci->qp_num) {
		fprintf(stderr, "unexpected completion wr_id %llu qp %u\n", (unsigned long long)wc.wr_id, wc.qp_num);
		return -3;
	}
	if (wc.status == IBV_WC_SUCCESS && (wc.opcode != (is_read ? IBV_WC_RDMA_READ : IBV_WC_RDMA_WRITE) || wc.byte_len != len))
		return -4;
	return (int)wc.status;
}

static struct ibv_ah *ah_lid(struct side *s)
{
	struct ibv_ah_attr a = { .dlid = 1, .port_num = 1 };
	return ibv_create_ah(s->pd, &a);
}

static struct ibv_ah *ah_gid(struct side *s)
{
	struct ibv_ah_attr a = { .is_global = 1, .port_num = 1, .grh = { .sgid_index = 0, .hop_limit = 1 } };
	if (ibv_query_gid(s->ctx, 1, 0, &a.grh.dgid))
		return NULL;
	return ibv_create_ah(s->pd, &a);
}

/* ---- in one process ------------------------------------------------------ */

static void t_api(struct side *s)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	CHECK(l && mlx5dv_is_supported(l[0]), "mlx5dv_is_supported(softrc0)");
	ibv_free_device_list(l);

	struct mlx5dv_context dc = { .comp_mask = MLX5DV_CONTEXT_MASK_DC_ODP_CAPS };
	dc.dc_odp_caps = 0xdead;
	CHECK(mlx5dv_query_device(s->ctx, &dc) == 0 && dc.comp_mask == MLX5DV_CONTEXT_MASK_DC_ODP_CAPS &&
	      dc.dc_odp_caps == 0, "query_device answers DC_ODP_CAPS (0), comp_mask %llx", (unsigned long long)dc.comp_mask);

	/* creation errors: nothing created */
	struct ibv_qp_init_attr_ex ia = { .qp_type = IBV_QPT_DRIVER, .send_cq = s->cq, .recv_cq = s->cq,
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = s->pd };
	struct mlx5dv_qp_init_attr dv = { .comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC,
		.dc_init_attr = { .dc_type = MLX5DV_DCTYPE_DCT, .dct_access_key = KEY } };
	errno = 0;
	CHECK(!mlx5dv_create_qp(s->ctx, &ia, &dv) && errno == EINVAL, "DCT without SRQ: EINVAL (errno %d)", errno);
	dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCI;
	ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.send_ops_flags = IBV_QP_EX_WITH_SEND;
	errno = 0;
	CHECK(!mlx5dv_create_qp(s->ctx, &ia, &dv) && errno == EOPNOTSUPP, "DCI with SEND: EOPNOTSUPP (errno %d)", errno);
	ia.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	dv.dc_init_attr.dc_type = 7;
	errno = 0;
	CHECK(!mlx5dv_create_qp(s->ctx, &ia, &dv) && errno == EINVAL, "dc_type 7: EINVAL (errno %d)", errno);
	dv.comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS;
	dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCI;
	errno = 0;
	CHECK(!mlx5dv_create_qp(s->ctx, &ia, &dv) && errno == EOPNOTSUPP, "DCI streams: EOPNOTSUPP (errno %d)", errno);
	ia.qp_type = IBV_QPT_RC;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
	errno = 0;
	CHECK(!mlx5dv_create_qp(s->ctx, &ia, &dv) && errno == EOPNOTSUPP, "RC through mlx5dv: EOPNOTSUPP (errno %d)", errno);

	/* A DCT's SRQ cannot go while the DCT lives; a DCT has no ibv_qp_ex, and neither has RC. */
	struct ibv_qp *dct = dct_new(s, KEY);
	CHECK(ibv_destroy_srq(s->srq) == EBUSY, "destroy_srq under a DCT: EBUSY");
	errno = 0;
	CHECK(!ibv_qp_to_qp_ex(dct) && errno == EOPNOTSUPP, "DCT has no qp_ex");
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1 };
	CHECK(ibv_modify_qp(dct, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) == EINVAL, "DCT RTR -> RTS: EINVAL");
	struct ibv_recv_wr rw = { .wr_id = 1 }, *bad;
	CHECK(ibv_post_srq_recv(s->srq, &rw, &bad) == 0, "post_srq_recv");

	/* A DCI: ibv_post_send has no target for it; a WR without wr_set_dc_addr posts nothing. */
	struct ibv_qp *dci = dci_new(s);
	struct ibv_sge sge = { (uintptr_t)s->buf, 8, s->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED, .wr = { .rdma = { .remote_addr = (uintptr_t)s->buf, .rkey = s->mr->rkey } } };
	struct ibv_send_wr *sbad;
	CHECK(ibv_post_send(dci, &wr, &sbad) == EINVAL, "ibv_post_send on a DCI: EINVAL");
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(dci);
	CHECK(qx && mlx5dv_qp_ex_from_ibv_qp_ex(qx), "DCI qp_ex and mlx5dv_qp_ex");
	ibv_wr_start(qx);
	qx->wr_id = 9; qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qx, s->mr->rkey, (uintptr_t)s->buf);
	ibv_wr_set_sge(qx, s->mr->lkey, (uintptr_t)s->buf, 8);
	CHECK(ibv_wr_complete(qx) == EINVAL, "wr_complete without a DC address: EINVAL");
	struct ibv_wc wc;
	CHECK(ibv_poll_cq(s->cq, 1, &wc) == 0, "nothing posted");
	ibv_wr_start(qx);
	ibv_wr_rdma_write(qx, s->mr->rkey, (uintptr_t)s->buf);
	ibv_wr_abort(qx);
	CHECK(ibv_poll_cq(s->cq, 1, &wc) == 0, "wr_abort posts nothing");
	CHECK(ibv_destroy_qp(dci) == 0 && ibv_destroy_qp(dct) == 0, "destroy DC QPs");
}

static void t_write_read(struct side *s, struct ibv_ah *ah, const char *how)
{
	struct ibv_qp *dct = dct_new(s, KEY), *dci = dci_new(s);
	unsigned char *src = s->buf, *back = s->buf + 128 * 1024, *dst = s->buf + 512 * 1024;
	uint32_t len = 64 * 1024;

	fill(src, len, 3);
	memset(dst, 0, len);
	memset(back, 0, len);
	CHECK(dc_op(s, dci, 0, ah, dct->qp_num, KEY, src, len, s->mr->rkey, (uintptr_t)dst) == IBV_WC_SUCCESS,
	      "%s: DC write", how);
	CHECK(!memcmp(src, dst, len), "%s: written bytes exact", how);
	CHECK(dc_op(s, dci, 1, ah, dct->qp_num, KEY, back, len, s->mr->rkey, (uintptr_t)dst) == IBV_WC_SUCCESS,
	      "%s: DC read", how);
	CHECK(!memcmp(src, back, len), "%s: read bytes exact", how);
	CHECK(dct->qp_num <= 0xffffff && dct->qp_num > 1, "DCTN is a 24-bit QPN: %u", dct->qp_num);
	ibv_destroy_qp(dci);
	ibv_destroy_qp(dct);
}

/* A refused request: REM_ACCESS_ERR, the target's memory and our buffer untouched, the DCI in ERR, the DCT still serving. */
static void t_refused(struct side *s, struct ibv_ah *ah)
{
	struct ibv_qp *dct = dct_new(s, KEY), *dci = dci_new(s);
	struct ibv_pd *pd2 = ibv_alloc_pd(s->ctx);
	unsigned char *other = aligned_alloc(4096, 4096);
	struct ibv_mr *mr2 = ibv_reg_mr(pd2, other, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	unsigned char *src = s->buf, *local = s->buf + 64 * 1024, *target = s->buf + 256 * 1024;
	uint32_t len = 4096;
	struct {
		const char *what;
		uint64_t key;
		uint32_t rkey;
		uint64_t raddr;
		uint32_t len;
	} cases[] = {
		{ "wrong dc_key", KEY ^ 1, s->mr->rkey, (uintptr_t)target, len },
		{ "forged rkey", KEY, s->mr->rkey ^ 0x100, (uintptr_t)target, len },
		{ "address past the MR", KEY, s->mr->rkey, (uintptr_t)s->buf + BUF - 8, 16 },
		{ "address before the MR", KEY, s->mr->rkey, (uintptr_t)s->buf - 8, 16 },
		{ "MR of another PD", KEY, mr2 ? mr2->rkey : 0, (uintptr_t)other, len },
	};

	fill(src, len, 11);
	fill(target, len, 77);
	fill(other, 4096, 55);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int is_read = 0; is_read < 2; is_read++) {
			uint64_t tgt = fnv(target, len), oth = fnv(other, 4096), end = fnv(s->buf + BUF - 4096, 4096);
			fill(local, len, 5);
			uint64_t loc = fnv(local, len);
			int st = dc_op(s, dci, is_read, ah, dct->qp_num, cases[i].key, is_read ? local : src,
				       cases[i].len, cases[i].rkey, cases[i].raddr);
			CHECK(st == IBV_WC_REM_ACCESS_ERR, "%s %s: status %d, want REM_ACCESS_ERR", cases[i].what,
			      is_read ? "read" : "write", st);
			CHECK(fnv(target, len) == tgt && fnv(other, 4096) == oth && fnv(s->buf + BUF - 4096, 4096) == end,
			      "%s %s: target memory unchanged", cases[i].what, is_read ? "read" : "write");
			CHECK(fnv(local, len) == loc, "%s %s: local buffer unchanged", cases[i].what, is_read ? "read" : "write");
			CHECK(qp_state(dci) == IBV_QPS_ERR, "%s: the DCI is in ERR after the error", cases[i].what);
			CHECK(qp_state(dct) == IBV_QPS_RTR, "%s: the DCT still serves (RTR)", cases[i].what);
			dci_up(dci, 8, 2);
		}
	}
	CHECK(dc_op(s, dci, 0, ah, dct->qp_num, KEY, src, len, s->mr->rkey, (uintptr_t)target) == IBV_WC_SUCCESS &&
	      !memcmp(src, target, len), "the right key still writes after the refusals");
	ibv_destroy_qp(dci);
	ibv_destroy_qp(dct);
	ibv_dereg_mr(mr2);
	ibv_dealloc_pd(pd2);
	free(other);
}

/* One DCI reaches two DCTs with different keys, in one wr_start..wr_complete batch. */
static void t_two_dcts(struct side *s, struct ibv_ah *ah)
{
	struct ibv_qp *a = dct_new(s, KEY), *b = dct_new(s, KEY2), *dci = dci_new(s);
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(dci);
	struct mlx5dv_qp_ex *mx = mlx5dv_qp_ex_from_ibv_qp_ex(qx);
	unsigned char *src = s->buf, *ta = s->buf + 256 * 1024, *tb = s->buf + 384 * 1024;
	uint32_t len = 8192;
	struct ibv_wc wc[2];
	int got = 0;

	fill(src, 2 * len, 21);
	memset(ta, 0, len);
	memset(tb, 0, len);
	ibv_wr_start(qx);
	qx->wr_flags = IBV_SEND_SIGNALED;
	qx->wr_id = 1;
	ibv_wr_rdma_write(qx, s->mr->rkey, (uintptr_t)ta);
	mlx5dv_wr_set_dc_addr(mx, ah, a->qp_num, KEY);
	ibv_wr_set_sge(qx, s->mr->lkey, (uintptr_t)src, len);
	qx->wr_id = 2;
	ibv_wr_rdma_write(qx, s->mr->rkey, (uintptr_t)tb);
	mlx5dv_wr_set_dc_addr(mx, ah, b->qp_num, KEY2);
	struct ibv_sge two[2] = { { (uintptr_t)(src + len), len / 2, s->mr->lkey },
				  { (uintptr_t)(src + len + len / 2), len / 2, s->mr->lkey } };
	ibv_wr_set_sge_list(qx, 2, two);
	CHECK(ibv_wr_complete(qx) == 0, "two-target batch posted");
	for (int i = 0; i < 2000 && got < 2; i++)
		got += poll1(s->cq, &wc[got], 5);
	CHECK(got == 2 && wc[0].status == IBV_WC_SUCCESS && wc[1].status == IBV_WC_SUCCESS &&
	      wc[0].wr_id == 1 && wc[1].wr_id == 2, "both WRs complete in order on the DCI's send CQ");
	CHECK(!memcmp(ta, src, len) && !memcmp(tb, src + len, len), "each DCT got its own bytes");
	/* the key of one DCT does not open the other */
	CHECK(dc_op(s, dci, 1, ah, b->qp_num, KEY, ta, len, s->mr->rkey, (uintptr_t)tb) == IBV_WC_REM_ACCESS_ERR,
	      "DCT b refuses DCT a's key");
	ibv_destroy_qp(dci);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
}

/* A DCT destroyed under a DCI that targets it, and a DCTN nobody has: error completions, no hang. */
static void t_gone(struct side *s, struct ibv_ah *ah)
{
	struct ibv_qp *dct = dct_new(s, KEY), *dci = dci_new(s);
	uint32_t dctn = dct->qp_num;
	unsigned char *src = s->buf, *target = s->buf + 256 * 1024;

	fill(src, 4096, 1);
	memset(target, 0, 4096);
	CHECK(dc_op(s, dci, 0, ah, dctn, KEY, src, 4096, s->mr->rkey, (uintptr_t)target) == IBV_WC_SUCCESS, "before");
	CHECK(ibv_destroy_qp(dct) == 0, "destroy the DCT");
	memset(target, 0, 4096);
	int st = dc_op(s, dci, 0, ah, dctn, KEY, src, 4096, s->mr->rkey, (uintptr_t)target);
	CHECK(st == IBV_WC_RETRY_EXC_ERR, "write to a destroyed DCT: status %d, want RETRY_EXC_ERR", st);
	CHECK(target[0] == 0 && target[4095] == 0, "nothing written after the DCT is gone");
	dci_up(dci, 8, 2);
	st = dc_op(s, dci, 1, ah, 0xfffff0, KEY, src, 64, s->mr->rkey, (uintptr_t)target);
	CHECK(st == IBV_WC_RETRY_EXC_ERR, "read from a DCTN nobody has: status %d, want RETRY_EXC_ERR", st);
	ibv_destroy_qp(dci);
}

/* ---- across processes ---------------------------------------------------- */

enum { C_HASH = 1, C_FILL, C_DESTROY, C_WRITE_TO, C_EXIT };
struct cmd { int op; uint32_t dctn, rkey; uint64_t off, len, addr; };
struct hello { uint32_t dctn, rkey; uint64_t addr; };

static void child(int fd)
{
	struct side s;
	side_open(&s);
	struct ibv_qp *dct = dct_new(&s, KEY);
	struct hello h = { dct->qp_num, s.mr->rkey, (uintptr_t)s.buf };
	xfer(fd, &h, sizeof(h), 1);
	for (;;) {
		struct cmd c;
		uint64_t r = 0;
		xfer(fd, &c, sizeof(c), 0);
		switch (c.op) {
		case C_HASH: r = fnv(s.buf + c.off, c.len); break;
		case C_FILL: fill(s.buf + c.off, c.len, 200); r = fnv(s.buf + c.off, c.len); break;
		case C_DESTROY: r = (uint64_t)ibv_destroy_qp(dct); dct = NULL; break;
		case C_WRITE_TO: {  /* our DCI writes len bytes of fill(.., 200) to the parent's DCT */
			struct ibv_qp *dci = dci_new(&s);
			struct ibv_ah *ah = ah_lid(&s);
			fill(s.buf, c.len, 200);
			r = (uint64_t)dc_op(&s, dci, 0, ah, c.dctn, KEY, s.buf, (uint32_t)c.len, c.rkey, c.addr);
			ibv_destroy_qp(dci);
			ibv_destroy_ah(ah);
			break;
		}
		case C_EXIT: ibv_close_device(s.ctx); _exit(0);
		}
		xfer(fd, &r, sizeof(r), 1);
	}
}

static uint64_t ask(int fd, int op, uint64_t off, uint64_t len)
{
	struct cmd c = { .op = op, .off = off, .len = len };
	uint64_t r;
	xfer(fd, &c, sizeof(c), 1);
	xfer(fd, &r, sizeof(r), 0);
	return r;
}

static void t_xp(struct side *s, int fd, pid_t pid)
{
	struct hello h;
	struct ibv_ah *ah = ah_gid(s);
	struct ibv_qp *dci = dci_new(s);
	unsigned char *src = s->buf, *back = s->buf + 256 * 1024;
	uint32_t len = 256 * 1024;

	xfer(fd, &h, sizeof(h), 0);
	CHECK(ah != NULL, "GID address handle");
	fill(src, len, 42);
	memset(back, 0, len);
	CHECK(dc_op(s, dci, 0, ah, h.dctn, KEY, src, len, h.rkey, h.addr + 4096) == IBV_WC_SUCCESS, "xp: DC write");
	CHECK(ask(fd, C_HASH, 4096, len) == fnv(src, len), "xp: the other process holds the bytes written");
	CHECK(dc_op(s, dci, 1, ah, h.dctn, KEY, back, len, h.rkey, h.addr + 4096) == IBV_WC_SUCCESS, "xp: DC read");
	CHECK(!memcmp(src, back, len), "xp: read bytes exact");

	uint64_t before = ask(fd, C_FILL, 0, 4096), before_end = ask(fd, C_HASH, BUF - 4096, 4096);
	struct { const char *what; uint64_t key; uint32_t rkey; uint64_t raddr; uint32_t len; } cases[] = {
		{ "wrong dc_key", KEY ^ 0x10000, h.rkey, h.addr, 4096 },
		{ "forged rkey", KEY, h.rkey ^ 0x200, h.addr, 4096 },
		{ "address past the MR", KEY, h.rkey, h.addr + BUF - 100, 4096 },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int is_read = 0; is_read < 2; is_read++) {
			fill(back, 4096, 9);
			uint64_t loc = fnv(back, 4096);
			int st = dc_op(s, dci, is_read, ah, h.dctn, cases[i].key, is_read ? back : src, cases[i].len,
				       cases[i].rkey, cases[i].raddr);
			CHECK(st == IBV_WC_REM_ACCESS_ERR, "xp %s %s: status %d, want REM_ACCESS_ERR", cases[i].what,
			      is_read ? "read" : "write", st);
			CHECK(ask(fd, C_HASH, 0, 4096) == before && ask(fd, C_HASH, BUF - 4096, 4096) == before_end,
			      "xp %s: target memory unchanged", cases[i].what);
			CHECK(fnv(back, 4096) == loc, "xp %s: local buffer unchanged", cases[i].what);
			dci_up(dci, 8, 2);
		}
	}
	CHECK(dc_op(s, dci, 0, ah, h.dctn, KEY, src, 4096, h.rkey, h.addr) == IBV_WC_SUCCESS &&
	      ask(fd, C_HASH, 0, 4096) == fnv(src, 4096), "xp: the DCT still serves the right key");

	CHECK(ask(fd, C_DESTROY, 0, 0) == 0, "xp: the other process destroys its DCT");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int st = dc_op(s, dci, 0, ah, h.dctn, KEY, src, 4096, h.rkey, h.addr);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(st == IBV_WC_RETRY_EXC_ERR, "xp: write to the destroyed DCT: status %d, want RETRY_EXC_ERR", st);
	CHECK(t1.tv_sec - t0.tv_sec < 3, "xp: the error comes after the DCI's retries, not a hang");

	/* The other way: its DCI writes into our DCT.  Then it exits: a process that goes
	 * away takes RC QPs connected to it down (link down), never our DC QPs - a DCT
	 * serves anyone, a DCI has no peer. */
	struct ibv_qp *ours = dct_new(s, KEY);
	unsigned char *land = s->buf + 512 * 1024;
	unsigned char want[8192];
	memset(land, 0, sizeof(want));
	fill(want, sizeof(want), 200);
	struct cmd w = { .op = C_WRITE_TO, .dctn = ours->qp_num, .rkey = s->mr->rkey, .len = sizeof(want),
			 .addr = (uintptr_t)land };
	uint64_t r;
	xfer(fd, &w, sizeof(w), 1);
	xfer(fd, &r, sizeof(r), 0);
	CHECK(r == IBV_WC_SUCCESS && !memcmp(land, want, sizeof(want)), "xp: the other process's DCI writes into our DCT");
	dci_up(dci, 8, 2);
	struct cmd bye = { .op = C_EXIT };
	int status;
	xfer(fd, &bye, sizeof(bye), 1);  /* no answer: the child closes its device and exits */
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0, "child exited cleanly");
	struct timespec linkdown = { 1, 500000000 };  /* past the fabric's 1 s link-down delay */
	nanosleep(&linkdown, NULL);
	CHECK(qp_state(ours) == IBV_QPS_RTR && qp_state(dci) == IBV_QPS_RTS,
	      "xp: our DCT and DCI outlive the peer process (states %d %d)", qp_state(ours), qp_state(dci));
	ibv_destroy_qp(ours);
	ibv_destroy_qp(dci);
	ibv_destroy_ah(ah);
}

/*
 * The DCT's process killed (SIGKILL, no clean exit): a DCI's WR to it completes
 * RETRY_EXC_ERR in bounded time, and our own DC QPs keep working.
 */
static void t_xp_killed(struct side *s, int fd, pid_t pid)
{
	struct hello h;
	struct ibv_ah *ah = ah_lid(s);
	struct ibv_qp *dci = dci_new(s), *ours = dct_new(s, KEY);
	unsigned char *src = s->buf, *back = s->buf + 256 * 1024;
	uint32_t len = 64 * 1024;

	xfer(fd, &h, sizeof(h), 0);
	fill(src, len, 8);
	CHECK(dc_op(s, dci, 0, ah, h.dctn, KEY, src, len, h.rkey, h.addr) == IBV_WC_SUCCESS &&
	      ask(fd, C_HASH, 0, len) == fnv(src, len), "killed: a write before the kill lands");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int st = dc_op(s, dci, 0, ah, h.dctn, KEY, src, len, h.rkey, h.addr);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(st == IBV_WC_RETRY_EXC_ERR, "killed: write to a killed process's DCT: status %d, want RETRY_EXC_ERR", st);
	CHECK(t1.tv_sec - t0.tv_sec < 3, "killed: the error comes at once, not a hang");
	dci_up(dci, 8, 2);
	memset(back, 0, len);
	st = dc_op(s, dci, 1, ah, h.dctn, KEY, back, len, h.rkey, h.addr);
	CHECK(st == IBV_WC_RETRY_EXC_ERR && back[0] == 0 && back[len - 1] == 0,
	      "killed: read from it: status %d, want RETRY_EXC_ERR, nothing placed", st);
	dci_up(dci, 8, 2);
	CHECK(dc_op(s, dci, 0, ah, ours->qp_num, KEY, src, len, s->mr->rkey, (uintptr_t)back) == IBV_WC_SUCCESS &&
	      !memcmp(src, back, len), "killed: our DCI still reaches our DCT");
	ibv_destroy_qp(ours);
	ibv_destroy_qp(dci);
	ibv_destroy_ah(ah);
}

int main(void)
{
	int sv[2], kv[2];
	pid_t pid, victim;
	struct side s;

	/* both children fork before this process touches the device */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || socketpair(AF_UNIX, SOCK_STREAM, 0, kv)) {
		perror("socketpair");
		return 2;
	}
	if ((pid = fork()) < 0) { perror("fork"); return 2; }
	if (pid == 0) {
		close(sv[0]); close(kv[0]); close(kv[1]);
		child(sv[1]);
	}
	if ((victim = fork()) < 0) { perror("fork"); return 2; }
	if (victim == 0) {
		close(kv[0]); close(sv[0]); close(sv[1]);
		child(kv[1]);
	}
	close(sv[1]);
	close(kv[1]);

	side_open(&s);
	struct ibv_ah *lid = ah_lid(&s), *gid = ah_gid(&s);
	CHECK(lid && gid, "address handles from a LID and from a GID");
	t_api(&s);
	t_write_read(&s, lid, "LID");
	t_write_read(&s, gid, "GID");
	t_refused(&s, lid);
	t_two_dcts(&s, gid);
	t_gone(&s, lid);
	t_xp(&s, sv[0], pid);
	t_xp_killed(&s, kv[0], victim);
	CHECK(softverbs_live_objects(4) == 0 && softverbs_live_objects(7) == 1 && softverbs_live_objects(8) == 2,
	      "every DC QP gone, SRQ and AHs live: %d %d %d", softverbs_live_objects(4), softverbs_live_objects(7),
	      softverbs_live_objects(8));
	CHECK(ibv_destroy_ah(lid) == 0 && ibv_destroy_ah(gid) == 0, "destroy address handles");
	CHECK(ibv_destroy_srq(s.srq) == 0, "destroy the SRQ once no DCT uses it");
	CHECK(softverbs_live_objects(7) == 0 && softverbs_live_objects(8) == 0, "SRQ and AHs gone");
	ibv_dereg_mr(s.mr);
	free(s.buf);
	CHECK(ibv_dealloc_pd(s.pd) == 0, "PD free again (AHs and SRQ released it)");
	ibv_destroy_cq(s.cq);
	ibv_close_device(s.ctx);
	printf("softverbs_dc_test: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
