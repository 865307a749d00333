/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 6: the fill ring and frame recycling, without
 * a kernel. The rings of <xdp/xsk.h> are plain single-producer,
 * single-consumer rings in shared memory; here they live in this process,
 * and a fake "kernel" below plays the other end: it takes frames off the
 * fill ring, writes datagrams into them (past some headroom, as a driver
 * may) and posts descriptors on the RX ring. It knows who owns each frame,
 * so it notices a frame handed over twice, a frame never given back, an
 * address that is not a frame's start, and an RX slot never released.
 */
#include "clock.h"
#include "grade.h"
#include "xsk_fill_ex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES	   64
#define FRAME_SIZE 2048
#define RXN	   128 /* RX ring entries */

enum { USER, KERNEL };

static struct xsk_rx rx;
static uint8_t area[FRAMES * FRAME_SIZE] __attribute__((aligned(4096)));

/* The kernel's side of the two rings, and what it knows. */
static struct {
	uint32_t fq_prod, fq_cons, fq_flags, rx_prod, rx_cons, rx_flags;
	uint64_t fq[FRAMES];
	struct xdp_desc rxd[RXN];
	int owner[FRAMES];
	unsigned headroom;
	uint32_t seq;
	uint64_t delivered, errors;
} k;

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

/* The rings as xsk_umem__create() and xsk_socket__create() leave them. */
static void setup(unsigned fq_size, unsigned batch, unsigned headroom)
{
	unsigned i;

	memset(&k, 0, sizeof(k));
	k.headroom = headroom;
	for (i = 0; i < FRAMES; i++)
		k.owner[i] = USER;
	rx.fq = (struct xsk_ring_prod){
		.cached_cons = fq_size, /* libxdp keeps it size ahead */
		.mask = fq_size - 1,
		.size = fq_size,
		.producer = &k.fq_prod,
		.consumer = &k.fq_cons,
		.ring = k.fq,
		.flags = &k.fq_flags,
	};
	rx.rx = (struct xsk_ring_cons){
		.mask = RXN - 1,
		.size = RXN,
		.producer = &k.rx_prod,
		.consumer = &k.rx_cons,
		.ring = k.rxd,
		.flags = &k.rx_flags,
	};
	rx.area = area;
	rx.area_len = sizeof(area);
	rx.frame_mask = ~((uint64_t)FRAME_SIZE - 1);
	rx.batch = batch;
	rx.port = PL_UDP_PORT;
	pl_stats_init(&rx.stats);
}

/* The test's own fill of every frame (for the cases after 6.1). */
static void fill_by_test(void)
{
	unsigned i;

	for (i = 0; i < FRAMES; i++)
		k.fq[i] = (uint64_t)i * FRAME_SIZE;
	__atomic_store_n(&k.fq_prod, FRAMES, __ATOMIC_RELEASE);
	rx.fq.cached_prod = FRAMES;
}

/* The kernel receives up to n datagrams; returns how many it could. */
static unsigned kernel_rx(unsigned n)
{
	uint32_t prod = __atomic_load_n(&k.fq_prod, __ATOMIC_ACQUIRE);
	uint32_t rcons = __atomic_load_n(&k.rx_cons, __ATOMIC_ACQUIRE);
	unsigned done = 0, f;
	uint64_t addr;
	size_t len;

	if (k.rx_prod - rcons > RXN || rcons > k.rx_prod)
		kernel_error("the RX ring's consumer moved past its producer",
			     rcons);
	while (done < n && k.fq_cons != prod && k.rx_prod - rcons < RXN) {
		addr = k.fq[k.fq_cons++ & (FRAMES - 1)];
		f = (unsigned)(addr / FRAME_SIZE);
		if (addr % FRAME_SIZE || addr >= sizeof(area)) {
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
		len = pl_build_frame(area + addr + k.headroom,
				     FRAME_SIZE - k.headroom, &spec,
				     18 + k.seq % 64, 3, k.seq, pl_now_ns());
		k.seq++;
		k.rxd[k.rx_prod & (RXN - 1)] = (struct xdp_desc){
			.addr = addr + k.headroom,
			.len = (uint32_t)len,
		};
		k.owner[f] = USER;
		k.rx_prod++;
		done++;
	}
	__atomic_store_n(&k.fq_cons, k.fq_cons, __ATOMIC_RELEASE);
	__atomic_store_n(&k.rx_prod, k.rx_prod, __ATOMIC_RELEASE);
	k.delivered += done;
	return done;
}

/* How far the user side moved the fill ring's producer index. */
static uint32_t fill_ring_producer(void)
{
	return __atomic_load_n(&k.fq_prod, __ATOMIC_ACQUIRE);
}

/* How far the user side moved the RX ring's consumer index. */
static uint32_t rx_ring_consumer(void)
{
	return __atomic_load_n(&k.rx_cons, __ATOMIC_ACQUIRE);
}

/* Frames not on the fill ring: once everything is read, there are none. */
static unsigned not_back(void)
{
	unsigned in_kernel = k.fq_prod - k.fq_cons;

	return in_kernel < FRAMES ? FRAMES - in_kernel : 0;
}

/* Unique sequence numbers the stats saw in flow 3. */
static uint64_t unique(void)
{
	return rx.stats.flows[3] ? rx.stats.flows[3]->unique : 0;
}

/* The initial fill: every frame once, at its start; all or nothing. */
static int fill_all(void)
{
	int seen[FRAMES] = { 0 }, err;
	unsigned i;

	setup(FRAMES, 64, 0);
	err = ex_fill_all(&rx, FRAMES, FRAME_SIZE);
	GR_EQ_U(err, 0);
	GR_EQ_U(fill_ring_producer(), FRAMES);
	for (i = 0; i < FRAMES && k.fq_prod == FRAMES; i++) {
		GR_CHECK(k.fq[i] % FRAME_SIZE == 0 && k.fq[i] < sizeof(area),
			 "fill slot %u: address %#llx", i,
			 (unsigned long long)k.fq[i]);
		if (k.fq[i] < sizeof(area))
			seen[k.fq[i] / FRAME_SIZE]++;
	}
	for (i = 0; i < FRAMES; i++)
		GR_CHECK(seen[i] == 1, "frame %u handed over %d times", i,
			 seen[i]);
	GR_EQ_U(kernel_rx(FRAMES), FRAMES);
	/* A ring smaller than the UMEM: nothing at all, and -ENOSPC. */
	setup(FRAMES / 2, 64, 0);
	err = ex_fill_all(&rx, FRAMES, FRAME_SIZE);
	GR_CHECK(err == -ENOSPC,
		 "64 frames, 32-entry ring: %d, expected "
		 "-ENOSPC (%d)",
		 err, -ENOSPC);
	GR_EQ_U(fill_ring_producer(), 0);
	return gr_verdict();
}

/* One burst: accounted, frames back on the fill ring, RX slots freed. */
static int one_burst(void)
{
	unsigned n;

	setup(FRAMES, 64, 0);
	fill_by_test();
	kernel_rx(10);
	n = ex_rx_burst(&rx);
	GR_EQ_U(n, 10);
	GR_EQ_U(rx.stats.packets, 10);
	GR_EQ_U(fill_ring_producer(), FRAMES + 10);
	GR_EQ_U(rx_ring_consumer(), 10);
	GR_EQ_U(kernel_rx(FRAMES), FRAMES);
	GR_EQ_U(k.errors, 0);
	return gr_verdict();
}

/* With headroom the descriptor points into the frame: give its start. */
static int headroom(void)
{
	unsigned i;

	setup(FRAMES, 64, 256);
	fill_by_test();
	kernel_rx(FRAMES);
	GR_EQ_U(ex_rx_burst(&rx), FRAMES);
	GR_EQ_U(rx.stats.packets, FRAMES);
	GR_EQ_U(fill_ring_producer(), 2 * FRAMES);
	for (i = 0; i < FRAMES && !gr_failures; i++)
		GR_CHECK(k.fq[i] % FRAME_SIZE == 0,
			 "fill slot %u: %#llx is not the start of a frame", i,
			 (unsigned long long)k.fq[i]);
	GR_EQ_U(kernel_rx(FRAMES), FRAMES);
	GR_EQ_U(k.errors, 0);
	return gr_verdict();
}

/* A batch smaller than what waits: take a batch, release exactly that. */
static int release(void)
{
	setup(FRAMES, 16, 0);
	fill_by_test();
	kernel_rx(40);
	GR_EQ_U(ex_rx_burst(&rx), 16);
	GR_EQ_U(rx_ring_consumer(), 16);
	GR_EQ_U(ex_rx_burst(&rx), 16);
	GR_EQ_U(ex_rx_burst(&rx), 8);
	GR_EQ_U(ex_rx_burst(&rx), 0);
	GR_EQ_U(rx_ring_consumer(), 40);
	GR_EQ_U(rx.stats.packets, 40);
	return gr_verdict();
}

/* 200,000 datagrams through 64 frames: none lost, none doubled. */
static int recycle(void)
{
	unsigned want = 200000, stalls = 0, n;

	srand(6);
	setup(FRAMES, 32, 128);
	fill_by_test();
	while (k.delivered < want && stalls < 100 && k.errors < 3) {
		n = 1 + (unsigned)(rand() % 80);
		if (n > want - k.delivered)
			n = want - (unsigned)k.delivered;
		if (!kernel_rx(n))
			stalls++;
		while (ex_rx_burst(&rx))
			;
	}
	GR_CHECK(k.delivered == want,
		 "the kernel could deliver only %llu of %u datagrams: it ran "
		 "out of frames (%u not back on the fill ring)",
		 (unsigned long long)k.delivered, want, not_back());
	GR_EQ_U(rx.stats.packets, k.delivered);
	GR_EQ_U(unique(), k.delivered);
	GR_EQ_U(rx.stats.bad_total, 0);
	GR_EQ_U(not_back(), 0);
	GR_EQ_U(k.errors, 0);
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "fill_all", 3, "every frame on the fill ring once, or -ENOSPC",
	  fill_all },
	{ "one_burst", 3, "a burst: frames back, RX slots released",
	  one_burst },
	{ "headroom", 2, "frame addresses rounded down to the frame start",
	  headroom },
	{ "release", 1, "release exactly what was taken", release },
	{ "recycle", 4, "200,000 datagrams through 64 frames", recycle },
	{ 0 }
};

int main(int argc, char **argv)
{
	return gr_main(argc, argv, "06-xsk-fill", cases);
}
