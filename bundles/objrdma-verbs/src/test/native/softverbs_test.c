/*
 * softverbs_test.c - tests of the softverbs device through the ordinary verbs
 * API.  Compiled against the real <infiniband/verbs.h> and linked with
 * -libverbs against the shim, so it exercises exactly what a real client
 * would: exported symbols with their versions, and the inline data-path verbs
 * that dispatch through ibv_context.ops.
 *
 * Prints one line "softverbs_test: N passed, M failed" on stdout (details of
 * failures on stderr) and exits non-zero if anything failed.  "-v" lists each
 * test on stderr.
 */
#define _GNU_SOURCE
#include <infiniband/verbs.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Test-control API of the shim (SOFTVERBS_1.0). */
int softverbs_set_deferred(int on);
unsigned int softverbs_set_delay_us(unsigned int us);
int softverbs_pending(void);
void softverbs_drain(void);
int softverbs_set_memory_windows(int on);
/* Private rdma-core ABI (IBVERBS_PRIVATE_34) that ibv_devinfo calls: 0 = IB/RoCE v1, 1 = RoCE v2. */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index, int *type);

/* ---- mini test framework ------------------------------------------------ */

static int g_passed, g_failed, g_verbose;
static const char *g_name;
static int g_ok;

#define EXPECT(c)                                                                  \
	do {                                                                       \
		if (!(c)) {                                                        \
			g_ok = 0;                                                  \
			fprintf(stderr, "  [%s] %s:%d: expected %s\n", g_name,     \
				__FILE__, __LINE__, #c);                           \
		}                                                                  \
	} while (0)
#define EXPECT_EQ(a, b)                                                              \
	do {                                                                         \
		long long a_ = (long long)(a), b_ = (long long)(b);                  \
		if (a_ != b_) {                                                      \
			g_ok = 0;                                                    \
			fprintf(stderr, "  [%s] %s:%d: %s == %lld, expected %s == %lld\n", \
				g_name, __FILE__, __LINE__, #a, a_, #b, b_);         \
		}                                                                    \
	} while (0)

static void run(const char *name, void (*fn)(void))
{
	g_name = name;
	g_ok = 1;
	fn();
	if (g_ok)
		g_passed++;
	else
		g_failed++;
	if (g_verbose || !g_ok)
		fprintf(stderr, "%s %s\n", g_ok ? "ok  " : "FAIL", name);
}

/* ---- fixture: two "nodes", each with its own context, PD, CQ, QP, 1 MiB MR -- */

#define MIB (1u << 20)
#define BUF_SIZE (MIB + 4096)
#define MR_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define QP_ACCESS (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

struct node {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	unsigned char *buf;
	struct ibv_mr *mr;
};

static struct ibv_context *open_softrc0(void)
{
	int n = -1;
	struct ibv_device **list = ibv_get_device_list(&n);
	struct ibv_context *ctx;

	if (!list || n < 1)
		return NULL;
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	return ctx;
}

static struct ibv_qp *make_qp(struct node *n, struct ibv_cq *scq, struct ibv_cq *rcq, int send_wr)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = (uint32_t)send_wr, .max_recv_wr = 64, .max_send_sge = 4,
			 .max_recv_sge = 4, .max_inline_data = 128 },
	};
	return ibv_create_qp(n->pd, &ia);
}

static void node_open(struct node *n, int cqe, int send_wr)
{
	memset(n, 0, sizeof(*n));
	n->ctx = open_softrc0();
	EXPECT(n->ctx != NULL);
	if (!n->ctx)
		exit(2);
	n->pd = ibv_alloc_pd(n->ctx);
	n->cq = ibv_create_cq(n->ctx, cqe, NULL, NULL, 0);
	n->buf = aligned_alloc(4096, BUF_SIZE);
	memset(n->buf, 0, BUF_SIZE);
	n->mr = ibv_reg_mr(n->pd, n->buf, BUF_SIZE, MR_ACCESS);
	n->qp = make_qp(n, n->cq, n->cq, send_wr);
	EXPECT(n->pd && n->cq && n->buf && n->mr && n->qp);
}

static int to_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
				 .qp_access_flags = (unsigned int)access };
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static int to_rtr(struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_4096,
				 .dest_qp_num = dest, .rq_psn = 0, .max_dest_rd_atomic = 1,
				 .min_rnr_timer = 12,
				 .ah_attr = { .dlid = 1, .port_num = 1 } };
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

static int to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .sq_psn = 0, .timeout = 14,
				 .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1 };
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int set_state(struct ibv_qp *qp, enum ibv_qp_state st)
{
	struct ibv_qp_attr a = { .qp_state = st };
	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

static int connect_qp(struct ibv_qp *qp, uint32_t dest, int access)
{
	int rc = to_init(qp, access);
	if (!rc) rc = to_rtr(qp, dest);
	if (!rc) rc = to_rts(qp);
	return rc;
}

static void pair_open(struct node *a, struct node *b)
{
	node_open(a, 1024, 256);
	node_open(b, 1024, 256);
	EXPECT_EQ(connect_qp(a->qp, b->qp->qp_num, QP_ACCESS), 0);
	EXPECT_EQ(connect_qp(b->qp, a->qp->qp_num, QP_ACCESS), 0);
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

/*
 * After an error: the requester back through RESET to RTS, and the responder too
 * if a remote access violation moved it to ERR (as a NIC does).
 */
static void reconnect(struct node *a, struct node *b)
{
	EXPECT_EQ(set_state(a->qp, IBV_QPS_RESET), 0);
	EXPECT_EQ(connect_qp(a->qp, b->qp->qp_num, QP_ACCESS), 0);
	if (qp_state(b->qp) == IBV_QPS_ERR) {
		EXPECT_EQ(set_state(b->qp, IBV_QPS_RESET), 0);
		EXPECT_EQ(connect_qp(b->qp, a->qp->qp_num, QP_ACCESS), 0);
	}
}

/* Tear down in the documented order; every destroy must succeed. */
static void node_close(struct node *n)
{
	EXPECT_EQ(ibv_destroy_qp(n->qp), 0);
	EXPECT_EQ(ibv_dereg_mr(n->mr), 0);
	EXPECT_EQ(ibv_destroy_cq(n->cq), 0);
	EXPECT_EQ(ibv_dealloc_pd(n->pd), 0);
	EXPECT_EQ(ibv_close_device(n->ctx), 0);
	free(n->buf);
}


static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* Poll until n completions arrived or timeout; returns the count or a negative poll result. */
static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, int timeout_ms)
{
	int got = 0;
	long long end = now_ms() + timeout_ms;

	while (got < n) {
		int r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (!r && now_ms() > end)
			break;
	}
	return got;
}

static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc) { return poll_n(cq, wc, 1, 5000) == 1; }

static int cq_empty(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	return ibv_poll_cq(cq, 1, &wc) == 0;
}

static int post_rdma(struct node *n, enum ibv_wr_opcode op, uint64_t wr_id, void *laddr, uint32_t len,
		     uint32_t lkey, uint64_t raddr, uint32_t rkey, unsigned int flags)
{
	struct ibv_sge sge = { .addr = (uintptr_t)laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
				  .send_flags = flags }, *bad = NULL;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(n->qp, &wr, &bad);
}

/* WRITE/READ between node buffers at offsets, signaled. */
static int write_to(struct node *a, struct node *b, uint64_t wr_id, size_t off, uint32_t len)
{
	return post_rdma(a, IBV_WR_RDMA_WRITE, wr_id, a->buf + off, len, a->mr->lkey,
			 (uintptr_t)b->buf + off, b->mr->rkey, IBV_SEND_SIGNALED);
}

static int post_recv(struct node *n, uint64_t wr_id, void *addr, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = n->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad = NULL;
	return ibv_post_recv(n->qp, &wr, &bad);
}

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + seed + (i >> 10));
}

/* ---- tests --------------------------------------------------------------- */

static void t_device(void)
{
	int n = -1;
	struct ibv_device **list = ibv_get_device_list(&n);
	struct ibv_context *ctx;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	unsigned char raw[64];
	union ibv_gid gid;
	__be16 pkey;

	EXPECT(list != NULL);
	EXPECT_EQ(n, 1);
	if (!list)
		return;
	EXPECT(list[1] == NULL);
	EXPECT(strcmp(ibv_get_device_name(list[0]), "softrc0") == 0);
	EXPECT(be64toh(ibv_get_device_guid(list[0])) == 0x0002c90300abcdefULL);
	EXPECT_EQ(ibv_get_device_index(list[0]), 0);
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	EXPECT(ctx != NULL);
	if (!ctx)
		return;
	/* The data-path entry points the Java binding reads at ctx+96/104/208/216. */
	EXPECT(ctx->ops.poll_cq && ctx->ops.req_notify_cq && ctx->ops.post_send && ctx->ops.post_recv);
	EXPECT(ctx->abi_compat == NULL);

	EXPECT_EQ(ibv_query_device(ctx, &da), 0);
	EXPECT_EQ(da.phys_port_cnt, 1);
	EXPECT(be64toh(da.node_guid) == 0x0002c90300abcdefULL);

	/* Through the header macro (inline ___ibv_query_port -> exported compat). */
	EXPECT_EQ(ibv_query_port(ctx, 1, &pa), 0);
	EXPECT_EQ(pa.state, IBV_PORT_ACTIVE);
	EXPECT_EQ(pa.lid, 1);
	EXPECT_EQ(pa.active_mtu, IBV_MTU_4096);
	EXPECT_EQ(pa.link_layer, IBV_LINK_LAYER_INFINIBAND);
	EXPECT(ibv_query_port(ctx, 2, &pa) != 0);

	/* The exported function itself must write exactly the 48 compat bytes. */
	memset(raw, 0xab, sizeof(raw));
	EXPECT_EQ((ibv_query_port)(ctx, 1, (struct _compat_ibv_port_attr *)raw), 0);
	EXPECT_EQ(raw[34] | raw[35] << 8, 1);   /* lid */
	EXPECT_EQ(raw[47], 0);                 /* flags: last compat byte, written */
	for (int i = 48; i < 64; i++)
		EXPECT_EQ(raw[i], 0xab);

	EXPECT_EQ(ibv_query_gid(ctx, 1, 0, &gid), 0);
	EXPECT(gid.raw[0] == 0xfe && gid.raw[1] == 0x80);
	EXPECT(be64toh(gid.global.interface_id) == 0x0002c90300abcdefULL);
	EXPECT_EQ(ibv_query_pkey(ctx, 1, 0, &pkey), 0);
	EXPECT_EQ(be16toh(pkey), 0xffff);
	EXPECT(strcmp(ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR), "remote access error") == 0);
	EXPECT(strcmp(ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR), "Work Request Flushed Error") == 0);
	EXPECT_EQ(ibv_close_device(ctx), 0);
}

static void t_write_1mib(void)
{
	struct node a, b;
	struct ibv_wc wc;

	pair_open(&a, &b);
	fill(a.buf, MIB, 3);
	EXPECT_EQ(write_to(&a, &b, 1, 0, MIB), 0);
	EXPECT(poll_one(a.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
	EXPECT_EQ(wc.opcode, IBV_WC_RDMA_WRITE);
	EXPECT_EQ(wc.wr_id, 1);
	EXPECT_EQ(wc.byte_len, MIB);
	EXPECT_EQ(wc.qp_num, a.qp->qp_num);
	EXPECT(memcmp(a.buf, b.buf, MIB) == 0);
	EXPECT(cq_empty(b.cq));   /* a plain write is invisible to the target's CQ */
	node_close(&a);
	node_close(&b);
}

static void t_read_1mib(void)
{
	struct node a, b;
	struct ibv_wc wc;

	pair_open(&a, &b);
	fill(b.buf, MIB, 11);
	EXPECT_EQ(post_rdma(&a, IBV_WR_RDMA_READ, 2, a.buf, MIB, a.mr->lkey, (uintptr_t)b.buf,
			    b.mr->rkey, IBV_SEND_SIGNALED), 0);
	EXPECT(poll_one(a.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
	EXPECT_EQ(wc.opcode, IBV_WC_RDMA_READ);
	EXPECT_EQ(wc.byte_len, MIB);
	EXPECT(memcmp(a.buf, b.buf, MIB) == 0);
	node_close(&a);
	node_close(&b);
}

static void t_write_imm(void)
{
	struct node a, b;
	struct ibv_wc wc;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { 0 }, *bad;

	pair_open(&a, &b);
	fill(a.buf, 4096, 5);
	EXPECT_EQ(post_recv(&b, 77, b.buf + MIB, 16), 0);
	sge = (struct ibv_sge){ .addr = (uintptr_t)a.buf, .length = 4096, .lkey = a.mr->lkey };
	wr.wr_id = 3;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htonl(0xdeadbeef);
	wr.wr.rdma.remote_addr = (uintptr_t)b.buf;
	wr.wr.rdma.rkey = b.mr->rkey;
	EXPECT_EQ(ibv_post_send(a.qp, &wr, &bad), 0);
	EXPECT(poll_one(a.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
	EXPECT_EQ(wc.opcode, IBV_WC_RDMA_WRITE);
	EXPECT(poll_one(b.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
	EXPECT_EQ(wc.wr_id, 77);
	EXPECT_EQ(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	EXPECT(wc.wc_flags & IBV_WC_WITH_IMM);
	EXPECT_EQ(wc.imm_data, htonl(0xdeadbeef));  /* network order, as the sender gave it */
	EXPECT_EQ(wc.byte_len, 4096);
	EXPECT_EQ(wc.qp_num, b.qp->qp_num);
	EXPECT_EQ(wc.src_qp, a.qp->qp_num);
	EXPECT(memcmp(a.buf, b.buf, 4096) == 0);
	EXPECT_EQ(b.buf[MIB], 0);  /* the receive buffer is not used by WRITE_WITH_IMM */

	/* Without a posted receive: RNR retry exceeded, nothing placed, QP in ERR. */
	fill(a.buf, 64, 99);
	memset(b.buf + 8192, 0, 64);
	sge.addr = (uintptr_t)a.buf;
	sge.length = 64;
	wr.wr_id = 4;
	wr.wr.rdma.remote_addr = (uintptr_t)b.buf + 8192;
	EXPECT_EQ(ibv_post_send(a.qp, &wr, &bad), 0);
	EXPECT(poll_one(a.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_RNR_RETRY_EXC_ERR);
	EXPECT_EQ(wc.wr_id, 4);
	EXPECT_EQ(b.buf[8192], 0);
	EXPECT_EQ(qp_state(a.qp), IBV_QPS_ERR);
	node_close(&a);
	node_close(&b);
}

static void t_send_recv(void)
{
	struct node a, b;
	struct ibv_wc wc;
	struct ibv_sge ss[2], rs[2];
	struct ibv_recv_wr rwr = { .wr_id = 10, .sg_list = rs, .num_sge = 2 }, *rbad;
	struct ibv_send_wr swr = { .wr_id = 20, .sg_list = ss, .num_sge = 2, .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	unsigned char expect[200];

	pair_open(&a, &b);
	/* 200 bytes gathered from 2 x 100 and scattered into 2 x 128. */
	fill(a.buf, 100, 1);
	fill(a.buf + 5000, 100, 2);
	memcpy(expect, a.buf, 100);
	memcpy(expect + 100, a.buf + 5000, 100);
	ss[0] = (struct ibv_sge){ (uintptr_t)a.buf, 100, a.mr->lkey };
	ss[1] = (struct ibv_sge){ (uintptr_t)a.buf + 5000, 100, a.mr->lkey };
	rs[0] = (struct ibv_sge){ (uintptr_t)b.buf, 128, b.mr->lkey };
	rs[1] = (struct ibv_sge){ (uintptr_t)b.buf + 9000, 128, b.mr->lkey };
	EXPECT_EQ(ibv_post_recv(b.qp, &rwr, &rbad), 0);
	EXPECT_EQ(ibv_post_send(a.qp, &swr, &sbad), 0);
	EXPECT(poll_one(a.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
	EXPECT_EQ(wc.opcode, IBV_WC_SEND);
	EXPECT(poll_one(b.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
	EXPECT_EQ(wc.opcode, IBV_WC_RECV);
	EXPECT_EQ(wc.wr_id, 10);
	EXPECT_EQ(wc.byte_len, 200);
	EXPECT_EQ(wc.src_qp, a.qp->qp_num);
	EXPECT_EQ(wc.wc_flags & IBV_WC_WITH_IMM, 0);
	EXPECT(memcmp(b.buf, expect, 128) == 0);
	EXPECT(memcmp(b.buf + 9000, expect + 128, 72) == 0);

	/* SEND_WITH_IMM, inline payload. */
	rwr.wr_id = 11;
	EXPECT_EQ(ibv_post_recv(b.qp, &rwr, &rbad), 0);
	swr.wr_id = 21;
	swr.opcode = IBV_WR_SEND_WITH_IMM;
	swr.imm_data = htonl(42);
	swr.num_sge = 1;
	swr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	EXPECT_EQ(ibv_post_send(a.qp, &swr, &sbad), 0);
	EXPECT(poll_one(a.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
	EXPECT(poll_one(b.cq, &wc));
	EXPECT_EQ(wc.wr_id, 11);
	EXPECT_EQ(wc.opcode, IBV_WC_RECV);
	EXPECT(wc.wc_flags & IBV_WC_WITH_IMM);
	EXPECT_EQ(ntohl(wc.imm_data), 42);
	EXPECT_EQ(wc.byte_len, 100);
	EXPECT(memcmp(b.buf, expect, 100) == 0);

	/* Inline larger than max_inline_data (128) is rejected at post time. */
	ss[0].length = 129;
	EXPECT_EQ(ibv_post_send(a.qp, &swr, &sbad), EINVAL);
	EXPECT(sbad == &swr);
	node_close(&a);
	node_close(&b);
}

static void t_send_errors(void)
{
	struct node a, b;
	struct ibv_wc wc;

	/* Receive too short: responder LOC_LEN_ERR, requester REM_INV_REQ_ERR. */
	pair_open(&a, &b);
	EXPECT_EQ(post_recv(&b, 30, b.buf, 64), 0);
	EXPECT_EQ(post_rdma(&a, IBV_WR_SEND, 31, a.buf, 100, a.mr->lkey, 0, 0, IBV_SEND_SIGNALED), 0);
	EXPECT(poll_one(a.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_REM_INV_REQ_ERR);
	EXPECT_EQ(wc.wr_id, 31);
	EXPECT(poll_one(b.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_LOC_LEN_ERR);
	EXPECT_EQ(wc.wr_id, 30);
	EXPECT_EQ(qp_state(a.qp), IBV_QPS_ERR);
	node_close(&a);
	node_close(&b);

	/* No receive posted: RNR retry exceeded. */
	pair_open(&a, &b);
	EXPECT_EQ(post_rdma(&a, IBV_WR_SEND, 32, a.buf, 10, a.mr->lkey, 0, 0, 0), 0);
	EXPECT(poll_one(a.cq, &wc));   /* errors complete even when unsignaled */
	EXPECT_EQ(wc.status, IBV_WC_RNR_RETRY_EXC_ERR);
	EXPECT_EQ(wc.wr_id, 32);
	node_close(&a);
	node_close(&b);
}

static void t_bad_rkey_flush(void)
{
	struct node a, b;
	struct ibv_wc wc[4];

	pair_open(&a, &b);
	EXPECT_EQ(post_recv(&a, 500, a.buf + MIB, 64), 0);
	EXPECT_EQ(post_rdma(&a, IBV_WR_RDMA_WRITE, 1, a.buf, 64, a.mr->lkey, (uintptr_t)b.buf,
			    b.mr->rkey ^ 0x100, IBV_SEND_SIGNALED), 0);
	EXPECT_EQ(poll_n(a.cq, wc, 2, 5000), 2);
	EXPECT_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	EXPECT_EQ(wc[0].wr_id, 1);
	EXPECT_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);  /* the RQ is flushed after the error */
	EXPECT_EQ(wc[1].wr_id, 500);
	EXPECT_EQ(wc[1].opcode, IBV_WC_RECV);
	EXPECT_EQ(qp_state(a.qp), IBV_QPS_ERR);
	EXPECT_EQ(a.qp->state, IBV_QPS_ERR);           /* cached state refreshed by query_qp */

	/* Later WRs, even unsignaled, and later receives complete flushed. */
	EXPECT_EQ(post_rdma(&a, IBV_WR_RDMA_WRITE, 2, a.buf, 64, a.mr->lkey, (uintptr_t)b.buf,
			    b.mr->rkey, 0), 0);
	EXPECT(poll_one(a.cq, wc));
	EXPECT_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	EXPECT_EQ(wc[0].wr_id, 2);
	EXPECT_EQ(post_recv(&a, 501, a.buf, 64), 0);
	EXPECT(poll_one(a.cq, wc));
	EXPECT_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	EXPECT_EQ(wc[0].wr_id, 501);
	EXPECT(cq_empty(a.cq));
	/* The responder's QP went to ERR as well, as on a NIC. */
	EXPECT_EQ(qp_state(b.qp), IBV_QPS_ERR);

	/* RESET -> RTS on both sides brings the connection back. */
	reconnect(&a, &b);
	EXPECT_EQ(write_to(&a, &b, 3, 0, 64), 0);
	EXPECT(poll_one(a.cq, wc));
	EXPECT_EQ(wc[0].status, IBV_WC_SUCCESS);
	node_close(&a);
	node_close(&b);
}

/* One WR on a fresh pair, expecting status st on the requester. */
static void expect_status(struct node *a, enum ibv_wr_opcode op, void *laddr, uint32_t len,
			  uint32_t lkey, uint64_t raddr, uint32_t rkey, enum ibv_wc_status st)
{
	struct ibv_wc wc;

	EXPECT_EQ(post_rdma(a, op, 9, laddr, len, lkey, raddr, rkey, IBV_SEND_SIGNALED), 0);
	EXPECT(poll_one(a->cq, &wc));
	EXPECT_EQ(wc.status, st);
	EXPECT_EQ(wc.wr_id, 9);
}

static void t_out_of_bounds(void)
{
	struct node a, b;

	pair_open(&a, &b);
	/* Runs 10 bytes past the end of B's MR. */
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 20, a.mr->lkey, (uintptr_t)b.buf + BUF_SIZE - 10,
		      b.mr->rkey, IBV_WC_REM_ACCESS_ERR);
	EXPECT_EQ(b.buf[BUF_SIZE - 10], 0);
	reconnect(&a, &b);
	/* Starts one byte before it. */
	expect_status(&a, IBV_WR_RDMA_READ, a.buf, 20, a.mr->lkey, (uintptr_t)b.buf - 1,
		      b.mr->rkey, IBV_WC_REM_ACCESS_ERR);
	reconnect(&a, &b);
	/* Local SGE outside the local MR. */
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf + BUF_SIZE - 4, 8, a.mr->lkey, (uintptr_t)b.buf,
		      b.mr->rkey, IBV_WC_LOC_PROT_ERR);
	node_close(&a);
	node_close(&b);
}

static void t_access_checks(void)
{
	struct node a, b;
	struct ibv_mr *ro, *nolocal, *other;
	struct ibv_pd *pd2;
	struct ibv_wc wc;

	pair_open(&a, &b);
	/* MR without REMOTE_WRITE. */
	ro = ibv_reg_mr(b.pd, b.buf, 4096, IBV_ACCESS_REMOTE_READ);
	EXPECT(ro != NULL);
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)b.buf, ro->rkey,
		      IBV_WC_REM_ACCESS_ERR);
	reconnect(&a, &b);
	/* ... but reading through it works. */
	expect_status(&a, IBV_WR_RDMA_READ, a.buf, 8, a.mr->lkey, (uintptr_t)b.buf, ro->rkey,
		      IBV_WC_SUCCESS);

	/* rkey of an MR in another PD than the responder QP's. */
	pd2 = ibv_alloc_pd(b.ctx);
	other = ibv_reg_mr(pd2, b.buf, 4096, MR_ACCESS);
	EXPECT(other != NULL);
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)b.buf, other->rkey,
		      IBV_WC_REM_ACCESS_ERR);
	reconnect(&a, &b);

	/* lkey used as rkey: keys are distinct on this device. */
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)b.buf, b.mr->lkey,
		      IBV_WC_REM_ACCESS_ERR);
	reconnect(&a, &b);

	/* Bad local lkey. */
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey + 1, (uintptr_t)b.buf, b.mr->rkey,
		      IBV_WC_LOC_PROT_ERR);
	reconnect(&a, &b);

	/* READ into a local MR without LOCAL_WRITE. */
	nolocal = ibv_reg_mr(a.pd, a.buf, 4096, IBV_ACCESS_REMOTE_READ);
	EXPECT(nolocal != NULL);
	expect_status(&a, IBV_WR_RDMA_READ, a.buf, 8, nolocal->lkey, (uintptr_t)b.buf, b.mr->rkey,
		      IBV_WC_LOC_PROT_ERR);
	EXPECT_EQ(set_state(a.qp, IBV_QPS_RESET), 0);

	/* Responder QP without REMOTE_READ in qp_access_flags. */
	EXPECT_EQ(set_state(b.qp, IBV_QPS_RESET), 0);
	EXPECT_EQ(connect_qp(b.qp, a.qp->qp_num, IBV_ACCESS_REMOTE_WRITE), 0);
	EXPECT_EQ(connect_qp(a.qp, b.qp->qp_num, QP_ACCESS), 0);
	expect_status(&a, IBV_WR_RDMA_READ, a.buf, 8, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey,
		      IBV_WC_REM_INV_REQ_ERR);

	/* REMOTE_WRITE without LOCAL_WRITE cannot be registered. */
	errno = 0;
	EXPECT(ibv_reg_mr(a.pd, a.buf, 64, IBV_ACCESS_REMOTE_WRITE) == NULL);
	EXPECT_EQ(errno, EINVAL);

	EXPECT(cq_empty(a.cq) || (poll_one(a.cq, &wc) && wc.status == IBV_WC_WR_FLUSH_ERR));
	EXPECT_EQ(ibv_dereg_mr(ro), 0);
	EXPECT_EQ(ibv_dereg_mr(other), 0);
	EXPECT_EQ(ibv_dereg_mr(nolocal), 0);
	EXPECT_EQ(ibv_dealloc_pd(pd2), 0);
	node_close(&a);
	node_close(&b);
}

static void t_dereg_mr(void)
{
	struct node a, b;
	struct ibv_mr *mr2;
	uint32_t rkey;

	pair_open(&a, &b);
	mr2 = ibv_reg_mr(b.pd, b.buf + 4096, 4096, MR_ACCESS);
	EXPECT(mr2 != NULL);
	rkey = mr2->rkey;
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)b.buf + 4096, rkey,
		      IBV_WC_SUCCESS);
	EXPECT_EQ(ibv_dereg_mr(mr2), 0);
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)b.buf + 4096, rkey,
		      IBV_WC_REM_ACCESS_ERR);
	node_close(&a);
	node_close(&b);
}

static void t_wrong_state_post(void)
{
	struct node a, b;
	struct ibv_sge sge;
	struct ibv_send_wr w2, w1, *bad = NULL;
	struct ibv_recv_wr r = { 0 }, *rbad = NULL;
	struct ibv_wc wc;

	node_open(&a, 64, 16);
	node_open(&b, 64, 16);
	sge = (struct ibv_sge){ (uintptr_t)a.buf, 8, a.mr->lkey };
	w2 = (struct ibv_send_wr){ .wr_id = 2, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED };
	w2.wr.rdma.remote_addr = (uintptr_t)b.buf;
	w2.wr.rdma.rkey = b.mr->rkey;
	w1 = w2;
	w1.wr_id = 1;
	w1.next = &w2;

	/* RESET: both queues refuse. */
	EXPECT_EQ(ibv_post_send(a.qp, &w1, &bad), EINVAL);
	EXPECT(bad == &w1);
	rbad = NULL;
	EXPECT_EQ(ibv_post_recv(a.qp, &r, &rbad), EINVAL);
	EXPECT(rbad == &r);
	/* INIT: receives are accepted, sends are not. */
	EXPECT_EQ(to_init(a.qp, QP_ACCESS), 0);
	bad = NULL;
	EXPECT_EQ(ibv_post_send(a.qp, &w1, &bad), EINVAL);
	EXPECT(bad == &w1);
	EXPECT_EQ(ibv_post_recv(a.qp, &r, &rbad), 0);
	/* RTR: still no sends. */
	EXPECT_EQ(to_rtr(a.qp, b.qp->qp_num), 0);
	EXPECT_EQ(ibv_post_send(a.qp, &w1, &bad), EINVAL);
	EXPECT(cq_empty(a.cq));

	/* RTS: a chain whose second WR is invalid -> first executes, bad_wr = second. */
	EXPECT_EQ(to_rts(a.qp), 0);
	EXPECT_EQ(connect_qp(b.qp, a.qp->qp_num, QP_ACCESS), 0);
	w2.num_sge = 5;   /* > max_send_sge (4) */
	bad = NULL;
	EXPECT_EQ(ibv_post_send(a.qp, &w1, &bad), EINVAL);
	EXPECT(bad == &w2);
	EXPECT(poll_one(a.cq, &wc));
	EXPECT_EQ(wc.wr_id, 1);
	EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
	EXPECT(cq_empty(a.cq));
	w2.num_sge = 1;
	w2.opcode = (enum ibv_wr_opcode)99;   /* unknown opcode */
	EXPECT_EQ(ibv_post_send(a.qp, &w2, &bad), EINVAL);
	node_close(&a);
	node_close(&b);
}

static void t_attr_masks(void)
{
	struct node a;
	struct ibv_qp_attr at;
	struct ibv_qp_init_attr ia;
	const int rtr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;

	node_open(&a, 16, 16);
	/* RESET -> INIT with STATE only. */
	EXPECT_EQ(set_state(a.qp, IBV_QPS_INIT), EINVAL);
	EXPECT_EQ(qp_state(a.qp), IBV_QPS_RESET);
	/* Skipping states. */
	EXPECT_EQ(to_rtr(a.qp, 123), EINVAL);
	EXPECT_EQ(to_rts(a.qp), EINVAL);
	/* Wrong port. */
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_INIT;
	at.port_num = 2;
	EXPECT_EQ(ibv_modify_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					   IBV_QP_ACCESS_FLAGS), EINVAL);
	EXPECT_EQ(to_init(a.qp, QP_ACCESS), 0);
	EXPECT_EQ(a.qp->state, IBV_QPS_INIT);
	/* INIT -> RTR missing DEST_QPN; then with an attribute not allowed there (SQ_PSN). */
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_1024;
	at.dest_qp_num = 123;
	at.ah_attr.port_num = 1;
	EXPECT_EQ(ibv_modify_qp(a.qp, &at, rtr_mask & ~IBV_QP_DEST_QPN), EINVAL);
	EXPECT_EQ(ibv_modify_qp(a.qp, &at, rtr_mask | IBV_QP_SQ_PSN), EINVAL);
	EXPECT_EQ(qp_state(a.qp), IBV_QPS_INIT);
	EXPECT_EQ(ibv_modify_qp(a.qp, &at, rtr_mask), 0);
	/* RTR -> RTS missing SQ_PSN. */
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	EXPECT_EQ(ibv_modify_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					   IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC), EINVAL);
	EXPECT_EQ(to_rts(a.qp), 0);
	EXPECT_EQ(a.qp->state, IBV_QPS_RTS);
	/* query_qp reports what was set. */
	EXPECT_EQ(ibv_query_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_DEST_QPN, &ia), 0);
	EXPECT_EQ(at.qp_state, IBV_QPS_RTS);
	EXPECT_EQ(at.dest_qp_num, 123);
	EXPECT_EQ(at.path_mtu, IBV_MTU_1024);
	EXPECT_EQ(at.qp_access_flags, QP_ACCESS);
	EXPECT_EQ(at.cap.max_send_wr, 16);
	EXPECT_EQ(ia.qp_type, IBV_QPT_RC);
	/* RTS -> RTS with an allowed optional attribute; RTS -> INIT is not a transition. */
	at.min_rnr_timer = 5;
	EXPECT_EQ(ibv_modify_qp(a.qp, &at, IBV_QP_MIN_RNR_TIMER), 0);
	EXPECT_EQ(set_state(a.qp, IBV_QPS_INIT), EINVAL);
	/* Anything -> ERR -> RESET -> INIT. */
	EXPECT_EQ(set_state(a.qp, IBV_QPS_ERR), 0);
	EXPECT_EQ(a.qp->state, IBV_QPS_ERR);
	EXPECT_EQ(set_state(a.qp, IBV_QPS_RESET), 0);
	EXPECT_EQ(to_init(a.qp, 0), 0);
	/* Only RC QPs exist here. */
	{
		struct ibv_qp_init_attr ud = { .send_cq = a.cq, .recv_cq = a.cq, .qp_type = IBV_QPT_UD,
					       .cap = { 1, 1, 1, 1, 0 } };
		errno = 0;
		EXPECT(ibv_create_qp(a.pd, &ud) == NULL);
		EXPECT_EQ(errno, EOPNOTSUPP);
	}
	node_close(&a);
}

/* 10 000 small WRITEs, all signaled, at most 'window' outstanding; exact completion count. */
static void many_writes(int deferred)
{
	enum { N = 10000, WINDOW = 64 };
	struct node a, b;
	struct ibv_wc wc[WINDOW + N / 100];   /* room for the final poll of N/100 */
	int posted = 0, done = 0, bad_status = 0, out_of_order = 0;

	pair_open(&a, &b);
	if (deferred)
		softverbs_set_deferred(1);
	fill(a.buf, N * 64 > MIB ? MIB : N * 64, 17);
	while (done < N) {
		while (posted < N && posted - done < WINDOW) {
			size_t off = ((size_t)posted * 64) % MIB;
			if (write_to(&a, &b, (uint64_t)posted, off, 64)) {
				g_ok = 0;
				break;
			}
			posted++;
		}
		int r = ibv_poll_cq(a.cq, WINDOW, wc);
		if (r < 0) {
			EXPECT(r >= 0);
			break;
		}
		for (int i = 0; i < r; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				bad_status++;
			if (wc[i].wr_id != (uint64_t)(done + i))
				out_of_order++;
		}
		done += r;
		if (!g_ok)
			break;
	}
	EXPECT_EQ(done, N);
	EXPECT_EQ(bad_status, 0);
	EXPECT_EQ(out_of_order, 0);
	if (deferred) {
		softverbs_drain();
		EXPECT_EQ(softverbs_pending(), 0);
	}
	EXPECT(cq_empty(a.cq));      /* not one completion more */
	EXPECT(memcmp(a.buf, b.buf, MIB) == 0);

	/* Signal only every 100th WR: exactly N/100 completions, and the SQ
	 * (256 deep) keeps draining because signaled completions retire it. */
	int signaled = 0;
	done = 0;
	for (int i = 0; i < N; i++) {
		unsigned int flags = (i % 100 == 99) ? IBV_SEND_SIGNALED : 0;
		int rc;
		long long give_up = now_ms() + 5000;   /* a stuck SQ must fail, not hang */
		while ((rc = post_rdma(&a, IBV_WR_RDMA_WRITE, (uint64_t)i, a.buf, 64, a.mr->lkey,
				       (uintptr_t)b.buf, b.mr->rkey, flags)) == ENOMEM) {
			int r = ibv_poll_cq(a.cq, WINDOW, wc);
			if (r < 0 || now_ms() > give_up)
				break;
			signaled += r;
		}
		EXPECT_EQ(rc, 0);
		if (rc)
			break;
	}
	if (deferred)
		softverbs_drain();
	signaled += poll_n(a.cq, wc, N / 100 - signaled, 5000);
	EXPECT_EQ(signaled, N / 100);
	EXPECT(cq_empty(a.cq));
	if (deferred)
		EXPECT_EQ(softverbs_set_deferred(0), 1);
	node_close(&a);
	node_close(&b);
}

static void t_many_writes(void) { many_writes(0); }
static void t_many_writes_deferred(void) { many_writes(1); }

static void t_deferred_semantics(void)
{
	struct node a, b;
	struct ibv_wc wc[4];
	struct ibv_mr *tmp;

	pair_open(&a, &b);
	softverbs_set_delay_us(100000);   /* 100 ms: long enough to observe "not yet" */
	EXPECT_EQ(softverbs_set_deferred(1), 0);

	/* Posted, but neither placed nor completed yet. */
	fill(a.buf, 4096, 23);
	EXPECT_EQ(write_to(&a, &b, 1, 0, 4096), 0);
	EXPECT_EQ(softverbs_pending(), 1);
	EXPECT_EQ(b.buf[1], 0);
	EXPECT(cq_empty(a.cq));
	softverbs_drain();
	EXPECT_EQ(softverbs_pending(), 0);
	EXPECT(memcmp(a.buf, b.buf, 4096) == 0);
	EXPECT(poll_one(a.cq, wc));
	EXPECT_EQ(wc[0].status, IBV_WC_SUCCESS);

	/* A source buffer reused before completion is read at execution time:
	 * the ordering bug this mode exists to expose. */
	memset(a.buf, 0x11, 64);
	EXPECT_EQ(write_to(&a, &b, 2, 0, 64), 0);
	memset(a.buf, 0x22, 64);
	softverbs_drain();
	EXPECT_EQ(b.buf[0], 0x22);
	EXPECT(poll_one(a.cq, wc));

	/* ...whereas an INLINE payload is captured at post time. */
	EXPECT_EQ(post_recv(&b, 50, b.buf + 8192, 64), 0);
	memset(a.buf, 0x33, 64);
	EXPECT_EQ(post_rdma(&a, IBV_WR_SEND, 3, a.buf, 64, 0, 0, 0, IBV_SEND_SIGNALED | IBV_SEND_INLINE), 0);
	memset(a.buf, 0x44, 64);
	softverbs_drain();
	EXPECT_EQ(b.buf[8192], 0x33);
	EXPECT(poll_one(a.cq, wc));
	EXPECT(poll_one(b.cq, wc));
	EXPECT_EQ(wc[0].wr_id, 50);

	/* MR deregistered while the WR is in flight: REM_ACCESS_ERR at execution. */
	tmp = ibv_reg_mr(b.pd, b.buf + 4096, 4096, MR_ACCESS);
	EXPECT_EQ(post_rdma(&a, IBV_WR_RDMA_WRITE, 4, a.buf, 8, a.mr->lkey, (uintptr_t)b.buf + 4096,
			    tmp->rkey, IBV_SEND_SIGNALED), 0);
	EXPECT_EQ(ibv_dereg_mr(tmp), 0);
	softverbs_drain();
	EXPECT(poll_one(a.cq, wc));
	EXPECT_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	reconnect(&a, &b);

	/* Order inside a batch: ok, bad rkey, then everything after is flushed. */
	softverbs_set_delay_us(0);
	EXPECT_EQ(write_to(&a, &b, 10, 0, 8), 0);
	EXPECT_EQ(post_rdma(&a, IBV_WR_RDMA_WRITE, 11, a.buf, 8, a.mr->lkey, (uintptr_t)b.buf, 0xbad,
			    IBV_SEND_SIGNALED), 0);
	EXPECT_EQ(post_rdma(&a, IBV_WR_RDMA_WRITE, 12, a.buf, 8, a.mr->lkey, (uintptr_t)b.buf,
			    b.mr->rkey, 0), 0);
	EXPECT_EQ(write_to(&a, &b, 13, 0, 8), 0);
	softverbs_drain();
	EXPECT_EQ(poll_n(a.cq, wc, 4, 5000), 4);
	EXPECT(wc[0].wr_id == 10 && wc[0].status == IBV_WC_SUCCESS);
	EXPECT(wc[1].wr_id == 11 && wc[1].status == IBV_WC_REM_ACCESS_ERR);
	EXPECT(wc[2].wr_id == 12 && wc[2].status == IBV_WC_WR_FLUSH_ERR);
	EXPECT(wc[3].wr_id == 13 && wc[3].status == IBV_WC_WR_FLUSH_ERR);

	/* Destroying a QP discards its queued WRs without completions. */
	softverbs_set_delay_us(100000);
	reconnect(&a, &b);
	EXPECT_EQ(write_to(&a, &b, 20, 0, 8), 0);
	EXPECT_EQ(softverbs_pending(), 1);
	EXPECT_EQ(ibv_destroy_qp(a.qp), 0);
	EXPECT_EQ(softverbs_pending(), 0);
	a.qp = make_qp(&a, a.cq, a.cq, 16);
	EXPECT(cq_empty(a.cq));

	softverbs_set_delay_us(0);
	EXPECT_EQ(softverbs_set_deferred(0), 1);
	node_close(&a);
	node_close(&b);
}

static void t_env_deferred(void)
{
	struct ibv_context *ctx;

	softverbs_set_deferred(0);
	setenv("SOFTVERBS_DEFERRED", "1", 1);
	ctx = open_softrc0();
	unsetenv("SOFTVERBS_DEFERRED");
	EXPECT(ctx != NULL);
	EXPECT_EQ(softverbs_set_deferred(0), 1);   /* was switched on by the open */
	if (ctx)
		EXPECT_EQ(ibv_close_device(ctx), 0);
}

static int wait_fd(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, ms);
}

static void t_comp_channel(void)
{
	struct node a, b;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *ev_cq = NULL;
	void *ev_ctx = NULL;
	int marker;
	struct ibv_wc wc;

	pair_open(&a, &b);
	ch = ibv_create_comp_channel(a.ctx);
	EXPECT(ch != NULL);
	cq = ibv_create_cq(a.ctx, 16, &marker, ch, 0);
	EXPECT(cq != NULL);
	EXPECT_EQ(ibv_destroy_comp_channel(ch), EBUSY);   /* a CQ still uses it */
	/* Move A's QP onto the channel CQ. */
	EXPECT_EQ(ibv_destroy_qp(a.qp), 0);
	a.qp = make_qp(&a, cq, cq, 16);
	EXPECT_EQ(connect_qp(a.qp, b.qp->qp_num, QP_ACCESS), 0);
	EXPECT_EQ(set_state(b.qp, IBV_QPS_RESET), 0);
	EXPECT_EQ(connect_qp(b.qp, a.qp->qp_num, QP_ACCESS), 0);

	/* Armed: a completion raises exactly one event. */
	EXPECT_EQ(ibv_req_notify_cq(cq, 0), 0);
	EXPECT_EQ(write_to(&a, &b, 1, 0, 8), 0);
	EXPECT(wait_fd(ch->fd, 2000) == 1);
	EXPECT_EQ(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), 0);
	EXPECT(ev_cq == cq);
	EXPECT(ev_ctx == &marker);
	EXPECT(poll_one(cq, &wc));
	/* Not re-armed: no event. */
	EXPECT_EQ(write_to(&a, &b, 2, 0, 8), 0);
	EXPECT_EQ(wait_fd(ch->fd, 50), 0);
	EXPECT(poll_one(cq, &wc));
	/* Solicited-only arm: a successful send completion does not fire. */
	EXPECT_EQ(ibv_req_notify_cq(cq, 1), 0);
	EXPECT_EQ(write_to(&a, &b, 3, 0, 8), 0);
	EXPECT_EQ(wait_fd(ch->fd, 50), 0);
	EXPECT(poll_one(cq, &wc));

	/* Deferred: the event comes from the worker thread. */
	softverbs_set_deferred(1);
	softverbs_set_delay_us(100000);
	EXPECT_EQ(ibv_req_notify_cq(cq, 0), 0);
	EXPECT_EQ(write_to(&a, &b, 4, 0, 8), 0);
	EXPECT_EQ(wait_fd(ch->fd, 0), 0);      /* not yet */
	EXPECT(wait_fd(ch->fd, 5000) == 1);
	EXPECT_EQ(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), 0);
	EXPECT(ev_cq == cq);
	EXPECT(poll_one(cq, &wc));
	EXPECT_EQ(wc.wr_id, 4);
	softverbs_set_delay_us(0);
	softverbs_set_deferred(0);

	/* Two events unacked: destroy_cq is refused until they are acked. */
	EXPECT_EQ(ibv_destroy_qp(a.qp), 0);
	EXPECT_EQ(ibv_destroy_cq(cq), EBUSY);
	ibv_ack_cq_events(cq, 2);
	EXPECT_EQ(ibv_destroy_cq(cq), 0);
	EXPECT_EQ(ibv_destroy_comp_channel(ch), 0);
	a.qp = make_qp(&a, a.cq, a.cq, 16);
	node_close(&a);
	node_close(&b);
}

static void t_ebusy(void)
{
	struct node a;

	node_open(&a, 16, 16);
	EXPECT_EQ(ibv_dealloc_pd(a.pd), EBUSY);   /* MR and QP */
	EXPECT_EQ(ibv_destroy_cq(a.cq), EBUSY);   /* QP attached */
	EXPECT_EQ(ibv_destroy_qp(a.qp), 0);
	EXPECT_EQ(ibv_dealloc_pd(a.pd), EBUSY);   /* MR */
	EXPECT_EQ(ibv_destroy_cq(a.cq), 0);
	EXPECT_EQ(ibv_dereg_mr(a.mr), 0);
	EXPECT_EQ(ibv_dealloc_pd(a.pd), 0);
	EXPECT_EQ(ibv_close_device(a.ctx), 0);
	free(a.buf);
}

static void t_sq_full(void)
{
	struct node a, b;
	struct ibv_wc wc;
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad = NULL;

	node_open(&a, 64, 8);
	node_open(&b, 64, 8);
	EXPECT_EQ(connect_qp(a.qp, b.qp->qp_num, QP_ACCESS), 0);
	EXPECT_EQ(connect_qp(b.qp, a.qp->qp_num, QP_ACCESS), 0);
	/* 8 unsignaled WRs fill an 8-deep SQ; nothing ever retires them. */
	for (int i = 0; i < 8; i++)
		EXPECT_EQ(post_rdma(&a, IBV_WR_RDMA_WRITE, (uint64_t)i, a.buf, 8, a.mr->lkey,
				    (uintptr_t)b.buf, b.mr->rkey, 0), 0);
	sge = (struct ibv_sge){ (uintptr_t)a.buf, 8, a.mr->lkey };
	wr = (struct ibv_send_wr){ .wr_id = 8, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED };
	wr.wr.rdma.remote_addr = (uintptr_t)b.buf;
	wr.wr.rdma.rkey = b.mr->rkey;
	EXPECT_EQ(ibv_post_send(a.qp, &wr, &bad), ENOMEM);
	EXPECT(bad == &wr);
	/* The healthy pattern: 7 unsignaled + 1 signaled; polling it frees all 8. */
	reconnect(&a, &b);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 8; i++)
			EXPECT_EQ(post_rdma(&a, IBV_WR_RDMA_WRITE, (uint64_t)i, a.buf, 8, a.mr->lkey,
					    (uintptr_t)b.buf, b.mr->rkey, i == 7 ? IBV_SEND_SIGNALED : 0), 0);
		EXPECT(poll_one(a.cq, &wc));
		EXPECT_EQ(wc.wr_id, 7);
	}
	node_close(&a);
	node_close(&b);
}

static void t_cq_overrun(void)
{
	struct node a, b;
	struct ibv_wc wc[8];

	node_open(&a, 4, 16);
	node_open(&b, 4, 16);
	EXPECT_EQ(connect_qp(a.qp, b.qp->qp_num, QP_ACCESS), 0);
	EXPECT_EQ(connect_qp(b.qp, a.qp->qp_num, QP_ACCESS), 0);
	/* resize_cq keeps queued CQEs and refuses to shrink below them. */
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(write_to(&a, &b, (uint64_t)i, 0, 8), 0);
	EXPECT_EQ(ibv_resize_cq(a.cq, 2), EINVAL);
	EXPECT_EQ(ibv_resize_cq(a.cq, 6), 0);
	EXPECT_EQ(a.cq->cqe, 6);
	for (int i = 3; i < 6; i++)
		EXPECT_EQ(write_to(&a, &b, (uint64_t)i, 0, 8), 0);
	EXPECT_EQ(ibv_poll_cq(a.cq, 8, wc), 6);
	for (int i = 0; i < 6; i++)
		EXPECT_EQ(wc[i].wr_id, i);
	/* One completion more than the CQ holds: the CQ is overrun. */
	for (int i = 0; i < 7; i++)
		EXPECT_EQ(write_to(&a, &b, (uint64_t)i, 0, 8), 0);
	EXPECT(ibv_poll_cq(a.cq, 8, wc) < 0);
	node_close(&a);
	node_close(&b);
}

static void t_err_flushes_rq(void)
{
	struct node a;
	struct ibv_wc wc[4];

	node_open(&a, 16, 16);
	EXPECT_EQ(to_init(a.qp, QP_ACCESS), 0);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(post_recv(&a, (uint64_t)(100 + i), a.buf, 64), 0);
	EXPECT(cq_empty(a.cq));
	EXPECT_EQ(set_state(a.qp, IBV_QPS_ERR), 0);
	EXPECT_EQ(poll_n(a.cq, wc, 4, 100), 3);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		EXPECT_EQ(wc[i].opcode, IBV_WC_RECV);
		EXPECT_EQ(wc[i].wr_id, 100 + i);
		EXPECT_EQ(wc[i].qp_num, a.qp->qp_num);
	}
	node_close(&a);
}

static void t_atomics(void)
{
	struct node a, b;
	struct ibv_wc wc;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { 0 }, *bad;
	uint64_t *remote, *local;

	pair_open(&a, &b);
	remote = (uint64_t *)(b.buf + 64);
	local = (uint64_t *)a.buf;
	*remote = 40;
	sge = (struct ibv_sge){ (uintptr_t)local, 8, a.mr->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)remote;
	wr.wr.atomic.rkey = b.mr->rkey;
	wr.wr.atomic.compare_add = 2;
	EXPECT_EQ(ibv_post_send(a.qp, &wr, &bad), 0);
	EXPECT(poll_one(a.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
	EXPECT_EQ(wc.opcode, IBV_WC_FETCH_ADD);
	EXPECT_EQ(*local, 40);
	EXPECT_EQ(*remote, 42);
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 42;
	wr.wr.atomic.swap = 7;
	EXPECT_EQ(ibv_post_send(a.qp, &wr, &bad), 0);
	EXPECT(poll_one(a.cq, &wc));
	EXPECT_EQ(wc.opcode, IBV_WC_COMP_SWAP);
	EXPECT_EQ(*local, 42);
	EXPECT_EQ(*remote, 7);
	node_close(&a);
	node_close(&b);
}

static void t_not_connected(void)
{
	struct node a, b, c;

	node_open(&a, 16, 16);
	node_open(&b, 16, 16);
	node_open(&c, 16, 16);
	/* A points at B, but B points at C. */
	EXPECT_EQ(connect_qp(a.qp, b.qp->qp_num, QP_ACCESS), 0);
	EXPECT_EQ(connect_qp(b.qp, c.qp->qp_num, QP_ACCESS), 0);
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey,
		      IBV_WC_RETRY_EXC_ERR);
	/* A points at a QPN that does not exist. */
	EXPECT_EQ(set_state(a.qp, IBV_QPS_RESET), 0);
	EXPECT_EQ(connect_qp(a.qp, 0xfffff0, QP_ACCESS), 0);
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey,
		      IBV_WC_RETRY_EXC_ERR);
	/* Peer points back but is only INIT. */
	EXPECT_EQ(set_state(a.qp, IBV_QPS_RESET), 0);
	EXPECT_EQ(set_state(c.qp, IBV_QPS_RESET), 0);
	EXPECT_EQ(connect_qp(a.qp, c.qp->qp_num, QP_ACCESS), 0);
	EXPECT_EQ(to_init(c.qp, QP_ACCESS), 0);
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)c.buf, c.mr->rkey,
		      IBV_WC_RETRY_EXC_ERR);
	node_close(&a);
	node_close(&b);
	node_close(&c);
}

static void t_loopback_iova(void)
{
	struct node a;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	volatile int access = MR_ACCESS;   /* non-constant: the macro calls ibv_reg_mr_iova2 */

	node_open(&a, 16, 16);
	/* A QP connected to itself, one PD: classic loopback. */
	EXPECT_EQ(connect_qp(a.qp, a.qp->qp_num, QP_ACCESS), 0);
	mr = ibv_reg_mr_iova(a.pd, a.buf + 65536, 65536, 0x10000000, access);
	EXPECT(mr != NULL);
	fill(a.buf, 256, 31);
	EXPECT_EQ(post_rdma(&a, IBV_WR_RDMA_WRITE, 1, a.buf, 256, a.mr->lkey, 0x10000000 + 1000,
			    mr->rkey, IBV_SEND_SIGNALED), 0);
	EXPECT(poll_one(a.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
	EXPECT(memcmp(a.buf, a.buf + 65536 + 1000, 256) == 0);
	/* Local SGEs of an iova MR are addressed in iova space too. */
	EXPECT_EQ(post_rdma(&a, IBV_WR_RDMA_READ, 2, (void *)(uintptr_t)(0x10000000 + 4096), 256,
			    mr->lkey, (uintptr_t)a.buf, a.mr->rkey, IBV_SEND_SIGNALED), 0);
	EXPECT(poll_one(a.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
	EXPECT(memcmp(a.buf, a.buf + 65536 + 4096, 256) == 0);
	/* The iova2 path through the header macro with a non-constant access value. */
	struct ibv_mr *mr2 = ibv_reg_mr(a.pd, a.buf, 4096, access);
	EXPECT(mr2 != NULL);
	EXPECT_EQ(ibv_dereg_mr(mr2), 0);
	EXPECT_EQ(ibv_dereg_mr(mr), 0);
	node_close(&a);
}

/* Closing a device with everything still alive must free it all (valgrind checks). */
static void t_close_frees_all(void)
{
	struct node a, b;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	unsigned char *ab = NULL, *bb = NULL;

	pair_open(&a, &b);
	ch = ibv_create_comp_channel(a.ctx);
	cq = ibv_create_cq(a.ctx, 8, NULL, ch, 0);
	EXPECT(ch && cq);
	EXPECT_EQ(ibv_req_notify_cq(a.cq, 0), 0);
	EXPECT_EQ(post_recv(&a, 1, a.buf, 64), 0);
	EXPECT_EQ(post_recv(&b, 2, b.buf, 64), 0);
	EXPECT_EQ(write_to(&a, &b, 3, 0, 64), 0);        /* leaves a CQE behind */
	softverbs_set_deferred(1);
	softverbs_set_delay_us(1000000);
	EXPECT_EQ(write_to(&a, &b, 4, 0, 64), 0);        /* stays queued */
	EXPECT_EQ(softverbs_pending(), 1);
	ab = a.buf;
	bb = b.buf;
	EXPECT_EQ(ibv_close_device(a.ctx), 0);
	EXPECT_EQ(softverbs_pending(), 0);               /* its queued WR went with it */
	EXPECT_EQ(ibv_close_device(b.ctx), 0);
	softverbs_set_delay_us(0);
	softverbs_set_deferred(0);
	free(ab);
	free(bb);
}

/* Test controls of the shim (SOFTVERBS_1.0), declared here: they are in no header. */
int softverbs_inject_async_event(int type, int port);
unsigned long softverbs_async_acked(void);
void softverbs_reset_port(void);

/* Injected port and device events reach every open context through async_fd, in order, and
 * move the port state ibv_query_port reports. */
static void t_async_events(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *c1, *c2;
	struct ibv_async_event ev;
	struct ibv_port_attr pa;
	unsigned long acked;

	EXPECT(list != NULL);
	if (!list)
		return;
	c1 = ibv_open_device(list[0]);
	c2 = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	EXPECT(c1 != NULL && c2 != NULL);
	if (!c1 || !c2)
		return;
	EXPECT_EQ(wait_fd(c1->async_fd, 20), 0);               /* nothing yet */
	EXPECT_EQ(softverbs_inject_async_event(IBV_EVENT_SQ_DRAINED, 1), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(softverbs_inject_async_event(IBV_EVENT_PORT_ERR, 2), -1);
	acked = softverbs_async_acked();

	EXPECT_EQ(softverbs_inject_async_event(IBV_EVENT_PORT_ERR, 1), 2);
	EXPECT_EQ(ibv_query_port(c1, 1, &pa), 0);
	EXPECT_EQ(pa.state, IBV_PORT_DOWN);
	EXPECT_EQ(softverbs_inject_async_event(IBV_EVENT_PORT_ACTIVE, 1), 2);
	EXPECT_EQ(ibv_query_port(c1, 1, &pa), 0);
	EXPECT_EQ(pa.state, IBV_PORT_ACTIVE);
	EXPECT_EQ(softverbs_inject_async_event(IBV_EVENT_DEVICE_FATAL, 0), 2);

	EXPECT(wait_fd(c1->async_fd, 2000) == 1);
	EXPECT_EQ(ibv_get_async_event(c1, &ev), 0);
	EXPECT_EQ(ev.event_type, IBV_EVENT_PORT_ERR);
	EXPECT_EQ(ev.element.port_num, 1);
	ibv_ack_async_event(&ev);
	EXPECT_EQ(ibv_get_async_event(c1, &ev), 0);
	EXPECT_EQ(ev.event_type, IBV_EVENT_PORT_ACTIVE);
	ibv_ack_async_event(&ev);
	EXPECT_EQ(ibv_get_async_event(c1, &ev), 0);
	EXPECT_EQ(ev.event_type, IBV_EVENT_DEVICE_FATAL);
	ibv_ack_async_event(&ev);
	EXPECT_EQ(wait_fd(c1->async_fd, 20), 0);               /* all three consumed */
	EXPECT_EQ(softverbs_async_acked() - acked, 3);
	/* the other context got its own copies; closing with events unread frees them */
	EXPECT(wait_fd(c2->async_fd, 20) == 1);
	EXPECT_EQ(ibv_close_device(c2), 0);
	EXPECT_EQ(ibv_close_device(c1), 0);
	softverbs_reset_port();
}

/* ---- type-2 memory windows ---------------------------------------------- */

/* Binds mw on n's QP over [addr, addr+len) of mr with access; returns the completion status. */
static int bind_window(struct node *n, struct ibv_mw *mw, uint32_t rkey, struct ibv_mr *mr, void *addr,
		       uint64_t len, unsigned int access)
{
	struct ibv_send_wr wr = { .wr_id = 77, .opcode = IBV_WR_BIND_MW, .send_flags = IBV_SEND_SIGNALED },
			   *bad = NULL;
	struct ibv_wc wc;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	if (ibv_post_send(n->qp, &wr, &bad))
		return -1;
	if (!poll_one(n->cq, &wc))
		return -2;
	EXPECT(wc.status != IBV_WC_SUCCESS || wc.opcode == IBV_WC_BIND_MW);
	return wc.status;
}

static int invalidate_window(struct node *n, uint32_t rkey)
{
	struct ibv_send_wr wr = { .wr_id = 78, .opcode = IBV_WR_LOCAL_INV, .send_flags = IBV_SEND_SIGNALED },
			   *bad = NULL;
	struct ibv_wc wc;

	wr.invalidate_rkey = rkey;
	if (ibv_post_send(n->qp, &wr, &bad))
		return -1;
	if (!poll_one(n->cq, &wc))
		return -2;
	EXPECT(wc.status != IBV_WC_SUCCESS || wc.opcode == IBV_WC_LOCAL_INV);
	return wc.status;
}

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

static void t_memory_windows(void)
{
	struct node a, b, c, d;
	struct ibv_device_attr da;
	struct ibv_mr *local;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t rkey;
	unsigned char *win;

	pair_open(&a, &b);
	EXPECT_EQ(ibv_query_device(b.ctx, &da), 0);
	EXPECT(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	EXPECT(da.max_mw > 0);
	EXPECT(ibv_alloc_mw(b.pd, IBV_MW_TYPE_1) == NULL);
	mw = ibv_alloc_mw(b.pd, IBV_MW_TYPE_2);
	EXPECT(mw != NULL && mw->type == IBV_MW_TYPE_2);

	/* A local-only MR: its own rkey opens nothing; the window opens one page of it. */
	local = ibv_reg_mr(b.pd, b.buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	EXPECT(local != NULL);
	win = b.buf + 8192;
	memset(b.buf, 0x5a, BUF_SIZE);
	rkey = ibv_inc_rkey(mw->rkey);
	EXPECT_EQ(bind_window(&b, mw, rkey, local, win, 4096, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ),
		  IBV_WC_SUCCESS);
	memset(a.buf, 0x11, 64);
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 64, a.mr->lkey, (uintptr_t)win + 100, rkey, IBV_WC_SUCCESS);
	EXPECT(all_bytes(win + 100, 64, 0x11));
	expect_status(&a, IBV_WR_RDMA_READ, a.buf + 4096, 64, a.mr->lkey, (uintptr_t)win + 100, rkey,
		      IBV_WC_SUCCESS);
	EXPECT(all_bytes(a.buf + 4096, 64, 0x11));
	EXPECT_EQ(ibv_dereg_mr(local), EBUSY);  /* a window is bound to it */

	/* Outside the window: refused, nothing written, and the responder's QP goes to ERR. */
	memset(a.buf, 0x22, 64);
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 64, a.mr->lkey, (uintptr_t)win + 4096 - 32, rkey,
		      IBV_WC_REM_ACCESS_ERR);
	EXPECT(all_bytes(win + 4096 - 32, 32, 0x5a) && all_bytes(win + 4096, 32, 0x5a));
	EXPECT_EQ(qp_state(b.qp), IBV_QPS_ERR);
	/* A reset of the QP the window is bound to unbinds it. */
	reconnect(&a, &b);
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)win, rkey, IBV_WC_REM_ACCESS_ERR);
	EXPECT(all_bytes(win, 8, 0x5a));
	reconnect(&a, &b);

	/* The MR's own key: local-only, refused. */
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)win, local->rkey,
		      IBV_WC_REM_ACCESS_ERR);
	reconnect(&a, &b);

	/* Wrong access: a read-only window refuses a write. */
	rkey = ibv_inc_rkey(rkey);
	EXPECT_EQ(bind_window(&b, mw, rkey, local, win, 4096, IBV_ACCESS_REMOTE_READ), IBV_WC_SUCCESS);
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)win, rkey, IBV_WC_REM_ACCESS_ERR);
	EXPECT(all_bytes(win, 8, 0x5a));
	reconnect(&a, &b);

	/* Bound to b's QP only: another connection into the same PD is refused. */
	rkey = ibv_inc_rkey(rkey);
	EXPECT_EQ(bind_window(&b, mw, rkey, local, win, 4096, IBV_ACCESS_REMOTE_WRITE), IBV_WC_SUCCESS);
	c = a;
	d = b;
	c.qp = make_qp(&a, a.cq, a.cq, 16);
	d.qp = make_qp(&b, b.cq, b.cq, 16);
	EXPECT_EQ(connect_qp(c.qp, d.qp->qp_num, QP_ACCESS), 0);
	EXPECT_EQ(connect_qp(d.qp, c.qp->qp_num, QP_ACCESS), 0);
	expect_status(&c, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)win, rkey, IBV_WC_REM_ACCESS_ERR);
	EXPECT(all_bytes(win, 8, 0x5a));
	EXPECT_EQ(qp_state(d.qp), IBV_QPS_ERR);
	/* ... while b's own peer still gets in. */
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)win, rkey, IBV_WC_SUCCESS);

	/* Binding a bound type-2B window again fails (invalidate first); the QP goes to ERR. */
	EXPECT_EQ(bind_window(&b, mw, ibv_inc_rkey(rkey), local, win, 4096, IBV_ACCESS_REMOTE_WRITE),
		  IBV_WC_MW_BIND_ERR);
	EXPECT_EQ(qp_state(b.qp), IBV_QPS_ERR);
	reconnect(&b, &a);

	/* Invalidate: the rkey is dead at once, and its old tag stays dead after the next bind. */
	rkey = ibv_inc_rkey(rkey);
	EXPECT_EQ(bind_window(&b, mw, rkey, local, win, 4096, IBV_ACCESS_REMOTE_WRITE), IBV_WC_SUCCESS);
	EXPECT_EQ(invalidate_window(&b, rkey), IBV_WC_SUCCESS);
	EXPECT_EQ(invalidate_window(&b, rkey), IBV_WC_MW_BIND_ERR);  /* not bound any more */
	reconnect(&b, &a);
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)win, rkey, IBV_WC_REM_ACCESS_ERR);
	reconnect(&a, &b);
	EXPECT_EQ(bind_window(&b, mw, ibv_inc_rkey(rkey), local, win, 4096, IBV_ACCESS_REMOTE_WRITE),
		  IBV_WC_SUCCESS);
	memset(a.buf, 0x33, 8);
	expect_status(&a, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)win, rkey, IBV_WC_REM_ACCESS_ERR);
	EXPECT(all_bytes(win, 8, 0x22));  /* still what b's own peer wrote before */
	reconnect(&a, &b);

	/* Binds the device must refuse: no MW_BIND on the MR, outside it, remote write without local write. */
	EXPECT_EQ(bind_window(&b, mw, ibv_inc_rkey(rkey), b.mr, win, 4096, IBV_ACCESS_REMOTE_WRITE),
		  IBV_WC_MW_BIND_ERR);
	reconnect(&b, &a);

	/* Dealloc invalidates; then the MR can go. */
	EXPECT_EQ(ibv_dealloc_mw(mw), 0);
	EXPECT_EQ(ibv_dereg_mr(local), 0);
	(void)wc;
	EXPECT_EQ(ibv_destroy_qp(c.qp), 0);
	EXPECT_EQ(ibv_destroy_qp(d.qp), 0);

	/* A device without windows says so and refuses them. */
	EXPECT_EQ(softverbs_set_memory_windows(0), 1);
	EXPECT_EQ(ibv_query_device(b.ctx, &da), 0);
	EXPECT(!(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B));
	EXPECT(ibv_alloc_mw(b.pd, IBV_MW_TYPE_2) == NULL);
	softverbs_set_memory_windows(1);
	node_close(&a);
	node_close(&b);
}

/* ---- the GID table (softverbs_gid.c) -------------------------------------- */

#define GID_TBL_LEN 32

static void v4_mapped(union ibv_gid *gid, const char *dotted)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = gid->raw[11] = 0xff;
	inet_pton(AF_INET, dotted, gid->raw + 12);
}

/* Index of the entry holding gid with the type, or -1. */
static int find_gid(const struct ibv_gid_entry *t, int n, const union ibv_gid *gid, uint32_t type)
{
	for (int i = 0; i < n; i++)
		if (!memcmp(t[i].gid.raw, gid->raw, 16) && t[i].gid_type == type)
			return i;
	return -1;
}

/* A RoCE port's table: every GID as v1 and v2; the three ways to read it agree. */
static void t_gid_table(void)
{
	struct ibv_context *ctx = open_softrc0();
	struct ibv_gid_entry t[GID_TBL_LEN + 1], e;
	struct ibv_port_attr pa;
	struct ifaddrs *all, *a;
	union ibv_gid gid, zero = { .raw = { 0 } };
	ssize_t n;
	int type;

	EXPECT(ctx != NULL);
	if (!ctx)
		return;
	EXPECT_EQ(ibv_query_port(ctx, 1, &pa), 0);
	EXPECT_EQ(pa.gid_tbl_len, GID_TBL_LEN);
	n = ibv_query_gid_table(ctx, t, GID_TBL_LEN, 0);
	EXPECT(n >= 4 && n <= GID_TBL_LEN);
	if (n < 4)
		n = 0;
	/* 0 and 1: the device's link-local GID, RoCE v1 then v2. */
	EXPECT(n && t[0].gid.raw[0] == 0xfe && t[0].gid.raw[1] == 0x80 &&
	       be64toh(t[0].gid.global.interface_id) == 0x0002c90300abcdefULL);
	EXPECT(n && t[0].gid_type == IBV_GID_TYPE_ROCE_V1 && t[1].gid_type == IBV_GID_TYPE_ROCE_V2);
	EXPECT(n && !memcmp(t[0].gid.raw, t[1].gid.raw, 16));
	/* Every IPv4 address of the host, 127.0.0.1 included, as ::ffff:a.b.c.d in both types. */
	v4_mapped(&gid, "127.0.0.1");
	EXPECT(find_gid(t, (int)n, &gid, IBV_GID_TYPE_ROCE_V2) > 1);
	EXPECT(find_gid(t, (int)n, &gid, IBV_GID_TYPE_ROCE_V1) > 1);
	EXPECT_EQ(getifaddrs(&all), 0);
	for (a = all; a; a = a->ifa_next) {
		if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET)
			continue;
		memset(&gid, 0, sizeof(gid));
		gid.raw[10] = gid.raw[11] = 0xff;
		memcpy(gid.raw + 12, &((struct sockaddr_in *)a->ifa_addr)->sin_addr, 4);
		EXPECT(find_gid(t, (int)n, &gid, IBV_GID_TYPE_ROCE_V2) >= 0);
	}
	freeifaddrs(all);
	/* ibv_query_gid, ibv_query_gid_ex and ibv_query_gid_type agree with the table at every index. */
	for (int i = 0; i < GID_TBL_LEN; i++) {
		EXPECT_EQ(ibv_query_gid(ctx, 1, i, &gid), 0);
		EXPECT_EQ(ibv_query_gid_type(ctx, 1, (unsigned int)i, &type), 0);
		if (i < n) {
			EXPECT(!memcmp(gid.raw, t[i].gid.raw, 16));
			EXPECT_EQ(t[i].gid_index, i);
			EXPECT_EQ(t[i].port_num, 1);
			EXPECT_EQ(ibv_query_gid_ex(ctx, 1, (uint32_t)i, &e, 0), 0);
			EXPECT(!memcmp(&e, &t[i], sizeof(e)));
			EXPECT_EQ(type, t[i].gid_type == IBV_GID_TYPE_ROCE_V2 ? 1 : 0);
		} else {
			EXPECT(!memcmp(gid.raw, zero.raw, 16));          /* an empty slot */
			EXPECT_EQ(ibv_query_gid_ex(ctx, 1, (uint32_t)i, &e, 0), ENODATA);
			EXPECT_EQ(type, 0);
		}
	}
	/* Outside the table, another port, flags: refused. */
	EXPECT_EQ(ibv_query_gid(ctx, 1, GID_TBL_LEN, &gid), -1);
	EXPECT_EQ(ibv_query_gid(ctx, 2, 0, &gid), -1);
	EXPECT_EQ(ibv_query_gid_ex(ctx, 1, GID_TBL_LEN, &e, 0), EINVAL);
	EXPECT_EQ(ibv_query_gid_ex(ctx, 2, 0, &e, 0), EINVAL);
	EXPECT_EQ(ibv_query_gid_ex(ctx, 1, 0, &e, 1), EINVAL);
	EXPECT_EQ(ibv_query_gid_type(ctx, 2, 0, &type), -1);
	if (n)
		EXPECT_EQ(ibv_query_gid_table(ctx, t, (size_t)n - 1, 0), -EINVAL);
	EXPECT_EQ(ibv_close_device(ctx), 0);
}

/* RTR with a GRH: source index sgid, destination GID dgid. */
static int to_rtr_gid(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *dgid, int sgid)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_4096,
				 .dest_qp_num = dest, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
				 .ah_attr = { .is_global = 1, .port_num = 1,
					      .grh = { .dgid = *dgid, .sgid_index = (uint8_t)sgid,
						       .hop_limit = 64 } } };
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

/* RTS with a short ACK timeout (4.096 us * 2^1) and two retries, for the lost-request case. */
static int to_rts_short(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .timeout = 1, .retry_cnt = 2,
				 .rnr_retry = 7, .max_rd_atomic = 1 };
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Both QPs connect by GID (v2 ::ffff:127.0.0.1 and v1 link-local); data moves; bad source indexes are refused. */
static void t_connect_by_gid(void)
{
	struct node a, b;
	struct ibv_gid_entry t[GID_TBL_LEN];
	union ibv_gid lo;
	struct ibv_wc wc;
	ssize_t n;
	int v2, ll = 0;

	node_open(&a, 64, 16);
	node_open(&b, 64, 16);
	n = ibv_query_gid_table(a.ctx, t, GID_TBL_LEN, 0);
	v4_mapped(&lo, "127.0.0.1");
	v2 = find_gid(t, (int)n, &lo, IBV_GID_TYPE_ROCE_V2);
	EXPECT(v2 > 0);
	/* No such source GID: past the table, or an empty slot. */
	EXPECT_EQ(to_init(a.qp, QP_ACCESS), 0);
	EXPECT_EQ(to_rtr_gid(a.qp, b.qp->qp_num, &lo, GID_TBL_LEN), EINVAL);
	EXPECT_EQ(to_rtr_gid(a.qp, b.qp->qp_num, &lo, (int)n), EINVAL);
	EXPECT_EQ(qp_state(a.qp), IBV_QPS_INIT);
	EXPECT_EQ(to_rtr_gid(a.qp, b.qp->qp_num, &lo, v2), 0);
	EXPECT_EQ(to_rts(a.qp), 0);
	EXPECT_EQ(to_init(b.qp, QP_ACCESS), 0);
	EXPECT_EQ(to_rtr_gid(b.qp, a.qp->qp_num, &t[ll].gid, ll), 0);
	EXPECT_EQ(to_rts(b.qp), 0);
	fill(a.buf, 4096, 7);
	fill(b.buf + 8192, 4096, 8);
	EXPECT_EQ(write_to(&a, &b, 1, 0, 4096), 0);
	EXPECT(poll_one(a.cq, &wc) && wc.status == IBV_WC_SUCCESS);
	EXPECT(!memcmp(a.buf, b.buf, 4096));
	EXPECT_EQ(write_to(&b, &a, 2, 8192, 4096), 0);
	EXPECT(poll_one(b.cq, &wc) && wc.status == IBV_WC_SUCCESS);
	EXPECT(!memcmp(a.buf + 8192, b.buf + 8192, 4096));
	node_close(&a);
	node_close(&b);
}

/* A destination GID nobody owns: RTR is fine (as on a NIC), every request is lost: RETRY_EXC_ERR. */
static void t_gid_nobody_owns(void)
{
	struct node a, b;
	struct ibv_gid_entry t[GID_TBL_LEN];
	union ibv_gid stranger;
	struct ibv_wc wc;
	ssize_t n;
	long long t0;

	node_open(&a, 64, 16);
	node_open(&b, 64, 16);
	n = ibv_query_gid_table(a.ctx, t, GID_TBL_LEN, 0);
	v4_mapped(&stranger, "198.51.100.7");                /* TEST-NET-2: no host has it */
	EXPECT_EQ(find_gid(t, (int)n, &stranger, IBV_GID_TYPE_ROCE_V2), -1);
	EXPECT_EQ(to_init(a.qp, QP_ACCESS), 0);
	EXPECT_EQ(to_rtr_gid(a.qp, b.qp->qp_num, &stranger, 1), 0);
	EXPECT_EQ(to_rts_short(a.qp), 0);
	EXPECT_EQ(connect_qp(b.qp, a.qp->qp_num, QP_ACCESS), 0);  /* the peer QP exists and is ready */
	fill(a.buf, 4096, 9);
	memset(b.buf, 0, 4096);
	t0 = now_ms();
	EXPECT_EQ(write_to(&a, &b, 3, 0, 4096), 0);
	EXPECT(poll_one(a.cq, &wc));
	EXPECT_EQ(wc.status, IBV_WC_RETRY_EXC_ERR);
	EXPECT(now_ms() - t0 < 4000);
	EXPECT_EQ(b.buf[0] | b.buf[4095], 0);                 /* nothing arrived */
	EXPECT_EQ(qp_state(a.qp), IBV_QPS_ERR);
	/* Reconnected to the owned GID of the same QPN it works again. */
	EXPECT_EQ(set_state(a.qp, IBV_QPS_RESET), 0);
	EXPECT_EQ(to_init(a.qp, QP_ACCESS), 0);
	EXPECT_EQ(to_rtr_gid(a.qp, b.qp->qp_num, &t[1].gid, 1), 0);
	EXPECT_EQ(to_rts(a.qp), 0);
	EXPECT_EQ(write_to(&a, &b, 4, 0, 4096), 0);
	EXPECT(poll_one(a.cq, &wc) && wc.status == IBV_WC_SUCCESS);
	EXPECT(!memcmp(a.buf, b.buf, 4096));
	node_close(&a);
	node_close(&b);
}

/* SOFTVERBS_LINK_LAYER=ethernet: a RoCE port, LID 0, and RTR without a GRH is refused. */
static void t_roce_link_layer(void)
{
	struct node a, b;
	struct ibv_port_attr pa;
	struct ibv_wc wc;

	setenv("SOFTVERBS_LINK_LAYER", "ethernet", 1);
	node_open(&a, 64, 16);
	node_open(&b, 64, 16);
	EXPECT_EQ(ibv_query_port(a.ctx, 1, &pa), 0);
	EXPECT_EQ(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	EXPECT_EQ(pa.lid, 0);
	EXPECT_EQ(to_init(a.qp, QP_ACCESS), 0);
	EXPECT_EQ(to_rtr(a.qp, b.qp->qp_num), EINVAL);        /* LID-routed: no such thing on RoCE */
	EXPECT_EQ(to_rtr_gid(a.qp, b.qp->qp_num, &(union ibv_gid){ .raw = { 0xfe, 0x80, [9] = 2,
		[10] = 0xc9, [11] = 3, [13] = 0xab, [14] = 0xcd, [15] = 0xef } }, 0), 0);
	EXPECT_EQ(to_rts(a.qp), 0);
	EXPECT_EQ(to_init(b.qp, QP_ACCESS), 0);
	EXPECT_EQ(to_rtr_gid(b.qp, a.qp->qp_num, &(union ibv_gid){ .raw = { 0xfe, 0x80, [9] = 2,
		[10] = 0xc9, [11] = 3, [13] = 0xab, [14] = 0xcd, [15] = 0xef } }, 0), 0);
	EXPECT_EQ(to_rts(b.qp), 0);
	fill(a.buf, 64, 11);
	EXPECT_EQ(write_to(&a, &b, 5, 0, 64), 0);
	EXPECT(poll_one(a.cq, &wc) && wc.status == IBV_WC_SUCCESS);
	EXPECT(!memcmp(a.buf, b.buf, 64));
	node_close(&a);
	node_close(&b);
	/* Back to InfiniBand for the tests after this one (read at every open). */
	setenv("SOFTVERBS_LINK_LAYER", "infiniband", 1);
	node_open(&a, 64, 16);
	EXPECT_EQ(ibv_query_port(a.ctx, 1, &pa), 0);
	EXPECT_EQ(pa.link_layer, IBV_LINK_LAYER_INFINIBAND);
	EXPECT_EQ(pa.lid, 1);
	node_close(&a);
	unsetenv("SOFTVERBS_LINK_LAYER");
}

int main(int argc, char **argv)
{
	g_verbose = argc > 1 && !strcmp(argv[1], "-v");
	run("device_and_port", t_device);
	run("write_1mib", t_write_1mib);
	run("read_1mib", t_read_1mib);
	run("write_with_imm", t_write_imm);
	run("send_recv", t_send_recv);
	run("send_errors", t_send_errors);
	run("bad_rkey_then_flush", t_bad_rkey_flush);
	run("out_of_bounds", t_out_of_bounds);
	run("access_checks", t_access_checks);
	run("deregistered_mr", t_dereg_mr);
	run("post_in_wrong_state", t_wrong_state_post);
	run("modify_qp_attr_masks", t_attr_masks);
	run("10000_writes", t_many_writes);
	run("10000_writes_deferred", t_many_writes_deferred);
	run("deferred_semantics", t_deferred_semantics);
	run("deferred_from_env", t_env_deferred);
	run("comp_channel", t_comp_channel);
	run("ebusy", t_ebusy);
	run("send_queue_full", t_sq_full);
	run("cq_resize_and_overrun", t_cq_overrun);
	run("err_flushes_rq", t_err_flushes_rq);
	run("atomics", t_atomics);
	run("not_connected", t_not_connected);
	run("loopback_iova", t_loopback_iova);
	run("close_frees_all", t_close_frees_all);
	run("async_events", t_async_events);
	run("memory_windows", t_memory_windows);
	run("gid_table", t_gid_table);
	run("connect_by_gid", t_connect_by_gid);
	run("gid_nobody_owns", t_gid_nobody_owns);
	run("roce_link_layer", t_roce_link_layer);
	printf("softverbs_test: %d passed, %d failed\n", g_passed, g_failed);
	return g_failed ? 1 : 0;
}
