/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 6: the fill ring and frame recycling, without
 * a kernel. The rings of <xdp/xsk.h> are plain single-producer,
 * single-consumer rings in shared memory; here they are memory the grader
 * shares with the worker (wk_xsk_fill.c), where the student's functions
 * run, and a fake "kernel" below plays the other end: it takes frames off
 * the fill ring, writes datagrams into them (past some headroom, as a
 * driver may) and posts descriptors on the RX ring. It knows who owns
 * each frame, so it notices a frame handed over twice, a frame never
 * given back, an address that is not a frame's start, and an RX slot
 * never released.
 */
#include "clock.h"
#include "grade.h"
#include "lab.h"
#include "wire.h"
#include "xf_rpc.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <sys/socket.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES	   64
#define FRAME_SIZE 2048
#define RXN	   128 /* RX ring entries */

enum { USER, KERNEL };

/* The rings and the UMEM: shared with the worker. */
struct shared {
	uint32_t fq_prod, fq_cons, fq_flags, rx_prod, rx_cons, rx_flags;
	uint64_t fq[FRAMES];
	struct xdp_desc rxd[RXN];
	uint8_t area[FRAMES * FRAME_SIZE] __attribute__((aligned(4096)));
};

static struct shared *sh;

/* The kernel's side of the two rings, and what it knows. */
static struct {
	int owner[FRAMES];
	unsigned headroom;
	uint32_t seq;
	uint64_t delivered, errors;
} k;

static struct xf_counts rx; /* the worker's counters, after a burst */

static const struct pl_frame_spec spec = {
	.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
	.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
	.src_ip = 0x0a000001,
	.dst_ip = 0x0a000002,
	.src_port = 12345,
	.dst_port = PL_UDP_PORT,
};

/* Say what the kernel found wrong (the first few times). */
static void kernel_error(const char *what, uint64_t addr)
{
	if (k.errors++ < 3)
		gr_fail_at(__FILE__, __LINE__, "kernel: %s (address %#llx)",
			   what, (unsigned long long)addr);
}

/* The rings as xsk_umem__create() and xsk_socket__create() leave them;
 * prefilled: every frame already on the fill ring (the test's own fill,
 * for the cases after 6.1). */
static void setup(unsigned fq_size, unsigned batch, unsigned headroom,
		  bool prefilled)
{
	struct xf_setup q;
	unsigned i;

	gr_worker_stop();
	sh = gr_share(sizeof(*sh));
	memset(&k, 0, sizeof(k));
	memset(&rx, 0, sizeof(rx));
	k.headroom = headroom;
	for (i = 0; i < FRAMES; i++)
		k.owner[i] = USER;
	if (prefilled) {
		for (i = 0; i < FRAMES; i++)
			sh->fq[i] = (uint64_t)i * FRAME_SIZE;
		sh->fq_prod = FRAMES;
	}
	q = (struct xf_setup){
		.fq_prod = gr_waddr(&sh->fq_prod),
		.fq_cons = gr_waddr(&sh->fq_cons),
		.fq_flags = gr_waddr(&sh->fq_flags),
		.fq_ring = gr_waddr(sh->fq),
		.rx_prod = gr_waddr(&sh->rx_prod),
		.rx_cons = gr_waddr(&sh->rx_cons),
		.rx_flags = gr_waddr(&sh->rx_flags),
		.rx_ring = gr_waddr(sh->rxd),
		.area = gr_waddr(sh->area),
		.area_len = sizeof(sh->area),
		.frame_mask = ~((uint64_t)FRAME_SIZE - 1),
		.fq_size = fq_size,
		.rx_size = RXN,
		.batch = batch,
		.port = PL_UDP_PORT,
		.fq_cached_prod = prefilled ? FRAMES : 0,
	};
	gr_call_exact(XF_SETUP, &q, sizeof(q), NULL, 0);
}

/* The student's ex_fill_all(). */
static int ex_fill_all(unsigned frames, unsigned frame_size)
{
	struct xf_fill_in q = { frames, frame_size };
	int32_t r;

	gr_call_exact(XF_FILL_ALL, &q, sizeof(q), &r, sizeof(r));
	return r;
}

/* The student's ex_rx_burst(): what it returned. */
static unsigned ex_rx_burst(void)
{
	gr_call_exact(XF_BURST, NULL, 0, &rx, sizeof(rx));
	return rx.ret;
}

/* The kernel receives up to n datagrams; returns how many it could. */
static unsigned kernel_rx(unsigned n)
{
	uint32_t prod = __atomic_load_n(&sh->fq_prod, __ATOMIC_ACQUIRE);
	uint32_t rcons = __atomic_load_n(&sh->rx_cons, __ATOMIC_ACQUIRE);
	unsigned done = 0, f;
	uint64_t addr;
	size_t len;

	if (sh->rx_prod - rcons > RXN || rcons > sh->rx_prod)
		kernel_error("the RX ring's consumer moved past its producer",
			     rcons);
	while (done < n && sh->fq_cons != prod && sh->rx_prod - rcons < RXN) {
		addr = sh->fq[sh->fq_cons++ & (FRAMES - 1)];
		f = (unsigned)(addr / FRAME_SIZE);
		if (addr % FRAME_SIZE || addr >= sizeof(sh->area)) {
			kernel_error("fill ring: not the start of a frame",
				     addr);
			continue;
		}
		if (k.owner[f] == KERNEL) {
			kernel_error("fill ring: a frame handed over twice",
				     addr);
			continue;
		}
		k.owner[f] = KERNEL;
		len = pl_build_frame(sh->area + addr + k.headroom,
				     FRAME_SIZE - k.headroom, &spec,
				     18 + k.seq % 64, 3, k.seq, pl_now_ns());
		k.seq++;
		sh->rxd[sh->rx_prod & (RXN - 1)] = (struct xdp_desc){
			.addr = addr + k.headroom,
			.len = (uint32_t)len,
		};
		k.owner[f] = USER;
		sh->rx_prod++;
		done++;
	}
	__atomic_store_n(&sh->fq_cons, sh->fq_cons, __ATOMIC_RELEASE);
	__atomic_store_n(&sh->rx_prod, sh->rx_prod, __ATOMIC_RELEASE);
	k.delivered += done;
	return done;
}

/* How far the user side moved the fill ring's producer index. */
static uint32_t fill_ring_producer(void)
{
	return __atomic_load_n(&sh->fq_prod, __ATOMIC_ACQUIRE);
}

/* How far the user side moved the RX ring's consumer index. */
static uint32_t rx_ring_consumer(void)
{
	return __atomic_load_n(&sh->rx_cons, __ATOMIC_ACQUIRE);
}

/* Frames not on the fill ring: once everything is read, there are none. */
static unsigned not_back(void)
{
	unsigned in_kernel = sh->fq_prod - sh->fq_cons;

	return in_kernel < FRAMES ? FRAMES - in_kernel : 0;
}

/* Unique sequence numbers the stats saw in flow 3. */
static uint64_t unique(void)
{
	return rx.unique;
}

/* The initial fill: every frame once, at its start; all or nothing. */
static int fill_all(void)
{
	int seen[FRAMES] = { 0 }, err;
	unsigned i;

	setup(FRAMES, 64, 0, false);
	err = ex_fill_all(FRAMES, FRAME_SIZE);
	GR_EQ_U(err, 0);
	GR_EQ_U(fill_ring_producer(), FRAMES);
	for (i = 0; i < FRAMES && sh->fq_prod == FRAMES; i++) {
		GR_CHECK(sh->fq[i] % FRAME_SIZE == 0 &&
				 sh->fq[i] < sizeof(sh->area),
			 "fill slot %u: address %#llx", i,
			 (unsigned long long)sh->fq[i]);
		if (sh->fq[i] < sizeof(sh->area))
			seen[sh->fq[i] / FRAME_SIZE]++;
	}
	for (i = 0; i < FRAMES; i++)
		GR_CHECK(seen[i] == 1, "frame %u handed over %d times", i,
			 seen[i]);
	GR_EQ_U(kernel_rx(FRAMES), FRAMES);
	/* A ring smaller than the UMEM: nothing at all, and -ENOSPC. */
	setup(FRAMES / 2, 64, 0, false);
	err = ex_fill_all(FRAMES, FRAME_SIZE);
	GR_CHECK(err == -ENOSPC,
		 "64 frames, 32-entry ring: %d, expected "
		 "-ENOSPC (%d)",
		 err, -ENOSPC);
	GR_EQ_U(fill_ring_producer(), 0);
	/* Drawn: a ring bigger than the UMEM takes it all; a smaller one
	 * nothing. */
	{
		unsigned size = FRAMES << (1 + gr_below(3));

		setup(size, 64, 0, false);
		GR_EQ_U(ex_fill_all(FRAMES, FRAME_SIZE), 0);
		GR_EQ_U(fill_ring_producer(), FRAMES);
		GR_EQ_U(kernel_rx(FRAMES), FRAMES);
		GR_EQ_U(k.errors, 0);
		size = FRAMES >> (1 + gr_below(5));
		setup(size, 64, 0, false);
		err = ex_fill_all(FRAMES, FRAME_SIZE);
		GR_CHECK(err == -ENOSPC,
			 "64 frames, %u-entry ring: %d, expected -ENOSPC", size,
			 err);
		GR_EQ_U(fill_ring_producer(), 0);
	}
	return gr_verdict();
}

/* One burst: accounted, frames back on the fill ring, RX slots freed. */
static int one_burst(void)
{
	unsigned n;

	unsigned w = 1 + (unsigned)gr_below(FRAMES - 1);

	setup(FRAMES, 64, 0, true);
	kernel_rx(10);
	n = ex_rx_burst();
	GR_EQ_U(n, 10);
	GR_EQ_U(rx.packets, 10);
	GR_EQ_U(fill_ring_producer(), FRAMES + 10);
	GR_EQ_U(rx_ring_consumer(), 10);
	GR_EQ_U(kernel_rx(FRAMES), FRAMES);
	GR_EQ_U(k.errors, 0);
	/* Drawn: how many wait, an odd batch. */
	setup(FRAMES, 65 + 2 * (unsigned)gr_below(32), 0, true);
	kernel_rx(w);
	GR_EQ_U(ex_rx_burst(), w);
	GR_EQ_U(rx.packets, w);
	GR_EQ_U(fill_ring_producer(), FRAMES + w);
	GR_EQ_U(rx_ring_consumer(), w);
	GR_EQ_U(k.errors, 0);
	return gr_verdict();
}

/* With headroom the descriptor points into the frame: give its start. */
static int headroom(void)
{
	unsigned i;

	setup(FRAMES, 64, 256, true);
	kernel_rx(FRAMES);
	GR_EQ_U(ex_rx_burst(), FRAMES);
	GR_EQ_U(rx.packets, FRAMES);
	GR_EQ_U(fill_ring_producer(), 2 * FRAMES);
	for (i = 0; i < FRAMES && !gr_failures; i++)
		GR_CHECK(sh->fq[i] % FRAME_SIZE == 0,
			 "fill slot %u: %#llx is not the start of a frame", i,
			 (unsigned long long)sh->fq[i]);
	GR_EQ_U(kernel_rx(FRAMES), FRAMES);
	GR_EQ_U(k.errors, 0);
	/* Drawn: the headroom, an odd batch. */
	setup(FRAMES, 65 + 2 * (unsigned)gr_below(32),
	      1 + (unsigned)gr_below(FRAME_SIZE - 256), true);
	kernel_rx(FRAMES);
	GR_EQ_U(ex_rx_burst(), FRAMES);
	for (i = 0; i < FRAMES && !gr_failures; i++)
		GR_CHECK(sh->fq[(FRAMES + i) & (FRAMES - 1)] % FRAME_SIZE == 0,
			 "headroom %u: fill slot %u holds %#llx, not the start "
			 "of a frame",
			 k.headroom, i,
			 (unsigned long long)
				 sh->fq[(FRAMES + i) & (FRAMES - 1)]);
	GR_EQ_U(kernel_rx(FRAMES), FRAMES);
	GR_EQ_U(k.errors, 0);
	return gr_verdict();
}

/* A batch smaller than what waits: take a batch, release exactly that. */
static int release(void)
{
	setup(FRAMES, 16, 0, true);
	kernel_rx(40);
	GR_EQ_U(ex_rx_burst(), 16);
	GR_EQ_U(rx_ring_consumer(), 16);
	GR_EQ_U(ex_rx_burst(), 16);
	GR_EQ_U(ex_rx_burst(), 8);
	GR_EQ_U(ex_rx_burst(), 0);
	GR_EQ_U(rx_ring_consumer(), 40);
	GR_EQ_U(rx.packets, 40);
	{ /* drawn: the batch and what waits */
		unsigned b = 1 + 2 * (unsigned)gr_below(16), /* odd */
			w = (unsigned)gr_below(64), left, got;

		setup(FRAMES, b, 0, true);
		kernel_rx(w);
		for (left = w; !gr_failures;) {
			got = ex_rx_burst();
			GR_CHECK(got == (left < b ? left : b),
				 "batch %u, %u waiting: a burst of %u", b, left,
				 got);
			GR_EQ_U(rx_ring_consumer(), w - left + got);
			left -= got <= left ? got : left;
			if (!got)
				break;
		}
		GR_EQ_U(rx.packets, w);
	}
	return gr_verdict();
}

/* 50,000 datagrams through 64 frames: none lost, none doubled. */
static int recycle(void)
{
	unsigned want = 50000, stalls = 0, n;

	setup(FRAMES, 9 + 2 * (unsigned)gr_below(28),
	      (unsigned)gr_below(FRAME_SIZE - 256), true);
	while (k.delivered < want && stalls < 100 && k.errors < 3) {
		n = 1 + (unsigned)gr_below(80);
		if (n > want - k.delivered)
			n = want - (unsigned)k.delivered;
		if (!kernel_rx(n))
			stalls++;
		while (ex_rx_burst())
			;
	}
	GR_CHECK(k.delivered == want,
		 "the kernel could deliver only %llu of %u datagrams: it ran "
		 "out of frames (%u not back on the fill ring)",
		 (unsigned long long)k.delivered, want, not_back());
	GR_EQ_U(rx.packets, k.delivered);
	GR_EQ_U(unique(), k.delivered);
	GR_EQ_U(rx.bad_total, 0);
	GR_EQ_U(not_back(), 0);
	GR_EQ_U(k.errors, 0);
	return gr_verdict();
}

/*
 * Live: the student's fill and burst under a real AF_XDP socket. The
 * grader makes the socket on the lab's veth (libxdp's own program sends
 * it every frame), its UMEM memory it shares with the worker, which maps
 * the rings from the socket as libxdp does; pathlab-gen sends rounds of
 * datagrams that together need more frames than the UMEM has: only
 * frames given back to the fill ring take the later rounds. The kernel
 * says what it could not deliver (XDP_STATISTICS).
 */
static int live_rounds(unsigned frames, unsigned rounds, unsigned count,
		       unsigned batch, unsigned rate)
{
	const unsigned fsize = 2048;
	const struct xsk_umem_config uc = { .fill_size = frames,
					    .comp_size = 64,
					    .frame_size = fsize };
	const struct xsk_socket_config sc = { .rx_size = frames,
					      .tx_size = 64,
					      .xdp_flags = XDP_FLAGS_DRV_MODE,
					      .bind_flags = XDP_COPY };
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq, ring;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xdp_statistics xs;
	socklen_t xl = sizeof(xs);
	struct xf_live q = { .frames = frames,
			     .frame_size = fsize,
			     .batch = batch };
	uint64_t good = 0, want = 0;
	struct xf_drain d = { .want = ~0ull, .idle_ms = 300 };
	struct gr_gen_run run;
	struct gr_gen g;
	char opts[128];
	void *area;
	int32_t r;
	int v, round;

	if ((v = gr_lab_up(1)) != GR_PASS)
		return v;
	area = gr_share((size_t)frames * fsize);
	if (xsk_umem__create(&umem, area, (uint64_t)frames * fsize, &fq, &cq,
			     &uc) ||
	    xsk_socket__create(&xsk, GR_LAB_RX_IF, 0, umem, &ring, NULL, &sc))
		return gr_skip("no AF_XDP socket on the lab's veth: %s",
			       strerror(errno));
	q.fd = (uint32_t)gr_give_fd(xsk_socket__fd(xsk));
	q.area = gr_waddr(area);
	gr_context("ex_fill_all() under the socket");
	gr_call_exact(XF_LIVE, &q, sizeof(q), &r, sizeof(r));
	gr_context("%s", "");
	GR_EQ_U(r, 0);
	GR_STOP_IF_FAILED();
	for (round = 1; round <= (int)rounds && !gr_failures; round++) {
		/* The receiver runs while pathlab-gen sends, as in the lab. */
		snprintf(opts, sizeof(opts),
			 "--count %u --payload %u --rate %u",
			 count + (unsigned)gr_below(count / 4),
			 18 + (unsigned)gr_below(1400), rate);
		gr_lab_gen_start(&run, opts);
		gr_context("round %d: ex_rx_burst() while pathlab-gen sends",
			   round);
		gr_call_exact(XF_DRAIN, &d, sizeof(d), &rx, sizeof(rx));
		gr_lab_gen_wait(&run, &g);
		good += g.sent;
		want += g.sent + g.end_sent;
		/* Then what is still on its way (a generator slow to start). */
		d = (struct xf_drain){ .want = want, .idle_ms = 1000 };
		gr_call_exact(XF_DRAIN, &d, sizeof(d), &rx, sizeof(rx));
		d = (struct xf_drain){ .want = ~0ull, .idle_ms = 300 };
		gr_context("%s", "");
		if (getsockopt(xsk_socket__fd(xsk), SOL_XDP, XDP_STATISTICS,
			       &xs, &xl))
			gr_setup_failed("XDP_STATISTICS: %s", strerror(errno));
		GR_CHECK(!xs.rx_fill_ring_empty_descs && !xs.rx_dropped,
			 "round %d: the kernel found the fill ring empty %llu "
			 "times and dropped %llu frames: were the frames "
			 "given back?",
			 round, (unsigned long long)xs.rx_fill_ring_empty_descs,
			 (unsigned long long)xs.rx_dropped);
		GR_CHECK(rx.packets == good,
			 "round %d: %llu datagrams accounted; pathlab-gen sent "
			 "%llu",
			 round, (unsigned long long)rx.packets,
			 (unsigned long long)good);
	}
	GR_EQ_U(rx.bad_total, 0);
	return gr_verdict();
}

/* Three rounds of about 1,200 datagrams through 4,096 frames. */
static int live_socket(void)
{
	return live_rounds(4096, 3, 1200, 17 + 2 * (unsigned)gr_below(24),
			   20000);
}

#ifdef XF_LOSSY
/*
 * Eight rounds of about 300 through 512 frames, bursts of 9 to 15, at
 * 5,000 a second: a receiver that gives every frame back has 100 ms of
 * frames in hand (a busy machine's pauses fit); one that keeps some runs
 * dry within a few rounds.
 */
static int live_small_umem(void)
{
	return live_rounds(512, 8, 300, 9 + (unsigned)gr_below(7), 5000);
}
static const char *answers; /* exercise 17's diagnosis */

/* The names of struct xdp_statistics' counters, in its order. */
static const char *const xs_names[] = {
	"rx_dropped",	"rx_invalid_descs",	    "tx_invalid_descs",
	"rx_ring_full", "rx_fill_ring_empty_descs", "tx_ring_empty_descs",
};

/*
 * The counter of XDP_STATISTICS that grows when a receiver keeps frames:
 * what the lab shows, with a socket whose fill ring has 16 frames and
 * gets none back. Its name, or NULL (the lab could not say).
 */
static const char *leak_counter(char *grew, size_t cap)
{
	const struct xsk_umem_config uc = { .fill_size = 64,
					    .comp_size = 64,
					    .frame_size = 2048 };
	const struct xsk_socket_config sc = { .rx_size = 64,
					      .tx_size = 64,
					      .xdp_flags = XDP_FLAGS_DRV_MODE,
					      .bind_flags = XDP_COPY };
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq, ring;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	__u64 xs[6] = { 0 }, best = 0;
	socklen_t xl = sizeof(struct xdp_statistics);
	const char *name = NULL;
	struct gr_gen g;
	static uint8_t area[64 * 2048] __attribute__((aligned(4096)));
	__u32 idx, i;

	if (xsk_umem__create(&umem, area, sizeof(area), &fq, &cq, &uc) ||
	    xsk_socket__create(&xsk, GR_LAB_RX_IF, 0, umem, &ring, NULL, &sc) ||
	    xsk_ring_prod__reserve(&fq, 16, &idx) != 16)
		return NULL;
	for (i = 0; i < 16; i++)
		*xsk_ring_prod__fill_addr(&fq, idx + i) = i * 2048ull;
	xsk_ring_prod__submit(&fq, 16);
	gr_lab_gen(&g, "--count 200 --rate 20000");
	if (getsockopt(xsk_socket__fd(xsk), SOL_XDP, XDP_STATISTICS, xs, &xl))
		return NULL;
	grew[0] = '\0';
	for (i = 0; i < 6; i++) {
		if (xs[i] > best)
			best = xs[i], name = xs_names[i];
		if (xs[i]) /* squeezed, as answers are: no underscores */
			for (const char *c = xs_names[i]; *c; c++)
				if (*c != '_' && strlen(grew) + 2 < cap)
					strncat(grew, c, 1);
		if (xs[i] && strlen(grew) + 2 < cap)
			strcat(grew, "|");
	}
	xsk_socket__delete(xsk);
	xsk_umem__delete(umem);
	return name;
}

/* The diagnosis: the counter the lab shows, the cause, the count. */
static int diagnosis(void)
{
	const char *counter, *got;
	char grew[256], pat[64];
	int v;

	if ((v = gr_lab_up(1)) != GR_PASS)
		return v;
	counter = leak_counter(grew, sizeof(grew));
	if (!counter)
		return gr_skip("no AF_XDP socket on the lab's veth");
	got = gr_answer(answers, "counter");
	snprintf(pat, sizeof(pat), "%s|", got);
	GR_CHECK(got[0] && strstr(grew, pat) &&
			 (strstr(grew, pat) == grew ||
			  strstr(grew, pat)[-1] == '|'),
		 "counter: you said \"%s\"; a socket that gets no frame back "
		 "shows %s growing (and its specific cause with it)",
		 got, counter);
	GR_CHECK(!strcmp(gr_answer(answers, "cause"), "framesnotgivenback"),
		 "cause: you said \"%s\"", gr_answer(answers, "cause"));
	GR_CHECK(!strcmp(gr_answer(answers, "lost_per_burst_of_13"), "5"),
		 "lost_per_burst_of_13: you said \"%s\"",
		 gr_answer(answers, "lost_per_burst_of_13"));
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "recycle", 4, "50,000 datagrams through 64 frames", recycle },
	{ "live_socket", 4,
	  "under a real AF_XDP socket, rounds through 1,024 "
	  "frames",
	  live_small_umem },
	{ "diagnosis", 3, "the counter, the cause, the frames a burst keeps",
	  diagnosis },
	{ 0 }
};
#else
static const struct gr_case cases[] = {
	{ "fill_all", 3, "every frame on the fill ring once, or -ENOSPC",
	  fill_all },
	{ "one_burst", 3, "a burst: frames back, RX slots released",
	  one_burst },
	{ "headroom", 2, "frame addresses rounded down to the frame start",
	  headroom },
	{ "release", 1, "release exactly what was taken", release },
	{ "recycle", 4, "50,000 datagrams through 64 frames", recycle },
	{ "live_socket", 3, "under a real AF_XDP socket, pathlab-gen's rounds",
	  live_socket },
	{ 0 }
};
#endif

int main(int argc, char **argv)
{
	gr_sandbox(&(struct gr_sandbox){ .flags = GR_SB_SOCKETS });
	libbpf_set_print(NULL); /* libxdp's fallbacks are not the case's */
	libxdp_set_print(NULL);
#ifdef XF_LOSSY
	answers = gr_take_option(&argc, argv, "--answers");
	return gr_main(argc, argv, "17-lossy-rx", cases);
#else
	return gr_main(argc, argv, "06-xsk-fill", cases);
#endif
}
