/* SPDX-License-Identifier: MIT */
/*
 * Exercise 7's worker: an EAL (no hugepages, no PCI), a pool, a port made
 * of two rte_rings (net_ring): what the grader's frames are enqueued on,
 * rte_eth_rx_burst() returns to the student's loop.
 */
#include "dpdk_burst_ex.h"
#include "dpdk_rpc.h"
#include "worker.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

static struct ex_dpdk_rx rx;
static struct rte_mempool *pool;
static struct rte_ring *ring; /* what the port "receives" */

/* The state after a request; ret as given. */
static long state(void *out, int32_t ret)
{
	struct dp_state *s = out;

	memset(s, 0, sizeof(*s));
	s->ret = ret;
	s->ring = rte_ring_count(ring);
	s->in_use = rte_mempool_in_use_count(pool);
	s->avail = rte_mempool_avail_count(pool);
	s->packets = rx.stats.packets;
	s->other = rx.stats.other;
	s->bad_total = rx.stats.bad_total;
	s->end_markers = rx.stats.end_markers;
	memcpy(s->bad, rx.stats.bad, sizeof(s->bad));
	memcpy(s->polls, rx.polls, sizeof(s->polls));
	memcpy(s->cycles, rx.cycles, sizeof(s->cycles));
	s->prev_tsc = rx.prev_tsc;
	s->tsc_now = rte_rdtsc();
	return sizeof(*s);
}

/* The EAL, the pool, a started ring port; the receiver on it. */
static long setup(const void *in, size_t len, void *out, size_t cap)
{
	const struct dp_setup *q = WK_IN(struct dp_setup, in, len);
	char prefix[64];
	char *argv[] = { "ex07",
			 "-l",
			 "0",
			 "--no-huge",
			 "-m",
			 "64",
			 "--no-pci",
			 "--no-shconf",
			 "--no-telemetry",
			 "--log-level=error",
			 prefix };
	const struct rte_eth_conf conf = { 0 };
	struct rte_ring *tx;
	int port;

	if (!q || q->burst == 0 || q->burst > EX_MAX_BURST ||
	    cap < sizeof(struct dp_state))
		return -1;
	snprintf(prefix, sizeof(prefix), "--file-prefix=plex07-%d",
		 (int)getpid());
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])), argv) < 0)
		return -1;
	pool = rte_pktmbuf_pool_create("ex07", DP_POOL, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	ring = rte_ring_create("ex07rx", 1024, 0, 0);
	tx = rte_ring_create("ex07tx", 1024, 0, 0);
	port = pool && ring && tx
		       ? rte_eth_from_rings("ex07", &ring, 1, &tx, 1, 0)
		       : -1;
	if (port < 0 || rte_eth_dev_configure((uint16_t)port, 1, 1, &conf) ||
	    rte_eth_rx_queue_setup((uint16_t)port, 0, 1024, 0, NULL, pool) ||
	    rte_eth_tx_queue_setup((uint16_t)port, 0, 1024, 0, NULL) ||
	    rte_eth_dev_start((uint16_t)port))
		return -1;
	memset(&rx, 0, sizeof(rx));
	rx.port = (uint16_t)port;
	rx.burst = q->burst;
	rx.prev_tsc = rte_rdtsc();
	pl_stats_init(&rx.stats);
	return state(out, 0);
}

/* Enqueue the grader's frames, a chain where it says; how many went. */
static long put(const void *in, size_t len, void *out, size_t cap)
{
	const struct dp_frame *f = in;
	size_t i, n = len / sizeof(*f);
	struct rte_mbuf *m, *t;

	if (!pool || len % sizeof(*f) || n > DP_BATCH ||
	    cap < sizeof(struct dp_state))
		return -1;
	for (i = 0; i < n; i++) {
		m = rte_pktmbuf_alloc(pool);
		if (!m || f[i].len > DP_MAXF)
			break;
		memcpy(rte_pktmbuf_mtod(m, void *), f[i].bytes, f[i].len);
		m->data_len = f[i].len;
		m->pkt_len = f[i].len;
		if (f[i].tail) { /* the rest of a longer frame */
			t = rte_pktmbuf_alloc(pool);
			if (!t || rte_pktmbuf_chain(m, t)) {
				rte_pktmbuf_free(m);
				if (t)
					rte_pktmbuf_free(t);
				break;
			}
			t->data_len = f[i].tail;
			m->pkt_len += f[i].tail;
		}
		if (rte_ring_enqueue(ring, m)) {
			rte_pktmbuf_free(m);
			break;
		}
	}
	return state(out, (int32_t)i);
}

/* ex_rx_poll() once. */
static long poll_once(const void *in, size_t len, void *out, size_t cap)
{
	(void)in;
	if (!pool || len || cap < sizeof(struct dp_state))
		return -1;
	return state(out, ex_rx_poll(&rx));
}

/* Poll until the ring is empty, at most tries polls. */
static long drain(const void *in, size_t len, void *out, size_t cap)
{
	const uint32_t *tries = WK_IN(uint32_t, in, len);
	uint32_t n;

	if (!pool || !tries || cap < sizeof(struct dp_state))
		return -1;
	for (n = *tries; rte_ring_count(ring) && n; n--)
		ex_rx_poll(&rx);
	return state(out, 0);
}

/* ex_rx_loop() until the run's count (0: an end marker). */
static long loop(const void *in, size_t len, void *out, size_t cap)
{
	const uint64_t *count = WK_IN(uint64_t, in, len);

	if (!pool || !count || cap < sizeof(struct dp_state))
		return -1;
	rx.run.count = *count;
	ex_rx_loop(&rx);
	return state(out, 0);
}

/* Take the whole pool out: is any mbuf there twice, or one too many? */
static long take_all(const void *in, size_t len, void *out, size_t cap)
{
	static struct rte_mbuf *all[DP_POOL + 1];
	struct dp_state *s = out;
	unsigned i, j, dups = 0, extra = 0;

	(void)in;
	if (!pool || len || cap < sizeof(*s))
		return -1;
	if (rte_pktmbuf_alloc_bulk(pool, all, DP_POOL) == 0) {
		for (i = 0; i < DP_POOL; i++)
			for (j = i + 1; j < DP_POOL; j++)
				dups += all[i] == all[j];
		all[DP_POOL] = rte_pktmbuf_alloc(pool);
		extra = all[DP_POOL] != NULL;
	} else {
		dups = ~0u;
	}
	state(out, 0);
	s->dups = dups;
	s->extra = extra;
	return sizeof(*s);
}

const struct wk_op wk_ops[] = {
	{ "setup", setup },
	{ "put", put },
	{ "poll", poll_once },
	{ "drain", drain },
	{ "loop", loop },
	{ "take_all", take_all },
	{ 0 },
};
