/* SPDX-License-Identifier: MIT */
/* --reflect on the DPDK path: the far end of the rtt workload. */
#include "rx_dpdk.h"
#include "clock.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

/*
 * Send the n frames of q->back on the TX queue of q's number; what
 * tx_burst did not take goes back to the pool, counted as failed (the
 * pinging side sees a timeout).
 */
static void reflect_send(struct dpdk_queue *q, uint16_t n)
{
	uint16_t sent = n ? rte_eth_tx_burst(q->port, q->queue, q->back, n) : 0;

	q->reflected += sent;
	if (sent < n) {
		q->reflect_errors += n - sent;
		rte_pktmbuf_free_bulk(q->back + sent, n - sent);
	}
}

/* 8< dpdk-reflect */
/*
 * --reflect, the far end of the rtt workload: as the plain handler, but every
 * good frame is turned around in its own mbuf (MACs, IPv4 addresses and
 * UDP ports swapped, the UDP checksum computed afresh: wire.h says why)
 * and goes back out; the rest is freed. No copy: the mbuf the PMD filled
 * is the one it sends.
 */
void reflect_dpdk_burst(struct dpdk_queue *q, uint16_t n, uint64_t now)
{
	uint16_t i, nback, nfree;
	struct rte_mbuf *m;
	struct pl_pkt p;
	void *data;

	for (i = nback = nfree = 0; i < n; i++) {
		m = q->bufs[i];
		if (rx_one(q, rte_pktmbuf_mtod(m, const void *), m->data_len,
			   now, &p) != PL_OK) {
			q->bufs[nfree++] = m; /* nfree <= i */
			continue;
		}
		data = rte_pktmbuf_mtod(m, void *);
		pl_frame_reflect(data, &p);
		pl_frame_udp_csum(data, &p);
		q->back[nback++] = m;
	}
	reflect_send(q, nback);
	if (nfree)
		rte_pktmbuf_free_bulk(q->bufs, nfree);
}
/* >8 dpdk-reflect */
