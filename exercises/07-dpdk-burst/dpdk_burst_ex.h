/* SPDX-License-Identifier: MIT */
/*
 * Exercise 7: the DPDK receive loop. The receiver's state is a trimmed
 * copy of struct dpdk_queue in dpdk/rx_dpdk.h (one queue's poll state).
 */
#ifndef PATHLAB_EX_DPDK_BURST_H
#define PATHLAB_EX_DPDK_BURST_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "run.h"
#include "stats.h"

#define EX_MAX_BURST 512

struct ex_dpdk_rx {
	uint16_t port;	    /* the port to poll (queue 0) */
	unsigned burst;	    /* mbufs per rte_eth_rx_burst() */
	uint64_t polls[2];  /* [0] empty, [1] returned packets */
	uint64_t cycles[2]; /* TSC cycles of those polls */
	uint64_t prev_tsc;  /* the TSC at the end of the last poll */
	struct pl_run run;
	struct pl_rx_stats stats;
	struct rte_mbuf *bufs[EX_MAX_BURST];
};

/* One poll: a burst, each frame parsed and accounted, every mbuf freed. */
uint16_t ex_rx_poll(struct ex_dpdk_rx *rx);

/* Poll until the run is over (pl_run_done()). */
void ex_rx_loop(struct ex_dpdk_rx *rx);

#endif
