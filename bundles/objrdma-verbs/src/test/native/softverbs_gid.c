/*
 * softverbs_gid.c - the GID table of softrc0's port 1, laid out like a RoCE
 * port's, and the verbs that read it.
 *
 * Included by softverbs.c (not compiled alone): the table is device state,
 * built under the device lock when the process opens its first context.
 *
 * A RoCE port lists every GID of its netdev twice, once per RoCE version, and
 * the kernel adds one pair per IP address.  Here:
 *
 *   0, 1      fe80::2:c903:ab:cdef (the device's EUI-64 link-local GID), RoCE v1 then v2
 *   2, 3 ...  for each IPv4 address of the host (getifaddrs; 127.0.0.1 too, so a tool given
 *             the loopback address finds "its" GID): ::ffff:a.b.c.d, RoCE v1 then v2
 *   then      for each IPv6 address except ::1: the address, RoCE v1 then v2
 *
 * up to SV_GID_TBL_LEN entries; the rest of the table is empty, as on a NIC
 * (ibv_query_gid gives the zero GID there, ibv_query_gid_ex ENODATA).  Every
 * process on the host builds the same table: it is one device.
 *
 * Connections by GID.  RTR with is_global names a source index (it must be a
 * filled entry, else EINVAL as the kernel answers) and a destination GID.  A
 * destination GID that is not in the table belongs to nobody on this fabric:
 * the RTR succeeds, as on hardware, and every request of the QP is lost on the
 * way, so the requester retries and completes RETRY_EXC_ERR (the cross-process
 * retry path does the waiting).  With SOFTVERBS_LINK_LAYER=ethernet the port
 * is a RoCE port entirely: link layer Ethernet, LID 0, and an RTR without GRH
 * is refused with EINVAL.
 */
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#define SV_GID_TBL_LEN 32

struct sv_gid_ent {
	union ibv_gid gid;
	enum ibv_gid_type type;    /* IBV_GID_TYPE_ROCE_V1 or IBV_GID_TYPE_ROCE_V2 */
	uint32_t ifindex;          /* the netdev the GID belongs to */
};

static struct sv_gid_ent g_gids[SV_GID_TBL_LEN];
static int g_ngids;                /* filled entries, from index 0 (g_lock) */
static int g_gids_built;           /* (g_lock) */
static int g_ethernet;             /* SOFTVERBS_LINK_LAYER=ethernet: a RoCE port (g_lock) */

/* Appends gid twice, RoCE v1 then v2, if both fit. */
static void gid_add_pair(const union ibv_gid *gid, uint32_t ifindex)
{
	if (g_ngids + 2 > SV_GID_TBL_LEN)
		return;
	for (int v = 0; v < 2; v++) {
		g_gids[g_ngids].gid = *gid;
		g_gids[g_ngids].type = v ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_ROCE_V1;
		g_gids[g_ngids].ifindex = ifindex;
		g_ngids++;
	}
}

static int gid_is_v4_loopback(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET &&
	       (be32toh(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
}

/* Builds the table once per process (g_lock).  Without getifaddrs only the link-local pair is there. */
static void gid_table_build(void)
{
	struct ifaddrs *all = NULL, *a;
	union ibv_gid gid;
	uint32_t port_if = 0;

	if (g_gids_built)
		return;
	g_gids_built = 1;
	g_ngids = 0;
	if (getifaddrs(&all))
		all = NULL;
	/* The port's own netdev: the first interface with an IPv4 address that is not loopback. */
	for (a = all; a && !port_if; a = a->ifa_next)
		if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET && !gid_is_v4_loopback(a->ifa_addr))
			port_if = if_nametoindex(a->ifa_name);

	gid.global.subnet_prefix = htobe64(SV_SUBNET_PREFIX);
	gid.global.interface_id = htobe64(SV_NODE_GUID);
	gid_add_pair(&gid, port_if);
	for (a = all; a; a = a->ifa_next) {
		if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET)
			continue;
		memset(&gid, 0, sizeof(gid));
		gid.raw[10] = gid.raw[11] = 0xff;
		memcpy(gid.raw + 12, &((const struct sockaddr_in *)a->ifa_addr)->sin_addr, 4);
		gid_add_pair(&gid, if_nametoindex(a->ifa_name));
	}
	for (a = all; a; a = a->ifa_next) {
		const struct in6_addr *in6;
		if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET6)
			continue;
		in6 = &((const struct sockaddr_in6 *)a->ifa_addr)->sin6_addr;
		if (IN6_IS_ADDR_LOOPBACK(in6))
			continue;
		memcpy(gid.raw, in6->s6_addr, 16);
		gid_add_pair(&gid, if_nametoindex(a->ifa_name));
	}
	if (all)
		freeifaddrs(all);
}

/* Reads SOFTVERBS_LINK_LAYER (g_lock): "ethernet" or "roce" make a RoCE port, anything else IB. */
static void gid_read_env(void)
{
	const char *e = getenv("SOFTVERBS_LINK_LAYER");

	if (e && *e)
		g_ethernet = !strcasecmp(e, "ethernet") || !strcasecmp(e, "roce");
	gid_table_build();
}

/* Whether some filled entry holds gid (g_lock). */
static int gid_owned(const union ibv_gid *gid)
{
	for (int i = 0; i < g_ngids; i++)
		if (!memcmp(g_gids[i].gid.raw, gid->raw, 16))
			return 1;
	return 0;
}

/*
 * RTR address vector check (g_lock): returns 0 and sets *no_route when the
 * destination GID is nobody's, or EINVAL for what the kernel refuses.
 */
static int gid_check_av(const struct ibv_ah_attr *ah, int *no_route)
{
	*no_route = 0;
	if (!ah->is_global)
		return g_ethernet ? EINVAL : 0;  /* RoCE needs a GRH; IB routes by LID */
	if (ah->grh.sgid_index >= g_ngids)
		return EINVAL;                   /* no such source GID */
	*no_route = !gid_owned(&ah->grh.dgid);
	return 0;
}

/* Copies entry index of port into *out: 0, EINVAL (no such port or index) or ENODATA (an empty slot). */
static int gid_entry(uint32_t port, uint32_t index, struct sv_gid_ent *out)
{
	int rc;

	lock();
	gid_table_build();
	if (port != 1 || index >= SV_GID_TBL_LEN)
		rc = EINVAL;
	else if ((int)index >= g_ngids)
		rc = ENODATA;
	else {
		*out = g_gids[index];
		rc = 0;
	}
	unlock();
	return rc;
}

SV_API int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid)
{
	struct sv_gid_ent e;
	int rc;

	(void)ctx;
	if (index < 0) {
		errno = EINVAL;
		return -1;
	}
	rc = gid_entry(port, (uint32_t)index, &e);
	if (rc == EINVAL) {
		errno = EINVAL;
		return -1;
	}
	if (rc == ENODATA)
		memset(gid, 0, sizeof(*gid));  /* an empty slot reads as the zero GID, as through sysfs */
	else
		*gid = e.gid;
	return 0;
}

static void gid_fill_entry(struct ibv_gid_entry *out, const struct sv_gid_ent *e, uint32_t index)
{
	memset(out, 0, sizeof(*out));
	out->gid = e->gid;
	out->gid_index = index;
	out->port_num = 1;
	out->gid_type = e->type;
	out->ndev_ifindex = e->ifindex;
}

/* rdma-core 44: EINVAL for bad flags/port/index/size, ENODATA for an empty slot. */
SV_API int _ibv_query_gid_ex(struct ibv_context *ctx, uint32_t port, uint32_t index,
			     struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	struct sv_gid_ent e;
	int rc;

	(void)ctx;
	if (flags || entry_size < sizeof(*entry))
		return EINVAL;
	if ((rc = gid_entry(port, index, &e)))
		return rc;
	gid_fill_entry(entry, &e, index);
	return 0;
}

/* Every filled entry, in index order; -EINVAL if they do not fit. */
SV_API ssize_t _ibv_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *entries,
				    size_t max_entries, uint32_t flags, size_t entry_size)
{
	ssize_t n;

	(void)ctx;
	if (flags || entry_size < sizeof(*entries))
		return -EINVAL;
	lock();
	gid_table_build();
	n = g_ngids;
	if ((size_t)n > max_entries) {
		unlock();
		return -EINVAL;
	}
	for (int i = 0; i < n; i++)
		gid_fill_entry((struct ibv_gid_entry *)((char *)entries + (size_t)i * entry_size),
			       &g_gids[i], (uint32_t)i);
	unlock();
	return n;
}

/*
 * Private ABI (IBVERBS_PRIVATE_34), what ibv_devinfo asks: enum
 * ibv_gid_type_sysfs, 0 = IB/RoCE v1, 1 = RoCE v2.  An empty slot reads as 0,
 * as rdma-core reports it when sysfs has no type for the index.
 */
SV_API int ibv_query_gid_type(struct ibv_context *ctx, uint8_t port, unsigned int index, int *type)
{
	struct sv_gid_ent e;
	int rc;

	(void)ctx;
	rc = gid_entry(port, index, &e);
	if (rc == EINVAL) {
		errno = EINVAL;
		return -1;
	}
	*type = rc == 0 && e.type == IBV_GID_TYPE_ROCE_V2 ? 1 : 0;
	return 0;
}
