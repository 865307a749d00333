/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 14: mempool sizing and the forwarding loop.
 * The student's functions run in the worker (wk_dx.c); the port and its
 * pool, the model of dmodel.c, are here, and the worker's rx_burst,
 * tx_burst and free reach them (dm_stub.c). The sizing rules are DPDK
 * 22.11's, checked against it: rte_mempool_create() refuses a cache over
 * 512 or whose flush threshold, (unsigned)(1.5 x cache), is over the
 * pool (511 with 341 and 100 with 67 are created).
 */
#include "dx_rpc.h"
#include "grade.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct dm_port port;
static struct dm_counters ctr; /* the port's, after a run */

/* The student's pool sizes of n configurations. */
static void sizes(const struct dx_cfg *c, size_t n, uint32_t *out)
{
	gr_call_exact(DX_POOL_SIZE, c, n * sizeof(*c), out, n * sizeof(*out));
}

/* The student's pool size of one configuration. */
unsigned dx_pool_size(const struct dx_cfg *c)
{
	uint32_t r;

	sizes(c, 1, &r);
	return r;
}

/* The student's verdicts on n pairs. */
static void caches(const struct dx_cache_in *c, size_t n, int32_t *out)
{
	gr_call_exact(DX_CACHE_OK, c, n * sizeof(*c), out, n * sizeof(*out));
}

/* The student's verdict on one pair. */
int dx_cache_ok(unsigned n, unsigned cache)
{
	struct dx_cache_in c = { n, cache };
	int32_t r;

	caches(&c, 1, &r);
	return r;
}

/* One turn of the student's loop, on our port. */
unsigned dx_forward_once(struct dm_port *p, unsigned burst)
{
	struct dx_forward_in q = { burst, p->n };
	uint32_t r;

	gr_call_exact(DX_FORWARD, &q, sizeof(q), &r, sizeof(r));
	return r;
}

/* The port: a call of the worker's loop, carried out on the model. */
static long device(unsigned n, const void *in, size_t len, void *out,
		   size_t cap)
{
	static struct dm_mbuf *bufs[DD_MAX];
	const struct dd_call *c = in;
	struct dd_ans *a = out;
	uint32_t i;

	if (len != sizeof(*c) || cap < sizeof(*a) || c->port != 0 ||
	    c->n > DD_MAX)
		return -1;
	memset(a, 0, sizeof(*a));
	if (n == DD_RX_BURST) {
		a->n = dm_rx_burst(&port, bufs,
				   (uint16_t)(c->n < 0xffff ? c->n : 0xffff));
		for (i = 0; i < a->n; i++) {
			a->idx[i] = (uint32_t)(bufs[i] - port.mbufs);
			a->len[i] = bufs[i]->len;
			a->ok[i] = bufs[i]->ok;
		}
		return sizeof(*a);
	}
	for (i = 0; i < c->n; i++) {
		if (c->idx[i] >= port.n)
			return -1; /* not an mbuf of the port */
		bufs[i] = &port.mbufs[c->idx[i]];
	}
	if (n == DD_TX_BURST)
		a->n = dm_tx_burst(&port, bufs, (uint16_t)c->n);
	else if (n == DD_FREE && c->n == 1)
		dm_free(&port, bufs[0]);
	else
		return -1;
	return sizeof(*a);
}

/* The smallest 2^q - 1 that holds the worst case of c. */
static unsigned want_size(const struct dx_cfg *c)
{
	unsigned long need, n = 1;

	need = (unsigned long)c->ports * ((unsigned long)c->rxq * c->nb_rxd +
					  (unsigned long)c->txq * c->nb_txd) +
	       (unsigned long)c->lcores * (c->burst + c->cache * 3ul / 2);
	while (n - 1 < need)
		n *= 2;
	return (unsigned)(n - 1);
}

/* The worst case, counted by hand, rounded up to 2^q - 1. */
static int size_examples(void)
{
	static struct dx_cfg c[200];
	uint32_t got[200];
	unsigned i;

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
	/* 10 + 1 + (unsigned)(1.5 * 3) = 15: 15 is enough (rounding the
	 * threshold up would ask for 31). */
	GR_EQ_U(dx_pool_size(&(struct dx_cfg){ 1, 1, 0, 10, 0, 1, 1, 3 }), 15);
	for (i = 0; i < 200; i++)
		c[i] = (struct dx_cfg){
			.ports = 1 + (unsigned)gr_below(4),
			.rxq = 1 + (unsigned)gr_below(8),
			.txq = (unsigned)gr_below(9),
			.nb_rxd = 64 << gr_below(5),
			.nb_txd = 64 << gr_below(5),
			.lcores = (unsigned)gr_below(9),
			.burst = 1 + 2 * (unsigned)gr_below(64), /* odd */
			.cache = (unsigned)gr_below(DX_CACHE_MAX + 1),
		};
	sizes(c, 200, got);
	for (i = 0; i < 200 && gr_failures < 3; i++)
		GR_CHECK(got[i] == want_size(&c[i]),
			 "ports %u rxq %u txq %u nb_rxd %u nb_txd %u lcores %u "
			 "burst %u cache %u: %u mbufs, expected %u",
			 c[i].ports, c[i].rxq, c[i].txq, c[i].nb_rxd,
			 c[i].nb_txd, c[i].lcores, c[i].burst, c[i].cache,
			 got[i], want_size(&c[i]));
	return gr_verdict();
}

/* The limits rte_mempool_create() of DPDK 22.11 puts on the cache. */
static int cache_ok(void)
{
	static struct dx_cache_in c[300];
	int32_t got[300], want;
	unsigned i;

	GR_EQ_U(dx_cache_ok(4095, 512), 0);
	GR_EQ_U(dx_cache_ok(8191, 513), -EINVAL);
	GR_EQ_U(dx_cache_ok(511, 340), 0);
	GR_EQ_U(dx_cache_ok(511, 341), 0); /* threshold 511: created */
	GR_EQ_U(dx_cache_ok(511, 342), -EINVAL);
	GR_EQ_U(dx_cache_ok(100, 67), 0); /* threshold 100: created */
	GR_EQ_U(dx_cache_ok(100, 68), -EINVAL);
	GR_EQ_U(dx_cache_ok(1, 0), 0);
	GR_EQ_U(dx_cache_ok(0, 0), -EINVAL); /* an empty pool */
	for (i = 0; i < 300; i++) {
		c[i].n = (unsigned)gr_below(2) ? (unsigned)gr_below(1000)
					       : (unsigned)gr_below(1u << 20);
		c[i].cache = (unsigned)(gr_below(2) ? c[i].n * 2 / 3 +
							      gr_below(3) - 1
						    : gr_below(600));
	}
	caches(c, 300, got);
	for (i = 0; i < 300 && gr_failures < 3; i++) {
		want = c[i].n == 0 || c[i].cache > DX_CACHE_MAX ||
				       c[i].cache * 3ul / 2 > c[i].n
			       ? -EINVAL
			       : 0;
		GR_CHECK(got[i] == want,
			 "a pool of %u, a cache of %u: %d, DPDK says %d",
			 c[i].n, c[i].cache, got[i], want);
	}
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
			random_room ? (unsigned)gr_below(burst + 1) : 1024;
		sent += dx_forward_once(&port, burst);
	}
	return sent;
}

/* A port with a pool of n and nb_rxd descriptors, the wire drawn. */
static void port_init(unsigned n, unsigned nb_rxd)
{
	dm_port_init(&port, n, nb_rxd);
	dm_reseed((unsigned)gr_rand());
	gr_device(device);
}

/* What dm_pkt_ok() accepts goes out; the TX ring takes everything. */
static int forward(void)
{
	uint64_t sent;
	unsigned burst = 17 + 2 * (unsigned)gr_below(24);

	port_init(1023, 512);
	gr_context("forwarding 10 packets a turn, 2000 turns");
	sent = run(2000, 10, burst, 0);
	gr_context("%s", "");
	dm_read_counters(&ctr);
	GR_EQ_U(ctr.rx_packets, 20000);
	GR_EQ_U(ctr.imissed, 0);
	GR_EQ_U(sent, ctr.tx_packets);
	GR_CHECK(sent > 15000 && sent < 17000,
		 "%llu of 20000 packets sent: about 4 in 5 are to forward",
		 (unsigned long long)sent);
	GR_EQ_U(ctr.double_free, 0);
	GR_EQ_U(ctr.in_use, ctr.rx_filled);
	return gr_verdict();
}

/*
 * A TX ring that takes only part of a burst, with the pool sized to the
 * bone (RX ring + one burst): no mbuf leaks, none is freed twice, and
 * rx_burst never finds the pool empty.
 */
static int no_leak(void)
{
	unsigned burst = 9 + 2 * (unsigned)gr_below(28);
	unsigned nb_rxd = 511 - burst - (unsigned)gr_below(200);
	unsigned n = dx_pool_size(
		&(struct dx_cfg){ 1, 1, 0, nb_rxd, 0, 1, burst, 0 });

	GR_EQ_U(n, 511);
	GR_STOP_IF_FAILED();
	port_init(n, nb_rxd);
	gr_context("3000 turns, a TX ring with random room, burst %u", burst);
	run(3000, 40, burst, 1);
	gr_context("%s", "");
	dm_read_counters(&ctr);
	GR_EQ_U(ctr.double_free, 0);
	GR_EQ_U(ctr.rx_nombuf, 0);
	GR_EQ_U(ctr.in_use, ctr.rx_filled);
	GR_CHECK(ctr.tx_packets > 15000, "only %llu packets sent",
		 (unsigned long long)ctr.tx_packets);
	return gr_verdict();
}

/* One mbuf too few, and the pool runs dry: the model can tell. */
static int too_small(void)
{
	unsigned burst = 9 + 2 * (unsigned)gr_below(28); /* odd */
	unsigned nb_rxd = 64 + (unsigned)gr_below(900);

	port_init(nb_rxd + burst - 1, nb_rxd);
	port.tx_room = 1024;
	dm_wire(&port, nb_rxd);
	dx_forward_once(&port, burst);
	dm_read_counters(&ctr);
	GR_CHECK(ctr.rx_nombuf > 0,
		 "a pool of RX ring + burst - 1 never ran dry: did the loop "
		 "take a whole burst?");
	GR_EQ_U(ctr.rx_packets, burst);
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
	gr_sandbox(&(struct gr_sandbox){ 0 });
	return gr_main(argc, argv, "14-dpdk-pool", cases);
}
