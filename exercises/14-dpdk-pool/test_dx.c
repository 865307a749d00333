/* SPDX-License-Identifier: MIT */
/* Graded tests of exercise 14: mempool sizing and the forwarding loop. */
#include "dx_ex.h"
#include "grade.h"

#include <errno.h>
#include <stdlib.h>

static struct dm_port port;
static struct dm_counters ctr; /* the port's, after a run */

/* The worst case, counted by hand, rounded up to 2^q - 1. */
static int size_examples(void)
{
	/* 1024 RX + 1024 TX + 32 in hand + 384 in the cache: 2464 */
	GR_EQ_U(dx_pool_size(
			&(struct dx_cfg){ 1, 1, 1, 1024, 1024, 1, 32, 256 }),
		4095);
	/* 2 * (4 * 512 + 4 * 512) + 4 * (64 + 768) = 11520 */
	GR_EQ_U(dx_pool_size(&(struct dx_cfg){ 2, 4, 4, 512, 512, 4, 64, 512 }),
		16383);
	GR_EQ_U(dx_pool_size(&(struct dx_cfg){ 1, 1, 0, 256, 0, 1, 32, 0 }),
		511);
	/* Exactly 4095 needed: 4095 is enough. */
	GR_EQ_U(dx_pool_size(&(struct dx_cfg){ 1, 1, 1, 2048, 2047, 0, 0, 0 }),
		4095);
	/* 10 + 1 + 1.5 * 3 rounded up = 16: 31, not 15. */
	GR_EQ_U(dx_pool_size(&(struct dx_cfg){ 1, 1, 0, 10, 0, 1, 1, 3 }), 31);
	return gr_verdict();
}

/* The limits rte_mempool_create() puts on the per-lcore cache. */
static int cache_ok(void)
{
	GR_EQ_U(dx_cache_ok(4095, 512), 0);
	GR_EQ_U(dx_cache_ok(8191, 513), -EINVAL);
	GR_EQ_U(dx_cache_ok(511, 340), 0);
	GR_EQ_U(dx_cache_ok(511, 341), -EINVAL);
	GR_EQ_U(dx_cache_ok(100, 67), -EINVAL);
	GR_EQ_U(dx_cache_ok(0, 0), 0);
	return gr_verdict();
}

/* Turns of the loop until the wire's packets are through; sent. */
static uint64_t run(unsigned turns, unsigned per_turn, unsigned burst,
		    int random_room)
{
	uint64_t sent = 0;
	unsigned t;

	for (t = 0; t < turns; t++) {
		dm_wire(&port, per_turn);
		port.tx_room =
			random_room ? (unsigned)rand() % (burst + 1) : 1024;
		sent += dx_forward_once(&port, burst);
	}
	return sent;
}

/* What dm_pkt_ok() accepts goes out; the TX ring takes everything. */
static int forward(void)
{
	uint64_t sent;

	dm_port_init(&port, 1023, 512);
	gr_context("forwarding 10 packets a turn, 2000 turns");
	sent = run(2000, 10, 32, 0);
	dm_read_counters(&ctr);
	GR_EQ_U(ctr.rx_packets, 20000);
	GR_EQ_U(ctr.imissed, 0);
	GR_EQ_U(sent, ctr.tx_packets);
	GR_CHECK(sent > 15000 && sent < 17000,
		 "%llu of 20000 packets sent: about 4 in 5 are to forward",
		 (unsigned long long)sent);
	GR_EQ_U(ctr.double_free, 0);
	return gr_verdict();
}

/*
 * A TX ring that takes only part of a burst, with the pool sized to the
 * bone (RX ring + one burst): no mbuf leaks, none is freed twice, and
 * rx_burst never finds the pool empty.
 */
static int no_leak(void)
{
	unsigned n =
		dx_pool_size(&(struct dx_cfg){ 1, 1, 0, 479, 0, 1, 32, 0 });

	GR_EQ_U(n, 511);
	GR_STOP_IF_FAILED();
	dm_port_init(&port, n, 479);
	srand(14);
	gr_context("20000 turns, a TX ring with random room");
	run(20000, 40, 32, 1);
	dm_read_counters(&ctr);
	GR_EQ_U(ctr.double_free, 0);
	GR_EQ_U(ctr.rx_nombuf, 0);
	GR_EQ_U(ctr.in_use, ctr.rx_filled);
	GR_CHECK(ctr.tx_packets > 100000, "only %llu packets sent",
		 (unsigned long long)ctr.tx_packets);
	return gr_verdict();
}

/* One mbuf too few, and the pool runs dry: the model can tell. */
static int too_small(void)
{
	dm_port_init(&port, 480 + 32 - 1, 480);
	port.tx_room = 1024;
	dm_wire(&port, 480);
	dx_forward_once(&port, 32);
	dm_read_counters(&ctr);
	GR_CHECK(ctr.rx_nombuf > 0,
		 "a pool of RX ring + burst - 1 never ran dry: did the loop "
		 "take a whole burst?");
	GR_EQ_U(ctr.rx_packets, 32);
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "size_examples", 4, "pool size: the worst case, as 2^q - 1",
	  size_examples },
	{ "cache_ok", 2, "cache size limits of rte_mempool_create()",
	  cache_ok },
	{ "forward", 3, "good packets out, one tx_burst per turn", forward },
	{ "no_leak", 4, "partial tx_burst: no leak, no double free", no_leak },
	{ "too_small", 1, "one mbuf short: rx_nombuf", too_small },
	{ 0 }
};

int main(int argc, char **argv)
{
	return gr_main(argc, argv, "14-dpdk-pool", cases);
}
