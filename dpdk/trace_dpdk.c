/* SPDX-License-Identifier: MIT */
/*
 * --trace N on the DPDK path: the first N frames step by step, with the
 * values of this run: the rte_eth_rx_burst() poll that returned each one
 * (the poll's number, how many it returned, how many empty polls came
 * before it), how the frame got into its mbuf and where that mbuf lies in
 * the pool, what the parser found, and the mbufs going back to the pool.
 * Then the plain poll loop takes over: tracing costs nothing once done.
 */
#include "rx_dpdk.h"
#include "clock.h"

#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

/* The lowest address of the pool's memory and the span of all its chunks. */
static void pool_span(const struct rte_mempool *mp, uintptr_t *lo,
		      uint64_t *bytes)
{
	const struct rte_mempool_memhdr *h;
	uintptr_t hi = 0;

	*lo = UINTPTR_MAX;
	STAILQ_FOREACH(h, &mp->mem_list, next)
	{
		if ((uintptr_t)h->addr < *lo)
			*lo = (uintptr_t)h->addr;
		if ((uintptr_t)h->addr + h->len > hi)
			hi = (uintptr_t)h->addr + h->len;
	}
	if (!hi)
		*lo = 0;
	*bytes = hi - *lo;
}

/* EAL, pool, port and RX queue, as setup events. */
void dpdk_trace_setup(struct dpdk_rx *rx, const struct cfg *c)
{
	struct pl_trace *t = &rx->trace;
	struct rte_mempool *mp = rx->port.pool;
	struct rte_eth_rxq_info qi;
	uint64_t bytes;
	uintptr_t lo;

	pl_trace_rec(t, 0, PL_AT_USER, PL_EV_STEP, "rte_eal_init: hugepages",
		     "lcore hugepages page_kb mem_mb", rte_lcore_id(),
		     rx->eal.huge, rx->eal.huge_kb, rx->eal.mem_mb);
	pool_span(mp, &lo, &bytes);
	pl_trace_rec(t, 0, PL_AT_USER, PL_EV_STEP, "mbuf pool",
		     "mbufs addr bytes data_room", mp->size, lo, bytes,
		     rte_pktmbuf_data_room_size(mp));
	pl_trace_rec(t, 0, PL_AT_USER, PL_EV_STEP, "rte_eth_dev_configure",
		     "port rx_queues tx_queues", rx->port.id, 1, 1, 0);
	memset(&qi, 0, sizeof(qi));
	if (rte_eth_rx_queue_info_get(rx->port.id, 0, &qi))
		qi.nb_desc = (uint16_t)c->rx_desc; /* the PMD does not say */
	pl_trace_rec(t, 0, PL_AT_USER, PL_EV_RING, "RX queue setup",
		     "queue descriptors", 0, qi.nb_desc, 0, 0);
	pl_trace_rec(t, 0, PL_AT_USER, PL_EV_STEP, "rte_eth_dev_start",
		     "port mbufs_in_use mbufs_free", rx->port.id,
		     rte_mempool_in_use_count(mp), rte_mempool_avail_count(mp),
		     0);
}

/* How this port's frames get into an mbuf: the name of the step. */
static const char *into_mbuf(const struct dpdk_rx *rx, enum pl_where *where,
			     enum pl_what *what)
{
	if (!strcmp(rx->port.driver, "net_af_packet")) {
		*where = PL_AT_USER;
		*what = PL_EV_COPY;
		return "PMD copies packet ring -> mbuf";
	}
	if (!strcmp(rx->port.driver, "net_af_xdp")) {
		*where = PL_AT_KERNEL;
		*what = PL_EV_COPY;
		return "kernel copies frame into mbuf (UMEM)";
	}
	*where = PL_AT_NIC;
	*what = PL_EV_DMA;
	return "DMA frame into an mbuf";
}

/* Trace the frames of one burst while fewer than t->units are; account
 * them all. */
static void traced_frames(struct dpdk_rx *rx, uint16_t n, uint64_t poll,
			  uint64_t empty, uint64_t now)
{
	struct pl_trace *t = &rx->trace;
	uint32_t first = rx->traced + 1, *unit = &rx->traced;
	struct rte_mbuf *m;
	enum pl_where where;
	enum pl_what what;
	const char *how = into_mbuf(rx, &where, &what);
	enum pl_reason r;
	struct pl_pkt p;
	uint16_t i;

	for (i = 0; i < n; i++) {
		m = rx->queues[0].bufs[i];
		memset(&p, 0, sizeof(p));
		r = rx_one(&rx->queues[0], rte_pktmbuf_mtod(m, const void *),
			   m->data_len, now, &p);
		if (*unit >= t->units)
			continue;
		++*unit;
		pl_trace_rec(t, *unit, PL_AT_USER, PL_EV_RING,
			     "rte_eth_rx_burst (poll)",
			     "poll returned index empty_before", poll, n, i,
			     empty);
		pl_trace_rec(t, *unit, where, what, how,
			     "data_addr data_len pool_addr pkt_len",
			     rte_pktmbuf_mtod(m, uintptr_t), m->data_len,
			     (uintptr_t)m->pool, m->pkt_len);
		pl_trace_rec(t, *unit, PL_AT_USER, PL_EV_STEP, "parse (mtod)",
			     "reason seq flow one_way_ns", r, p.seq, p.flow,
			     r == PL_OK && now > p.tx_ns ? now - p.tx_ns : 0);
	}
	dpdk_trace_free(rx, n, first, *unit);
}

void dpdk_trace_free(struct dpdk_rx *rx, uint16_t n, uint32_t first,
		     uint32_t last)
{
	uint32_t u;

	rte_pktmbuf_free_bulk(rx->queues[0].bufs, n);
	for (u = first; u <= last; u++)
		pl_trace_rec(&rx->trace, u, PL_AT_USER, PL_EV_RING,
			     "free mbufs to the pool",
			     "count pool_free pool_in_use", n,
			     rte_mempool_avail_count(rx->port.pool),
			     rte_mempool_in_use_count(rx->port.pool), 0);
}

void dpdk_trace_step(struct dpdk_queue *q, uint16_t n, uint64_t now,
		     trace_burst_fn *fn)
{
	struct dpdk_rx *rx = q->rx;

	/* This poll is counted once it returns: its number is one more. */
	fn(rx, n, q->polls[0] + q->polls[1] + 1, q->polls[0] - rx->empty_mark,
	   now);
	rx->empty_mark = q->polls[0];
	if (rx->traced < rx->trace.units)
		return;
	pl_trace_close(&rx->trace);
	q->on_burst = rx->plain_burst;
}

/* Trace the first frames, then hand over to the plain handler. */
void dpdk_traced_burst(struct dpdk_queue *q, uint16_t n, uint64_t now)
{
	dpdk_trace_step(q, n, now, traced_frames);
}
