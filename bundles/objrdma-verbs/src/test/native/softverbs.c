/*
 * softverbs.c - a software RDMA device ("softrc0") that is a drop-in
 * replacement for libibverbs.so.1, for tests on machines without an RDMA NIC.
 *
 * It is compiled against the real <infiniband/verbs.h>, so every structure a
 * caller sees (ibv_context, ibv_qp, ibv_wc, ...) has the real layout, and it is
 * linked with softverbs.map so every symbol carries the same default version
 * node as in rdma-core 44 (binaries and dlsym() bind to it unchanged).
 *
 * What is modelled: one IB device with one ACTIVE port, PDs, MRs (lkey/rkey,
 * iova, access flags), CQs with completion channels, and RC QPs inside this
 * process that connect to each other by dest_qp_num.  The data-path verbs
 * (post_send, post_recv, poll_cq, req_notify_cq) are static inline in the
 * header and dispatch through ibv_context.ops, which we fill with our own
 * functions.  See README.md for what is not modelled.
 *
 * Concurrency: a single process-wide mutex (g_lock) protects every object.
 * That is simple, obviously correct, and fast enough for tests.  In deferred
 * mode a worker thread executes queued send work requests later, under the
 * same lock, so callers see real asynchrony between post and placement.
 */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/*
 * verbs.h turns these three names into function-like macros that pick an
 * inline wrapper.  We must define the real exported functions, so the macros
 * have to go (pitfall 1 in verbs.md).
 */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova
#undef ibv_query_port

/* Built with -fvisibility=hidden; only what is marked here is exported. */
#define SV_API __attribute__((visibility("default")))

/* ---- device constants ------------------------------------------------- */

#define SV_DEV_NAME        "softrc0"
#define SV_NODE_GUID       0x0002c90300abcdefULL /* host order */
#define SV_SUBNET_PREFIX   0xfe80000000000000ULL
#define SV_LID             1
#define SV_MAX_QP_WR       32768
#define SV_MAX_SGE         32
#define SV_MAX_CQE         (1 << 20)
#define SV_MAX_INLINE      512
#define SV_MAX_RD_ATOM     16
#define SV_HASH            1024
#define SV_QPN_FIRST       17   /* QP0/QP1 are special on IB; start like the probe */
#define SV_MW_MARK         0xa5u /* top byte of every memory-window rkey; MR rkeys have 0x5a */
#define SV_MAX_MW          0xffff

/*
 * The exported ibv_query_port() ABI is the 48-byte "compat" port attribute
 * (everything before port_cap_flags2).  The header only forward-declares that
 * struct, so the size is derived from the real ibv_port_attr.
 */
#define SV_COMPAT_PORT_ATTR_SIZE offsetof(struct ibv_port_attr, port_cap_flags2)
_Static_assert(SV_COMPAT_PORT_ATTR_SIZE == 48, "compat port attr must be 48 bytes");

/* Attribute mask sets of the RC state machine (IB spec / kernel qp_state_table). */
#define M_RST2INIT  (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define M_INIT2RTR  (IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
		     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define M_RTR2RTS   (IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
		     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)
#define SV_ACCESS_QP (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* ---- tiny intrusive list ---------------------------------------------- */

struct sv_list { struct sv_list *prev, *next; };

static void list_init(struct sv_list *h) { h->prev = h->next = h; }
static int list_empty(const struct sv_list *h) { return h->next == h; }
static void list_add_tail(struct sv_list *h, struct sv_list *n)
{
	n->prev = h->prev; n->next = h;
	h->prev->next = n; h->prev = n;
}
static void list_del(struct sv_list *n)
{
	n->prev->next = n->next; n->next->prev = n->prev;
	n->prev = n->next = n;
}
#define container_of(p, T, m) ((T *)((char *)(p) - offsetof(T, m)))

/* ---- objects ------------------------------------------------------------
 * Each wrapper embeds the public ibv_* struct as its FIRST member, so the
 * pointer handed to callers converts back with a plain cast.
 */

/* An injected asynchronous event, queued per context until ibv_get_async_event reads it. */
struct sv_aev { struct sv_aev *next; enum ibv_event_type type; int port; };

struct sv_ctx {
	struct ibv_context ibv;
	struct sv_list link;                       /* g_ctxs */
	struct sv_list pds, mrs, cqs, qps, chans;  /* owned objects, freed at close */
	struct sv_aev *aev_head, *aev_tail;        /* injected, not yet read (g_lock) */
	struct sv_list mws;                        /* memory windows, freed first at close */
	struct sv_list srqs, ahs;                  /* softverbs_dc.c */
};

struct sv_pd {
	struct ibv_pd ibv;
	struct sv_list link;
	int users;                                 /* MRs + QPs: dealloc_pd -> EBUSY */
};

struct sv_mr {
	struct ibv_mr ibv;
	struct sv_list link;
	struct sv_mr *hnext;                       /* g_mr_hash chain */
	struct sv_pd *pd;
	uint64_t iova;
	unsigned int access;
	int mw_binds;                              /* windows bound to it: dereg_mr -> EBUSY */
};

/*
 * A type-2 memory window.  The rkey is MARK:8 | index:16 | tag:8; the index
 * names the window for its whole life, the tag is what the consumer changes at
 * each bind (ibv_inc_rkey), so a stale rkey of an earlier bind fails.
 */
struct sv_mw {
	struct ibv_mw ibv;
	struct sv_list link;                       /* ctx->mws */
	struct sv_mw *hnext;                       /* g_mw_hash chain, by index */
	struct sv_pd *pd;
	int bound;
	struct sv_qp *qp;                          /* type 2: the only QP that may be accessed through it */
	struct sv_mr *mr;
	uint64_t addr, length;
	unsigned int access;
};

struct sv_ev { struct sv_ev *next; struct sv_cq *cq; };

struct sv_chan {
	struct ibv_comp_channel ibv;               /* ibv.refcnt = CQs using it */
	struct sv_list link;
	struct sv_ev *ev_head, *ev_tail;           /* events not yet read by get_cq_event */
};

struct sv_qp;

struct sv_cqe {
	struct ibv_wc wc;
	struct sv_qp *qp;      /* owner, so destroy/reset can purge its CQEs */
	uint64_t sq_seq;       /* send CQEs: SQ sequence number, retires SQ slots when polled */
};

enum { ARM_NONE, ARM_ANY, ARM_SOLICITED };

struct sv_cq {
	struct ibv_cq ibv;
	struct sv_list link;
	struct sv_chan *chan;
	struct sv_cqe *ring;
	int size, head, count;
	int armed;
	int overflow;          /* sticky: an overrun CQ is broken, as on hardware */
	int users;             /* QPs attached: destroy_cq -> EBUSY */
	uint32_t events_reported;                  /* handed out by get_cq_event */
};

struct sv_rwqe { uint64_t wr_id; int num_sge; };

struct sv_srq;
struct sv_xwr;

/* Kinds of QP: RC from ibv_create_qp, DC initiator / target from mlx5dv_create_qp (softverbs_dc.c). */
enum { SV_RC = 0, SV_DCI, SV_DCT };

struct sv_qp {
	union {
		struct ibv_qp ibv;
		struct ibv_qp_ex ex;               /* DC QPs: ibv_qp_to_qp_ex hands this out (qp_base == ibv) */
	};
	struct sv_list link;
	struct sv_qp *hnext;                       /* g_qp_hash chain */
	enum ibv_qp_state state;                   /* true state; ibv.state is the cached copy */
	struct ibv_qp_attr attr;                   /* attributes set via modify_qp */
	struct ibv_qp_init_attr init;              /* creation attributes, caps as granted */
	struct sv_pd *pd;
	struct sv_cq *scq, *rcq;
	struct sv_rwqe *rq;                        /* ring of posted receives */
	struct ibv_sge *rq_sge;                    /* max_recv_sge slots per ring entry */
	int rq_head, rq_count;
	/*
	 * Send-queue occupancy as on real HCAs: a WR holds its slot until a
	 * completion for it, or for a later WR of the same QP, is polled.  A caller
	 * that never signals therefore runs into ENOMEM, exactly as on hardware.
	 */
	uint64_t sq_posted, sq_retired;
	int peer_remote;                           /* dest_qp_num is served by another process */
	int no_route;                              /* RTR named a destination GID nobody owns (softverbs_gid.c) */
	/* DC (softverbs_dc.c) */
	int kind;                                  /* SV_RC, SV_DCI, SV_DCT */
	uint64_t dct_key;                          /* DCT: the dc_key a request must carry */
	struct sv_srq *srq;                        /* DCT: its shared receive queue */
	struct mlx5dv_qp_ex dv;                    /* DCI: mlx5dv_qp_ex_from_ibv_qp_ex hands this out */
	struct sv_xwr *xwr;                        /* DCI: WRs built since wr_start (not under g_lock) */
	int xn, xcap, xerr, xbuilding;
};

/*
 * A send work request, copied out of the caller's ibv_send_wr.  In deferred
 * mode it lives on the worker queue, so the SGE list and any inline payload
 * are copied into the trailing storage (the caller may reuse its WR at once).
 */
struct sv_op {
	struct sv_op *next;
	struct sv_qp *qp;
	uint64_t seq;
	uint64_t wr_id;
	enum ibv_wr_opcode opcode;
	unsigned int send_flags;
	uint32_t imm;                              /* network order, passed through untouched */
	uint64_t remote_addr, compare_add, swap;
	uint32_t rkey;
	/* IBV_WR_BIND_MW: the window, its new rkey and what it opens (the MR named by lkey) */
	struct sv_mw *mw;
	uint32_t mw_rkey, bind_lkey;
	uint64_t bind_addr, bind_length;
	unsigned int bind_access;
	uint32_t invalidate_rkey;                  /* IBV_WR_LOCAL_INV */
	int remote;                                /* the peer QP is in another process (softverbs_fabric.c) */
	int dc;                                    /* a DCI's WR: the target is (dctn, dc_key), not the RC peer */
	int dc_no_route;                           /* its address handle names a GID or LID nobody owns */
	uint32_t dctn;
	uint64_t dc_key;
	int num_sge;
	uint32_t inline_len;
	struct timespec due;                       /* deferred: not before this time */
	struct ibv_sge *sge;
	unsigned char *inline_data;
	struct ibv_sge storage_sge[];              /* num_sge SGEs, then inline bytes */
};

/* ---- global state ------------------------------------------------------ */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sv_list g_ctxs = { &g_ctxs, &g_ctxs };
static struct sv_mr *g_mr_hash[SV_HASH];
static struct sv_qp *g_qp_hash[SV_HASH];
static struct sv_mw *g_mw_hash[SV_HASH];
static uint32_t g_next_mw_index = 1;
static int g_mw_supported = 1;                 /* softverbs_set_memory_windows */
static uint32_t g_next_key = 0x1234;
static uint32_t g_next_qpn = SV_QPN_FIRST;
static uint32_t g_next_handle = 1;

/* Deferred mode: FIFO of sv_op executed by one worker thread. */
static int g_deferred;
static unsigned int g_delay_us;
static struct sv_op *g_q_head, *g_q_tail;
static int g_q_len;
static pthread_cond_t g_q_cv = PTHREAD_COND_INITIALIZER;    /* work queued / stop */
static pthread_cond_t g_idle_cv = PTHREAD_COND_INITIALIZER; /* queue became empty */
struct sv_worker { pthread_t thread; int stop; };
static struct sv_worker *g_worker;

static struct ibv_device g_dev = {
	.node_type = IBV_NODE_CA,
	.transport_type = IBV_TRANSPORT_IB,
	.name = SV_DEV_NAME,
	.dev_name = "uverbs0",
	.dev_path = "/sys/class/infiniband_verbs/uverbs0",
	.ibdev_path = "/sys/class/infiniband/" SV_DEV_NAME,
};

static struct sv_ctx *to_ctx(struct ibv_context *c) { return (struct sv_ctx *)c; }
static struct sv_pd *to_pd(struct ibv_pd *p) { return (struct sv_pd *)p; }
static struct sv_cq *to_cq(struct ibv_cq *c) { return (struct sv_cq *)c; }
static struct sv_qp *to_qp(struct ibv_qp *q) { return (struct sv_qp *)q; }
static struct sv_chan *to_chan(struct ibv_comp_channel *c) { return (struct sv_chan *)c; }

static void lock(void) { pthread_mutex_lock(&g_lock); }

/* Port 1 as ibv_query_port reports it; softverbs_inject_async_event moves it (g_lock). */
static enum ibv_port_state g_port_state = IBV_PORT_ACTIVE;
static unsigned long g_async_acked;            /* ibv_ack_async_event calls (g_lock) */
static void unlock(void) { pthread_mutex_unlock(&g_lock); }

/* ---- key / QPN tables --------------------------------------------------
 * Keys and QPNs are device-wide (not per context) so that QPs opened through
 * different ibv_context objects can talk to each other, like two nodes.
 */

static struct sv_mr **mr_slot(uint32_t idx) { return &g_mr_hash[idx % SV_HASH]; }

static void mr_hash_del(struct sv_mr *mr)
{
	struct sv_mr **pp = mr_slot(mr->ibv.lkey & 0xffffff);
	while (*pp != mr)
		pp = &(*pp)->hnext;
	*pp = mr->hnext;
}

static struct sv_mr *find_mr_lkey(uint32_t lkey)
{
	for (struct sv_mr *m = *mr_slot(lkey & 0xffffff); m; m = m->hnext)
		if (m->ibv.lkey == lkey)
			return m;
	return NULL;
}

static struct sv_mr *find_mr_rkey(uint32_t rkey)
{
	for (struct sv_mr *m = *mr_slot(rkey & 0xffffff); m; m = m->hnext)
		if (m->ibv.rkey == rkey)
			return m;
	return NULL;
}

static struct sv_qp *find_qp(uint32_t qpn)
{
	for (struct sv_qp *q = g_qp_hash[qpn % SV_HASH]; q; q = q->hnext)
		if (q->ibv.qp_num == qpn)
			return q;
	return NULL;
}

static void qp_hash_del(struct sv_qp *qp)
{
	struct sv_qp **pp = &g_qp_hash[qp->ibv.qp_num % SV_HASH];
	while (*pp != qp)
		pp = &(*pp)->hnext;
	*pp = qp->hnext;
}

static uint32_t mw_index(uint32_t rkey) { return (rkey >> 8) & 0xffff; }

static struct sv_mw *find_mw_index(uint32_t rkey)
{
	if ((rkey >> 24) != SV_MW_MARK)
		return NULL;
	for (struct sv_mw *w = g_mw_hash[mw_index(rkey) % SV_HASH]; w; w = w->hnext)
		if (mw_index(w->ibv.rkey) == mw_index(rkey))
			return w;
	return NULL;
}

static void mw_hash_del(struct sv_mw *mw)
{
	struct sv_mw **pp = &g_mw_hash[mw_index(mw->ibv.rkey) % SV_HASH];
	while (*pp != mw)
		pp = &(*pp)->hnext;
	*pp = mw->hnext;
}

static void mw_unbind(struct sv_mw *mw)
{
	if (!mw->bound)
		return;
	mw->mr->mw_binds--;
	mw->bound = 0;
	mw->qp = NULL;
	mw->mr = NULL;
}

/* Type-2 windows bound to qp stop working when it is reset or destroyed. */
static void mw_unbind_qp(struct sv_qp *qp)
{
	struct sv_ctx *ctx = (struct sv_ctx *)qp->ibv.context;
	for (struct sv_list *l = ctx->mws.next; l != &ctx->mws; l = l->next) {
		struct sv_mw *mw = container_of(l, struct sv_mw, link);
		if (mw->qp == qp)
			mw_unbind(mw);
	}
}

/* [addr, addr+len) inside the MR's [iova, iova+length)?  Written to avoid overflow. */
static int mr_covers(const struct sv_mr *mr, uint64_t addr, uint64_t len)
{
	return addr >= mr->iova && len <= mr->ibv.length &&
	       addr - mr->iova <= mr->ibv.length - len;
}

static void *mr_host(const struct sv_mr *mr, uint64_t addr)
{
	return (char *)mr->ibv.addr + (addr - mr->iova);
}

/* ---- completion queues ------------------------------------------------- */

static void chan_raise(struct sv_cq *cq)
{
	struct sv_ev *ev;
	uint64_t one = 1;

	if (!cq->chan || !(ev = malloc(sizeof(*ev))))
		return;
	ev->cq = cq;
	ev->next = NULL;
	if (cq->chan->ev_tail)
		cq->chan->ev_tail->next = ev;
	else
		cq->chan->ev_head = ev;
	cq->chan->ev_tail = ev;
	/* EFD_SEMAPHORE: one read() in get_cq_event consumes exactly one event.
	 * The write cannot fail for a counter this far below its limit. */
	ssize_t r = write(cq->chan->ibv.fd, &one, sizeof(one));
	(void)r;
}

/*
 * Append a CQE.  'solicited' marks a receive completion of a message sent
 * with IBV_SEND_SOLICITED; error CQEs also wake a solicited-only arm (IB spec).
 */
static void cq_push(struct sv_cq *cq, const struct ibv_wc *wc, struct sv_qp *qp,
		    uint64_t sq_seq, int solicited)
{
	struct sv_cqe *e;

	if (cq->count == cq->size) {
		cq->overflow = 1;
		return;
	}
	e = &cq->ring[(cq->head + cq->count) % cq->size];
	e->wc = *wc;
	e->qp = qp;
	e->sq_seq = sq_seq;
	cq->count++;
	if (cq->armed == ARM_ANY ||
	    (cq->armed == ARM_SOLICITED && (solicited || wc->status != IBV_WC_SUCCESS))) {
		cq->armed = ARM_NONE;  /* one event per arm, as on hardware */
		chan_raise(cq);
	}
}

/* Drop every CQE that belongs to qp (QP destroyed or reset, like mlx5's cq_clean). */
static void cq_purge(struct sv_cq *cq, struct sv_qp *qp)
{
	int w = 0;

	for (int i = 0; i < cq->count; i++) {
		struct sv_cqe *e = &cq->ring[(cq->head + i) % cq->size];
		if (e->qp != qp)
			cq->ring[(cq->head + w++) % cq->size] = *e;
	}
	cq->count = w;
}

static int sv_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct sv_cq *cq = to_cq(ibcq);
	int i;

	lock();
	if (cq->overflow) {
		unlock();
		return -EOVERFLOW;
	}
	for (i = 0; i < n && cq->count; i++) {
		struct sv_cqe *e = &cq->ring[cq->head];
		wc[i] = e->wc;
		if (e->sq_seq && e->sq_seq > e->qp->sq_retired)
			e->qp->sq_retired = e->sq_seq;
		cq->head = (cq->head + 1) % cq->size;
		cq->count--;
	}
	unlock();
	return i;
}

static int sv_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	lock();
	/* Only completions added after this call raise an event. */
	to_cq(ibcq)->armed = solicited_only ? ARM_SOLICITED : ARM_ANY;
	unlock();
	return 0;
}

/* ---- QP helpers -------------------------------------------------------- */

static void recv_flush_all(struct sv_qp *qp)
{
	while (qp->rq_count) {
		struct ibv_wc wc = {
			.wr_id = qp->rq[qp->rq_head].wr_id,
			.status = IBV_WC_WR_FLUSH_ERR,
			.opcode = IBV_WC_RECV,
			.qp_num = qp->ibv.qp_num,
		};
		cq_push(qp->rcq, &wc, qp, 0, 0);
		qp->rq_head = (qp->rq_head + 1) % qp->init.cap.max_recv_wr;
		qp->rq_count--;
	}
}

/*
 * Error state.  Only the internal state changes: like libibverbs, ibv_qp.state
 * is a cache refreshed by ibv_modify_qp / ibv_query_qp.
 */
static void qp_to_err(struct sv_qp *qp)
{
	if (qp->state == IBV_QPS_ERR)
		return;
	qp->state = IBV_QPS_ERR;
	recv_flush_all(qp);
}

static void queue_remove_qp(struct sv_qp *qp);

/* RESET discards everything without completions (and forgets attributes). */
static void qp_reset(struct sv_qp *qp)
{
	mw_unbind_qp(qp);
	queue_remove_qp(qp);
	cq_purge(qp->scq, qp);
	if (qp->rcq != qp->scq)
		cq_purge(qp->rcq, qp);
	qp->rq_head = qp->rq_count = 0;
	qp->sq_posted = qp->sq_retired = 0;
	memset(&qp->attr, 0, sizeof(qp->attr));
	qp->peer_remote = 0;
	qp->no_route = 0;
	qp->state = IBV_QPS_RESET;
}

/* ---- execution of send work requests ----------------------------------- */

static uint32_t op_length(const struct sv_op *op)
{
	uint64_t len = 0;

	if (op->send_flags & IBV_SEND_INLINE)
		return op->inline_len;
	for (int i = 0; i < op->num_sge; i++)
		len += op->sge[i].length;
	return (uint32_t)len;
}

static enum ibv_wc_opcode wc_opcode_of(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM: return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:           return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:  return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD: return IBV_WC_FETCH_ADD;
	case IBV_WR_BIND_MW:             return IBV_WC_BIND_MW;
	case IBV_WR_LOCAL_INV:           return IBV_WC_LOCAL_INV;
	default:                         return IBV_WC_SEND;
	}
}

static void complete_send(struct sv_qp *qp, const struct sv_op *op,
			  enum ibv_wc_status st, uint32_t len)
{
	struct ibv_wc wc = {
		.wr_id = op->wr_id,
		.status = st,
		.opcode = wc_opcode_of(op->opcode),
		.byte_len = len,
		.qp_num = qp->ibv.qp_num,
	};
	cq_push(qp->scq, &wc, qp, op->seq, 0);
}

/* Receive completion on the responder.  The requester is named by QPN only,
 * because across processes (softverbs_fabric.c) there is no sv_qp for it. */
enum { RECV_WITH_IMM = 1, RECV_SOLICITED = 2 };

static void complete_recv_from(struct sv_qp *rq, uint64_t wr_id, enum ibv_wc_status st,
			       enum ibv_wc_opcode opc, uint32_t len, uint32_t src_qpn,
			       uint32_t imm, int flags)
{
	struct ibv_wc wc = {
		.wr_id = wr_id,
		.status = st,
		.opcode = opc,
		.byte_len = len,
		.qp_num = rq->ibv.qp_num,
		.src_qp = src_qpn,
		.slid = SV_LID,
	};
	if ((flags & RECV_WITH_IMM) && st == IBV_WC_SUCCESS) {
		wc.wc_flags = IBV_WC_WITH_IMM;
		wc.imm_data = imm;
	}
	cq_push(rq->rcq, &wc, rq, 0, (flags & RECV_SOLICITED) != 0);
}

static void complete_recv(struct sv_qp *rq, uint64_t wr_id, enum ibv_wc_status st,
			  enum ibv_wc_opcode opc, uint32_t len, const struct sv_op *op,
			  int with_imm)
{
	complete_recv_from(rq, wr_id, st, opc, len, op->qp->ibv.qp_num, op->imm,
			   (with_imm ? RECV_WITH_IMM : 0) |
			   ((op->send_flags & IBV_SEND_SOLICITED) ? RECV_SOLICITED : 0));
}

/*
 * A request broke the responder's access rules (rkey, range, rights): an RC
 * responder QP goes to ERR, as on a NIC.  A DCT serves every initiator that
 * knows its key, so one bad request does not take it down (it answers the
 * NAK and stays in RTR, as an mlx5 DCT does).
 */
static void responder_violation(struct sv_qp *rq)
{
	if (rq->kind != SV_DCT)
		qp_to_err(rq);
}

/* Resolve an rkey range on the responder, or report REM_ACCESS_ERR. */
static void *remote_map(struct sv_qp *rq, uint32_t rkey, uint64_t addr, uint64_t len,
			unsigned int need)
{
	struct sv_mr *mr;

	if ((rkey >> 24) == SV_MW_MARK) {
		/* A window: the current bind's full rkey, bound to this very QP, inside its range. */
		struct sv_mw *mw = find_mw_index(rkey);
		if (!mw || !mw->bound || mw->ibv.rkey != rkey || mw->qp != rq || mw->pd != rq->pd ||
		    !(mw->access & need) || addr < mw->addr || len > mw->length || addr - mw->addr > mw->length - len)
			return NULL;
		return mr_host(mw->mr, addr);
	}
	mr = find_mr_rkey(rkey);

	if (!mr || mr->pd != rq->pd || !(mr->access & need) || !mr_covers(mr, addr, len))
		return NULL;
	return mr_host(mr, addr);
}

/* Copy between a flat buffer and an SGE list mapped to host pointers. */
static void gather(unsigned char *dst, void **lp, const struct ibv_sge *sge, int n)
{
	for (int i = 0; i < n; i++) {
		memmove(dst, lp[i], sge[i].length);
		dst += sge[i].length;
	}
}

static void scatter(void **lp, const struct ibv_sge *sge, int n, const unsigned char *src)
{
	for (int i = 0; i < n; i++) {
		memmove(lp[i], src, sge[i].length);
		src += sge[i].length;
	}
}

/* IBV_WR_BIND_MW of a type-2 window (2B: it must be unbound, i.e. invalidated since its last bind). */
static enum ibv_wc_status do_bind(struct sv_qp *qp, const struct sv_op *op)
{
	struct sv_mw *mw = find_mw_index(op->mw_rkey);
	struct sv_mr *mr = find_mr_lkey(op->bind_lkey);
	unsigned int allowed = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;

	if (!mw || mw != op->mw || mw->pd != qp->pd || mw->ibv.type != IBV_MW_TYPE_2 || mw->bound)
		return IBV_WC_MW_BIND_ERR;
	if (!mr || mr->pd != qp->pd || !(mr->access & IBV_ACCESS_MW_BIND))
		return IBV_WC_MW_BIND_ERR;
	if ((op->bind_access & ~allowed) ||
	    ((op->bind_access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	     !(mr->access & IBV_ACCESS_LOCAL_WRITE)))
		return IBV_WC_MW_BIND_ERR;
	if (!op->bind_length || !mr_covers(mr, op->bind_addr, op->bind_length))
		return IBV_WC_MW_BIND_ERR;
	mw->bound = 1;
	mw->qp = qp;
	mw->mr = mr;
	mw->addr = op->bind_addr;
	mw->length = op->bind_length;
	mw->access = op->bind_access;
	mw->ibv.rkey = op->mw_rkey;
	mr->mw_binds++;
	return IBV_WC_SUCCESS;
}

/* IBV_WR_LOCAL_INV of a bound window's current rkey. */
static enum ibv_wc_status do_local_inv(struct sv_qp *qp, const struct sv_op *op)
{
	struct sv_mw *mw = find_mw_index(op->invalidate_rkey);

	if (!mw || mw->pd != qp->pd || !mw->bound || mw->ibv.rkey != op->invalidate_rkey)
		return IBV_WC_MW_BIND_ERR;
	mw_unbind(mw);
	return IBV_WC_SUCCESS;
}

/*
 * Take the responder's oldest posted receive for a message of len bytes:
 * map its SGEs (rp[], host pointers) or fail the way the spec says.  On a
 * receive-side error the receive completes in error and the responder QP
 * goes to ERR; the return value is then what the requester sees.
 */
static enum ibv_wc_status recv_claim(struct sv_qp *rq, uint32_t len, uint32_t src_qpn,
				     uint64_t *wr_id, struct ibv_sge **rsp, int *nsge, void **rp)
{
	struct sv_rwqe *w;
	struct ibv_sge *rs;
	uint64_t room = 0;

	if (!rq->rq_count)
		return IBV_WC_RNR_RETRY_EXC_ERR;  /* no receive posted, retries exhausted */
	w = &rq->rq[rq->rq_head];
	rs = &rq->rq_sge[(size_t)rq->rq_head * rq->init.cap.max_recv_sge];
	rq->rq_head = (rq->rq_head + 1) % rq->init.cap.max_recv_wr;
	rq->rq_count--;
	*wr_id = w->wr_id;

	for (int i = 0; i < w->num_sge; i++) {
		struct sv_mr *mr = rs[i].length ? find_mr_lkey(rs[i].lkey) : NULL;
		if (rs[i].length && (!mr || mr->pd != rq->pd || !(mr->access & IBV_ACCESS_LOCAL_WRITE) ||
				     !mr_covers(mr, rs[i].addr, rs[i].length))) {
			complete_recv_from(rq, w->wr_id, IBV_WC_LOC_PROT_ERR, IBV_WC_RECV, 0, src_qpn, 0, 0);
			qp_to_err(rq);
			return IBV_WC_REM_OP_ERR;
		}
		rp[i] = mr ? mr_host(mr, rs[i].addr) : NULL;
		room += rs[i].length;
	}
	if (len > room) {
		complete_recv_from(rq, w->wr_id, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0, src_qpn, 0, 0);
		qp_to_err(rq);
		return IBV_WC_REM_INV_REQ_ERR;
	}
	*rsp = rs;
	*nsge = w->num_sge;
	return IBV_WC_SUCCESS;
}

/* SEND / SEND_WITH_IMM: consume the responder's oldest posted receive. */
static enum ibv_wc_status do_send(struct sv_op *op, struct sv_qp *rq, void **lp, uint32_t len)
{
	struct ibv_sge *rs;
	void *rp[SV_MAX_SGE];
	uint64_t wr_id;
	int nsge;
	int with_imm = op->opcode == IBV_WR_SEND_WITH_IMM;
	enum ibv_wc_status st = recv_claim(rq, len, op->qp->ibv.qp_num, &wr_id, &rs, &nsge, rp);

	if (st != IBV_WC_SUCCESS)
		return st;

	/* Scatter the message across the receive SGEs, piece by piece. */
	const unsigned char *in = (op->send_flags & IBV_SEND_INLINE) ? op->inline_data : NULL;
	int li = 0;
	uint32_t loff = 0, left = len;
	for (int i = 0; i < nsge && left; i++) {
		uint32_t roff = 0;
		while (roff < rs[i].length && left) {
			uint32_t chunk, avail;
			const unsigned char *src;
			if (in) {
				avail = left;
				src = in + (len - left);
			} else {
				while (loff == op->sge[li].length) { li++; loff = 0; }
				avail = op->sge[li].length - loff;
				src = (const unsigned char *)lp[li] + loff;
			}
			chunk = rs[i].length - roff;
			if (chunk > avail) chunk = avail;
			if (chunk > left) chunk = left;
			memmove((unsigned char *)rp[i] + roff, src, chunk);
			roff += chunk; left -= chunk;
			if (!in) loff += chunk;
		}
	}
	complete_recv(rq, wr_id, IBV_WC_SUCCESS, IBV_WC_RECV, len, op, with_imm);
	return IBV_WC_SUCCESS;
}

#include "softverbs_fabric.c"
#include "softverbs_gid.c"

/* The target of a DCI's work request, as its builders set it (softverbs_dc.c). */
struct sv_dc_dest { int set; int no_route; uint32_t dctn; uint64_t key; };
static struct sv_qp *dc_target(const struct sv_op *op, enum ibv_wc_status *st);
static int dc_remote(const struct sv_dc_dest *dc);
static void dc_fill_op(struct sv_op *op, const struct sv_dc_dest *dc);

/*
 * Execute one send WR: validate, move the bytes, post completions.  Called
 * with g_lock held, either from post_send (synchronous mode) or from the
 * worker (deferred mode).  Every check happens here, at execution time, so a
 * deregistered MR or a QP torn down before a deferred WR runs is noticed.
 */
static void sv_execute(struct sv_op *op)
{
	struct sv_qp *qp = op->qp, *rq;
	void *lp[SV_MAX_SGE];
	uint32_t len = op_length(op);
	enum ibv_wc_status st = IBV_WC_SUCCESS;
	int is_read = op->opcode == IBV_WR_RDMA_READ ||
		      op->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		      op->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;

	if (qp->state != IBV_QPS_RTS) {
		/* QP in ERR (or otherwise unable to send): flushed, signaled or not. */
		complete_send(qp, op, IBV_WC_WR_FLUSH_ERR, 0);
		return;
	}

	/* Memory-window work is local to this QP: no SGEs, no peer. */
	if (op->opcode == IBV_WR_BIND_MW || op->opcode == IBV_WR_LOCAL_INV) {
		st = op->opcode == IBV_WR_BIND_MW ? do_bind(qp, op) : do_local_inv(qp, op);
		len = 0;
		goto done;
	}

	/* Local SGEs: lkey in this QP's PD, in bounds; READ/atomics write locally. */
	if (!(op->send_flags & IBV_SEND_INLINE)) {
		for (int i = 0; i < op->num_sge; i++) {
			struct sv_mr *mr;
			lp[i] = NULL;
			if (!op->sge[i].length)
				continue;
			mr = find_mr_lkey(op->sge[i].lkey);
			if (!mr || mr->pd != qp->pd || !mr_covers(mr, op->sge[i].addr, op->sge[i].length) ||
			    (is_read && !(mr->access & IBV_ACCESS_LOCAL_WRITE))) {
				st = IBV_WC_LOC_PROT_ERR;
				goto done;
			}
			lp[i] = mr_host(mr, op->sge[i].addr);
		}
	}

	/* The peer is in another process: its service checks and answers (worker only). */
	if (op->remote) {
		st = fab_execute(op, lp, len);
		goto done;
	}

	if (op->dc) {
		/* DC: the target named by this WR's address (softverbs_dc.c). */
		if (!(rq = dc_target(op, &st)))
			goto done;
	} else {
		/* RC connection: both ends must name each other and be able to receive. */
		rq = find_qp(qp->attr.dest_qp_num);
		if (!rq || rq->attr.dest_qp_num != qp->ibv.qp_num ||
		    (rq->state != IBV_QPS_RTR && rq->state != IBV_QPS_RTS)) {
			st = IBV_WC_RETRY_EXC_ERR;
			goto done;
		}
	}

	switch (op->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM: {
		unsigned char *dst = NULL;
		if (!(rq->attr.qp_access_flags & IBV_ACCESS_REMOTE_WRITE)) {
			st = IBV_WC_REM_INV_REQ_ERR;
			break;
		}
		/* A zero-length write carries no R_Key check (IB spec). */
		if (len && !(dst = remote_map(rq, op->rkey, op->remote_addr, len, IBV_ACCESS_REMOTE_WRITE))) {
			st = IBV_WC_REM_ACCESS_ERR;
			responder_violation(rq);  /* an RC responder goes to ERR too, as on a NIC */
			break;
		}
		if (op->opcode == IBV_WR_RDMA_WRITE_WITH_IMM && !rq->rq_count) {
			st = IBV_WC_RNR_RETRY_EXC_ERR;
			break;
		}
		if (len && (op->send_flags & IBV_SEND_INLINE))
			memmove(dst, op->inline_data, len);
		else if (len)
			gather(dst, lp, op->sge, op->num_sge);
		if (op->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
			/* The immediate consumes a receive; its SGEs are not used. */
			uint64_t wr_id = rq->rq[rq->rq_head].wr_id;
			rq->rq_head = (rq->rq_head + 1) % rq->init.cap.max_recv_wr;
			rq->rq_count--;
			complete_recv(rq, wr_id, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, len, op, 1);
		}
		break;
	}
	case IBV_WR_RDMA_READ: {
		unsigned char *src = NULL;
		if (!(rq->attr.qp_access_flags & IBV_ACCESS_REMOTE_READ)) {
			st = IBV_WC_REM_INV_REQ_ERR;
			break;
		}
		if (len && !(src = remote_map(rq, op->rkey, op->remote_addr, len, IBV_ACCESS_REMOTE_READ))) {
			st = IBV_WC_REM_ACCESS_ERR;
			responder_violation(rq);
			break;
		}
		if (len)
			scatter(lp, op->sge, op->num_sge, src);
		break;
	}
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		st = do_send(op, rq, lp, len);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD: {
		uint64_t *p, old;
		if (!(rq->attr.qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC) || (op->remote_addr & 7)) {
			st = IBV_WC_REM_INV_REQ_ERR;
			break;
		}
		if (!(p = remote_map(rq, op->rkey, op->remote_addr, 8, IBV_ACCESS_REMOTE_ATOMIC))) {
			st = IBV_WC_REM_ACCESS_ERR;
			responder_violation(rq);
			break;
		}
		/* Atomic with respect to other softverbs operations (g_lock). */
		old = *p;
		if (op->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
			*p = old + op->compare_add;
		else if (old == op->compare_add)
			*p = op->swap;
		memcpy(lp[0], &old, 8);
		break;
	}
	default:
		st = IBV_WC_LOC_QP_OP_ERR;  /* rejected at post time; kept for safety */
		break;
	}

done:
	if (st != IBV_WC_SUCCESS) {
		/* Error CQE first, then the QP moves to ERR and flushes its RQ. */
		complete_send(qp, op, st, 0);
		qp_to_err(qp);
	} else if ((op->send_flags & IBV_SEND_SIGNALED) || qp->init.sq_sig_all) {
		complete_send(qp, op, IBV_WC_SUCCESS, len);
	}
}

/* ---- deferred-completion worker ---------------------------------------- */

static int ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void *worker_main(void *arg)
{
	struct sv_worker *self = arg;

	lock();
	for (;;) {
		struct timespec now;
		struct sv_op *op;

		while (!g_q_head && !self->stop)
			pthread_cond_wait(&g_q_cv, &g_lock);
		if (self->stop)
			break;
		op = g_q_head;
		clock_gettime(CLOCK_REALTIME, &now);
		if (ts_before(&now, &op->due)) {
			/* Wait unlocked; the head may be removed meanwhile, so re-check. */
			pthread_cond_timedwait(&g_q_cv, &g_lock, &op->due);
			continue;
		}
		g_q_head = op->next;
		if (!g_q_head)
			g_q_tail = NULL;
		g_q_len--;
		sv_execute(op);  /* pop + execute under one lock hold keeps FIFO order */
		free(op);
		if (!g_q_head)
			pthread_cond_broadcast(&g_idle_cv);
	}
	unlock();
	return NULL;
}

/* Called with g_lock held; returns 0 or an errno. */
static int worker_ensure(void)
{
	struct sv_worker *w;

	if (g_worker)
		return 0;
	if (!(w = calloc(1, sizeof(*w))))
		return ENOMEM;
	if (pthread_create(&w->thread, NULL, worker_main, w)) {
		free(w);
		return EAGAIN;
	}
	g_worker = w;
	return 0;
}

/* Called with g_lock held; drops and retakes it while joining. */
static void worker_stop(void)
{
	struct sv_worker *w = g_worker;

	if (!w)
		return;
	/* A new worker may be started by the next enqueue; this one only exits. */
	g_worker = NULL;
	w->stop = 1;
	pthread_cond_broadcast(&g_q_cv);
	unlock();
	pthread_join(w->thread, NULL);
	free(w);
	lock();
}

static void queue_remove_qp(struct sv_qp *qp)
{
	struct sv_op **pp = &g_q_head, *prev = NULL;

	while (*pp) {
		struct sv_op *op = *pp;
		if (op->qp == qp) {
			*pp = op->next;
			g_q_len--;
			free(op);
		} else {
			prev = op;
			pp = &op->next;
		}
	}
	g_q_tail = prev;
	if (!g_q_head)
		pthread_cond_broadcast(&g_idle_cv);
}

static void queue_append(struct sv_op *op)
{
	clock_gettime(CLOCK_REALTIME, &op->due);
	op->due.tv_sec += g_delay_us / 1000000;
	op->due.tv_nsec += (long)(g_delay_us % 1000000) * 1000;
	if (op->due.tv_nsec >= 1000000000L) {
		op->due.tv_sec++;
		op->due.tv_nsec -= 1000000000L;
	}
	op->next = NULL;
	if (g_q_tail)
		g_q_tail->next = op;
	else
		g_q_head = op;
	g_q_tail = op;
	g_q_len++;
	pthread_cond_broadcast(&g_q_cv);
}

static void read_env(void)
{
	const char *e = getenv("SOFTVERBS_DEFERRED");
	if (e && *e)
		g_deferred = atoi(e) != 0;
	e = getenv("SOFTVERBS_DEFERRED_DELAY_US");
	if (e && *e)
		g_delay_us = (unsigned int)strtoul(e, NULL, 10);
}

/* Turn deferred mode on (1) or off (0).  Returns the previous setting.
 * Turning it off first waits until every queued WR has executed. */
SV_API int softverbs_set_deferred(int on)
{
	int old;

	lock();
	old = g_deferred;
	g_deferred = on != 0;
	if (!on)
		while (g_q_head)
			pthread_cond_wait(&g_idle_cv, &g_lock);
	unlock();
	return old;
}

/* Minimum delay between posting a deferred WR and its execution. Returns the old value. */
SV_API unsigned int softverbs_set_delay_us(unsigned int us)
{
	unsigned int old;

	lock();
	old = g_delay_us;
	g_delay_us = us;
	unlock();
	return old;
}

/* Number of posted send WRs not yet executed. */
SV_API int softverbs_pending(void)
{
	int n;

	lock();
	n = g_q_len;
	unlock();
	return n;
}

static int list_length(const struct sv_list *h)
{
	int n = 0;

	for (const struct sv_list *l = h->next; l != h; l = l->next)
		n++;
	return n;
}

/*
 * Live objects of this process, summed over its open contexts: 0 contexts,
 * 1 PDs, 2 MRs, 3 CQs, 4 QPs (RC and DC), 5 memory windows, 6 bound memory
 * windows, 7 SRQs, 8 address handles; -1 for another kind.  For leak audits (a consumer's QPs and MRs back to where
 * they were).
 */
SV_API int softverbs_live_objects(int kind)
{
	int n = 0;

	if (kind < 0 || kind > 8)
		return -1;
	lock();
	for (struct sv_list *l = g_ctxs.next; l != &g_ctxs; l = l->next) {
		struct sv_ctx *ctx = (struct sv_ctx *)((char *)l - offsetof(struct sv_ctx, link));
		switch (kind) {
		case 0: n++; break;
		case 1: n += list_length(&ctx->pds); break;
		case 2: n += list_length(&ctx->mrs); break;
		case 3: n += list_length(&ctx->cqs); break;
		case 4: n += list_length(&ctx->qps); break;
		case 5: n += list_length(&ctx->mws); break;
		case 6:
			for (struct sv_list *m = ctx->mws.next; m != &ctx->mws; m = m->next)
				n += ((struct sv_mw *)((char *)m - offsetof(struct sv_mw, link)))->bound != 0;
			break;
		case 7: n += list_length(&ctx->srqs); break;
		case 8: n += list_length(&ctx->ahs); break;
		}
	}
	unlock();
	return n;
}

/* Block until every queued WR has executed (its completions are in the CQs). */
SV_API void softverbs_drain(void)
{
	lock();
	while (g_q_head)
		pthread_cond_wait(&g_idle_cv, &g_lock);
	unlock();
}

/* ---- post_send / post_recv --------------------------------------------- */

/* Checks a real HCA does synchronously at post time; errno or 0. */
static int validate_send_wr(struct sv_qp *qp, const struct ibv_send_wr *wr, uint32_t *inl)
{
	uint64_t total = 0;

	/* Only RTS can send; ERR accepts WRs and flushes them. */
	if (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_ERR)
		return EINVAL;
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE: case IBV_WR_RDMA_WRITE_WITH_IMM: case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM: case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP: case IBV_WR_ATOMIC_FETCH_AND_ADD:
		break;
	case IBV_WR_BIND_MW:
		/* The window and the MR must exist now: their handles are read at post time. */
		if (!g_mw_supported || wr->num_sge || (wr->send_flags & IBV_SEND_INLINE) ||
		    !wr->bind_mw.mw || !wr->bind_mw.bind_info.mr)
			return EINVAL;
		*inl = 0;
		return 0;
	case IBV_WR_LOCAL_INV:
		if (!g_mw_supported || wr->num_sge || (wr->send_flags & IBV_SEND_INLINE))
			return EINVAL;
		*inl = 0;
		return 0;
	default:
		return EINVAL;
	}
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->init.cap.max_send_sge ||
	    (wr->num_sge && !wr->sg_list))
		return EINVAL;
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > 0x80000000ULL)  /* port max_msg_sz */
		return EINVAL;
	*inl = 0;
	if (wr->send_flags & IBV_SEND_INLINE) {
		if (wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM &&
		    wr->opcode != IBV_WR_RDMA_WRITE && wr->opcode != IBV_WR_RDMA_WRITE_WITH_IMM)
			return EINVAL;
		if (total > qp->init.cap.max_inline_data)
			return EINVAL;
		*inl = (uint32_t)total;
	}
	if ((wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) &&
	    (wr->num_sge != 1 || wr->sg_list[0].length != 8))
		return EINVAL;
	return 0;
}

/*
 * Copy the WR into op.  Inline data is read from the caller's buffers now,
 * because "inline" means the buffer may be reused as soon as post returns.
 */
static void fill_op(struct sv_op *op, struct sv_qp *qp, const struct ibv_send_wr *wr, uint32_t inl)
{
	memset(op, 0, sizeof(*op));
	op->qp = qp;
	op->wr_id = wr->wr_id;
	op->opcode = wr->opcode;
	op->send_flags = wr->send_flags;
	op->imm = wr->imm_data;
	if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		op->remote_addr = wr->wr.atomic.remote_addr;
		op->rkey = wr->wr.atomic.rkey;
		op->compare_add = wr->wr.atomic.compare_add;
		op->swap = wr->wr.atomic.swap;
	} else {
		op->remote_addr = wr->wr.rdma.remote_addr;
		op->rkey = wr->wr.rdma.rkey;
	}
	if (wr->opcode == IBV_WR_BIND_MW) {
		op->mw = (struct sv_mw *)wr->bind_mw.mw;
		op->mw_rkey = wr->bind_mw.rkey;
		op->bind_lkey = wr->bind_mw.bind_info.mr->lkey;
		op->bind_addr = wr->bind_mw.bind_info.addr;
		op->bind_length = wr->bind_mw.bind_info.length;
		op->bind_access = wr->bind_mw.bind_info.mw_access_flags;
	} else if (wr->opcode == IBV_WR_LOCAL_INV) {
		op->invalidate_rkey = wr->invalidate_rkey;
	}
	op->num_sge = wr->num_sge;
	op->sge = op->storage_sge;
	if (wr->num_sge)
		memcpy(op->sge, wr->sg_list, sizeof(struct ibv_sge) * (size_t)wr->num_sge);
	op->inline_data = (unsigned char *)(op->sge + wr->num_sge);
	op->inline_len = inl;
	if (wr->send_flags & IBV_SEND_INLINE) {
		unsigned char *p = op->inline_data;
		for (int i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	}
}

/*
 * Queue or execute one validated WR (g_lock).  dc is the target of a DCI's WR
 * (softverbs_dc.c), NULL for RC.  0 or ENOMEM.
 */
static int post_one(struct sv_qp *qp, const struct ibv_send_wr *wr, uint32_t inl,
		    const struct sv_dc_dest *dc)
{
	/* Room for the largest op, for the synchronous path (no malloc per WR). */
	union {
		struct sv_op op;
		unsigned char raw[sizeof(struct sv_op) + SV_MAX_SGE * sizeof(struct ibv_sge) + SV_MAX_INLINE];
	} buf;
	struct sv_op *op;
	int remote;

	if (dc) {
		remote = dc_remote(dc);
	} else {
		/* A QP of another process: learned at RTR, or now if it appeared since. */
		if (!qp->no_route && !find_qp(qp->attr.dest_qp_num) && !qp->peer_remote)
			qp->peer_remote = fab_owner(qp->attr.dest_qp_num) != 0;
		remote = qp->no_route || (qp->peer_remote && !find_qp(qp->attr.dest_qp_num));
	}
	/* Once anything is queued, later WRs queue too, so order is kept; a
	 * WR for another process always goes to the worker, so posting never
	 * waits for that process. */
	if (g_deferred || g_q_head || (dc ? remote : qp->peer_remote)) {
		size_t sz = sizeof(*op) + sizeof(struct ibv_sge) * (size_t)wr->num_sge + inl;
		if (!(op = malloc(sz)))
			return ENOMEM;
		fill_op(op, qp, wr, inl);
		dc_fill_op(op, dc);
		op->remote = remote;
		if (worker_ensure()) {
			free(op);
			return ENOMEM;
		}
		op->seq = ++qp->sq_posted;
		queue_append(op);
	} else {
		op = &buf.op;
		fill_op(op, qp, wr, inl);
		dc_fill_op(op, dc);
		op->seq = ++qp->sq_posted;
		sv_execute(op);
	}
	return 0;
}

static int sv_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct sv_qp *qp = to_qp(ibqp);
	int err = 0;

	lock();
	for (; wr; wr = wr->next) {
		uint32_t inl;

		/* A DC QP has no peer: a DCI names its target per WR, through the
		 * mlx5dv builders only (softverbs_dc.c); a DCT does not send. */
		if (qp->kind != SV_RC) {
			err = EINVAL;
			break;
		}
		if ((err = validate_send_wr(qp, wr, &inl)))
			break;
		if (qp->sq_posted - qp->sq_retired >= qp->init.cap.max_send_wr) {
			err = ENOMEM;  /* send queue full */
			break;
		}
		if ((err = post_one(qp, wr, inl, NULL)))
			break;
	}
	if (err)
		*bad = wr;
	unlock();
	return err;
}

static int sv_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct sv_qp *qp = to_qp(ibqp);
	int err = 0;

	lock();
	for (; wr; wr = wr->next) {
		int slot;

		/* A DCT takes its receives on its SRQ; a DCI has no receive queue. */
		if (qp->kind != SV_RC || qp->state == IBV_QPS_RESET || wr->num_sge < 0 ||
		    (uint32_t)wr->num_sge > qp->init.cap.max_recv_sge || (wr->num_sge && !wr->sg_list)) {
			err = EINVAL;
			break;
		}
		if (qp->state == IBV_QPS_ERR) {
			/* A receive posted to a QP in ERR is flushed straight away. */
			struct ibv_wc wc = { .wr_id = wr->wr_id, .status = IBV_WC_WR_FLUSH_ERR,
					     .opcode = IBV_WC_RECV, .qp_num = qp->ibv.qp_num };
			cq_push(qp->rcq, &wc, qp, 0, 0);
			continue;
		}
		if ((uint32_t)qp->rq_count >= qp->init.cap.max_recv_wr) {
			err = ENOMEM;
			break;
		}
		slot = (qp->rq_head + qp->rq_count) % qp->init.cap.max_recv_wr;
		qp->rq[slot].wr_id = wr->wr_id;
		qp->rq[slot].num_sge = wr->num_sge;
		if (wr->num_sge)
			memcpy(&qp->rq_sge[(size_t)slot * qp->init.cap.max_recv_sge], wr->sg_list,
			       sizeof(struct ibv_sge) * (size_t)wr->num_sge);
		qp->rq_count++;
	}
	if (err)
		*bad = wr;
	unlock();
	return err;
}

/* ---- device list and context ------------------------------------------- */

SV_API struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **list = calloc(2, sizeof(*list));

	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	list[0] = &g_dev;
	if (num)
		*num = 1;
	return list;
}

SV_API void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

SV_API const char *ibv_get_device_name(struct ibv_device *dev)
{
	return dev ? dev->name : NULL;
}

SV_API __be64 ibv_get_device_guid(struct ibv_device *dev)
{
	(void)dev;
	return htobe64(SV_NODE_GUID);
}

SV_API int ibv_get_device_index(struct ibv_device *dev)
{
	return dev == &g_dev ? 0 : -1;
}

static struct ibv_mw *sv_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type);
static int sv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind);
static int sv_dealloc_mw(struct ibv_mw *ibmw);
static int sv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);

SV_API struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	struct sv_ctx *ctx;

	if (dev != &g_dev) {
		errno = ENODEV;
		return NULL;
	}
	if (!(ctx = calloc(1, sizeof(*ctx)))) {
		errno = ENOMEM;
		return NULL;
	}
	ctx->ibv.device = dev;
	ctx->ibv.ops.poll_cq = sv_poll_cq;
	ctx->ibv.ops.req_notify_cq = sv_req_notify_cq;
	ctx->ibv.ops.post_send = sv_post_send;
	ctx->ibv.ops.post_recv = sv_post_recv;
	ctx->ibv.ops.alloc_mw = sv_alloc_mw;
	ctx->ibv.ops.bind_mw = sv_bind_mw;
	ctx->ibv.ops.dealloc_mw = sv_dealloc_mw;
	ctx->ibv.ops.post_srq_recv = sv_post_srq_recv;
	ctx->ibv.cmd_fd = -1;
	/* Signalled once per injected event (softverbs_inject_async_event); EFD_SEMAPHORE
	 * so one read consumes one event, and pollable like the real one. */
	ctx->ibv.async_fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	ctx->ibv.num_comp_vectors = 1;
	pthread_mutex_init(&ctx->ibv.mutex, NULL);
	/* abi_compat stays NULL: there is no struct verbs_context in front of us,
	 * so the inline *_ex verbs must take their legacy / ENOSYS path (pitfall 4). */
	ctx->ibv.abi_compat = NULL;
	list_init(&ctx->pds); list_init(&ctx->mrs); list_init(&ctx->cqs);
	list_init(&ctx->qps); list_init(&ctx->chans); list_init(&ctx->mws);
	list_init(&ctx->srqs); list_init(&ctx->ahs);
	lock();
	read_env();
	gid_read_env();
	if (list_empty(&g_ctxs))
		fab_start();  /* the first context joins the fabric */
	list_add_tail(&g_ctxs, &ctx->link);
	unlock();
	return &ctx->ibv;
}

static void free_qp(struct sv_qp *qp);
static void free_cq(struct sv_cq *cq);
static void free_chan(struct sv_chan *ch);
static void dc_close_context(struct sv_ctx *ctx);

/* Frees everything still owned by the context, so tests leak nothing. */
SV_API int ibv_close_device(struct ibv_context *ibctx)
{
	struct sv_ctx *ctx = to_ctx(ibctx);

	lock();
	while (!list_empty(&ctx->mws)) {
		struct sv_mw *mw = container_of(ctx->mws.next, struct sv_mw, link);
		mw_unbind(mw);
		mw_hash_del(mw);
		list_del(&mw->link);
		free(mw);
	}
	while (!list_empty(&ctx->qps))
		free_qp(container_of(ctx->qps.next, struct sv_qp, link));
	dc_close_context(ctx);  /* SRQs and address handles, after the DCTs that used them */
	while (!list_empty(&ctx->mrs)) {
		struct sv_mr *mr = container_of(ctx->mrs.next, struct sv_mr, link);
		mr_hash_del(mr);
		list_del(&mr->link);
		free(mr);
	}
	while (!list_empty(&ctx->cqs))
		free_cq(container_of(ctx->cqs.next, struct sv_cq, link));
	while (!list_empty(&ctx->chans))
		free_chan(container_of(ctx->chans.next, struct sv_chan, link));
	while (!list_empty(&ctx->pds)) {
		struct sv_pd *pd = container_of(ctx->pds.next, struct sv_pd, link);
		list_del(&pd->link);
		free(pd);
	}
	while (ctx->aev_head) {
		struct sv_aev *ev = ctx->aev_head;
		ctx->aev_head = ev->next;
		free(ev);
	}
	list_del(&ctx->link);
	/* Last context gone: nothing can be queued any more, stop the worker. */
	if (list_empty(&g_ctxs)) {
		worker_stop();
		fab_stop();
	}
	unlock();
	if (ctx->ibv.async_fd >= 0)
		close(ctx->ibv.async_fd);
	pthread_mutex_destroy(&ctx->ibv.mutex);
	free(ctx);
	return 0;
}

/* If the process exits (or dlclose()s us) with the worker alive, stop it. */
__attribute__((destructor)) static void sv_fini(void)
{
	lock();
	worker_stop();
	fab_exit();
	unlock();
}

SV_API int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *a)
{
	(void)ctx;
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "1.0.0 softverbs");
	a->node_guid = htobe64(SV_NODE_GUID);
	a->sys_image_guid = htobe64(SV_NODE_GUID);
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = 0xfffff000;
	a->max_qp = 1 << 16;
	a->max_qp_wr = SV_MAX_QP_WR;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN;
	if (g_mw_supported) {
		a->device_cap_flags |= IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B;
		a->max_mw = SV_MAX_MW;
	}
	a->max_sge = SV_MAX_SGE;
	a->max_sge_rd = SV_MAX_SGE;
	a->max_cq = 1 << 16;
	a->max_cqe = SV_MAX_CQE;
	a->max_mr = 1 << 20;
	a->max_pd = 1 << 16;
	a->max_qp_rd_atom = SV_MAX_RD_ATOM;
	a->max_res_rd_atom = 1 << 20;
	a->max_qp_init_rd_atom = SV_MAX_RD_ATOM;
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 16;
	a->phys_port_cnt = 1;
	return 0;
}

/* Exported compat ABI: writes exactly the 48 compat bytes (pitfall 2). */
SV_API int ibv_query_port(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *out)
{
	struct ibv_port_attr a;

	(void)ctx;
	if (port != 1)
		return EINVAL;
	memset(&a, 0, sizeof(a));
	lock();
	a.state = g_port_state;
	a.link_layer = g_ethernet ? IBV_LINK_LAYER_ETHERNET : IBV_LINK_LAYER_INFINIBAND;
	unlock();
	a.max_mtu = IBV_MTU_4096;
	a.active_mtu = IBV_MTU_4096;
	a.gid_tbl_len = SV_GID_TBL_LEN;
	a.max_msg_sz = 0x80000000u;
	a.pkey_tbl_len = 1;
	a.lid = a.link_layer == IBV_LINK_LAYER_ETHERNET ? 0 : SV_LID;  /* RoCE ports have no LID */
	a.sm_lid = a.lid;
	a.max_vl_num = 1;
	a.subnet_timeout = 18;
	a.active_width = 2;   /* 4x */
	a.active_speed = 32;  /* EDR */
	a.phys_state = a.state == IBV_PORT_ACTIVE ? 5 : 2;  /* LinkUp : Polling */
	memcpy(out, &a, SV_COMPAT_PORT_ATTR_SIZE);
	return 0;
}

SV_API int ibv_query_pkey(struct ibv_context *ctx, uint8_t port, int index, __be16 *pkey)
{
	(void)ctx;
	if (port != 1 || index != 0) {
		errno = EINVAL;
		return -1;
	}
	*pkey = htobe16(0xffff);
	return 0;
}

SV_API int ibv_get_pkey_index(struct ibv_context *ctx, uint8_t port, __be16 pkey)
{
	(void)ctx;
	if (port == 1 && (be16toh(pkey) & 0x7fff) == 0x7fff)
		return 0;
	errno = ENOENT;
	return -1;
}

/* ---- PD / MR ------------------------------------------------------------ */

SV_API struct ibv_pd *ibv_alloc_pd(struct ibv_context *ibctx)
{
	struct sv_pd *pd = calloc(1, sizeof(*pd));

	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibv.context = ibctx;
	lock();
	pd->ibv.handle = g_next_handle++;
	list_add_tail(&to_ctx(ibctx)->pds, &pd->link);
	unlock();
	return &pd->ibv;
}

SV_API int ibv_dealloc_pd(struct ibv_pd *ibpd)
{
	struct sv_pd *pd = to_pd(ibpd);

	lock();
	if (pd->users) {
		unlock();
		return EBUSY;
	}
	list_del(&pd->link);
	unlock();
	free(pd);
	return 0;
}

SV_API struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *ibpd, void *addr, size_t length,
				       uint64_t iova, unsigned int access)
{
	struct sv_pd *pd = to_pd(ibpd);
	struct sv_mr *mr;
	uint32_t idx;

	/* Remote write/atomic without local write is invalid (ibv_reg_mr(3)). */
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE)) {
		errno = EINVAL;
		return NULL;
	}
	if (!addr && length) {
		errno = EFAULT;  /* the kernel could not pin it */
		return NULL;
	}
	if (!(mr = calloc(1, sizeof(*mr)))) {
		errno = ENOMEM;
		return NULL;
	}
	mr->ibv.context = ibpd->context;
	mr->ibv.pd = ibpd;
	mr->ibv.addr = addr;
	mr->ibv.length = length;
	mr->pd = pd;
	mr->iova = iova;
	mr->access = access;
	lock();
	/*
	 * Key index steps by an odd number through 24 bits, so keys are not
	 * reused soon after dereg (a stale rkey must fail).  lkey != rkey on
	 * purpose: passing one for the other is a caller bug we want to see.
	 */
	do {
		idx = g_next_key;
		g_next_key = (g_next_key + 0x101) & 0xffffff;
	} while (!idx || find_mr_lkey(idx));
	mr->ibv.handle = g_next_handle++;
	mr->ibv.lkey = idx;
	mr->ibv.rkey = 0x5a000000u | idx;
	mr->hnext = *mr_slot(idx);
	*mr_slot(idx) = mr;
	pd->users++;
	list_add_tail(&to_ctx(ibpd->context)->mrs, &mr->link);
	unlock();
	return &mr->ibv;
}

SV_API struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

SV_API struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
				      uint64_t iova, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

SV_API int ibv_dereg_mr(struct ibv_mr *ibmr)
{
	struct sv_mr *mr = (struct sv_mr *)ibmr;

	lock();
	if (mr->mw_binds) {
		unlock();
		return EBUSY;  /* windows are bound to it */
	}
	mr_hash_del(mr);
	list_del(&mr->link);
	mr->pd->users--;
	unlock();
	free(mr);
	return 0;
}

/* ---- memory windows (type 2 only; ibv_alloc_mw etc. are inline, via ops) --- */

static struct ibv_mw *sv_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type)
{
	struct sv_pd *pd = to_pd(ibpd);
	struct sv_mw *mw;
	uint32_t idx = 0;

	if (!g_mw_supported || type != IBV_MW_TYPE_2) {
		errno = EOPNOTSUPP;  /* type 1 is not modelled */
		return NULL;
	}
	if (!(mw = calloc(1, sizeof(*mw)))) {
		errno = ENOMEM;
		return NULL;
	}
	lock();
	for (int tries = 0; tries <= SV_MAX_MW; tries++) {
		uint32_t cand = g_next_mw_index;
		g_next_mw_index = g_next_mw_index % SV_MAX_MW + 1;
		if (!find_mw_index((SV_MW_MARK << 24) | (cand << 8))) {
			idx = cand;
			break;
		}
	}
	if (!idx) {
		unlock();
		free(mw);
		errno = ENOMEM;
		return NULL;
	}
	mw->ibv.context = ibpd->context;
	mw->ibv.pd = ibpd;
	mw->ibv.rkey = (SV_MW_MARK << 24) | (idx << 8);
	mw->ibv.handle = g_next_handle++;
	mw->ibv.type = type;
	mw->pd = pd;
	mw->hnext = g_mw_hash[idx % SV_HASH];
	g_mw_hash[idx % SV_HASH] = mw;
	pd->users++;
	list_add_tail(&to_ctx(ibpd->context)->mws, &mw->link);
	unlock();
	return &mw->ibv;
}

/* Type-1 binds (ibv_bind_mw) are not modelled; the inline wrapper refuses type 2 itself. */
static int sv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
	(void)qp; (void)mw; (void)bind;
	return EOPNOTSUPP;
}

/* Deallocating a bound window invalidates it. */
static int sv_dealloc_mw(struct ibv_mw *ibmw)
{
	struct sv_mw *mw = (struct sv_mw *)ibmw;

	lock();
	mw_unbind(mw);
	mw_hash_del(mw);
	list_del(&mw->link);
	mw->pd->users--;
	unlock();
	free(mw);
	return 0;
}

/* Test control: 0 makes the device one without memory windows (no MEM_WINDOW_TYPE_2B). Returns the old setting. */
SV_API int softverbs_set_memory_windows(int on)
{
	int old;

	lock();
	old = g_mw_supported;
	g_mw_supported = on != 0;
	unlock();
	return old;
}

/* ---- completion channels and CQs --------------------------------------- */

SV_API struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *ibctx)
{
	struct sv_chan *ch = calloc(1, sizeof(*ch));

	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	ch->ibv.context = ibctx;
	ch->ibv.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (ch->ibv.fd < 0) {
		free(ch);
		return NULL;
	}
	lock();
	list_add_tail(&to_ctx(ibctx)->chans, &ch->link);
	unlock();
	return &ch->ibv;
}

static void free_chan(struct sv_chan *ch)
{
	while (ch->ev_head) {
		struct sv_ev *ev = ch->ev_head;
		ch->ev_head = ev->next;
		free(ev);
	}
	list_del(&ch->link);
	close(ch->ibv.fd);
	free(ch);
}

SV_API int ibv_destroy_comp_channel(struct ibv_comp_channel *ibch)
{
	lock();
	if (ibch->refcnt) {
		unlock();
		return EBUSY;
	}
	free_chan(to_chan(ibch));
	unlock();
	return 0;
}

SV_API struct ibv_cq *ibv_create_cq(struct ibv_context *ibctx, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int comp_vector)
{
	struct sv_cq *cq;

	if (cqe < 1 || cqe > SV_MAX_CQE || comp_vector < 0 || comp_vector >= ibctx->num_comp_vectors ||
	    (channel && channel->context != ibctx)) {
		errno = EINVAL;
		return NULL;
	}
	if (!(cq = calloc(1, sizeof(*cq))) || !(cq->ring = calloc((size_t)cqe, sizeof(*cq->ring)))) {
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	cq->ibv.context = ibctx;
	cq->ibv.channel = channel;
	cq->ibv.cq_context = cq_context;
	cq->ibv.cqe = cqe;
	pthread_mutex_init(&cq->ibv.mutex, NULL);
	pthread_cond_init(&cq->ibv.cond, NULL);
	cq->size = cqe;
	cq->chan = channel ? to_chan(channel) : NULL;
	lock();
	cq->ibv.handle = g_next_handle++;
	if (channel)
		channel->refcnt++;
	list_add_tail(&to_ctx(ibctx)->cqs, &cq->link);
	unlock();
	return &cq->ibv;
}

SV_API int ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct sv_cq *cq = to_cq(ibcq);
	struct sv_cqe *ring;

	lock();
	if (cqe < 1 || cqe > SV_MAX_CQE || cqe < cq->count) {
		unlock();
		return EINVAL;
	}
	if (!(ring = calloc((size_t)cqe, sizeof(*ring)))) {
		unlock();
		return ENOMEM;
	}
	for (int i = 0; i < cq->count; i++)
		ring[i] = cq->ring[(cq->head + i) % cq->size];
	free(cq->ring);
	cq->ring = ring;
	cq->head = 0;
	cq->size = cqe;
	cq->ibv.cqe = cqe;
	unlock();
	return 0;
}

static void free_cq(struct sv_cq *cq)
{
	if (cq->chan) {
		/* Events not yet read refer to this CQ; forget them.  A reader that
		 * wakes for such an event just finds nothing and waits again. */
		struct sv_ev **pp = &cq->chan->ev_head, *prev = NULL;
		while (*pp) {
			struct sv_ev *ev = *pp;
			if (ev->cq == cq) {
				*pp = ev->next;
				free(ev);
			} else {
				prev = ev;
				pp = &ev->next;
			}
		}
		cq->chan->ev_tail = prev;
		cq->chan->ibv.refcnt--;
	}
	list_del(&cq->link);
	pthread_mutex_destroy(&cq->ibv.mutex);
	pthread_cond_destroy(&cq->ibv.cond);
	free(cq->ring);
	free(cq);
}

SV_API int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct sv_cq *cq = to_cq(ibcq);
	uint32_t acked;

	pthread_mutex_lock(&cq->ibv.mutex);
	acked = cq->ibv.comp_events_completed;
	pthread_mutex_unlock(&cq->ibv.mutex);
	lock();
	/*
	 * QPs still attached: EBUSY as on real verbs.  Events handed out but not
	 * acked: real libibverbs blocks forever here; EBUSY is kinder to tests.
	 */
	if (cq->users || acked != cq->events_reported) {
		unlock();
		return EBUSY;
	}
	free_cq(cq);
	unlock();
	return 0;
}

SV_API int ibv_get_cq_event(struct ibv_comp_channel *ibch, struct ibv_cq **cq_out, void **cq_context)
{
	struct sv_chan *ch = to_chan(ibch);

	for (;;) {
		uint64_t v;
		struct sv_ev *ev;

		/* Blocks unless the caller made the fd non-blocking (then EAGAIN). */
		if (read(ibch->fd, &v, sizeof(v)) != sizeof(v))
			return -1;
		lock();
		ev = ch->ev_head;
		if (ev) {
			ch->ev_head = ev->next;
			if (!ch->ev_head)
				ch->ev_tail = NULL;
			ev->cq->events_reported++;
			*cq_out = &ev->cq->ibv;
			*cq_context = ev->cq->ibv.cq_context;
		}
		unlock();
		if (ev) {
			free(ev);
			return 0;
		}
	}
}

SV_API void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* Blocks until an injected event is queued for this context (or fails with EAGAIN if
 * the caller made async_fd non-blocking), then hands out the oldest one. */
SV_API int ibv_get_async_event(struct ibv_context *ibctx, struct ibv_async_event *event)
{
	struct sv_ctx *ctx = to_ctx(ibctx);
	struct sv_aev *ev;
	uint64_t v;

	if (read(ibctx->async_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return -1;  /* errno from read: EAGAIN, EINTR, EBADF */
	lock();
	ev = ctx->aev_head;
	if (ev) {
		ctx->aev_head = ev->next;
		if (!ctx->aev_head)
			ctx->aev_tail = NULL;
	}
	unlock();
	if (!ev) {
		errno = EAGAIN;
		return -1;
	}
	memset(event, 0, sizeof(*event));
	event->event_type = ev->type;
	event->element.port_num = ev->port;  /* port events; 0 for DEVICE_FATAL */
	free(ev);
	return 0;
}

/* Every event read must be acked; the count lets tests check the consumer does. */
SV_API void ibv_ack_async_event(struct ibv_async_event *event)
{
	(void)event;
	lock();
	g_async_acked++;
	unlock();
}

/* Test control: raises an asynchronous event on every open context, as the kernel would
 * for the device.  IBV_EVENT_PORT_ERR takes port 1 DOWN and IBV_EVENT_PORT_ACTIVE brings
 * it back (ibv_query_port reports the change); IBV_EVENT_DEVICE_FATAL only reports.
 * Returns the number of contexts told, or -1 with errno EINVAL for another event or port. */
SV_API int softverbs_inject_async_event(int type, int port)
{
	struct sv_list *l;
	int told = 0;

	if ((type != IBV_EVENT_PORT_ERR && type != IBV_EVENT_PORT_ACTIVE && type != IBV_EVENT_DEVICE_FATAL) ||
	    (type != IBV_EVENT_DEVICE_FATAL && port != 1)) {
		errno = EINVAL;
		return -1;
	}
	lock();
	if (type == IBV_EVENT_PORT_ERR)
		g_port_state = IBV_PORT_DOWN;
	else if (type == IBV_EVENT_PORT_ACTIVE)
		g_port_state = IBV_PORT_ACTIVE;
	for (l = g_ctxs.next; l != &g_ctxs; l = l->next) {
		struct sv_ctx *ctx = container_of(l, struct sv_ctx, link);
		struct sv_aev *ev = calloc(1, sizeof(*ev));
		uint64_t one = 1;

		if (!ev)
			continue;
		ev->type = (enum ibv_event_type)type;
		ev->port = type == IBV_EVENT_DEVICE_FATAL ? 0 : port;
		if (ctx->aev_tail)
			ctx->aev_tail->next = ev;
		else
			ctx->aev_head = ev;
		ctx->aev_tail = ev;
		if (write(ctx->ibv.async_fd, &one, sizeof(one)) == (ssize_t)sizeof(one))
			told++;
	}
	unlock();
	return told;
}

/* Test control: ibv_ack_async_event calls so far. */
SV_API unsigned long softverbs_async_acked(void)
{
	unsigned long n;

	lock();
	n = g_async_acked;
	unlock();
	return n;
}

/* Test control: port 1 back to ACTIVE with no event (a clean slate between tests). */
SV_API void softverbs_reset_port(void)
{
	lock();
	g_port_state = IBV_PORT_ACTIVE;
	unlock();
}

/* ---- QPs ---------------------------------------------------------------- */

/*
 * A new QP of the given kind (SV_RC, or SV_DCI / SV_DCT from softverbs_dc.c)
 * in RESET, registered on the fabric; NULL with errno for bad caps or CQs.
 */
static struct sv_qp *qp_create(struct ibv_pd *ibpd, struct ibv_qp_init_attr *ia, int kind)
{
	struct sv_qp *qp;
	struct ibv_qp_cap *c = &ia->cap;
	uint32_t rwr, rsge;

	if (!ia->send_cq || !ia->recv_cq || ia->send_cq->context != ibpd->context ||
	    ia->recv_cq->context != ibpd->context || c->max_send_wr > SV_MAX_QP_WR ||
	    c->max_recv_wr > SV_MAX_QP_WR || c->max_send_sge > SV_MAX_SGE ||
	    c->max_recv_sge > SV_MAX_SGE || c->max_inline_data > SV_MAX_INLINE) {
		errno = EINVAL;
		return NULL;
	}
	rwr = c->max_recv_wr ? c->max_recv_wr : 1;
	rsge = c->max_recv_sge ? c->max_recv_sge : 1;
	if (!(qp = calloc(1, sizeof(*qp))) || !(qp->rq = calloc(rwr, sizeof(*qp->rq))) ||
	    !(qp->rq_sge = calloc((size_t)rwr * rsge, sizeof(*qp->rq_sge)))) {
		if (qp)
			free(qp->rq);
		free(qp);
		errno = ENOMEM;
		return NULL;
	}
	qp->init = *ia;
	qp->pd = to_pd(ibpd);
	qp->scq = to_cq(ia->send_cq);
	qp->rcq = to_cq(ia->recv_cq);
	qp->state = IBV_QPS_RESET;
	qp->ibv.context = ibpd->context;
	qp->ibv.qp_context = ia->qp_context;
	qp->ibv.pd = ibpd;
	qp->ibv.send_cq = ia->send_cq;
	qp->ibv.recv_cq = ia->recv_cq;
	qp->ibv.state = IBV_QPS_RESET;
	qp->ibv.qp_type = kind == SV_RC ? IBV_QPT_RC : IBV_QPT_DRIVER;
	qp->kind = kind;
	pthread_mutex_init(&qp->ibv.mutex, NULL);
	pthread_cond_init(&qp->ibv.cond, NULL);
	lock();
	qp->ibv.handle = g_next_handle++;
	/* 24-bit QPNs, never 0 or 1, unique on the fabric */
	qp->ibv.qp_num = fab_alloc_qpn();
	fab_publish_qp(qp->ibv.qp_num);
	qp->hnext = g_qp_hash[qp->ibv.qp_num % SV_HASH];
	g_qp_hash[qp->ibv.qp_num % SV_HASH] = qp;
	qp->pd->users++;
	qp->scq->users++;
	qp->rcq->users++;
	list_add_tail(&to_ctx(ibpd->context)->qps, &qp->link);
	unlock();
	return qp;
}

SV_API struct ibv_qp *ibv_create_qp(struct ibv_pd *ibpd, struct ibv_qp_init_attr *ia)
{
	struct sv_qp *qp;

	if (ia->qp_type != IBV_QPT_RC || ia->srq) {
		errno = EOPNOTSUPP;  /* RC without SRQ here; DC comes from mlx5dv_create_qp */
		return NULL;
	}
	qp = qp_create(ibpd, ia, SV_RC);
	return qp ? &qp->ibv : NULL;
}

/* Transition table for RC: required and optional attribute masks. */
static int rc_transition(enum ibv_qp_state cur, enum ibv_qp_state nxt, int *req, int *opt)
{
	*req = *opt = 0;
	if (nxt == IBV_QPS_RESET || nxt == IBV_QPS_ERR)
		return 1;  /* any -> RESET / ERR, no attributes */
	switch (cur) {
	case IBV_QPS_RESET:
		if (nxt == IBV_QPS_INIT) { *req = M_RST2INIT; return 1; }
		break;
	case IBV_QPS_INIT:
		if (nxt == IBV_QPS_INIT) { *opt = M_RST2INIT; return 1; }
		if (nxt == IBV_QPS_RTR) {
			*req = M_INIT2RTR;
			*opt = IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX;
			return 1;
		}
		break;
	case IBV_QPS_RTR:
		if (nxt == IBV_QPS_RTS) {
			*req = M_RTR2RTS;
			*opt = IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
			       IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE;
			return 1;
		}
		break;
	case IBV_QPS_RTS:
		if (nxt == IBV_QPS_RTS) {
			*opt = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
			       IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER;
			return 1;
		}
		break;
	default:
		break;
	}
	return 0;  /* SQD/SQE and everything else are not modelled */
}

static int dc_transition(int kind, enum ibv_qp_state cur, enum ibv_qp_state nxt, int *req, int *opt);

/* Value checks for the attributes present in mask. */
static int attr_values_ok(const struct ibv_qp_attr *a, int mask)
{
	if ((mask & IBV_QP_PORT) && a->port_num != 1)
		return 0;
	if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index != 0)
		return 0;
	if ((mask & IBV_QP_ACCESS_FLAGS) && (a->qp_access_flags & ~SV_ACCESS_QP))
		return 0;
	if ((mask & IBV_QP_AV) && a->ah_attr.port_num != 1)
		return 0;
	if ((mask & IBV_QP_PATH_MTU) && (a->path_mtu < IBV_MTU_256 || a->path_mtu > IBV_MTU_4096))
		return 0;
	if ((mask & IBV_QP_DEST_QPN) && a->dest_qp_num > 0xffffff)
		return 0;
	if ((mask & IBV_QP_RQ_PSN) && a->rq_psn > 0xffffff)
		return 0;
	if ((mask & IBV_QP_SQ_PSN) && a->sq_psn > 0xffffff)
		return 0;
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > SV_MAX_RD_ATOM)
		return 0;
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > SV_MAX_RD_ATOM)
		return 0;
	if ((mask & IBV_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return 0;
	if ((mask & IBV_QP_TIMEOUT) && a->timeout > 31)
		return 0;
	if ((mask & IBV_QP_RETRY_CNT) && a->retry_cnt > 7)
		return 0;
	if ((mask & IBV_QP_RNR_RETRY) && a->rnr_retry > 7)
		return 0;
	return 1;
}

SV_API int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *a, int mask)
{
	struct sv_qp *qp = to_qp(ibqp);
	enum ibv_qp_state cur, nxt;
	int req, opt, no_route = 0;

	lock();
	cur = qp->state;
	nxt = (mask & IBV_QP_STATE) ? a->qp_state : cur;
	if (((mask & IBV_QP_CUR_STATE) && a->cur_qp_state != cur) ||
	    (unsigned int)nxt > IBV_QPS_ERR ||
	    !(qp->kind == SV_RC ? rc_transition(cur, nxt, &req, &opt)
				: dc_transition(qp->kind, cur, nxt, &req, &opt)) ||
	    (mask & req) != req ||
	    (mask & ~(req | opt | IBV_QP_STATE)) ||
	    !attr_values_ok(a, mask) ||
	    ((mask & IBV_QP_AV) && gid_check_av(&a->ah_attr, &no_route))) {
		unlock();
		return EINVAL;
	}

	if (mask & IBV_QP_ACCESS_FLAGS)      qp->attr.qp_access_flags = a->qp_access_flags;
	if (mask & IBV_QP_PKEY_INDEX)        qp->attr.pkey_index = a->pkey_index;
	if (mask & IBV_QP_PORT)              qp->attr.port_num = a->port_num;
	if (mask & IBV_QP_AV)                qp->attr.ah_attr = a->ah_attr;
	if (mask & IBV_QP_ALT_PATH) {
		qp->attr.alt_ah_attr = a->alt_ah_attr;
		qp->attr.alt_pkey_index = a->alt_pkey_index;
		qp->attr.alt_port_num = a->alt_port_num;
		qp->attr.alt_timeout = a->alt_timeout;
	}
	if (mask & IBV_QP_PATH_MTU)          qp->attr.path_mtu = a->path_mtu;
	if (mask & IBV_QP_DEST_QPN)          qp->attr.dest_qp_num = a->dest_qp_num;
	if (mask & IBV_QP_RQ_PSN)            qp->attr.rq_psn = a->rq_psn;
	if (mask & IBV_QP_SQ_PSN)            qp->attr.sq_psn = a->sq_psn;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC) qp->attr.max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)  qp->attr.max_rd_atomic = a->max_rd_atomic;
	if (mask & IBV_QP_MIN_RNR_TIMER)     qp->attr.min_rnr_timer = a->min_rnr_timer;
	if (mask & IBV_QP_TIMEOUT)           qp->attr.timeout = a->timeout;
	if (mask & IBV_QP_RETRY_CNT)         qp->attr.retry_cnt = a->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)         qp->attr.rnr_retry = a->rnr_retry;
	if (mask & IBV_QP_PATH_MIG_STATE)    qp->attr.path_mig_state = a->path_mig_state;

	if (nxt == IBV_QPS_RESET)
		qp_reset(qp);
	else if (nxt == IBV_QPS_ERR)
		qp_to_err(qp);
	qp->state = nxt;
	if (mask & IBV_QP_AV)
		qp->no_route = qp->kind == SV_RC && no_route;  /* a DCI's route is per WR (its AH) */
	if (nxt == IBV_QPS_RTR && qp->kind == SV_RC)  /* a GID nobody owns: every request is lost (fab_attempt) */
		qp->peer_remote = qp->no_route ? 1 : fab_connect_peer(qp);
	/* libibverbs caches the new state in ibv_qp.state on success. */
	if (mask & IBV_QP_STATE)
		ibqp->state = nxt;
	unlock();
	return 0;
}

SV_API int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *a, int mask,
			struct ibv_qp_init_attr *init)
{
	struct sv_qp *qp = to_qp(ibqp);

	(void)mask;  /* everything is cheap, so fill everything */
	lock();
	*a = qp->attr;
	a->qp_state = qp->state;
	a->cur_qp_state = qp->state;
	a->cap = qp->init.cap;
	a->sq_draining = 0;
	if (init)
		*init = qp->init;
	ibqp->state = qp->state;  /* like libibverbs: refresh the cached state */
	unlock();
	return 0;
}

static void dc_free_qp(struct sv_qp *qp);

static void free_qp(struct sv_qp *qp)
{
	fab_quiesce_qp(qp);
	fab_unpublish_qp(qp->ibv.qp_num);
	mw_unbind_qp(qp);
	queue_remove_qp(qp);
	cq_purge(qp->scq, qp);
	if (qp->rcq != qp->scq)
		cq_purge(qp->rcq, qp);
	qp_hash_del(qp);
	list_del(&qp->link);
	qp->pd->users--;
	qp->scq->users--;
	qp->rcq->users--;
	dc_free_qp(qp);
	pthread_mutex_destroy(&qp->ibv.mutex);
	pthread_cond_destroy(&qp->ibv.cond);
	free(qp->rq_sge);
	free(qp->rq);
	free(qp);
}

SV_API int ibv_destroy_qp(struct ibv_qp *ibqp)
{
	lock();
	free_qp(to_qp(ibqp));  /* outstanding WRs are discarded without completions */
	unlock();
	return 0;
}

/* ---- not modelled: clean errors instead of missing symbols -------------- */

SV_API int ibv_attach_mcast(struct ibv_qp *q, const union ibv_gid *g, uint16_t l) { (void)q; (void)g; (void)l; return EOPNOTSUPP; }
SV_API int ibv_detach_mcast(struct ibv_qp *q, const union ibv_gid *g, uint16_t l) { (void)q; (void)g; (void)l; return EOPNOTSUPP; }
SV_API int ibv_fork_init(void) { return 0; }
SV_API enum ibv_fork_status ibv_is_fork_initialized(void) { return IBV_FORK_UNNEEDED; }

/* ---- strings ------------------------------------------------------------ */

SV_API const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const s[] = {
		"success", "local length error", "local QP operation error",
		"local EE context operation error", "local protection error",
		"Work Request Flushed Error", "memory management operation error",
		"bad response error", "local access error", "remote invalid request error",
		"remote access error", "remote operation error", "transport retry counter exceeded",
		"RNR retry counter exceeded", "local RDD violation error",
		"remote invalid RD request", "aborted error", "invalid EE context number",
		"invalid EE context state", "fatal error", "response timeout error",
		"general error", "TM error", "TM software rendezvous",
	};
	if ((unsigned int)status < sizeof(s) / sizeof(s[0]))
		return s[status];
	return "unknown";
}

SV_API const char *ibv_port_state_str(enum ibv_port_state st)
{
	static const char *const s[] = { "PORT_NOP", "PORT_DOWN", "PORT_INIT", "PORT_ARMED",
					 "PORT_ACTIVE", "PORT_ACTIVE_DEFER" };
	return (unsigned int)st < 6 ? s[st] : "unknown";
}

SV_API const char *ibv_node_type_str(enum ibv_node_type t)
{
	static const char *const s[] = { "unknown", "InfiniBand channel adapter",
					 "InfiniBand switch", "InfiniBand router", "iWARP NIC",
					 "usNIC", "usNIC UDP", "unspecified" };
	return (t >= IBV_NODE_CA && (unsigned int)t < 8) ? s[t] : "unknown";
}

SV_API const char *ibv_event_type_str(enum ibv_event_type ev)
{
	static const char *const s[] = {
		"CQ error", "local work queue catastrophic error", "invalid request local work queue error",
		"local access violation work queue error", "communication established",
		"send queue drained", "path migrated", "path migration request error",
		"local catastrophic error", "port active", "port error", "LID change",
		"P_Key change", "SM change", "SRQ catastrophic error", "SRQ limit reached",
		"last WQE reached", "client reregistration", "GID table change", "WQ fatal",
	};
	return (unsigned int)ev < sizeof(s) / sizeof(s[0]) ? s[ev] : "unknown";
}

/* ---- just enough for the stock ibv_devinfo tool ------------------------- */

SV_API int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	const char *val = NULL;

	if (dir && !strcmp(dir, g_dev.ibdev_path)) {
		if (!strcmp(file, "fw_ver"))
			val = "1.0.0";
		else if (!strcmp(file, "board_id"))
			val = "SOFTVERBS_0001";
		else if (!strcmp(file, "node_desc"))
			val = "softverbs " SV_DEV_NAME;
	}
	if (!val || !size) {
		errno = ENOENT;
		return -1;
	}
	snprintf(buf, size, "%s", val);
	return (int)strlen(buf);
}

#include "softverbs_dc.c"
