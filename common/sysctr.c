/* SPDX-License-Identifier: MIT */
/*
 * Snapshots of the kernel's own counters. Every file is read with one read()
 * into a buffer and parsed in place, so a snapshot costs a few dozen system
 * calls and can be taken once a second by a progress reporter.
 */
#include "sysctr.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* A growable read buffer shared by the files of one snapshot. */
struct rbuf {
	char *p;
	size_t cap;
};

/* Read a whole file into b, NUL-terminated; returns its length or -errno. */
static ssize_t rbuf_read(struct rbuf *b, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char *p;

	if (fd < 0)
		return -errno;
	for (;;) {
		n = pread(fd, b->p, b->cap - 1, 0);
		if (n < 0) {
			n = -errno;
			break;
		}
		if ((size_t)n < b->cap - 1) {
			b->p[n] = '\0';
			break;
		}
		/* A full buffer may hide more: grow and read it all again. */
		p = realloc(b->p, b->cap * 2);
		if (!p) {
			n = -ENOMEM;
			break;
		}
		b->p = p;
		b->cap *= 2;
	}
	close(fd);
	return n;
}

/* Read the first decimal number of a small file relative to dfd. */
static int read_u64_at(int dfd, const char *path, uint64_t *v)
{
	char buf[64];
	ssize_t n;
	int fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ENODATA;
	buf[n] = '\0';
	*v = strtoull(buf, NULL, 10);
	return 0;
}

/* Sum up to max decimal numbers on one line, advancing *pp past them. */
static uint64_t sum_counts(const char **pp, unsigned max)
{
	const char *p = *pp;
	uint64_t sum = 0;
	char *end;

	for (unsigned i = 0; i < max; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!isdigit((unsigned char)*p))
			break;
		sum += strtoull(p, &end, 10);
		p = end;
	}
	*pp = p;
	return sum;
}

/* Return the start of the line after p, or NULL at the end of the text. */
static const char *next_line(const char *p)
{
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

/* Parse the "cpu " and "intr " lines of /proc/stat; 0 or -EINVAL. */
static int parse_stat(const char *text, struct pl_sysctr *c)
{
	unsigned long long t[8] = { 0 };
	const char *intr;
	long hz = sysconf(_SC_CLK_TCK);

	/* Older kernels print fewer columns; the missing ones stay zero. */
	if (sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &t[0],
		   &t[1], &t[2], &t[3], &t[4], &t[5], &t[6], &t[7]) < 4)
		return -EINVAL;
	if (hz <= 0)
		hz = 100;
	c->all = (struct pl_cpu_times){
		.user_s = (double)t[0] / hz,
		.nice_s = (double)t[1] / hz,
		.sys_s = (double)t[2] / hz,
		.idle_s = (double)t[3] / hz,
		.iowait_s = (double)t[4] / hz,
		.irq_s = (double)t[5] / hz,
		.softirq_s = (double)t[6] / hz,
		.steal_s = (double)t[7] / hz,
	};
	intr = strstr(text, "\nintr ");
	if (intr)
		c->interrupts = strtoull(intr + 6, NULL, 10);
	return 0;
}

/* Sum the per-CPU columns of one named row of /proc/softirqs. */
static uint64_t softirq_row(const char *text, const char *row)
{
	const char *p = strstr(text, row);

	if (!p)
		return 0;
	p += strlen(row);
	return sum_counts(&p, ~0u);
}

/* Keep the per-CPU columns of /proc/softirqs' NET_RX row. */
static void softirq_cpus(const char *text, uint64_t *cpu, unsigned max)
{
	const char *p = strstr(text, "NET_RX:");
	char *end;

	if (!p)
		return;
	p += strlen("NET_RX:");
	for (unsigned i = 0; i < max; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!isdigit((unsigned char)*p))
			break;
		cpu[i] = strtoull(p, &end, 10);
		p = end;
	}
}

/*
 * Does ifname occur in [p, end) as a whole word? "eth1" must match
 * "eth1-TxRx-0" but neither "eth10-TxRx-0" nor "veth1".
 */
static bool names_link(const char *p, const char *end, const char *ifname)
{
	size_t len = strlen(ifname);
	const char *m;

	while ((m = memmem(p, end - p, ifname, len))) {
		bool head = m == p || !isalnum((unsigned char)m[-1]);
		bool tail = m + len == end || !isalnum((unsigned char)m[len]);

		if (head && tail)
			return true;
		p = m + 1;
	}
	return false;
}

/*
 * Sum the per-CPU counts of the /proc/interrupts lines whose description
 * names ifname, as most drivers' queue IRQs do ("eth0-TxRx-0"). Drivers
 * that name their IRQs by PCI address only ("mlx5_comp0@pci:0000:3b:00.0")
 * or by bus device ("virtio2-input.0") are missed: link_has_irqs is false.
 */
static void parse_interrupts(const char *text, const char *ifname,
			     struct pl_sysctr *c)
{
	const char *hdr_end = strchrnul(text, '\n'), *p = text, *eol, *colon;
	unsigned ncols = 0;
	uint64_t n;

	/* The header names one "CPUn" column per CPU online. */
	while ((p = strstr(p, "CPU")) && p < hdr_end) {
		ncols++;
		p += 3;
	}
	for (p = next_line(text); p && *p; p = next_line(p)) {
		eol = strchrnul(p, '\n');
		colon = memchr(p, ':', eol - p);
		if (!colon)
			continue;
		p = colon + 1;
		n = sum_counts(&p, ncols);
		if (names_link(p, eol, ifname)) {
			c->link_irqs += n;
			c->link_has_irqs = true;
		}
	}
}

/* Sum column 2 (packets dropped for a full backlog) of softnet_stat. */
static uint64_t parse_softnet(const char *text)
{
	uint64_t sum = 0;
	char *end;

	for (const char *p = text; p && *p; p = next_line(p)) {
		strtoul(p, &end, 16);
		sum += strtoul(end, NULL, 16);
	}
	return sum;
}

/* Find the next line at or after p that starts with "proto:". */
static const char *proto_line(const char *p, const char *proto, size_t plen)
{
	for (; p && *p; p = next_line(p)) {
		if (!strncmp(p, proto, plen) && p[plen] == ':')
			return p;
	}
	return NULL;
}

/* Find the n-th space-separated token of the line at p; NULL if none. */
static const char *nth_token(const char *p, int n, size_t *len)
{
	for (int i = 0;; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			return NULL;
		*len = strcspn(p, " \t\n");
		if (i == n)
			return p;
		p += *len;
	}
}

/*
 * The "Proto: names" line is followed by a "Proto: values" line. Matching
 * "Udp" against the text before ':' keeps "UdpLite:" and "IpExt:" apart.
 * A few values are signed (Tcp MaxConn is -1 for "no limit"); a negative
 * value is returned as 0, since no counter read here can go below zero.
 */
uint64_t pl_snmp_field(const char *text, const char *proto, const char *name)
{
	size_t plen, nlen, len;
	const char *hdr, *val, *tok;

	if (!text || !proto || !name)
		return 0;
	plen = strlen(proto);
	if (plen && proto[plen - 1] == ':')
		plen--;
	nlen = strlen(name);
	for (hdr = proto_line(text, proto, plen); hdr;
	     hdr = proto_line(next_line(val), proto, plen)) {
		val = next_line(hdr);
		if (!val || strncmp(val, proto, plen) || val[plen] != ':')
			return 0;
		for (int i = 0; (tok = nth_token(hdr + plen + 1, i, &len));
		     i++) {
			if (len != nlen || memcmp(tok, name, len))
				continue;
			tok = nth_token(val + plen + 1, i, &len);
			if (!tok || *tok == '-')
				return 0;
			return strtoull(tok, NULL, 10);
		}
	}
	return 0;
}

/* Fill the UDP and IP counters from this namespace's snmp and netstat. */
static void read_snmp(struct rbuf *b, struct pl_sysctr *c)
{
	if (rbuf_read(b, "/proc/net/snmp") >= 0) {
		const char *t = b->p;

		c->udp_in_datagrams = pl_snmp_field(t, "Udp", "InDatagrams");
		c->udp_no_ports = pl_snmp_field(t, "Udp", "NoPorts");
		c->udp_in_errors = pl_snmp_field(t, "Udp", "InErrors");
		c->udp_rcvbuf_errors = pl_snmp_field(t, "Udp", "RcvbufErrors");
		c->udp_sndbuf_errors = pl_snmp_field(t, "Udp", "SndbufErrors");
		c->udp_in_csum_errors = pl_snmp_field(t, "Udp", "InCsumErrors");
		c->udp_out_datagrams = pl_snmp_field(t, "Udp", "OutDatagrams");
		c->ip_in_receives = pl_snmp_field(t, "Ip", "InReceives");
		c->ip_in_hdr_errors = pl_snmp_field(t, "Ip", "InHdrErrors");
		c->ip_in_addr_errors = pl_snmp_field(t, "Ip", "InAddrErrors");
		c->ip_in_discards = pl_snmp_field(t, "Ip", "InDiscards");
		c->ip_reasm_reqds = pl_snmp_field(t, "Ip", "ReasmReqds");
		c->ip_in_unknown_protos =
			pl_snmp_field(t, "Ip", "InUnknownProtos");
	}
	if (rbuf_read(b, "/proc/net/netstat") >= 0)
		c->ip_in_truncated_pkts =
			pl_snmp_field(b->p, "IpExt", "InTruncatedPkts");
}

/* Is ifname a plain interface name, one that cannot leave /sys/class/net? */
static bool ifname_ok(const char *ifname)
{
	size_t len = strlen(ifname);

	return len > 0 && len < IF_NAMESIZE && !strchr(ifname, '/') &&
	       !strstr(ifname, "..") && strcmp(ifname, ".");
}

/*
 * Fill the link counters from /sys/class/net/IF. sysfs shows the devices of
 * the namespace it was mounted in, as "ip netns exec" arranges.
 */
static void read_link(const char *ifname, struct pl_sysctr *c)
{
	char path[64];
	int dfd;

	if (!ifname_ok(ifname))
		return;
	snprintf(path, sizeof(path), "/sys/class/net/%s", ifname);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	c->have_link = true;
	read_u64_at(dfd, "statistics/rx_packets", &c->link_rx_packets);
	read_u64_at(dfd, "statistics/rx_bytes", &c->link_rx_bytes);
	read_u64_at(dfd, "statistics/rx_dropped", &c->link_rx_dropped);
	read_u64_at(dfd, "statistics/rx_errors", &c->link_rx_errors);
	read_u64_at(dfd, "statistics/tx_packets", &c->link_tx_packets);
	read_u64_at(dfd, "statistics/tx_dropped", &c->link_tx_dropped);
	read_u64_at(dfd, "napi_defer_hard_irqs", &c->napi_defer_hard_irqs);
	read_u64_at(dfd, "gro_flush_timeout", &c->gro_flush_timeout_ns);
	close(dfd);
}

/* Fill the link's NAPI instances and their threads' run times. */
static void read_napi(const char *ifname, struct pl_sysctr *c)
{
	int n;

	if (!ifname_ok(ifname))
		return;
	n = pl_napi_list(ifname, c->napi, PL_NAPI_MAX);
	/*
	 * Before Linux 6.9 (the Soft-RoCE VM's guest kernel, Debian 12's
	 * own) netlink cannot list them: find the threads by name.
	 */
	if (n == -EOPNOTSUPP) {
		n = pl_napi_list_by_name(ifname, c->napi, PL_NAPI_MAX);
		c->napi_by_name = n >= 0;
	}
	if (n < 0)
		c->napi_err = n;
	else
		c->napi_count = (unsigned)n;
}

/*
 * Nanoseconds this process has run, every thread's, those that have
 * exited included (a queue's thread ends before the "after" snapshot):
 * the process CPU-time clock, the scheduler's exact runtime, as
 * getrusage()'s user and system times are (summing /proc/self/task's
 * schedstat would drop the threads that have exited).
 */
static uint64_t self_run_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Fill this process's own CPU time and context switches. */
static void read_self(struct pl_sysctr *c)
{
	struct rusage ru;

	if (!getrusage(RUSAGE_SELF, &ru)) {
		c->self_user_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		c->self_sys_s = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
		c->self_nvcsw = ru.ru_nvcsw;
		c->self_nivcsw = ru.ru_nivcsw;
	}
	c->self_run_ns = self_run_ns();
}

/* Take a snapshot of every counter; see sysctr.h. */
int pl_sysctr_read(struct pl_sysctr *c, const char *ifname)
{
	struct rbuf b = { .cap = 64 * 1024 };
	struct timespec ts;
	ssize_t len;
	long n;
	int err;

	*c = (struct pl_sysctr){ 0 };
	b.p = malloc(b.cap);
	if (!b.p)
		return -ENOMEM;
	len = rbuf_read(&b, "/proc/stat");
	err = len < 0 ? (int)len : parse_stat(b.p, c);
	if (err) {
		free(b.p);
		return err;
	}
	/* Right after /proc/stat, so busy time compares like with like. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	c->mono_ns = (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	c->ncpus = n > 0 ? (unsigned)n : 1;

	if (rbuf_read(&b, "/proc/softirqs") >= 0) {
		c->net_rx_softirqs = softirq_row(b.p, "NET_RX:");
		c->net_tx_softirqs = softirq_row(b.p, "NET_TX:");
		softirq_cpus(b.p, c->net_rx_softirqs_cpu, PL_SYSCTR_CPUS);
	}
	if (ifname && ifname_ok(ifname) &&
	    rbuf_read(&b, "/proc/interrupts") >= 0)
		parse_interrupts(b.p, ifname, c);
	if (rbuf_read(&b, "/proc/net/softnet_stat") >= 0)
		c->softnet_dropped = parse_softnet(b.p);
	read_snmp(&b, c);
	if (ifname) {
		read_link(ifname, c);
		read_napi(ifname, c);
	}
	read_self(c);
	free(b.p);
	return 0;
}

/* after - before for a counter; one that went backwards was reset. */
static uint64_t sub(uint64_t after, uint64_t before)
{
	return after > before ? after - before : 0;
}

/*
 * Each NAPI thread's run time and wait for a CPU over the run: after minus the
 * same thread's time before. A thread that was not there before counts from
 * zero, and napi_changed says so.
 */
static void napi_delta(const struct pl_sysctr *b, const struct pl_sysctr *a,
		       struct pl_sysctr *r)
{
	unsigned i, j;

	r->napi_changed = a->napi_count != b->napi_count;
	for (i = 0; i < a->napi_count; i++) {
		for (j = 0; j < b->napi_count; j++)
			if (b->napi[j].pid == a->napi[i].pid)
				break;
		if (j == b->napi_count) {
			r->napi_changed = true;
			continue;
		}
		r->napi[i].run_ns = sub(a->napi[i].run_ns, b->napi[j].run_ns);
		r->napi[i].wait_ns =
			sub(a->napi[i].wait_ns, b->napi[j].wait_ns);
	}
}

/*
 * d = after - before. Times are plain differences: /proc/stat's idle and
 * iowait can each step back a little while their sum does not.
 */
void pl_sysctr_delta(const struct pl_sysctr *before,
		     const struct pl_sysctr *after, struct pl_sysctr *d)
{
	const struct pl_sysctr *a = after, *b = before;
	struct pl_sysctr r = *after; /* booleans and ncpus as they are now */

#define SUB(f)	(r.f = sub(a->f, b->f))
#define DIFF(f) (r.f = a->f - b->f)
	SUB(mono_ns);
	DIFF(all.user_s), DIFF(all.nice_s), DIFF(all.sys_s);
	DIFF(all.idle_s), DIFF(all.iowait_s), DIFF(all.irq_s);
	DIFF(all.softirq_s), DIFF(all.steal_s);
	SUB(net_rx_softirqs), SUB(net_tx_softirqs), SUB(interrupts);
	SUB(link_irqs), SUB(softnet_dropped);
	SUB(udp_in_datagrams), SUB(udp_no_ports), SUB(udp_in_errors);
	SUB(udp_rcvbuf_errors), SUB(udp_sndbuf_errors);
	SUB(udp_in_csum_errors), SUB(udp_out_datagrams);
	SUB(ip_in_receives), SUB(ip_in_hdr_errors), SUB(ip_in_addr_errors);
	SUB(ip_in_truncated_pkts), SUB(ip_in_discards), SUB(ip_reasm_reqds);
	SUB(ip_in_unknown_protos);
	SUB(link_rx_packets), SUB(link_rx_bytes), SUB(link_rx_dropped);
	SUB(link_rx_errors), SUB(link_tx_packets), SUB(link_tx_dropped);
	DIFF(self_user_s), DIFF(self_sys_s);
	SUB(self_run_ns), SUB(self_nvcsw), SUB(self_nivcsw);
	for (unsigned i = 0; i < PL_SYSCTR_CPUS; i++)
		SUB(net_rx_softirqs_cpu[i]);
#undef SUB
#undef DIFF
	napi_delta(before, after, &r);
	*d = r; /* last, so d may be the same object as before or after */
}

/* Busy CPU seconds in a delta; see sysctr.h. */
double pl_sysctr_busy_s(const struct pl_sysctr *d)
{
	double all = d->mono_ns / 1e9 * d->ncpus;
	double busy = all - (d->all.idle_s + d->all.iowait_s + d->all.steal_s);

	return busy > 0 ? busy : 0;
}
