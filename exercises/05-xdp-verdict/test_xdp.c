/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 5: the XDP program's decision, without an
 * interface to attach to. The exercise's object file (argv[1]) is loaded
 * with libbpf and run on crafted frames with BPF_PROG_TEST_RUN; the test
 * reads its per-CPU maps afterwards. For the redirect, a private network
 * namespace gets a veth with four queues and an AF_XDP socket in the xsks
 * map, so that bpf_redirect_map() finds one. Needs root (CAP_BPF,
 * CAP_NET_ADMIN); skipped without.
 */
#include "grade.h"
#include "pathlab_xdp.h"
#include "wire.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
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

/* Skip without root; load the exercise's program; GR_PASS or why not. */
static int load(void)
{
	struct bpf_program *p;

	if (geteuid() != 0)
		return gr_skip("needs root to load XDP programs "
			       "(BPF_PROG_TEST_RUN); run the grader as root");
	obj = bpf_object__open_file(obj_path, NULL);
	if (!obj) {
		gr_fail_at(__FILE__, __LINE__, "open %s: %s", obj_path,
			   strerror(errno));
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
	return gr_verdict();
}

/*
 * A private namespace with a four-queue veth, and an AF_XDP socket bound
 * to its queue 0 put into the xsks map under key 2; the veth's ifindex.
 */
static int socket_on_queue_2(void)
{
	static struct xsk_ring_prod fq;
	static struct xsk_ring_cons cq, rx;
	const struct xsk_socket_config sc = {
		.rx_size = 64,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_COPY,
	};
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	size_t len = 64 * 4096;
	void *area;
	__u32 key = 2;
	int fd, ifindex;

	if (unshare(CLONE_NEWNET) ||
	    system("ip link add plx0 numtxqueues 4 numrxqueues 4 type veth "
		   "peer name plx1 numtxqueues 4 numrxqueues 4 && "
		   "ip link set plx0 up && ip link set plx1 up")) {
		gr_fail_at(__FILE__, __LINE__,
			   "test setup: a veth in a private namespace");
		return -1;
	}
	ifindex = (int)if_nametoindex("plx0");
	area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED ||
	    xsk_umem__create(&umem, area, len, &fq, &cq, NULL) ||
	    xsk_socket__create(&xsk, "plx0", 0, umem, &rx, NULL, &sc)) {
		gr_fail_at(__FILE__, __LINE__, "test setup: an AF_XDP socket");
		return -1;
	}
	fd = xsk_socket__fd(xsk);
	if (bpf_map_update_elem(map_fd("xsks"), &key, &fd, BPF_ANY)) {
		gr_fail_at(__FILE__, __LINE__, "test setup: xsks[2]: %s",
			   strerror(errno));
		return -1;
	}
	return ifindex;
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
	uint8_t f[128], a[128];
	size_t len = good(f, sizeof(f)), alen = arp(a, sizeof(a));
	int v = load(), ifindex;

	if (v != GR_PASS)
		return v;
	ifindex = socket_on_queue_2();
	if (ifindex < 0)
		return GR_FAIL;
	GR_CHECK(run_on_queue(f, len, ifindex, 2) == XDP_REDIRECT,
		 "a lab datagram on queue 2 (socket there): verdict %d, "
		 "expected XDP_REDIRECT (%d)",
		 run_on_queue(f, len, ifindex, 2), XDP_REDIRECT);
	GR_EQ_U(no_socket(), 0);
	GR_CHECK(run_on_queue(f, len, ifindex, 1) == XDP_PASS,
		 "a lab datagram on queue 1 (no socket): verdict %d, expected "
		 "XDP_PASS (%d)",
		 run_on_queue(f, len, ifindex, 1), XDP_PASS);
	GR_CHECK(no_socket() >= 1, "lab.no_socket did not count queue 1");
	GR_CHECK(run_on_queue(a, alen, ifindex, 2) == XDP_PASS,
		 "ARP on queue 2: verdict %d, expected XDP_PASS",
		 run_on_queue(a, alen, ifindex, 2));
	return gr_verdict();
}

/* Redirected frames are counted under XDP_REDIRECT. */
static int redirect_counted(void)
{
	struct pl_xdp_count c[256];
	uint8_t f[128];
	size_t len = good(f, sizeof(f));
	int v = load(), ifindex, i;

	if (v != GR_PASS)
		return v;
	ifindex = socket_on_queue_2();
	if (ifindex < 0)
		return GR_FAIL;
	for (i = 0; i < 4; i++)
		run_on_queue(f, len, ifindex, 2);
	verdicts(XDP_REDIRECT, c);
	GR_EQ_U(c[0].packets, 4);
	GR_EQ_U(c[0].bytes, 4 * len);
	verdicts(XDP_PASS, c);
	GR_EQ_U(c[0].packets, 0);
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
	return gr_main(argc, argv, "05-xdp-verdict", cases);
}
