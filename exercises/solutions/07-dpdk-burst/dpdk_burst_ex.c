/* SPDX-License-Identifier: MIT */
/*
 * Exercise 7: the DPDK receive loop, with correct mbuf freeing.
 * Reference solution: dpdk_rx_loop() and dpdk_plain_burst() of
 * dpdk/rx_dpdk.c.
 */
#include "dpdk_burst_ex.h"
#include "clock.h"
#include "wire.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>

/* Parse and account one frame handed to us at now (given). */
static inline void rx_one(struct ex_dpdk_rx *rx, const struct rte_mbuf *m,
			  uint64_t now)
{
	struct pl_pkt p;
	enum pl_reason r = pl_parse_frame(rte_pktmbuf_mtod(m, const void *),
					  m->data_len, PL_UDP_PORT, &p);

	if (r == PL_OK)
		pl_stats_good(&rx->stats, &p, now);
	else
		pl_stats_reject(&rx->stats, r);
}

/*
 * The plain handler, as dpdk_plain_burst(): parse and account every frame
 * of the burst, which arrived at now, then free it.
 */
static void plain_burst(struct ex_dpdk_rx *rx, uint16_t n, uint64_t now)
{
	uint16_t i;

	/* Exercise 7.2 */
	for (i = 0; i < n; i++) {
		/* Not contiguous: the parser would see a part. */
		if (rx->bufs[i]->nb_segs > 1)
			pl_stats_reject(&rx->stats, PL_BAD_UDP_LEN);
		else
			rx_one(rx, rx->bufs[i], now);
	}
	rte_pktmbuf_free_bulk(rx->bufs, n);
}

/*
 * One turn of dpdk_rx_loop(): poll once for a burst, hand it to
 * plain_burst(), time the poll.
 */
uint16_t ex_rx_poll(struct ex_dpdk_rx *rx)
{
	uint16_t n = 0;
	uint64_t t;

	/* Exercise 7.1 */
	n = rte_eth_rx_burst(rx->port, 0, rx->bufs, (uint16_t)rx->burst);

	if (n)
		plain_burst(rx, n, pl_now_ns());
	/* Exercise 7.3 */
	t = rte_rdtsc();
	rx->cycles[n != 0] += t - rx->prev_tsc;
	rx->polls[n != 0]++;
	rx->prev_tsc = t;
	return n;
}

/* Poll, whether or not anything came, until the run is over. */
void ex_rx_loop(struct ex_dpdk_rx *rx)
{
	rx->prev_tsc = rte_rdtsc();
	/* Exercise 7.4 */
	while (!pl_run_done(&rx->run, &rx->stats))
		ex_rx_poll(rx);
}
