/* SPDX-License-Identifier: MIT */
/*
 * Choosing where an end lives (device, port, GID) and reading the device's
 * own counters. A RoCE v2 GID is an IP address in a GID's clothing: the
 * IPv4-mapped one (::ffff:a.b.c.d) is what rdma_cm and routing understand.
 */
#include "verbs.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const verbs_modes[] = { "ud", "rc", "rc_write_imm", NULL };

/* Bytes of an ibv_mtu value. */
unsigned verbs_mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0;
}

/* True if gid is an IPv4-mapped address (::ffff:a.b.c.d). */
static bool gid_is_ipv4(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

/* Fill w from GID table entry e of an open device. */
static void where_from_entry(struct verbs_where *w,
			     const struct ibv_gid_entry *e)
{
	w->gid_index = (int)e->gid_index;
	w->gid = e->gid;
	w->ipv4 = gid_is_ipv4(&e->gid);
	if (w->ipv4)
		memcpy(&w->addr, &e->gid.raw[12], sizeof(w->addr));
	w->ifname[0] = '\0';
	if (e->ndev_ifindex)
		if_indextoname(e->ndev_ifindex, w->ifname);
}

/* 8< verbs-auto-gid */
/* The first RoCE v2 IPv4 GID of the port, or -ENOENT. */
static int auto_gid(struct ibv_context *ctx, unsigned port, int tbl_len,
		    struct verbs_where *w)
{
	struct ibv_gid_entry e;
	int i;

	for (i = 0; i < tbl_len; i++) {
		if (ibv_query_gid_ex(ctx, port, (uint32_t)i, &e, 0))
			continue; /* an empty entry */
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && gid_is_ipv4(&e.gid)) {
			where_from_entry(w, &e);
			return 0;
		}
	}
	return -ENOENT;
}
/* >8 verbs-auto-gid */

/* Check port and GID of one open device against the options. */
static int pick_on(struct ibv_context *ctx, const struct verbs_cfg *c,
		   struct verbs_where *w)
{
	const char *name = ibv_get_device_name(ctx->device);
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	char gid[INET6_ADDRSTRLEN];

	snprintf(w->dev, sizeof(w->dev), "%s", name);
	w->port = c->ib_port;
	if (ibv_query_port(ctx, (uint8_t)c->ib_port, &pa)) {
		fprintf(stderr, "%s: %s has no port %u\n",
			program_invocation_short_name, name, c->ib_port);
		return -EINVAL;
	}
	if (pa.state != IBV_PORT_ACTIVE) {
		fprintf(stderr, "%s: %s port %u is not active (%s)\n",
			program_invocation_short_name, name, c->ib_port,
			ibv_port_state_str(pa.state));
		return -ENETDOWN;
	}
	w->mtu = pa.active_mtu;
	if (c->gid_index < 0) {
		if (!auto_gid(ctx, c->ib_port, pa.gid_tbl_len, w))
			return 0;
		fprintf(stderr,
			"%s: %s port %u has no RoCE v2 IPv4 GID "
			"(is an IPv4 address on its network device?)\n",
			program_invocation_short_name, name, c->ib_port);
		return -ENOENT;
	}
	if (c->gid_index >= pa.gid_tbl_len ||
	    ibv_query_gid_ex(ctx, c->ib_port, (uint32_t)c->gid_index, &e, 0)) {
		fprintf(stderr, "%s: %s port %u has no GID at index %d\n",
			program_invocation_short_name, name, c->ib_port,
			c->gid_index);
		return -ENOENT;
	}
	where_from_entry(w, &e);
	if (!w->ipv4 && !c->oob) {
		inet_ntop(AF_INET6, e.gid.raw, gid, sizeof(gid));
		fprintf(stderr,
			"%s: GID %d of %s is %s, not IPv4: rdma_cm "
			"here needs an IPv4 GID (or use --oob)\n",
			program_invocation_short_name, c->gid_index, name, gid);
		return -EINVAL;
	}
	return 0;
}

/*
 * Choose device, port and GID: the one named, or the first device whose
 * port has a RoCE v2 IPv4 GID. -ENODEV when there is no RDMA device at all.
 */
int verbs_pick(const struct verbs_cfg *c, struct verbs_where *w)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	int i, n = 0, err = -ENODEV;

	list = ibv_get_device_list(&n);
	if (!list || !n) {
		fprintf(stderr, "%s: no RDMA device (no rdma_rxe or NIC)\n",
			program_invocation_short_name);
		if (list)
			ibv_free_device_list(list);
		return -ENODEV;
	}
	for (i = 0; i < n; i++) {
		if (c->device &&
		    strcmp(ibv_get_device_name(list[i]), c->device))
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			err = -errno;
			continue;
		}
		err = pick_on(ctx, c, w);
		ibv_close_device(ctx);
		if (!err || c->device)
			break;
	}
	if (c->device && i == n) {
		fprintf(stderr, "%s: no RDMA device named %s (have:",
			program_invocation_short_name, c->device);
		for (i = 0; i < n; i++)
			fprintf(stderr, " %s", ibv_get_device_name(list[i]));
		fprintf(stderr, ")\n");
		err = -ENOENT;
	}
	ibv_free_device_list(list);
	return err;
}

/* Read every counter in the port's hw_counters directory (rxe: 16). */
void verbs_hwctr_read(const struct verbs_where *w, struct verbs_hwctr *h)
{
	char path[256], line[64];
	struct dirent *d;
	DIR *dir;
	FILE *f;

	h->n = 0;
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/%u/"
		 "hw_counters",
		 w->dev, w->port);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir)) && h->n < VERBS_HWCTR_MAX) {
		if (d->d_name[0] == '.' ||
		    strlen(d->d_name) >= sizeof(h->name[0]))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/"
			 "%u/hw_counters/%s",
			 w->dev, w->port, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f)) {
			strcpy(h->name[h->n], d->d_name);
			h->val[h->n++] = strtoull(line, NULL, 10);
		}
		fclose(f);
	}
	closedir(dir);
}

/* after - before of the named counter; 0 when either lacks it. */
uint64_t verbs_hwctr_delta(const struct verbs_hwctr *a,
			   const struct verbs_hwctr *b, const char *name)
{
	unsigned i, j;

	for (i = 0; i < a->n; i++) {
		if (strcmp(a->name[i], name))
			continue;
		for (j = 0; j < b->n; j++)
			if (!strcmp(b->name[j], name))
				return b->val[j] - a->val[i];
	}
	return 0;
}
