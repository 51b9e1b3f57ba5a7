/*
 * softverbs_xp_test.c - the software device across two processes.
 *
 * The test forks before either process touches the device, so parent and
 * child are two independent members of the fabric.  The child is the
 * responder: it owns memory, QPs and a memory window, and answers commands on
 * a socketpair (create a QP connected to the parent's, bind a window, report
 * its QP state, its receive completions and a hash of its memory).  The
 * parent is the requester and checks every opcode byte for byte and every
 * responder-side error the verbs spec defines, then kills the child and
 * checks that both directions see the death: RETRY_EXC_ERR for a new WR and
 * flushed receives on the QP the child was connected to.
 */
#define _GNU_SOURCE
#include <infiniband/verbs.h>

#include <endian.h>
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

#define BUF  (1u << 20)
#define WIN  4096u

static int passed, failed;
#define CHECK(c, ...) do { if (c) passed++; else { failed++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

enum { C_NEW_QP = 1, C_BIND_MW, C_STATE, C_HASH, C_RECVS, C_EXIT, C_NEW_QP_LATE, C_RECV_LATE };

struct cmd { int op; uint32_t qpn; uint32_t n; uint64_t off, len; };
struct rep {
	uint32_t qpn, rkey, ro_rkey, mw_rkey;
	uint64_t addr, ro_addr, hash;
	int state;                      /* C_STATE */
	int ncqe; struct ibv_wc wc[4];  /* C_STATE: receive completions polled so far (up to 4) */
};

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	unsigned char *buf, *ro;
	struct ibv_mr *mr, *ro_mr;
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

static void dev_open(struct dev *d)
{
	int n;
	struct ibv_device **l = ibv_get_device_list(&n);
	if (!l || n < 1) { fprintf(stderr, "no softrc0\n"); _exit(2); }
	d->ctx = ibv_open_device(l[0]);
	ibv_free_device_list(l);
	d->pd = ibv_alloc_pd(d->ctx);
	d->cq = ibv_create_cq(d->ctx, 256, NULL, NULL, 0);
	d->buf = aligned_alloc(4096, BUF);
	d->ro = aligned_alloc(4096, WIN);
	memset(d->buf, 0, BUF);
	fill(d->ro, WIN, 99);
	d->mr = ibv_reg_mr(d->pd, d->buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND);
	d->ro_mr = ibv_reg_mr(d->pd, d->ro, WIN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!d->ctx || !d->pd || !d->cq || !d->mr || !d->ro_mr) { fprintf(stderr, "device setup failed\n"); _exit(2); }
}

static struct ibv_qp *qp_new(struct dev *d)
{
	struct ibv_qp_init_attr ia = { .send_cq = d->cq, .recv_cq = d->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 4, .max_recv_sge = 4 } };
	struct ibv_qp *qp = ibv_create_qp(d->pd, &ia);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC };
	if (!qp || ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		fprintf(stderr, "qp setup failed\n"); _exit(2);
	}
	return qp;
}

/* INIT -> RTR -> RTS towards dest with the requester's ACK timeout exponent and retry counts. */
static void qp_connect_retrying(struct ibv_qp *qp, uint32_t dest, uint8_t timeout, uint8_t retry_cnt, uint8_t rnr_retry)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_4096, .dest_qp_num = dest,
		.rq_psn = 1, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = { .dlid = 1, .port_num = 1 } };
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) { perror("rtr"); _exit(2); }
	a.qp_state = IBV_QPS_RTS; a.sq_psn = 1; a.timeout = timeout; a.retry_cnt = retry_cnt; a.rnr_retry = rnr_retry;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) { perror("rts"); _exit(2); }
}

/* What the Java transport and ibv_rc_pingpong set: timeout 14 (~67 ms), retry 7, RNR retry 7 (infinite). */
static void qp_connect(struct ibv_qp *qp, uint32_t dest)
{
	qp_connect_retrying(qp, dest, 14, 7, 7);
}

static void post_recvs(struct ibv_qp *qp, struct ibv_mr *mr, uint64_t off, int n)
{
	for (int i = 0; i < n; i++) {
		struct ibv_sge s = { (uintptr_t)mr->addr + off + (uint64_t)i * 4096, 4096, mr->lkey };
		struct ibv_recv_wr w = { .wr_id = 500 + (uint64_t)i, .sg_list = &s, .num_sge = 1 }, *bad;
		if (ibv_post_recv(qp, &w, &bad)) { perror("post_recv"); _exit(2); }
	}
}

/* ---- the responder (child) --------------------------------------------- */

static void responder(int fd)
{
	struct dev d;
	struct ibv_qp *qp = NULL;
	struct ibv_mw *mw = NULL;
	struct rep r;
	int ncqe = 0;
	struct ibv_wc wcs[4] = { 0 };

	dev_open(&d);
	for (;;) {
		struct cmd c;
		xfer(fd, &c, sizeof(c), 0);
		memset(&r, 0, sizeof(r));
		switch (c.op) {
		case C_NEW_QP:
			if (mw) { ibv_dealloc_mw(mw); mw = NULL; }
			if (qp) ibv_destroy_qp(qp);
			{ struct ibv_wc junk; while (ibv_poll_cq(d.cq, 1, &junk) > 0) ; }
			ncqe = 0;
			qp = qp_new(&d);
			qp_connect(qp, c.qpn);
			post_recvs(qp, d.mr, BUF - 8 * 4096, (int)c.n);
			break;
		case C_BIND_MW: {
			struct ibv_send_wr w = { .wr_id = 9, .opcode = IBV_WR_BIND_MW, .send_flags = IBV_SEND_SIGNALED }, *bad;
			struct ibv_wc wc;
			mw = ibv_alloc_mw(d.pd, IBV_MW_TYPE_2);
			if (!mw) { perror("alloc_mw"); _exit(2); }
			w.bind_mw.mw = mw;
			w.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
			w.bind_mw.bind_info.mr = d.mr;
			w.bind_mw.bind_info.addr = (uintptr_t)d.buf;
			w.bind_mw.bind_info.length = WIN;
			w.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
			if (ibv_post_send(qp, &w, &bad)) { perror("bind"); _exit(2); }
			while (ibv_poll_cq(d.cq, 1, &wc) == 0) ;
			if (wc.status != IBV_WC_SUCCESS) { fprintf(stderr, "bind: %d\n", wc.status); _exit(2); }
			r.mw_rkey = w.bind_mw.rkey;
			break;
		}
		case C_STATE: {
			struct ibv_qp_attr a;
			struct ibv_qp_init_attr ia;
			struct ibv_wc wc;
			while (ibv_poll_cq(d.cq, 1, &wc) > 0)
				if (ncqe < 4) wcs[ncqe++] = wc;
			ibv_query_qp(qp, &a, IBV_QP_STATE, &ia);
			r.state = a.qp_state;
			r.ncqe = ncqe;
			memcpy(r.wc, wcs, sizeof(wcs));
			break;
		}
		case C_HASH:
			r.hash = fnv(d.buf + c.off, c.len);
			break;
		case C_EXIT:
			_exit(0);  /* no cleanup: like a crash, the kernel closes our sockets */
		case C_NEW_QP_LATE:  /* a QP left in INIT; after c.len ms (c.off 0) connected with c.n receives */
			if (qp) ibv_destroy_qp(qp);
			{ struct ibv_wc junk; while (ibv_poll_cq(d.cq, 1, &junk) > 0) ; }
			ncqe = 0;
			qp = qp_new(&d);
			r.qpn = qp->qp_num;
			xfer(fd, &r, sizeof(r), 1);
			if (!c.off) {
				usleep((useconds_t)c.len * 1000);
				qp_connect(qp, c.qpn);
				post_recvs(qp, d.mr, BUF - 8 * 4096, (int)c.n);
			}
			continue;
		case C_RECV_LATE:  /* c.n receives posted c.len ms after the answer */
			r.qpn = qp->qp_num;
			xfer(fd, &r, sizeof(r), 1);
			usleep((useconds_t)c.len * 1000);
			post_recvs(qp, d.mr, BUF - 8 * 4096, (int)c.n);
			continue;
		}
		r.qpn = qp ? qp->qp_num : 0;
		r.addr = (uintptr_t)d.buf;
		r.rkey = d.mr->rkey;
		r.ro_addr = (uintptr_t)d.ro;
		r.ro_rkey = d.ro_mr->rkey;
		if (mw && !r.mw_rkey) r.mw_rkey = mw->rkey;
		xfer(fd, &r, sizeof(r), 1);
	}
}

/* ---- the requester (parent) -------------------------------------------- */

static int g_fd;
static struct dev g_d;

static struct rep ask(int op, uint32_t qpn, uint32_t n, uint64_t off, uint64_t len)
{
	struct cmd c;
	struct rep r;
	memset(&c, 0, sizeof(c));  /* no uninitialised padding on the wire */
	c.op = op; c.qpn = qpn; c.n = n; c.off = off; c.len = len;
	xfer(g_fd, &c, sizeof(c), 1);
	xfer(g_fd, &r, sizeof(r), 0);
	return r;
}

static struct ibv_wc wait_wc(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, &wc);
		if (n > 0) return wc;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 10) { fprintf(stderr, "FAIL: no completion in 10 s\n"); exit(1); }
	}
}

/* A fresh QP pair: ours (with these retry settings), and the child's connected to it with nrecv receives. */
static struct ibv_qp *pair_retrying(uint32_t nrecv, struct rep *r, uint8_t timeout, uint8_t retry_cnt, uint8_t rnr_retry)
{
	static struct ibv_qp *cur;
	struct ibv_wc junk;
	if (cur) ibv_destroy_qp(cur);
	while (ibv_poll_cq(g_d.cq, 1, &junk) > 0) ;
	cur = qp_new(&g_d);
	*r = ask(C_NEW_QP, cur->qp_num, nrecv, 0, 0);
	qp_connect_retrying(cur, r->qpn, timeout, retry_cnt, rnr_retry);
	return cur;
}

static struct ibv_qp *pair(uint32_t nrecv, struct rep *r)
{
	return pair_retrying(nrecv, r, 14, 7, 7);
}

static enum ibv_wc_status one(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t loff, uint32_t len,
			      uint64_t raddr, uint32_t rkey, uint32_t imm)
{
	struct ibv_sge s = { (uintptr_t)g_d.buf + loff, len, g_d.mr->lkey };
	struct ibv_send_wr w = { .wr_id = 42, .sg_list = &s, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htobe32(imm) }, *bad;
	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	if (ibv_post_send(qp, &w, &bad)) { perror("post_send"); exit(1); }
	struct ibv_wc wc = wait_wc(g_d.cq);
	CHECK(wc.wr_id == 42, "wr_id %llu", (unsigned long long)wc.wr_id);
	return wc.status;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Our QP towards a child QP made by C_NEW_QP_LATE (c.off = stay: never leaves INIT). */
static struct ibv_qp *late_pair(uint32_t nrecv, uint64_t after_ms, int stay, uint8_t timeout, uint8_t retry_cnt,
				struct rep *r)
{
	static struct ibv_qp *cur;
	struct ibv_wc junk;
	if (cur) ibv_destroy_qp(cur);
	while (ibv_poll_cq(g_d.cq, 1, &junk) > 0) ;
	cur = qp_new(&g_d);
	*r = ask(C_NEW_QP_LATE, cur->qp_num, nrecv, (uint64_t)stay, after_ms);
	qp_connect_retrying(cur, r->qpn, timeout, retry_cnt, 7);
	return cur;
}

/*
 * The requester's retries, as on an RC HCA.  A SEND that finds no receive is
 * NAKed RNR and sent again (rnr_retry times, 7 = until a receive comes); one
 * that reaches a QP not yet in RTR is dropped and sent again after the ACK
 * timeout (retry_cnt times), then RETRY_EXC_ERR.
 */
static void retries(void)
{
	struct rep r, s;
	struct ibv_qp *qp;
	enum ibv_wc_status st;
	struct timespec t0;

	/* rnr_retry 3, no receive ever: RNR_RETRY_EXC_ERR after 3 waits of min_rnr_timer 12 (0.64 ms). */
	qp = pair_retrying(0, &r, 14, 7, 3);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	st = one(qp, IBV_WR_SEND, 0, 10, 0, 0, 0);
	CHECK(st == IBV_WC_RNR_RETRY_EXC_ERR, "rnr, retries exhausted: %s", ibv_wc_status_str(st));
	CHECK(ms_since(&t0) >= 3 * 0.64, "rnr: gave up after %.2f ms, before 3 RNR waits", ms_since(&t0));

	/* rnr_retry 7: the receive posted 150 ms later takes the message. */
	qp = pair(0, &r);
	ask(C_RECV_LATE, 0, 1, 0, 150);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fill(g_d.buf, 500, 21);
	st = one(qp, IBV_WR_SEND, 0, 500, 0, 0, 0);
	CHECK(st == IBV_WC_SUCCESS && ms_since(&t0) >= 100, "rnr retried until the receive came: %s after %.1f ms",
	      ibv_wc_status_str(st), ms_since(&t0));
	s = ask(C_STATE, 0, 0, 0, 0);
	CHECK(s.ncqe == 1 && s.wc[0].status == IBV_WC_SUCCESS && s.wc[0].byte_len == 500, "late receive completion");
	CHECK(ask(C_HASH, 0, 0, BUF - 8 * 4096, 500).hash == fnv(g_d.buf, 500), "late receive payload");

	/* The responder's QP reaches RTR 120 ms after our SEND: dropped, retried (timeout 14 ~ 67 ms), delivered. */
	qp = late_pair(1, 120, 0, 14, 7, &r);
	fill(g_d.buf, 300, 23);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	st = one(qp, IBV_WR_SEND, 0, 300, 0, 0, 0);
	CHECK(st == IBV_WC_SUCCESS && ms_since(&t0) >= 60, "send before the peer's RTR, retried: %s after %.1f ms",
	      ibv_wc_status_str(st), ms_since(&t0));
	s = ask(C_STATE, 0, 0, 0, 0);
	CHECK(s.ncqe == 1 && s.wc[0].status == IBV_WC_SUCCESS && s.wc[0].byte_len == 300, "retried send's completion");
	CHECK(ask(C_HASH, 0, 0, BUF - 8 * 4096, 300).hash == fnv(g_d.buf, 300), "retried send's payload");

	/* A peer QP that never leaves INIT: retry_cnt 3 with timeout 12 (~16.8 ms), then RETRY_EXC_ERR. */
	qp = late_pair(1, 0, 1, 12, 3, &r);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	st = one(qp, IBV_WR_SEND, 0, 10, 0, 0, 0);
	CHECK(st == IBV_WC_RETRY_EXC_ERR && ms_since(&t0) >= 3 * 16.7, "send to a QP in INIT: %s after %.1f ms",
	      ibv_wc_status_str(st), ms_since(&t0));
	s = ask(C_STATE, 0, 0, 0, 0);
	CHECK(s.state == IBV_QPS_INIT && s.ncqe == 0, "the dropped requests left the INIT QP alone (state %d)", s.state);
}

static void requester(pid_t child)
{
	struct rep r, s;
	struct ibv_qp *qp;
	enum ibv_wc_status st;

	dev_open(&g_d);

	/* WRITE 1 MiB lands in the child's memory, READ brings it back. */
	qp = pair(1, &r);
	CHECK(r.qpn != qp->qp_num, "QPNs must differ across processes: 0x%x", r.qpn);
	fill(g_d.buf, BUF / 2, 7);
	st = one(qp, IBV_WR_RDMA_WRITE, 0, BUF / 2, r.addr, r.rkey, 0);
	CHECK(st == IBV_WC_SUCCESS, "write: %s", ibv_wc_status_str(st));
	s = ask(C_HASH, 0, 0, 0, BUF / 2);
	CHECK(s.hash == fnv(g_d.buf, BUF / 2), "written bytes differ in the responder");
	st = one(qp, IBV_WR_RDMA_READ, BUF / 2, BUF / 2, r.addr, r.rkey, 0);
	CHECK(st == IBV_WC_SUCCESS && !memcmp(g_d.buf, g_d.buf + BUF / 2, BUF / 2), "read back: %s", ibv_wc_status_str(st));
	st = one(qp, IBV_WR_RDMA_READ, 0, WIN, r.ro_addr, r.ro_rkey, 0);
	{ unsigned char want[WIN]; fill(want, WIN, 99);
	  CHECK(st == IBV_WC_SUCCESS && !memcmp(g_d.buf, want, WIN), "read of the read-only MR: %s", ibv_wc_status_str(st)); }

	/* WRITE_WITH_IMM consumes a receive: RECV_RDMA_WITH_IMM with the immediate and the length. */
	fill(g_d.buf, 100, 3);
	st = one(qp, IBV_WR_RDMA_WRITE_WITH_IMM, 0, 100, r.addr + 4096, r.rkey, 0xabcdef01);
	CHECK(st == IBV_WC_SUCCESS, "write_with_imm: %s", ibv_wc_status_str(st));
	s = ask(C_STATE, 0, 0, 0, 0);
	CHECK(s.ncqe == 1 && s.wc[0].status == IBV_WC_SUCCESS && s.wc[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	      (s.wc[0].wc_flags & IBV_WC_WITH_IMM) && be32toh(s.wc[0].imm_data) == 0xabcdef01 && s.wc[0].byte_len == 100 &&
	      s.wc[0].src_qp == qp->qp_num, "imm completion (n=%d op=%d len=%u)", s.ncqe, s.wc[0].opcode, s.wc[0].byte_len);
	CHECK(ask(C_HASH, 0, 0, 4096, 100).hash == fnv(g_d.buf, 100), "imm payload");

	/* SEND scatters into the posted receive. */
	qp = pair(2, &r);
	fill(g_d.buf, 3000, 11);
	st = one(qp, IBV_WR_SEND_WITH_IMM, 0, 3000, 0, 0, 77);
	CHECK(st == IBV_WC_SUCCESS, "send: %s", ibv_wc_status_str(st));
	s = ask(C_STATE, 0, 0, 0, 0);
	CHECK(s.ncqe == 1 && s.wc[0].opcode == IBV_WC_RECV && s.wc[0].byte_len == 3000 && be32toh(s.wc[0].imm_data) == 77,
	      "recv completion");
	CHECK(ask(C_HASH, 0, 0, BUF - 8 * 4096, 3000).hash == fnv(g_d.buf, 3000), "sent bytes differ");
	/* A message longer than the receive: responder LOC_LEN_ERR and ERR, requester REM_INV_REQ_ERR. */
	st = one(qp, IBV_WR_SEND, 0, 8192, 0, 0, 0);
	CHECK(st == IBV_WC_REM_INV_REQ_ERR, "long send: %s", ibv_wc_status_str(st));
	s = ask(C_STATE, 0, 0, 0, 0);
	CHECK(s.state == IBV_QPS_ERR && s.ncqe >= 2 && s.wc[1].status == IBV_WC_LOC_LEN_ERR, "responder after a long send");

	retries();

	/* Remote access errors are the responder's: its QP goes to ERR and flushes its receives. */
	struct { const char *what; uint64_t off; uint32_t len; int ro; uint32_t rkey_xor; } bad[] = {
		{ "bad rkey", 0, 64, 0, 0x100 },
		{ "past the end", BUF - 32, 64, 0, 0 },
		{ "write to a read-only MR", 0, 64, 1, 0 },
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		qp = pair(1, &r);
		uint64_t addr = (bad[i].ro ? r.ro_addr : r.addr) + bad[i].off;
		uint32_t rkey = (bad[i].ro ? r.ro_rkey : r.rkey) ^ bad[i].rkey_xor;
		st = one(qp, IBV_WR_RDMA_WRITE, 0, bad[i].len, addr, rkey, 0);
		CHECK(st == IBV_WC_REM_ACCESS_ERR, "%s: %s", bad[i].what, ibv_wc_status_str(st));
		s = ask(C_STATE, 0, 0, 0, 0);
		CHECK(s.state == IBV_QPS_ERR && s.ncqe == 1 && s.wc[0].status == IBV_WC_WR_FLUSH_ERR,
		      "%s: responder state %d, %d cqes", bad[i].what, s.state, s.ncqe);
		struct ibv_wc wc;
		st = one(qp, IBV_WR_RDMA_WRITE, 0, 8, r.addr, r.rkey, 0);
		CHECK(st == IBV_WC_WR_FLUSH_ERR, "%s: next WR %s", bad[i].what, ibv_wc_status_str(st));
		(void)wc;
	}

	/* A type-2 window bound to the child's QP: inside works, outside or a stale tag does not. */
	qp = pair(0, &r);
	s = ask(C_BIND_MW, 0, 0, 0, 0);
	st = one(qp, IBV_WR_RDMA_WRITE, 0, WIN, r.addr, s.mw_rkey, 0);
	CHECK(st == IBV_WC_SUCCESS, "write through the window: %s", ibv_wc_status_str(st));
	st = one(qp, IBV_WR_RDMA_WRITE, 0, 64, r.addr + WIN - 32, s.mw_rkey, 0);
	CHECK(st == IBV_WC_REM_ACCESS_ERR, "past the window: %s", ibv_wc_status_str(st));
	qp = pair(0, &r);
	s = ask(C_BIND_MW, 0, 0, 0, 0);
	st = one(qp, IBV_WR_RDMA_WRITE, 0, 64, r.addr, s.mw_rkey + 1, 0);
	CHECK(st == IBV_WC_REM_ACCESS_ERR, "stale window tag: %s", ibv_wc_status_str(st));
	qp = pair(0, &r);
	s = ask(C_BIND_MW, 0, 0, 0, 0);
	st = one(qp, IBV_WR_RDMA_READ, 0, 64, r.addr, s.mw_rkey, 0);
	CHECK(st == IBV_WC_REM_ACCESS_ERR, "read through a write-only window: %s", ibv_wc_status_str(st));

	/* Atomics across the processes. */
	qp = pair(0, &r);
	{
		struct ibv_sge sg = { (uintptr_t)g_d.buf, 8, g_d.mr->lkey };
		struct ibv_send_wr w = { .wr_id = 5, .sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
			.send_flags = IBV_SEND_SIGNALED }, *bw;
		w.wr.atomic.remote_addr = r.addr + BUF - 16;  /* never written above */
		w.wr.atomic.rkey = r.rkey;
		w.wr.atomic.compare_add = 5;
		uint64_t v = 0;
		for (int i = 0; i < 2 && !ibv_post_send(qp, &w, &bw); i++) {
			struct ibv_wc wc = wait_wc(g_d.cq);
			memcpy(&v, g_d.buf, 8);
			CHECK(wc.status == IBV_WC_SUCCESS && v == (uint64_t)(i * 5), "fetch_add #%d: %s old %llu", i,
			      ibv_wc_status_str(wc.status), (unsigned long long)v);
		}
	}

	/* The child dies (no cleanup): a WR to it fails with RETRY_EXC_ERR, and our QP it was
	 * connected to (with receives posted) is flushed, not left hanging. */
	qp = pair(0, &r);
	post_recvs(qp, g_d.mr, BUF - 4 * 4096, 2);
	{
		struct cmd c;
		int status;
		memset(&c, 0, sizeof(c));
		c.op = C_EXIT;
		xfer(g_fd, &c, sizeof(c), 1);
		waitpid(child, &status, 0);
	}
	struct ibv_wc f1 = wait_wc(g_d.cq), f2 = wait_wc(g_d.cq);
	CHECK(f1.status == IBV_WC_WR_FLUSH_ERR && f2.status == IBV_WC_WR_FLUSH_ERR && f1.opcode == IBV_WC_RECV,
	      "receives after the peer died: %s %s", ibv_wc_status_str(f1.status), ibv_wc_status_str(f2.status));
	qp = qp_new(&g_d);
	qp_connect(qp, r.qpn);  /* a QP of a dead process */
	st = one(qp, IBV_WR_RDMA_WRITE, 0, 64, r.addr, r.rkey, 0);
	CHECK(st == IBV_WC_RETRY_EXC_ERR, "write to a dead peer: %s", ibv_wc_status_str(st));
}

int main(void)
{
	int sv[2];
	pid_t pid;

	signal(SIGPIPE, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) { perror("socketpair"); return 2; }
	/* Fork before the device is touched: two clean, independent fabric members. */
	if ((pid = fork()) < 0) { perror("fork"); return 2; }
	if (pid == 0) {
		close(sv[0]);
		responder(sv[1]);
		_exit(0);
	}
	close(sv[1]);
	g_fd = sv[0];
	requester(pid);
	printf("softverbs_xp_test: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
