/* SPDX-License-Identifier: MIT */
/*
 * A link's NAPI instances over generic netlink, and tasks' run times. The
 * netlink side is the smallest that works: resolve the "netdev" family,
 * dump NAPI_GET for one ifindex, read three attributes of each answer.
 */
#include "napi.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * The netdev family's numbers (include/uapi/linux/netdev.h of Linux 6.9+;
 * the Debian 12 headers predate them). They are ABI: they never change.
 */
enum {
	NETDEV_CMD_NAPI_GET_ = 11,
	NETDEV_A_NAPI_IFINDEX_ = 1,
	NETDEV_A_NAPI_ID_ = 2,
	NETDEV_A_NAPI_IRQ_ = 3,
	NETDEV_A_NAPI_PID_ = 4,
};

#define NL_BUF 16384

/* A request: the netlink and generic headers, then attributes. */
struct nl_req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[64];
};

/* Append one attribute to the request. */
static void nl_put(struct nl_req *r, uint16_t type, const void *data,
		   uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + r->n.nlmsg_len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len += NLA_ALIGN(a->nla_len);
}

/* Send the request; 0 or -errno. */
static int nl_send(int fd, struct nl_req *r)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	return sendto(fd, r, r->n.nlmsg_len, 0, (struct sockaddr *)&to,
		      sizeof(to)) < 0
		       ? -errno
		       : 0;
}

/*
 * Read answers until the end of a dump (or one answer and its ack), handing
 * each generic payload's attributes to fn. 0 or -errno (the kernel's own
 * error for a refused request).
 */
static int nl_recv(int fd, char *buf,
		   void (*fn)(const struct nlattr *a, int len, void *arg),
		   void *arg)
{
	struct nlmsghdr *h;
	ssize_t n;
	int len;

	for (;;) {
		n = recv(fd, buf, NL_BUF, 0);
		if (n < 0)
			return -errno;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				if (e->error)
					return e->error;
				return 0; /* the ack of a request */
			}
			len = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
			if (len >= 0)
				fn((const struct nlattr *)((char *)NLMSG_DATA(
								   h) +
							   GENL_HDRLEN),
				   len, arg);
		}
	}
}

/* The next attribute after a, within len bytes left; NULL at the end. */
static const struct nlattr *nl_next(const struct nlattr *a, int *len)
{
	int step = NLA_ALIGN(a->nla_len);

	*len -= step;
	a = (const struct nlattr *)((const char *)a + step);
	return *len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
			       a->nla_len <= *len
		       ? a
		       : NULL;
}

/* The first attribute of a payload of len bytes, or NULL. */
static const struct nlattr *nl_first(const struct nlattr *a, int len)
{
	return len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
			       a->nla_len <= len
		       ? a
		       : NULL;
}

/* A u32 attribute's value (0 if it is shorter). */
static uint32_t nl_u32(const struct nlattr *a)
{
	uint32_t v = 0;

	if (a->nla_len >= NLA_HDRLEN + sizeof(v))
		memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

/* A u16 attribute's value (0 if it is shorter). */
static uint16_t nl_u16(const struct nlattr *a)
{
	uint16_t v = 0;

	if (a->nla_len >= NLA_HDRLEN + sizeof(v))
		memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

/* CTRL_CMD_GETFAMILY's answer: keep the family id. */
static void family_attr(const struct nlattr *a, int len, void *arg)
{
	for (a = nl_first(a, len); a; a = nl_next(a, &len))
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
			*(uint16_t *)arg = nl_u16(a);
}

/* Resolve the "netdev" family's id; 0 or -errno. */
static int netdev_family(int fd, char *buf, uint16_t *id)
{
	struct nl_req r = {
		.n = { .nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN),
		       .nlmsg_type = GENL_ID_CTRL,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK },
		.g = { .cmd = CTRL_CMD_GETFAMILY, .version = 1 },
	};
	int err;

	nl_put(&r, CTRL_ATTR_FAMILY_NAME, "netdev", sizeof("netdev"));
	*id = 0;
	err = nl_send(fd, &r);
	if (!err)
		err = nl_recv(fd, buf, family_attr, id);
	if (err == -ENOENT || (!err && !*id))
		return -EOPNOTSUPP;
	return err;
}

/* The dump's state: the link we want, and where its instances go. */
struct napi_dump {
	uint32_t ifindex;
	struct pl_napi *out;
	unsigned max, n;
};

/* One NAPI_GET answer: keep it if it is one of our link's instances. */
static void napi_attr(const struct nlattr *a, int len, void *arg)
{
	struct napi_dump *d = arg;
	struct pl_napi n = { .irq = -1, .cpu = -1 };
	uint32_t ifindex = 0;

	for (a = nl_first(a, len); a; a = nl_next(a, &len)) {
		switch (a->nla_type & NLA_TYPE_MASK) {
		case NETDEV_A_NAPI_IFINDEX_:
			ifindex = nl_u32(a);
			break;
		case NETDEV_A_NAPI_ID_:
			n.id = nl_u32(a);
			break;
		case NETDEV_A_NAPI_IRQ_:
			n.irq = (int)nl_u32(a);
			break;
		case NETDEV_A_NAPI_PID_:
			n.pid = (pid_t)nl_u32(a);
			break;
		}
	}
	if (ifindex == d->ifindex && d->n < d->max)
		d->out[d->n++] = n;
}

/* Order instances by id. */
static int by_id(const void *a, const void *b)
{
	const struct pl_napi *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Dump the NAPI instances of d->ifindex; 0 or -errno. */
static int napi_dump(int fd, char *buf, uint16_t family, struct napi_dump *d)
{
	struct nl_req r = {
		.n = { .nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN),
		       .nlmsg_type = family,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.g = { .cmd = NETDEV_CMD_NAPI_GET_, .version = 1 },
	};
	int err;

	/* Older kernels ignore the filter; napi_attr filters too. */
	nl_put(&r, NETDEV_A_NAPI_IFINDEX_, &d->ifindex, sizeof(d->ifindex));
	err = nl_send(fd, &r);
	if (!err)
		err = nl_recv(fd, buf, napi_attr, d);
	return err == -EINVAL ? -EOPNOTSUPP : err;
}

static ssize_t read_small(const char *path, char *buf, size_t len);

/* Fill run and wait time and CPU of the instances that have a thread. */
static void napi_times(struct pl_napi *out, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (!out[i].pid)
			continue;
		struct pl_sched t = pl_task_sched(out[i].pid);

		out[i].run_ns = t.run_ns;
		out[i].wait_ns = t.wait_ns;
		out[i].cpu = pl_task_cpu(out[i].pid);
	}
}

int pl_napi_list(const char *ifname, struct pl_napi *out, unsigned max)
{
	struct napi_dump d = { .out = out, .max = max };
	uint16_t family;
	char *buf;
	int fd, err;

	d.ifindex = if_nametoindex(ifname);
	if (!d.ifindex)
		return -ENODEV;
	buf = malloc(NL_BUF);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (!buf || fd < 0) {
		err = !buf ? -ENOMEM : -errno;
		goto out;
	}
	err = netdev_family(fd, buf, &family);
	if (!err)
		err = napi_dump(fd, buf, family, &d);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	if (err)
		return err;
	qsort(out, d.n, sizeof(*out), by_id);
	napi_times(out, d.n);
	return (int)d.n;
}

/* True when /sys/class/net/IF/threaded says 1. */
static bool link_threaded(const char *ifname)
{
	char path[80], buf[8];

	if (strlen(ifname) >= IF_NAMESIZE || strchr(ifname, '/'))
		return false;
	snprintf(path, sizeof(path), "/sys/class/net/%s/threaded", ifname);
	return read_small(path, buf, sizeof(buf)) > 0 && buf[0] == '1';
}

int pl_napi_list_by_name(const char *ifname, struct pl_napi *out, unsigned max)
{
	char want[32], path[300], comm[32];
	size_t wl;
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	wl = (size_t)snprintf(want, sizeof(want), "napi/%s-", ifname);
	/* TASK_COMM_LEN is 16: 15 characters and the NUL. */
	if (wl >= 15 || !link_threaded(ifname))
		return -EOPNOTSUPP;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((e = readdir(d)) && n < max) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (read_small(path, comm, sizeof(comm)) <= 0 ||
		    strncmp(comm, want, wl))
			continue;
		out[n++] = (struct pl_napi){
			.id = (uint32_t)strtoul(comm + wl, NULL, 10),
			.pid = (pid_t)atoi(e->d_name),
			.irq = -1,
			.cpu = -1,
		};
	}
	closedir(d);
	qsort(out, n, sizeof(*out), by_id);
	napi_times(out, n);
	return (int)n;
}

/* Read up to len - 1 bytes of a small /proc file; length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

/* A schedstat file: ns on the CPU, ns waiting for it, time slices. */
static struct pl_sched schedstat(const char *path)
{
	struct pl_sched t = { 0, 0 };
	char buf[128], *end;

	if (read_small(path, buf, sizeof(buf)) <= 0)
		return t;
	t.run_ns = strtoull(buf, &end, 10);
	t.wait_ns = strtoull(end, NULL, 10);
	return t;
}

struct pl_sched pl_task_sched(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)tid);
	return schedstat(path);
}

struct pl_sched pl_thread_sched(void)
{
	return schedstat("/proc/thread-self/schedstat");
}

uint64_t pl_thread_run_ns(void)
{
	return pl_thread_sched().run_ns;
}

int pl_task_cpu(pid_t tid)
{
	char path[64], buf[1024], *p;
	int field, cpu = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	/* The name in parentheses may hold spaces: count from its end. */
	p = strrchr(buf, ')');
	/* Field 39 is "processor"; field 3 follows ") ". */
	for (field = 2; p && field < 39; field++)
		p = strchr(p + 1, ' ');
	if (p)
		cpu = atoi(p + 1);
	return cpu;
}

unsigned pl_xsk_napi_id(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned id = 0;

	while (d && !id && (e = readdir(d))) {
		int fd = atoi(e->d_name), dom = 0;
		socklen_t len = sizeof(dom);
		unsigned v = 0;

		if (e->d_name[0] == '.' || fd == dirfd(d) ||
		    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) ||
		    dom != AF_XDP)
			continue;
		len = sizeof(v);
		if (!getsockopt(fd, SOL_SOCKET, SO_INCOMING_NAPI_ID, &v, &len))
			id = v;
	}
	if (d)
		closedir(d);
	return id;
}
