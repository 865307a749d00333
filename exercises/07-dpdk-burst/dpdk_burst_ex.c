/* SPDX-License-Identifier: MIT */
/*
 * Exercise 7: the DPDK rx_burst loop, with correct mbuf freeing.
 *
 * A poll-mode driver puts received frames into mbufs from a mempool and
 * hands them over in bursts: rte_eth_rx_burst() returns up to a burst of
 * mbuf pointers, possibly none, and never blocks. From then on every mbuf
 * is ours, and the PMD can refill its RX ring only with mbufs that went
 * back to the pool: a leaked mbuf is one less descriptor until the pool
 * runs dry and the NIC drops everything (rx_nombuf, imissed). This is
 * dpdk_rx_loop() of dpdk/rx_dpdk.c. Fill in the "Exercise 7.N" marks.
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

/* Poll once for a burst, parse, free. */
uint16_t ex_rx_poll(struct ex_dpdk_rx *rx)
{
	uint64_t t, now;
	uint16_t n = 0;

	/*
	 * Exercise 7.1: ask the port's RX queue 0 for up to rx->burst mbufs
	 * into rx->bufs.
	 */

	if (n) {
		now = pl_now_ns();
		/*
		 * Exercise 7.2: account each frame with rx_one(), then give
		 * every one of the n mbufs back to its pool, good or bad,
		 * exactly once (one call does the whole burst).
		 */
		(void)now;
	}
	/*
	 * Exercise 7.3: one TSC read per poll (rte_rdtsc()): add the cycles
	 * since rx->prev_tsc to rx->cycles[1] if this poll returned packets,
	 * else to rx->cycles[0]; count the poll the same way in rx->polls;
	 * remember the TSC in rx->prev_tsc.
	 */
	(void)t;
	return n;
}

/* Poll, whether or not anything came, until the run is over. */
void ex_rx_loop(struct ex_dpdk_rx *rx)
{
	rx->prev_tsc = rte_rdtsc();
	/*
	 * Exercise 7.4: poll until pl_run_done() (common/run.h) says the
	 * run is over: a count reached, an end marker seen, a signal.
	 */
}
