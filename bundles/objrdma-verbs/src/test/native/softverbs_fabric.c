/*
 * softverbs_fabric.c - the part of softrc0 that spans processes.
 *
 * Included by softverbs.c (not compiled alone): it works on the device's own
 * objects under the device's one lock, and a separate translation unit would
 * have to export all of them.
 *
 * Every process that opens the device joins one fabric, a directory
 * ($SOFTVERBS_FABRIC, default /dev/shm/softverbs-<uid>, /tmp/softverbs-<uid> without /dev/shm):
 *
 *   qpn           a shared counter (mmap'd, atomic add): QPNs are unique fabric-wide
 *   p<pid>.sock   the process's service socket (AF_UNIX stream), while a context is open
 *   q<qpn>        symlink -> p<pid>.sock for every QP of that process
 *
 * A QP whose peer QPN is not in this process is "remote".  Its send WRs go to
 * the worker thread (as in deferred mode, so post_send never blocks on
 * another process); the worker sends one request per WR to the responder's
 * service socket and waits for its answer, with the device lock dropped.
 * The responder's service thread (one per connected peer process) does every
 * responder-side check itself - connection, QP access flags, rkey, PD,
 * bounds, memory windows, posted receives - with the same code as the
 * in-process path, moves the bytes straight between the socket and the
 * registered memory, and makes the responder-side completions and state
 * changes (QP -> ERR on an access violation).  What the requester sees is the
 * status the responder sends back.
 *
 * A peer process that goes away closes its sockets (the kernel does it for a
 * killed one): the requester's next or current WR completes with
 * RETRY_EXC_ERR, and SV_FAB_LINKDOWN_MS later the responder moves every QP
 * connected to that process to ERR, which flushes its receives - a link-down,
 * never a hang.
 *
 * Retries, as an RC requester does them.  A request for a QP that cannot take
 * it (no such QP, not connected to the requester, not yet in RTR) is dropped
 * by the responder, as a NIC drops the packets: the requester waits its local
 * ACK timeout (4.096 us * 2^timeout) and sends again, at most retry_cnt times,
 * then completes RETRY_EXC_ERR.  A SEND / WRITE_WITH_IMM that finds no posted
 * receive is NAKed RNR with the responder's min_rnr_timer; the requester waits
 * that long and sends again, at most rnr_retry times (7: until
 * SV_FAB_RNR_CAP_S has passed, where a NIC would retry for ever), then
 * completes RNR_RETRY_EXC_ERR.  The one worker sleeps through the wait (the
 * device lock dropped), so other remote WRs of this process wait behind it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>

#define SV_FAB_MAGIC     0x53564632u  /* "SVF2": requests carry the DC fields */
#define SV_FAB_MAX_CONN  64           /* inbound connections (peer processes) served at once */
#define SV_FAB_MAX_PEERS 64           /* outbound connections cached by the worker */
#define SV_FAB_TIMEOUT_S 10           /* a silent peer fails a WR after this long (RETRY_EXC_ERR) */
#define SV_FAB_RNR_CAP_S 10           /* rnr_retry 7 ("infinite") gives up after this long */
#define SV_FAB_LINKDOWN_MS 1000       /* a peer process's end is acted on this long after its EOF */
#define SV_FAB_DROPPED   0x100u       /* wire status: no QP took the request; the requester retries */
#define SV_WIRE_DC       0x100u       /* request flag: from a DCI to the DCT dst_qpn, with dc_key */

struct sv_wire_req {
	uint32_t magic;
	uint32_t opcode;                   /* enum ibv_wr_opcode */
	uint32_t src_qpn, dst_qpn;
	uint32_t rkey, imm;
	uint32_t len;                      /* WRITE/SEND: payload bytes that follow; READ: bytes wanted */
	uint32_t flags;                    /* RECV_SOLICITED, SV_WIRE_DC */
	uint64_t remote_addr, compare_add, swap;
	uint64_t dc_key;                   /* SV_WIRE_DC: the key the DCT checks */
};

struct sv_wire_rep {
	uint32_t status;                   /* the requester's completion status, or SV_FAB_DROPPED */
	uint32_t len;                      /* READ/atomic on success: bytes that follow; RNR NAK: min_rnr_timer */
};

struct sv_fab_conn { int fd; pid_t pid; pthread_t thread; int used, done; };
struct sv_fab_peer { pid_t pid; int fd; };

static char g_fab_dir[80];
static int g_fab_up;                           /* service running (g_lock) */
static int g_fab_listen = -1;
static pthread_t g_fab_accept;
static uint64_t *g_fab_qpn_ctr;                /* shared QPN counter (mmap) */
static struct sv_fab_conn g_fab_conn[SV_FAB_MAX_CONN];   /* (g_lock) */
static struct sv_fab_peer g_fab_peer[SV_FAB_MAX_PEERS];  /* (g_lock) */
static struct sv_qp *g_fab_exec_qp;            /* QP whose WR the worker runs unlocked (g_lock) */
static int g_fab_exec_cancel;                  /* free_qp wants g_fab_exec_qp: stop retrying (g_lock) */
static pid_t g_fab_exec_pid;                   /* the process g_fab_exec_qp's request went to (g_lock) */
static int g_fab_exec_waiting;                 /* the worker sleeps between two tries (g_lock) */
static pthread_cond_t g_fab_retry_cv = PTHREAD_COND_INITIALIZER;  /* wakes a retry wait early */
static pthread_cond_t g_fab_down_cv = PTHREAD_COND_INITIALIZER;   /* fab_stop: no link-down grace now */
static pthread_cond_t g_fab_exec_cv = PTHREAD_COND_INITIALIZER;

static void fab_path(char *buf, size_t n, const char *fmt, unsigned long v)
{
	char name[32];

	snprintf(name, sizeof(name), fmt, v);
	snprintf(buf, n, "%s/%s", g_fab_dir, name);
}

/* ---- fabric directory: QPN allocation and QPN -> process lookup --------- */

static int fab_dir_init(void)
{
	const char *e = getenv("SOFTVERBS_FABRIC");
	char path[128];
	int fd;
	void *p;

	struct stat st;

	if (e && *e)
		snprintf(g_fab_dir, sizeof(g_fab_dir), "%s", e);
	else  /* /dev/shm where it exists (tmpfs), else /tmp */
		snprintf(g_fab_dir, sizeof(g_fab_dir), "%s/softverbs-%u",
			 stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp", (unsigned)getuid());
	if (strlen(g_fab_dir) > sizeof(g_fab_dir) - 2 ||
	    (mkdir(g_fab_dir, 0700) && errno != EEXIST))
		return -1;
	snprintf(path, sizeof(path), "%s/qpn", g_fab_dir);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0)
		return -1;
	if (ftruncate(fd, 4096)) {  /* same size every time: harmless when another process did it */
		close(fd);
		return -1;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	g_fab_qpn_ctr = p;
	return 0;
}

/* A 24-bit QPN no process on the fabric uses (g_lock). */
static uint32_t fab_alloc_qpn(void)
{
	uint32_t qpn;

	do {
		if (g_fab_qpn_ctr) {
			uint64_t n = __atomic_fetch_add(g_fab_qpn_ctr, 1, __ATOMIC_RELAXED);
			qpn = SV_QPN_FIRST + (uint32_t)(n % (0x1000000u - SV_QPN_FIRST));
		} else {
			qpn = g_next_qpn;
			g_next_qpn = (g_next_qpn + 1) & 0xffffff;
			if (g_next_qpn < SV_QPN_FIRST)
				g_next_qpn = SV_QPN_FIRST;
		}
	} while (find_qp(qpn));
	return qpn;
}

static void fab_publish_qp(uint32_t qpn)
{
	char link[128], target[32];

	if (!g_fab_up)
		return;
	fab_path(link, sizeof(link), "q%lx", qpn);
	snprintf(target, sizeof(target), "p%lu.sock", (unsigned long)getpid());
	unlink(link);  /* a stale link of a dead process after the counter wrapped */
	if (symlink(target, link))
		fprintf(stderr, "softverbs: cannot publish QP 0x%x in %s: %s\n", qpn, g_fab_dir, strerror(errno));
}

static void fab_unpublish_qp(uint32_t qpn)
{
	char link[128];

	if (!g_fab_up)
		return;
	fab_path(link, sizeof(link), "q%lx", qpn);
	unlink(link);
}

/* The process serving qpn, or 0 if no process on the fabric has it. */
static pid_t fab_owner(uint32_t qpn)
{
	char link[128], target[64];
	ssize_t n;
	unsigned long pid;

	if (!g_fab_up)
		return 0;
	fab_path(link, sizeof(link), "q%lx", qpn);
	if ((n = readlink(link, target, sizeof(target) - 1)) <= 0)
		return 0;
	target[n] = 0;
	if (sscanf(target, "p%lu.sock", &pid) != 1 || pid == (unsigned long)getpid())
		return 0;
	return (pid_t)pid;
}

/* ---- byte movement ------------------------------------------------------- */

static int fab_send_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)n };
		ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++; n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

static int fab_recv_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t r = readv(fd, iov, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		while (n > 0 && (size_t)r >= iov->iov_len) {
			r -= (ssize_t)iov->iov_len;
			iov++; n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + r;
			iov->iov_len -= (size_t)r;
		}
	}
	return 0;
}

static int fab_recv_buf(int fd, void *p, size_t len)
{
	struct iovec v = { p, len };
	return len ? fab_recv_all(fd, &v, 1) : 0;
}

static int fab_discard(int fd, uint64_t len)
{
	unsigned char sink[16384];

	while (len) {
		size_t n = len < sizeof(sink) ? (size_t)len : sizeof(sink);
		if (fab_recv_buf(fd, sink, n))
			return -1;
		len -= n;
	}
	return 0;
}

/* An iovec over the first len bytes of an SGE list mapped to host pointers. */
static int fab_iov(struct iovec *iov, void **p, const struct ibv_sge *sge, int n, uint32_t len)
{
	int k = 0;

	for (int i = 0; i < n && len; i++) {
		uint32_t l = sge[i].length < len ? sge[i].length : len;
		if (!l)
			continue;
		iov[k].iov_base = p[i];
		iov[k].iov_len = l;
		len -= l;
		k++;
	}
	return k;
}

/* ---- requester side (the worker thread) ---------------------------------- */

static void fab_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = SV_FAB_TIMEOUT_S };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* The cached connection to pid's service, connecting if needed (g_lock; connect is immediate on AF_UNIX). */
static int fab_peer_fd(pid_t pid)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int free_slot = -1, fd;

	for (int i = 0; i < SV_FAB_MAX_PEERS; i++) {
		if (g_fab_peer[i].pid == pid)
			return g_fab_peer[i].fd;
		if (!g_fab_peer[i].pid && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
		return -1;
	fab_path(sa.sun_path, sizeof(sa.sun_path), "p%lu.sock", (unsigned long)pid);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	fab_timeouts(fd);
	g_fab_peer[free_slot].pid = pid;
	g_fab_peer[free_slot].fd = fd;
	return fd;
}

static void fab_peer_drop(pid_t pid)
{
	for (int i = 0; i < SV_FAB_MAX_PEERS; i++)
		if (g_fab_peer[i].pid == pid) {
			close(g_fab_peer[i].fd);
			g_fab_peer[i].pid = 0;
			g_fab_peer[i].fd = -1;
		}
}

/*
 * INIT->RTR towards a QP of another process: connect now, so that process
 * learns at once if we die (its service sees EOF), even if we never send.
 * Returns whether the peer is remote.  A peer that is not there yet is no
 * error here, as on hardware: the first WR will fail instead.
 */
static int fab_connect_peer(struct sv_qp *qp)
{
	pid_t pid;

	if (find_qp(qp->attr.dest_qp_num) || !(pid = fab_owner(qp->attr.dest_qp_num)))
		return 0;
	fab_peer_fd(pid);
	return 1;
}

/*
 * Run op against the responder in another process.  Called by the worker with
 * g_lock held; drops it for the I/O.  lp[] are the checked local SGEs.
 * Returns the requester's completion status.
 */
static enum ibv_wc_status fab_attempt(struct sv_op *op, void **lp, uint32_t len, uint32_t *rnr_timer)
{
	struct sv_qp *qp = op->qp;
	struct sv_wire_req rq = {
		.magic = SV_FAB_MAGIC,
		.opcode = op->opcode,
		.src_qpn = qp->ibv.qp_num,
		.dst_qpn = op->dc ? op->dctn : qp->attr.dest_qp_num,
		.rkey = op->rkey,
		.imm = op->imm,
		.len = len,
		.flags = ((op->send_flags & IBV_SEND_SOLICITED) ? RECV_SOLICITED : 0) | (op->dc ? SV_WIRE_DC : 0),
		.remote_addr = op->remote_addr,
		.compare_add = op->compare_add,
		.swap = op->swap,
		.dc_key = op->dc ? op->dc_key : 0,
	};
	struct sv_wire_rep rep;
	struct iovec iov[SV_MAX_SGE + 1];
	int n = 1, fd, is_read = 0, outbound = 0;
	pid_t pid = (op->dc ? op->dc_no_route : qp->no_route) ? 0 : fab_owner(rq.dst_qpn);  /* no owner of the GID: lost */

	switch (op->opcode) {
	case IBV_WR_RDMA_READ:
		is_read = 1;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		is_read = 1;
		rq.len = len = 8;
		break;
	default:
		outbound = 1;
		break;
	}
	g_fab_exec_pid = pid;
	if (!pid)
		return (enum ibv_wc_status)SV_FAB_DROPPED;  /* no such QP on the fabric: nobody answers */
	if ((fd = fab_peer_fd(pid)) < 0)
		return IBV_WC_RETRY_EXC_ERR;  /* its process is gone */

	iov[0].iov_base = &rq;
	iov[0].iov_len = sizeof(rq);
	if (outbound && len) {
		if (op->send_flags & IBV_SEND_INLINE) {
			iov[1].iov_base = op->inline_data;
			iov[1].iov_len = len;
			n = 2;
		} else {
			n += fab_iov(iov + 1, lp, op->sge, op->num_sge, len);
		}
	}

	unlock();
	int bad = fab_send_all(fd, iov, n) || fab_recv_buf(fd, &rep, sizeof(rep));
	if (!bad && is_read && rep.status == IBV_WC_SUCCESS) {
		if (rep.len != len) {
			bad = 1;
		} else {
			n = fab_iov(iov, lp, op->sge, op->num_sge, len);
			bad = fab_recv_all(fd, iov, n);
		}
	}
	lock();
	if (bad) {
		fab_peer_drop(pid);
		return IBV_WC_RETRY_EXC_ERR;
	}
	*rnr_timer = rep.len;
	return (enum ibv_wc_status)rep.status;
}

/* IB's encoding of the RNR NAK timer (IBTA table 45), in microseconds; 0 is the longest. */
static const uint32_t rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
	163840, 245760, 327680, 491520,
};

/* Waits us microseconds (g_lock, dropped meanwhile); returns 0, or 1 if free_qp wants the QP now. */
static int fab_retry_wait(uint64_t us)
{
	struct timespec due;

	clock_gettime(CLOCK_REALTIME, &due);
	due.tv_sec += (time_t)(us / 1000000);
	due.tv_nsec += (long)(us % 1000000) * 1000;
	if (due.tv_nsec >= 1000000000L) {
		due.tv_sec++;
		due.tv_nsec -= 1000000000L;
	}
	g_fab_exec_waiting = 1;
	pthread_cond_broadcast(&g_fab_exec_cv);  /* fab_peer_gone need not wait for a sleeping retry */
	while (!g_fab_exec_cancel && pthread_cond_timedwait(&g_fab_retry_cv, &g_lock, &due) != ETIMEDOUT)
		;
	g_fab_exec_waiting = 0;
	return g_fab_exec_cancel;
}

/*
 * Run op against the responder in another process, with the requester's
 * retries (see the head of this file).  Called by the worker with g_lock held;
 * drops it for the I/O and the waits.  Returns the completion status.
 */
static enum ibv_wc_status fab_execute(struct sv_op *op, void **lp, uint32_t len)
{
	struct sv_qp *qp = op->qp;
	unsigned retries = 0, rnr_retries = 0;
	struct timespec start, now;
	enum ibv_wc_status st;

	clock_gettime(CLOCK_MONOTONIC, &start);
	g_fab_exec_qp = qp;
	g_fab_exec_cancel = 0;
	for (;;) {
		uint32_t rnr_timer = 0;
		uint64_t wait_us;

		st = fab_attempt(op, lp, len, &rnr_timer);
		if ((uint32_t)st == SV_FAB_DROPPED) {
			if (retries++ >= qp->attr.retry_cnt) {
				st = IBV_WC_RETRY_EXC_ERR;
				break;
			}
			/* timeout 0 is "infinite" on IB: one wait is capped at SV_FAB_TIMEOUT_S */
			wait_us = (4096ull << (qp->attr.timeout ? qp->attr.timeout : 31)) / 1000;
			if (wait_us > SV_FAB_TIMEOUT_S * 1000000ull)
				wait_us = SV_FAB_TIMEOUT_S * 1000000ull;
		} else if (st == IBV_WC_RNR_RETRY_EXC_ERR) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (qp->attr.rnr_retry == 7 ? now.tv_sec - start.tv_sec >= SV_FAB_RNR_CAP_S
						    : rnr_retries++ >= qp->attr.rnr_retry)
				break;
			wait_us = rnr_timer_us[rnr_timer & 31];
		} else {
			break;
		}
		if (fab_retry_wait(wait_us) || qp->state != IBV_QPS_RTS) {
			st = IBV_WC_WR_FLUSH_ERR;  /* destroyed, reset or moved to ERR while waiting */
			break;
		}
	}
	g_fab_exec_qp = NULL;
	pthread_cond_broadcast(&g_fab_exec_cv);
	return st;
}

/* free_qp: wait while the worker is moving bytes for this QP with the lock dropped (g_lock). */
static void fab_quiesce_qp(struct sv_qp *qp)
{
	if (g_fab_exec_qp == qp) {
		g_fab_exec_cancel = 1;
		pthread_cond_broadcast(&g_fab_retry_cv);
	}
	while (g_fab_exec_qp == qp)
		pthread_cond_wait(&g_fab_exec_cv, &g_lock);
}

/* ---- responder side (one service thread per connected peer process) ----- */

/* The local QP a request is for, if it is connected to the requester and can receive (g_lock). */
static struct sv_qp *fab_responder(const struct sv_wire_req *r)
{
	struct sv_qp *rq = find_qp(r->dst_qpn);

	if (r->flags & SV_WIRE_DC)  /* a DCT in RTR; its key is checked by the caller (dc_key_refused) */
		return rq && rq->kind == SV_DCT && (rq->state == IBV_QPS_RTR || rq->state == IBV_QPS_RTS) &&
		       (r->opcode == IBV_WR_RDMA_WRITE || r->opcode == IBV_WR_RDMA_READ) ? rq : NULL;
	if (!rq || rq->kind != SV_RC || rq->attr.dest_qp_num != r->src_qpn ||
	    (rq->state != IBV_QPS_RTR && rq->state != IBV_QPS_RTS))
		return NULL;
	return rq;
}

static int fab_reply(int fd, enum ibv_wc_status st, const struct iovec *data, int n)
{
	struct sv_wire_rep rep = { .status = st };
	struct iovec iov[2] = { { &rep, sizeof(rep) } };
	int k = 1;

	if (st == IBV_WC_RNR_RETRY_EXC_ERR && n)  /* an RNR NAK carries the responder's timer */
		rep.len = (uint32_t)data->iov_len;
	else if (st == IBV_WC_SUCCESS && n) {
		rep.len = (uint32_t)data->iov_len;
		iov[1] = *data;
		k = 2;
	}
	return fab_send_all(fd, iov, k);
}

/* A reply without data: success, an error, or an RNR NAK with the responder's min_rnr_timer. */
static int fab_reply_nak(int fd, enum ibv_wc_status st, uint8_t rnr_timer)
{
	struct iovec timer = { NULL, rnr_timer };

	return fab_reply(fd, st, &timer, st == IBV_WC_RNR_RETRY_EXC_ERR);
}

/*
 * The receive a SEND / WRITE_WITH_IMM consumed completes only after the
 * requester has its ACK (fab_reply), as a NIC acknowledges what it placed:
 * a responder program that sees its receive and exits at once must not take
 * the ACK with it.  A QP that left RTR/RTS meanwhile gets the receive flushed.
 */
static void fab_complete_recv(const struct sv_wire_req *r, uint64_t wr_id, enum ibv_wc_opcode opcode, int flags)
{
	struct sv_qp *rq;

	lock();
	if ((rq = find_qp(r->dst_qpn))) {
		if (fab_responder(r))
			complete_recv_from(rq, wr_id, IBV_WC_SUCCESS, opcode, r->len, r->src_qpn, r->imm, flags);
		else
			complete_recv_from(rq, wr_id, IBV_WC_WR_FLUSH_ERR, opcode, 0, r->src_qpn, 0, 0);
	}
	unlock();
}

static int fab_serve_write(int fd, const struct sv_wire_req *r)
{
	enum ibv_wc_status st = IBV_WC_SUCCESS;
	unsigned char *dst = NULL;
	struct sv_qp *rq;
	int imm = r->opcode == IBV_WR_RDMA_WRITE_WITH_IMM, consumed = 0;
	uint8_t rnr_timer = 0;
	uint64_t wr_id = 0;

	lock();
	if (!(rq = fab_responder(r)))
		st = (enum ibv_wc_status)SV_FAB_DROPPED;
	else if ((r->flags & SV_WIRE_DC) && rq->dct_key != r->dc_key)
		st = IBV_WC_REM_ACCESS_ERR;  /* a wrong dc_key: nothing placed (softverbs_dc.c) */
	else if (!(rq->attr.qp_access_flags & IBV_ACCESS_REMOTE_WRITE))
		st = IBV_WC_REM_INV_REQ_ERR;
	else if (r->len && !(dst = remote_map(rq, r->rkey, r->remote_addr, r->len, IBV_ACCESS_REMOTE_WRITE))) {
		st = IBV_WC_REM_ACCESS_ERR;
		responder_violation(rq);
	} else if (imm && !rq->rq_count) {
		st = IBV_WC_RNR_RETRY_EXC_ERR;
		rnr_timer = rq->attr.min_rnr_timer;
	}
	unlock();

	/* The payload lands straight in the registered memory (unlocked, as a NIC's DMA). */
	if (st == IBV_WC_SUCCESS ? fab_recv_buf(fd, dst, r->len) : fab_discard(fd, r->len))
		return -1;
	if (st == IBV_WC_SUCCESS && imm) {
		lock();
		if ((rq = fab_responder(r)) && rq->rq_count) {
			wr_id = rq->rq[rq->rq_head].wr_id;
			rq->rq_head = (rq->rq_head + 1) % rq->init.cap.max_recv_wr;
			rq->rq_count--;
			consumed = 1;
		} else {
			st = IBV_WC_RETRY_EXC_ERR;  /* torn down while the data was in flight */
		}
		unlock();
	}
	int bad = fab_reply_nak(fd, st, rnr_timer);
	if (consumed)
		fab_complete_recv(r, wr_id, IBV_WC_RECV_RDMA_WITH_IMM, RECV_WITH_IMM | (int)r->flags);
	return bad;
}

static int fab_serve_send(int fd, const struct sv_wire_req *r)
{
	enum ibv_wc_status st;
	struct sv_qp *rq;
	struct ibv_sge *rs = NULL;
	void *rp[SV_MAX_SGE];
	struct iovec iov[SV_MAX_SGE];
	uint64_t wr_id = 0;
	int nsge = 0, n = 0;
	uint8_t rnr_timer = 0;

	lock();
	if (!(rq = fab_responder(r)))
		st = (enum ibv_wc_status)SV_FAB_DROPPED;
	else if ((st = recv_claim(rq, r->len, r->src_qpn, &wr_id, &rs, &nsge, rp)) == IBV_WC_RNR_RETRY_EXC_ERR)
		rnr_timer = rq->attr.min_rnr_timer;
	if (st == IBV_WC_SUCCESS)
		n = fab_iov(iov, rp, rs, nsge, r->len);
	unlock();

	if (st == IBV_WC_SUCCESS ? fab_recv_all(fd, iov, n) : fab_discard(fd, r->len))
		return -1;
	int bad = fab_reply_nak(fd, st, rnr_timer);
	if (st == IBV_WC_SUCCESS)
		fab_complete_recv(r, wr_id, IBV_WC_RECV, (r->opcode == IBV_WR_SEND_WITH_IMM ? RECV_WITH_IMM : 0) | (int)r->flags);
	return bad;
}

static int fab_serve_read(int fd, const struct sv_wire_req *r)
{
	enum ibv_wc_status st = IBV_WC_SUCCESS;
	unsigned char *src = NULL;
	struct sv_qp *rq;

	lock();
	if (!(rq = fab_responder(r)))
		st = (enum ibv_wc_status)SV_FAB_DROPPED;
	else if ((r->flags & SV_WIRE_DC) && rq->dct_key != r->dc_key)
		st = IBV_WC_REM_ACCESS_ERR;  /* a wrong dc_key: nothing read (softverbs_dc.c) */
	else if (!(rq->attr.qp_access_flags & IBV_ACCESS_REMOTE_READ))
		st = IBV_WC_REM_INV_REQ_ERR;
	else if (r->len && !(src = remote_map(rq, r->rkey, r->remote_addr, r->len, IBV_ACCESS_REMOTE_READ))) {
		st = IBV_WC_REM_ACCESS_ERR;
		responder_violation(rq);
	}
	unlock();
	struct iovec data = { src, r->len };
	return fab_reply(fd, st, &data, r->len ? 1 : 0);
}

static int fab_serve_atomic(int fd, const struct sv_wire_req *r)
{
	enum ibv_wc_status st = IBV_WC_SUCCESS;
	uint64_t *p, old = 0;
	struct sv_qp *rq;

	lock();
	if (!(rq = fab_responder(r)))
		st = (enum ibv_wc_status)SV_FAB_DROPPED;
	else if (!(rq->attr.qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC) || (r->remote_addr & 7))
		st = IBV_WC_REM_INV_REQ_ERR;
	else if (!(p = remote_map(rq, r->rkey, r->remote_addr, 8, IBV_ACCESS_REMOTE_ATOMIC))) {
		st = IBV_WC_REM_ACCESS_ERR;
		responder_violation(rq);
	} else {
		/* Atomic with respect to every softverbs operation this process executes (g_lock). */
		old = *p;
		if (r->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
			*p = old + r->compare_add;
		else if (old == r->compare_add)
			*p = r->swap;
	}
	unlock();
	struct iovec data = { &old, 8 };
	return fab_reply(fd, st, &data, 1);
}

/*
 * The peer process closed its connection (exited, was killed, or closed its
 * last context): every QP here connected to a QP of that process, or to one
 * no process has any more, goes to ERR and flushes (g_lock).
 */
static void fab_peer_gone(pid_t pid)
{
	/*
	 * A request of ours to that process whose answer is in flight finishes first:
	 * an ACK it sent before it went is on our socket already, and a NIC would have
	 * taken it before anything noticed the peer had gone (its EOF comes at once).
	 */
	while (g_fab_exec_qp && g_fab_exec_pid == pid && !g_fab_exec_waiting)
		pthread_cond_wait(&g_fab_exec_cv, &g_lock);
	for (struct sv_list *c = g_ctxs.next; c != &g_ctxs; c = c->next) {
		struct sv_ctx *ctx = container_of(c, struct sv_ctx, link);
		for (struct sv_list *l = ctx->qps.next; l != &ctx->qps; l = l->next) {
			struct sv_qp *qp = container_of(l, struct sv_qp, link);
			pid_t owner;
			/* DC QPs have no peer: a DCI's requests to that process failed
			 * already, and a DCT only answers. */
			if (qp->kind != SV_RC || (qp->state != IBV_QPS_RTR && qp->state != IBV_QPS_RTS) ||
			    find_qp(qp->attr.dest_qp_num))
				continue;
			owner = fab_owner(qp->attr.dest_qp_num);
			if (!owner || owner == pid)
				qp_to_err(qp);
		}
	}
	/* Our own connection to it is dead too; the worker may be using it right now, so
	 * only shut it down: the worker's next I/O on it fails and closes it. */
	for (int i = 0; i < SV_FAB_MAX_PEERS; i++)
		if (g_fab_peer[i].pid == pid)
			shutdown(g_fab_peer[i].fd, SHUT_RDWR);
}

static void *fab_conn_main(void *arg)
{
	struct sv_fab_conn *c = arg;
	struct sv_wire_req r;

	for (;;) {
		int bad;
		if (fab_recv_buf(c->fd, &r, sizeof(r)) || r.magic != SV_FAB_MAGIC)
			break;
		switch (r.opcode) {
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_WRITE_WITH_IMM: bad = fab_serve_write(c->fd, &r); break;
		case IBV_WR_SEND:
		case IBV_WR_SEND_WITH_IMM:       bad = fab_serve_send(c->fd, &r); break;
		case IBV_WR_RDMA_READ:           bad = fab_serve_read(c->fd, &r); break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD: bad = fab_serve_atomic(c->fd, &r); break;
		default:                         bad = 1; break;
		}
		if (bad)
			break;
	}
	/*
	 * A NIC never learns that a peer it only answers went away; here its QPs go to
	 * ERR (a link down, so nothing hangs), but only after SV_FAB_LINKDOWN_MS: the
	 * survivor first polls what the peer acknowledged before it exited (a program
	 * like ibv_rc_pingpong would otherwise meet a flushed receive beside its last
	 * completion and fail although every message arrived).
	 */
	lock();
	struct timespec due;
	clock_gettime(CLOCK_REALTIME, &due);
	due.tv_nsec += (long)(SV_FAB_LINKDOWN_MS % 1000) * 1000000L;
	due.tv_sec += SV_FAB_LINKDOWN_MS / 1000 + due.tv_nsec / 1000000000L;
	due.tv_nsec %= 1000000000L;
	while (g_fab_up && pthread_cond_timedwait(&g_fab_down_cv, &g_lock, &due) != ETIMEDOUT)
		;
	if (g_fab_up)
		fab_peer_gone(c->pid);
	c->done = 1;
	unlock();
	return NULL;
}

static void *fab_accept_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct ucred cred;
		socklen_t cl = sizeof(cred);
		int fd = accept4(g_fab_listen, NULL, NULL, SOCK_CLOEXEC), slot = -1;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break;  /* the listener was shut down */
		}
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl)) {
			close(fd);
			continue;
		}
		lock();
		for (int i = 0; i < SV_FAB_MAX_CONN; i++) {
			if (g_fab_conn[i].used && g_fab_conn[i].done) {  /* reap a finished one */
				pthread_join(g_fab_conn[i].thread, NULL);
				close(g_fab_conn[i].fd);
				g_fab_conn[i].used = 0;
			}
			if (!g_fab_conn[i].used && slot < 0)
				slot = i;
		}
		if (slot >= 0 && g_fab_up) {
			struct sv_fab_conn *c = &g_fab_conn[slot];
			c->fd = fd;
			c->pid = cred.pid;
			c->done = 0;
			c->used = 1;
			if (pthread_create(&c->thread, NULL, fab_conn_main, c))
				c->used = 0;
		}
		if (slot < 0 || !g_fab_conn[slot].used)
			close(fd);
		unlock();
	}
	return NULL;
}

/* Names of processes that no longer exist (killed, or exited with contexts open): removed
 * when a process joins, so the directory does not grow without bound. */
static void fab_sweep(void)
{
	DIR *d = opendir(g_fab_dir);
	struct dirent *e;
	char path[128], target[64];
	unsigned long pid;

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *owner = e->d_name;
		if (e->d_name[0] == 'q') {
			ssize_t n;
			snprintf(path, sizeof(path), "%s/%s", g_fab_dir, e->d_name);
			if ((n = readlink(path, target, sizeof(target) - 1)) <= 0)
				continue;
			target[n] = 0;
			owner = target;
		}
		if (sscanf(owner, "p%lu.sock", &pid) == 1 && kill((pid_t)pid, 0) && errno == ESRCH) {
			snprintf(path, sizeof(path), "%s/%s", g_fab_dir, e->d_name);
			unlink(path);
		}
	}
	closedir(d);
}

/* First context opened: join the fabric (g_lock).  Without it the device is process-local. */
static void fab_start(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (g_fab_up)
		return;
	if (!g_fab_qpn_ctr && fab_dir_init()) {
		fprintf(stderr, "softverbs: fabric directory %s unusable (%s): this process is a fabric of its own\n",
			g_fab_dir, strerror(errno));
		return;
	}
	fab_sweep();
	fab_path(sa.sun_path, sizeof(sa.sun_path), "p%lu.sock", (unsigned long)getpid());
	unlink(sa.sun_path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 64)) {
		fprintf(stderr, "softverbs: cannot serve %s: %s\n", sa.sun_path, strerror(errno));
		close(fd);
		return;
	}
	g_fab_listen = fd;
	for (int i = 0; i < SV_FAB_MAX_PEERS; i++)
		g_fab_peer[i].pid = 0;
	if (pthread_create(&g_fab_accept, NULL, fab_accept_main, NULL)) {
		close(fd);
		unlink(sa.sun_path);
		g_fab_listen = -1;
		return;
	}
	g_fab_up = 1;
}

/* Last context closed (after its QPs and the worker are gone): leave the fabric.
 * Drops and retakes g_lock while the service threads finish. */
static void fab_stop(void)
{
	char path[128];

	if (!g_fab_up)
		return;
	g_fab_up = 0;
	pthread_cond_broadcast(&g_fab_down_cv);
	for (int i = 0; i < SV_FAB_MAX_PEERS; i++)
		if (g_fab_peer[i].pid)
			fab_peer_drop(g_fab_peer[i].pid);
	fab_path(path, sizeof(path), "p%lu.sock", (unsigned long)getpid());
	unlink(path);
	shutdown(g_fab_listen, SHUT_RDWR);
	for (int i = 0; i < SV_FAB_MAX_CONN; i++)
		if (g_fab_conn[i].used)
			shutdown(g_fab_conn[i].fd, SHUT_RDWR);
	unlock();
	pthread_join(g_fab_accept, NULL);
	lock();
	for (int i = 0; i < SV_FAB_MAX_CONN; i++) {
		if (!g_fab_conn[i].used)
			continue;
		unlock();
		pthread_join(g_fab_conn[i].thread, NULL);
		lock();
		close(g_fab_conn[i].fd);
		g_fab_conn[i].used = 0;
	}
	close(g_fab_listen);
	g_fab_listen = -1;
}

/* Process exit with contexts still open: take our names off the fabric (g_lock).
 * The kernel closes the sockets, which the peers see as a link down. */
static void fab_exit(void)
{
	char path[128];

	if (!g_fab_up)
		return;
	for (int i = 0; i < SV_HASH; i++)
		for (struct sv_qp *qp = g_qp_hash[i]; qp; qp = qp->hnext)
			fab_unpublish_qp(qp->ibv.qp_num);
	fab_path(path, sizeof(path), "p%lu.sock", (unsigned long)getpid());
	unlink(path);
}
