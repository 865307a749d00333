/* SPDX-License-Identifier: MIT */
#include "mgmt.h"
#include "ifname.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A bridge on a bond on a VLAN is three levels; sysfs has no loops. */
#define MAX_DEPTH 8

/* What to look for under a management interface, and what was found. */
struct want {
	int ifindex;	/* this interface (by index: names and altnames), or */
	char pci[32];	/* an interface of this PCI device */
	char found[64]; /* the interface that matched */
	char mgmt[64];	/* the one with the default route above it */
};

/* The PCI address behind a network interface into buf, "" when none. */
static void iface_pci(const char *ifname, char *buf, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX], *base;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifname);
	if (!realpath(path, real))
		return;
	/* A virtio-net device sits one level below its PCI function. */
	base = strrchr(real, '/');
	if (base && !strncmp(base + 1, "virtio", 6)) {
		*base = '\0';
		base = strrchr(real, '/');
	}
	if (base && strchr(base, ':'))
		snprintf(buf, len, "%s", base + 1);
}

/* True when interface ifn is the one w looks for (noted in w->found). */
static bool matches(const char *ifn, struct want *w)
{
	char pci[64];

	if (w->ifindex) {
		if ((int)if_nametoindex(ifn) != w->ifindex)
			return false;
	} else {
		iface_pci(ifn, pci, sizeof(pci));
		if (!pci[0] || strcasecmp(pci, w->pci))
			return false;
	}
	snprintf(w->found, sizeof(w->found), "%s", ifn);
	return true;
}

/* ifn or an interface under it (its lower_* links, all the way down). */
static bool under(const char *ifn, struct want *w, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	bool found;
	DIR *d;

	if (matches(ifn, w))
		return true;
	if (depth >= MAX_DEPTH)
		return false;
	snprintf(path, sizeof(path), "/sys/class/net/%s", ifn);
	d = opendir(path);
	found = false;
	while (d && !found && (de = readdir(d)))
		if (!strncmp(de->d_name, "lower_", 6))
			found = under(de->d_name + 6, w, depth + 1);
	if (d)
		closedir(d);
	return found;
}

/*
 * Each interface with a default route, one at a time: nothing is
 * collected, so any number of routes fits. A line of /proc/net/route is
 * "Iface Destination Gateway Flags RefCnt Use Metric Mask ...", one of
 * /proc/net/ipv6_route "dst plen src splen nexthop metric ref use flags
 * iface" (the kernel's unreachable defaults sit on lo).
 */
static bool default_route_under(struct want *w)
{
	char line[512], ifn[64], dst[64], mask[64];
	unsigned plen;
	bool found = false;
	FILE *f;

	f = fopen("/proc/net/route", "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%63s %63s %*s %*s %*s %*s %*s %63s", ifn,
			       dst, mask) == 3 &&
			!strcmp(dst, "00000000") && !strcmp(mask, "00000000") &&
			under(ifn, w, 0);
	if (f)
		fclose(f);
	f = found ? NULL : fopen("/proc/net/ipv6_route", "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%63s %x %*s %*s %*s %*s %*s %*s %*s %63s",
			       dst, &plen, ifn) == 3 &&
			plen == 0 && strcmp(ifn, "lo") &&
			strspn(dst, "0") == strlen(dst) && under(ifn, w, 0);
	if (f)
		fclose(f);
	if (found)
		snprintf(w->mgmt, sizeof(w->mgmt), "%s", ifn);
	return found;
}

/* Say why what (the interface, or "PCI device ADDR") is refused. */
static int refuse(const char *prog, const char *what, const struct want *w)
{
	fprintf(stderr, "%s: refusing %s: ", prog, what);
	if (strcmp(what, w->found))
		fprintf(stderr, "it is %s, ", w->found);
	if (strcmp(w->found, w->mgmt))
		fprintf(stderr,
			"%s lies under %s (a bridge port, bond member or "
			"VLAN parent), which carries",
			w->found, w->mgmt);
	else
		fprintf(stderr, "%s carries", w->found);
	fprintf(stderr,
		" this machine's default route: the management interface. "
		"Taking it over could cut you off; use a second port\n");
	return -EPERM;
}

int pl_mgmt_refuse_iface(const char *prog, const char *ifname)
{
	struct want w = { 0 };
	char primary[IF_NAMESIZE];

	if (!ifname)
		return 0;
	w.ifindex = pl_ifname_resolve(ifname, primary, sizeof(primary));
	if (w.ifindex <= 0)
		return 0; /* none: nothing to take over (callers check names) */
	return default_route_under(&w) ? refuse(prog, ifname, &w) : 0;
}

int pl_mgmt_refuse_pci(const char *prog, const char *pci)
{
	struct want w = { 0 };
	char what[64];

	if (!pci)
		return 0;
	/* "3b:00.0" is short for domain 0000, as lspci prints it. */
	snprintf(w.pci, sizeof(w.pci), "%s%s",
		 strchr(pci, ':') == strrchr(pci, ':') ? "0000:" : "", pci);
	snprintf(what, sizeof(what), "PCI device %s", pci);
	return default_route_under(&w) ? refuse(prog, what, &w) : 0;
}

/* The routing table's answer for a destination: the entry, not the /32. */
struct route {
	int plen;		  /* prefix length of the entry */
	unsigned char type;	  /* RTN_UNICAST, RTN_LOCAL, RTN_BROADCAST... */
	int oif;		  /* the interface it leaves by, or 0 */
	char gw[INET_ADDRSTRLEN]; /* its gateway, or "" */
	char dev[IF_NAMESIZE];
};

/*
 * The routing table's own entry for dst (RTM_F_FIB_MATCH: the entry as
 * `ip route show` has it, not the resolved /32), out of oif when given,
 * into *r; 0 or -errno when there is none.
 */
static int fib_match(struct in_addr dst, unsigned oif, struct route *r)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[64];
	} req = {
		.nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)),
			.nlmsg_type = RTM_GETROUTE,
			.nlmsg_flags = NLM_F_REQUEST },
		.rt = { .rtm_family = AF_INET, .rtm_flags = RTM_F_FIB_MATCH },
	};
	union {
		struct nlmsghdr nh;
		char buf[4096];
	} ans;
	struct rtmsg *rt;
	struct rtattr *a;
	int err, alen;

	pl_nl_attr(&req.nh, RTA_DST, &dst, sizeof(dst));
	if (oif)
		pl_nl_attr(&req.nh, RTA_OIF, &oif, sizeof(oif));
	err = pl_nl_ask(&req.nh, &ans.nh, sizeof(ans));
	if (err)
		return err;
	rt = NLMSG_DATA(&ans.nh);
	*r = (struct route){ .plen = rt->rtm_dst_len, .type = rt->rtm_type };
	alen = (int)RTM_PAYLOAD(&ans.nh);
	for (a = RTM_RTA(rt); RTA_OK(a, alen); a = RTA_NEXT(a, alen))
		if (a->rta_type == RTA_GATEWAY)
			inet_ntop(AF_INET, RTA_DATA(a), r->gw, sizeof(r->gw));
		else if (a->rta_type == RTA_OIF)
			r->oif = *(int *)RTA_DATA(a);
	if (r->oif)
		if_indextoname((unsigned)r->oif, r->dev);
	return 0;
}

/*
 * True when interface ifindex is a management interface or lies under
 * one; w->found and w->mgmt then say which.
 */
static bool is_mgmt(int ifindex, struct want *w)
{
	*w = (struct want){ .ifindex = ifindex };
	return ifindex > 0 && default_route_under(w);
}

/* A multicast or broadcast IPv4 address (host order). */
static bool group_addr(uint32_t a)
{
	return (a >> 28) == 0xe || a == 0xffffffff;
}

/* Say why dst, whose frames leave by w->found, is refused; -EPERM. */
static int refuse_lan(const char *prog, const char *dst, const struct want *w)
{
	bool under = strcmp(w->found, w->mgmt);

	fprintf(stderr,
		"%s: refusing --dst %s: it is on the management network: "
		"the frames would leave by %s, %s%s%s this machine's default "
		"route, where the hosts you reach it through are "
		"(--allow-mgmt-lan to send there anyway)\n",
		prog, dst, w->found, under ? "under " : "",
		under ? w->mgmt : "which carries",
		under ? ", which carries" : "");
	return -EPERM;
}

int pl_mgmt_refuse_dst(const char *prog, const char *dst, const char *oif,
		       unsigned allow)
{
	struct route r = { 0 };
	struct in_addr a;
	struct want w;
	int idx = oif ? (int)if_nametoindex(oif) : 0;
	bool group;

	if (inet_pton(AF_INET, dst, &a) != 1 || (oif && !idx))
		return 0; /* not ours to judge: the send says what is wrong */
	if (fib_match(a, (unsigned)idx, &r))
		r.type = RTN_UNREACHABLE;
	group = group_addr(ntohl(a.s_addr)) || r.type == RTN_BROADCAST;
	if (group && !(allow & PL_ALLOW_MULTICAST)) {
		fprintf(stderr,
			"%s: refusing --dst %s: a multicast or broadcast "
			"address, which every host on the link receives "
			"(--allow-multicast to send there anyway)\n",
			prog, dst);
		return -EPERM;
	}
	/* --tx packet: its frames leave by oif whatever the routes say. */
	if (idx && !(allow & PL_ALLOW_MGMT_LAN) && is_mgmt(idx, &w))
		return refuse_lan(prog, dst, &w);
	if (!group && r.type == RTN_UNICAST && r.plen == 0) {
		if (allow & PL_ALLOW_ROUTED)
			return 0;
		fprintf(stderr,
			"%s: refusing --dst %s: it is reached through the "
			"default route (%s%s%s%s), out of this network: the "
			"lab sends only to a directly connected receiver "
			"(--allow-routed to send there anyway)\n",
			prog, dst, r.gw[0] ? "via " : "", r.gw,
			r.gw[0] ? " dev " : "dev ", r.dev);
		return -EPERM;
	}
	if (idx || (allow & PL_ALLOW_MGMT_LAN) || r.type == RTN_LOCAL ||
	    !is_mgmt(r.oif, &w))
		return 0;
	return refuse_lan(prog, dst, &w);
}
