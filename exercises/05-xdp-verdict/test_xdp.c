/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 5: the XDP program's decision. The student's
 * code is a BPF program: it runs in the kernel, under the verifier, never
 * in the grader's memory. The grader loads the exercise's object file
 * (argv[1]) with libbpf, refusing an object that brings anything but the
 * one XDP program and the lab's maps (another program, a pinned map, a
 * map of another kind), and judges it two ways:
 * - on crafted frames, fixed and drawn from the seed, with
 *   BPF_PROG_TEST_RUN, reading its per-CPU maps afterwards (for the
 *   redirect, a veth with four queues and an AF_XDP socket in the xsks
 *   map, so that bpf_redirect_map() finds one);
 * - on live traffic: attached to the receiving veth of a lab of the
 *   case's own (lib/lab.h), where pathlab-gen sends good and malformed
 *   frames; its counts against what the generator sent and the link saw,
 *   and the frames an AF_XDP socket received.
 * Needs root (CAP_BPF, CAP_NET_ADMIN); skipped without.
 */
#include "grade.h"
#include "lab.h"
#include "pathlab_xdp.h"
#include "wire.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xdp/xsk.h>

#define NQ 4 /* queues of the test veth */

static const char *obj_path;
static struct bpf_object *obj;
static int prog_fd, ncpu;

static const struct pl_frame_spec spec = {
	.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
	.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
	.src_ip = 0x0a000001,
	.dst_ip = 0x0a000002,
	.src_port = 12345,
	.dst_port = PL_UDP_PORT,
};

/* The lab's maps: their kind and the size of their values. */
static const struct {
	const char *name;
	enum bpf_map_type type;
	unsigned value;
} lab_maps[] = {
	{ "xsks", BPF_MAP_TYPE_XSKMAP, sizeof(__u32) },
	{ "verdicts", BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(struct pl_xdp_count) },
	{ "reasons", BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(__u64) },
	{ "lab", BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(struct pl_xdp_lab) },
};

/*
 * Refuse what an object for this exercise has no business carrying: a
 * program other than the XDP one (it would load with it, and could run
 * anywhere), a pinned map (one that outlives the load, or was there
 * before it), a lab map of another kind or size. "" or why not.
 */
static const char *object_ok(struct bpf_object *o)
{
	static char why[160];
	struct bpf_program *p;
	struct bpf_map *m;
	unsigned i;

	bpf_object__for_each_program(
		p, o) if (strcmp(bpf_program__name(p), "pathlab_xdp") ||
			  bpf_program__type(p) != BPF_PROG_TYPE_XDP)
	{
		snprintf(why, sizeof(why),
			 "the object has a program %s (%s): the "
			 "exercise is the one XDP program pathlab_xdp",
			 bpf_program__name(p), bpf_program__section_name(p));
		return why;
	}
	bpf_object__for_each_map(m, o) if (bpf_map__pin_path(m))
	{
		snprintf(why, sizeof(why), "map %s is pinned (%s)",
			 bpf_map__name(m), bpf_map__pin_path(m));
		return why;
	}
	for (i = 0; i < sizeof(lab_maps) / sizeof(lab_maps[0]); i++) {
		m = bpf_object__find_map_by_name(o, lab_maps[i].name);
		if (!m || bpf_map__type(m) != lab_maps[i].type ||
		    bpf_map__value_size(m) != lab_maps[i].value) {
			snprintf(why, sizeof(why),
				 "map %s is not the lab's (pathlab_xdp.h)",
				 lab_maps[i].name);
			return why;
		}
	}
	return "";
}

/* Skip without root; load the exercise's program; GR_PASS or why not. */
static int load(void)
{
	struct bpf_program *p;
	const char *why;

	if (geteuid() != 0)
		return gr_skip("needs root to load XDP programs "
			       "(BPF_PROG_TEST_RUN); run the grader as root");
	obj = bpf_object__open_file(obj_path, NULL);
	if (!obj) {
		gr_fail_at(__FILE__, __LINE__, "open %s: %s", obj_path,
			   strerror(errno));
		return GR_FAIL;
	}
	why = object_ok(obj);
	if (why[0]) {
		gr_fail_at(__FILE__, __LINE__, "%s", why);
		return GR_FAIL;
	}
	if (bpf_object__load(obj)) {
		gr_fail_at(__FILE__, __LINE__,
			   "the verifier refused the program (its log is "
			   "above): %s",
			   strerror(errno));
		return GR_FAIL;
	}
	p = bpf_object__find_program_by_name(obj, "pathlab_xdp");
	prog_fd = p ? bpf_program__fd(p) : -1;
	ncpu = libbpf_num_possible_cpus();
	if (prog_fd < 0 || ncpu <= 0) {
		gr_fail_at(__FILE__, __LINE__, "no program pathlab_xdp");
		return GR_FAIL;
	}
	return GR_PASS;
}

/* Run the program repeat times on CPU cpu; its verdict, or -1. */
static int run(const void *frame, size_t len, int cpu, unsigned repeat,
	       struct xdp_md *ctx)
{
	cpu_set_t set;
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame,
		    .data_size_in = (__u32)len, .repeat = repeat, .ctx_in = ctx,
		    .ctx_size_in = ctx ? sizeof(*ctx) : 0);

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	if (bpf_prog_test_run_opts(prog_fd, &o)) {
		gr_fail_at(__FILE__, __LINE__, "BPF_PROG_TEST_RUN: %s",
			   strerror(errno));
		return -1;
	}
	return (int)o.retval;
}

/* The fd of map name, or -1 (and a failure). */
static int map_fd(const char *name)
{
	int fd = bpf_object__find_map_fd_by_name(obj, name);

	if (fd < 0)
		gr_fail_at(__FILE__, __LINE__, "no map %s", name);
	return fd;
}

/* Per-CPU packets and bytes of one verdict: out[cpu]. */
static void verdicts(__u32 verdict, struct pl_xdp_count *out)
{
	int fd = map_fd("verdicts");

	memset(out, 0, sizeof(*out) * (size_t)ncpu);
	if (fd >= 0)
		bpf_map_lookup_elem(fd, &verdict, out);
}

/* The reason counter r, summed over CPUs. */
static __u64 reason(__u32 r)
{
	__u64 v[ncpu], sum = 0;
	int fd = map_fd("reasons"), i;

	if (fd < 0 || bpf_map_lookup_elem(fd, &r, v))
		return 0;
	for (i = 0; i < ncpu; i++)
		sum += v[i];
	return sum;
}

/* The lab entry's no_socket, summed over CPUs. */
static __u64 no_socket(void)
{
	struct pl_xdp_lab v[ncpu];
	__u32 zero = 0;
	__u64 sum = 0;
	int fd = map_fd("lab"), i;

	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, v))
		return 0;
	for (i = 0; i < ncpu; i++)
		sum += v[i].no_socket;
	return sum;
}

/* A good datagram to the lab port; its length. */
static size_t good(uint8_t *f, size_t cap)
{
	return pl_build_frame(f, cap, &spec, 18, 0, 1, 1);
}

/* A good datagram of drawn size and fields (to port, 0: the lab's). */
static size_t drawn(uint8_t *f, size_t cap, uint16_t port)
{
	struct pl_frame_spec s = spec;

	s.dst_port = port ? port : PL_UDP_PORT;
	s.src_ip = (uint32_t)gr_rand();
	s.src_port = (uint16_t)gr_rand();
	s.vlan = gr_below(3) == 0;
	s.vlan_tci = (uint16_t)gr_below(4096);
	return pl_build_frame(f, cap, &s, 18 + gr_below(cap - 100),
			      (uint8_t)gr_rand(), (uint32_t)gr_rand(),
			      gr_rand());
}

/* An ARP-typed frame of 60 bytes. */
static size_t arp(uint8_t *f, size_t cap)
{
	size_t len = good(f, cap);

	f[12] = 0x08, f[13] = 0x06;
	return len;
}

/* Each CPU counts in its own copy of a verdict's entry. */
static int verdict_counts(void)
{
	struct pl_xdp_count c[256];
	uint8_t f[128];
	size_t len = arp(f, sizeof(f));
	int v = load();

	if (v != GR_PASS)
		return v;
	v = run(f, len, 0, 5, NULL);
	GR_EQ_U(v, XDP_PASS);
	verdicts(XDP_PASS, c);
	GR_EQ_U(c[0].packets, 5);
	GR_EQ_U(c[0].bytes, 5 * len);
	if (ncpu > 1) {
		run(f, len, 1, 3, NULL);
		verdicts(XDP_PASS, c);
		GR_EQ_U(c[0].packets, 5);
		GR_EQ_U(c[1].packets, 3);
		GR_EQ_U(c[1].bytes, 3 * len);
	}
	{ /* drawn: frames of other sizes, more repeats, each CPU */
		static uint8_t g[1500];
		unsigned r = 1 + (unsigned)gr_below(50), k;
		size_t glen = drawn(g, sizeof(g), 0);
		int cpu = ncpu > 1 ? (int)gr_below(2) : 0;
		struct pl_xdp_count before[256];

		g[12] = 0x08, g[13] = 0x06; /* ARP: on to the stack */
		verdicts(XDP_PASS, before);
		for (k = 0; k < 2; k++)
			run(g, glen, cpu, r, NULL);
		verdicts(XDP_PASS, c);
		GR_EQ_U(c[cpu].packets - before[cpu].packets, 2 * r);
		GR_EQ_U(c[cpu].bytes - before[cpu].bytes, 2 * r * glen);
	}
	return gr_verdict();
}

/*
 * Every frame is counted once under its parse outcome. (No eth_trunc:
 * BPF_PROG_TEST_RUN refuses frames shorter than an Ethernet header.)
 */
static int reason_counts(void)
{
	static const enum pl_reason rs[] = {
		PL_BAD_VLAN_TRUNC, PL_BAD_IP_CSUM, PL_BAD_IP_FRAG,
		PL_BAD_UDP_LEN,	   PL_BAD_MAGIC,   PL_BAD_VERSION,
	};
	uint8_t f[128];
	size_t len, i;
	int v = load();

	if (v != GR_PASS)
		return v;
	for (i = 0; i < sizeof(rs) / sizeof(rs[0]); i++) {
		len = pl_build_bad_frame(f, sizeof(f), &spec, rs[i], 1, 1);
		run(f, len, 0, (unsigned)i + 1, NULL);
	}
	len = arp(f, sizeof(f));
	run(f, len, 0, 2, NULL);
	len = good(f, sizeof(f));
	run(f, len, 0, 7, NULL);
	for (i = 0; i < sizeof(rs) / sizeof(rs[0]); i++)
		GR_CHECK(reason(rs[i]) == i + 1,
			 "reasons[%s] is %llu, expected %zu",
			 pl_reason_name(rs[i]),
			 (unsigned long long)reason(rs[i]), i + 1);
	GR_EQ_U(reason(PL_OTHER_L2), 2);
	GR_EQ_U(reason(PL_OK), 7);
	{ /* drawn: how many of each, frames of drawn sizes */
		__u64 want[PL_REASON_MAX] = { 0 }, base[PL_REASON_MAX];
		unsigned k, r;

		for (k = 0; k < PL_REASON_MAX; k++)
			base[k] = reason(k);
		for (k = 0; k < 30; k++) {
			enum pl_reason why =
				gr_below(3) ? rs[gr_below(sizeof(rs) /
							  sizeof(rs[0]))]
					    : PL_OK;

			if (why == PL_OK)
				len = drawn(f, sizeof(f), 0);
			else
				len = pl_build_bad_frame(f, sizeof(f), &spec,
							 why, 18 + gr_below(60),
							 (uint32_t)gr_rand());
			r = 1 + (unsigned)gr_below(5);
			run(f, len, 0, r, NULL);
			want[why] += r;
		}
		for (k = 0; k < PL_REASON_MAX; k++)
			GR_CHECK(reason(k) - base[k] == want[k],
				 "drawn frames: reasons[%s] grew by %llu, "
				 "expected %llu",
				 pl_reason_name((enum pl_reason)k),
				 (unsigned long long)(reason(k) - base[k]),
				 (unsigned long long)want[k]);
	}
	return gr_verdict();
}

/* An AF_XDP socket the grader reads: its rings, its UMEM. */
static struct {
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq, rx;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	void *area;
} sock;

#define SOCK_FRAMES 4096

/*
 * A lab of queues queues (lib/lab.h), and an AF_XDP socket bound to plx0's
 * queue 0, its frames on the fill ring, put into the xsks map under key;
 * plx0's ifindex, or -1.
 */
static int socket_under(__u32 key, unsigned queues)
{
	const struct xsk_umem_config uc = {
		.fill_size = SOCK_FRAMES,
		.comp_size = 64,
		.frame_size = 4096,
	};
	const struct xsk_socket_config sc = {
		.rx_size = SOCK_FRAMES,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_COPY,
	};
	size_t len = SOCK_FRAMES * 4096;
	__u32 idx, i;
	int fd;

	if (gr_lab_up(queues) != GR_PASS)
		return -1;
	sock.area = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sock.area == MAP_FAILED ||
	    xsk_umem__create(&sock.umem, sock.area, len, &sock.fq, &sock.cq,
			     &uc) ||
	    xsk_socket__create(&sock.xsk, GR_LAB_RX_IF, 0, sock.umem, &sock.rx,
			       NULL, &sc))
		gr_setup_failed("an AF_XDP socket on %s", GR_LAB_RX_IF);
	if (xsk_ring_prod__reserve(&sock.fq, SOCK_FRAMES, &idx) != SOCK_FRAMES)
		gr_setup_failed("the socket's fill ring");
	for (i = 0; i < SOCK_FRAMES; i++)
		*xsk_ring_prod__fill_addr(&sock.fq, idx + i) = i * 4096ull;
	xsk_ring_prod__submit(&sock.fq, SOCK_FRAMES);
	fd = xsk_socket__fd(sock.xsk);
	if (bpf_map_update_elem(map_fd("xsks"), &key, &fd, BPF_ANY))
		gr_setup_failed("xsks[%u]: %s", key, strerror(errno));
	return gr_lab_ifindex();
}

/* Take what the socket received; how many, and how many good. */
static unsigned sock_drain(unsigned *good)
{
	unsigned n, i, total = 0;
	__u32 idx, fidx;
	struct pl_pkt p;

	while ((n = xsk_ring_cons__peek(&sock.rx, 64, &idx))) {
		for (i = 0; i < n; i++) {
			const struct xdp_desc *d =
				xsk_ring_cons__rx_desc(&sock.rx, idx + i);

			*good += pl_parse_frame(
					 xsk_umem__get_data(sock.area, d->addr),
					 d->len, PL_UDP_PORT, &p) == PL_OK;
		}
		if (xsk_ring_prod__reserve(&sock.fq, n, &fidx) == n) {
			for (i = 0; i < n; i++)
				*xsk_ring_prod__fill_addr(&sock.fq, fidx + i) =
					xsk_ring_cons__rx_desc(&sock.rx,
							       idx + i)
						->addr &
					~4095ull;
			xsk_ring_prod__submit(&sock.fq, n);
		}
		xsk_ring_cons__release(&sock.rx, n);
		total += n;
	}
	return total;
}

/* Run on queue q of the veth; the verdict. */
static int run_on_queue(const void *f, size_t len, int ifindex, __u32 q)
{
	struct xdp_md ctx = { .data_end = (__u32)len,
			      .ingress_ifindex = (__u32)ifindex,
			      .rx_queue_index = q };

	return run(f, len, 0, 1, &ctx);
}

/* Ours: to the queue's socket, or on to the stack when there is none. */
static int redirect(void)
{
	uint8_t f[128], a[128], g[1500];
	size_t len = good(f, sizeof(f)), alen = arp(a, sizeof(a)), glen;
	__u32 key = (__u32)gr_below(4),
	      other = (key + 1 + (__u32)gr_below(3)) % 4;
	int v = load(), ifindex, r;

	if (v != GR_PASS)
		return v;
	ifindex = socket_under(key, 4);
	if (ifindex < 0)
		return GR_SKIP;
	GR_CHECK(run_on_queue(f, len, ifindex, key) == XDP_REDIRECT,
		 "a lab datagram on queue %u (socket there): verdict %d, "
		 "expected XDP_REDIRECT (%d)",
		 key, run_on_queue(f, len, ifindex, key), XDP_REDIRECT);
	GR_EQ_U(no_socket(), 0);
	GR_CHECK(run_on_queue(f, len, ifindex, other) == XDP_PASS,
		 "a lab datagram on queue %u (no socket): verdict %d, "
		 "expected XDP_PASS (%d)",
		 other, run_on_queue(f, len, ifindex, other), XDP_PASS);
	GR_CHECK(no_socket() >= 1, "lab.no_socket did not count queue %u",
		 other);
	GR_CHECK(run_on_queue(a, alen, ifindex, key) == XDP_PASS,
		 "ARP on queue %u: verdict %d, expected XDP_PASS", key,
		 run_on_queue(a, alen, ifindex, key));
	/* Drawn datagrams: to the lab's port, or another. */
	for (r = 0; r < 20; r++) {
		bool ours = gr_below(2);

		glen = drawn(g, sizeof(g),
			     ours ? 0
				  : (uint16_t)(1 + gr_below(PL_UDP_PORT - 1)));
		GR_CHECK(run_on_queue(g, glen, ifindex, key) ==
				 (ours ? XDP_REDIRECT : XDP_PASS),
			 "a datagram of %zu bytes to %s port on queue %u "
			 "(socket there): verdict %d",
			 glen, ours ? "the lab's" : "another", key,
			 run_on_queue(g, glen, ifindex, key));
	}
	return gr_verdict();
}

/* Redirected frames are counted under XDP_REDIRECT. */
static int redirect_counted(void)
{
	struct pl_xdp_count c[256];
	uint8_t f[1500];
	size_t len, bytes = 0;
	__u32 key = (__u32)gr_below(4);
	unsigned n = 1 + (unsigned)gr_below(40), i;
	int v = load(), ifindex;

	if (v != GR_PASS)
		return v;
	ifindex = socket_under(key, 4);
	if (ifindex < 0)
		return GR_SKIP;
	for (i = 0; i < n; i++) {
		len = drawn(f, sizeof(f), 0);
		bytes += len;
		run_on_queue(f, len, ifindex, key);
	}
	verdicts(XDP_REDIRECT, c);
	GR_EQ_U(c[0].packets, n);
	GR_EQ_U(c[0].bytes, bytes);
	verdicts(XDP_PASS, c);
	GR_EQ_U(c[0].packets, 0);
	return gr_verdict();
}

/* Every verdict and reason of the program, summed over CPUs. */
static void totals(__u64 *pkts, __u64 *rsn)
{
	struct pl_xdp_count c[256];
	int i, k;

	for (k = 0; k < PL_XDP_VERDICTS; k++) {
		verdicts((__u32)k, c);
		for (pkts[k] = 0, i = 0; i < ncpu; i++)
			pkts[k] += c[i].packets;
	}
	for (k = 0; k < PL_REASON_MAX; k++)
		rsn[k] = reason((__u32)k);
}

/* Attach the program to plx0 in the driver (native XDP). */
static void attach(int ifindex)
{
	if (bpf_xdp_attach(ifindex, prog_fd, XDP_FLAGS_DRV_MODE, NULL))
		gr_setup_failed("attach to %s: %s", GR_LAB_RX_IF,
				strerror(errno));
}

/*
 * Live: attached to the lab's receiving veth, pathlab-gen's traffic, good
 * datagrams and every n-th frame malformed: every frame the link received
 * counted once, under its verdict and its reason, as the generator says
 * it sent them; the good ones on to the stack (no socket).
 */
static int live_counts(void)
{
	__u64 pkts[PL_XDP_VERDICTS], rsn[PL_REASON_MAX], total = 0, rx0;
	__u64 link, sent, others = 0;
	unsigned every = 3 + (unsigned)gr_below(9), k;
	unsigned count = 500 + (unsigned)gr_below(1500);
	struct gr_gen g;
	char opts[160];
	int v = load(), ifindex;

	if (v != GR_PASS)
		return v;
	if ((v = gr_lab_up(1)) != GR_PASS)
		return v;
	ifindex = gr_lab_ifindex();
	attach(ifindex);
	rx0 = gr_lab_rx_frames();
	snprintf(opts, sizeof(opts),
		 "--tx packet --iface %s --count %u --bad-every %u --size %u "
		 "--rate 20000",
		 GR_LAB_TX_IF, count, every, 64 + (unsigned)gr_below(1400));
	gr_context("pathlab-gen %s", opts);
	gr_lab_gen(&g, opts);
	usleep(100000);
	gr_context("%s", "");
	totals(pkts, rsn);
	for (k = 0; k < PL_XDP_VERDICTS; k++)
		total += pkts[k];
	link = gr_lab_rx_frames() - rx0;
	sent = g.sent + g.bad_sent + g.end_sent;
	if (link < sent)
		return gr_skip("the lab's veth lost frames before the program "
			       "(sent %llu, received %llu): a busy machine",
			       (unsigned long long)sent,
			       (unsigned long long)link);
	/* The link's own frames, if any (not the generator's): not ours. */
	for (k = PL_OTHER_L2; k < PL_REASON_MAX; k++)
		if (k >= PL_OTHER_L2 && k <= PL_OTHER_PORT)
			others += rsn[k];
	GR_CHECK(others == link - sent,
		 "%llu frames on the link were not the generator's; the "
		 "program counted %llu as not ours",
		 (unsigned long long)(link - sent), (unsigned long long)others);
	GR_CHECK(total == link,
		 "the link received %llu frames, the program counted %llu "
		 "verdicts",
		 (unsigned long long)link, (unsigned long long)total);
	GR_CHECK(pkts[XDP_PASS] == total,
		 "no socket: every frame goes on to the stack, but XDP_PASS "
		 "counted %llu of %llu",
		 (unsigned long long)pkts[XDP_PASS], (unsigned long long)total);
	/* The payload's checksum is the AF_XDP receiver's to check. */
	GR_CHECK(rsn[PL_OK] == g.sent + g.end_sent + g.bad[PL_BAD_CHECK],
		 "reasons[ok] is %llu; pathlab-gen sent %llu good datagrams, "
		 "%llu end markers and %llu with a bad payload checksum (the "
		 "program does not check it)",
		 (unsigned long long)rsn[PL_OK], (unsigned long long)g.sent,
		 (unsigned long long)g.end_sent,
		 (unsigned long long)g.bad[PL_BAD_CHECK]);
	for (k = PL_BAD_ETH_TRUNC; k < PL_REASON_MAX; k++)
		GR_CHECK(k == PL_BAD_CHECK || rsn[k] == g.bad[k],
			 "reasons[%s] is %llu; pathlab-gen sent %llu",
			 pl_reason_name((enum pl_reason)k),
			 (unsigned long long)rsn[k],
			 (unsigned long long)g.bad[k]);
	return gr_verdict();
}

/*
 * Live: with an AF_XDP socket on the queue, the generator's good
 * datagrams reach it, counted as redirected; the rest go on.
 */
static int live_redirect(void)
{
	__u64 pkts[PL_XDP_VERDICTS], rsn[PL_REASON_MAX], ours;
	unsigned every = 3 + (unsigned)gr_below(9), got = 0, good = 0, i;
	unsigned count = 500 + (unsigned)gr_below(1500);
	struct gr_gen g;
	char opts[160];
	int v = load(), ifindex;

	if (v != GR_PASS)
		return v;
	ifindex = socket_under(0, 1);
	if (ifindex < 0)
		return GR_SKIP;
	attach(ifindex);
	snprintf(
		opts, sizeof(opts),
		"--tx packet --iface %s --count %u --bad-every %u --rate 10000",
		GR_LAB_TX_IF, count, every);
	gr_context("pathlab-gen %s", opts);
	gr_lab_gen(&g, opts);
	for (i = 0; i < 50; i++) {
		got += sock_drain(&good);
		usleep(2000);
	}
	gr_context("%s", "");
	totals(pkts, rsn);
	/* Ours (a bad payload checksum is the socket's to find). */
	ours = g.sent + g.end_sent + g.bad[PL_BAD_CHECK];
	GR_CHECK(got == ours && good == g.sent + g.end_sent,
		 "the socket received %u frames (%u good); pathlab-gen sent "
		 "%llu good datagrams, %llu end markers, %llu with a bad "
		 "payload checksum",
		 got, good, (unsigned long long)g.sent,
		 (unsigned long long)g.end_sent,
		 (unsigned long long)g.bad[PL_BAD_CHECK]);
	GR_CHECK(pkts[XDP_REDIRECT] == ours,
		 "XDP_REDIRECT counted %llu, the socket had %u",
		 (unsigned long long)pkts[XDP_REDIRECT], got);
	GR_CHECK(pkts[XDP_PASS] >= g.bad_sent - g.bad[PL_BAD_CHECK],
		 "XDP_PASS counted %llu; pathlab-gen sent %llu malformed "
		 "frames",
		 (unsigned long long)pkts[XDP_PASS],
		 (unsigned long long)(g.bad_sent - g.bad[PL_BAD_CHECK]));
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "verdict_counts", 4, "per-CPU packets and bytes of each verdict",
	  verdict_counts },
	{ "reason_counts", 3, "every frame counted under its parse outcome",
	  reason_counts },
	{ "redirect", 5, "lab datagrams to the queue's AF_XDP socket",
	  redirect },
	{ "redirect_counted", 2, "redirects counted as XDP_REDIRECT",
	  redirect_counted },
	{ "live_counts", 3, "attached: the generator's frames, each counted",
	  live_counts },
	{ "live_redirect", 3, "attached: the good ones to an AF_XDP socket",
	  live_redirect },
	{ 0 }
};

int main(int argc, char **argv)
{
	if (argc > 1 && argv[1][0] != '-') {
		obj_path = argv[1];
		argv[1] = argv[0];
		argc--, argv++;
	}
	if (!obj_path && !(argc > 1 && !strcmp(argv[1], "--list"))) {
		fprintf(stderr, "usage: %s OBJECT.bpf.o [grade options]\n",
			argv[0]);
		return 2;
	}
	gr_sandbox(&(struct gr_sandbox){ 0 });
	return gr_main(argc, argv, "05-xdp-verdict", cases);
}
