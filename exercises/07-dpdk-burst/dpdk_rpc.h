/* SPDX-License-Identifier: MIT */
/*
 * Exercise 7: what the grader asks the worker, and what it answers. The
 * EAL, the pool and the port (two rte_rings made a port by net_ring) are
 * the worker's: the student's loop must hold real mbufs. The grader says
 * which frames come in (bytes, as data) and reads the receiver's counters
 * and the pool's after each poll.
 */
#ifndef PATHLAB_EX_DPDK_RPC_H
#define PATHLAB_EX_DPDK_RPC_H

#include <stdint.h>

#include "proto.h"
#include "wire.h"

enum {
	DP_SETUP = WK_OP_FIRST, /* struct dp_setup; the state */
	DP_PUT,			/* frames to enqueue; the state */
	DP_POLL,		/* ex_rx_poll() once; the state */
	DP_DRAIN,		/* polls until the ring is empty (uint32_t) */
	DP_LOOP,		/* ex_rx_loop() with run.count (uint64_t) */
	DP_TAKE_ALL,		/* the whole pool out and back: the state */
};

#define DP_POOL	 1023 /* mbufs */
#define DP_MAXF	 2048 /* bytes of one frame */
#define DP_BATCH 500  /* frames in one DP_PUT */

struct dp_setup {
	uint32_t burst;
};

/* One frame to enqueue: its bytes, and a second segment of tail bytes. */
struct dp_frame {
	uint16_t len, tail;
	uint8_t bytes[DP_MAXF];
};

/* The receiver, the ring and the pool, after a request. */
struct dp_state {
	int32_t ret;	 /* what ex_rx_poll() returned, or how many put */
	uint32_t ring;	 /* frames still on the RX ring */
	uint32_t in_use; /* mbufs out of the pool */
	uint32_t avail;	 /* mbufs in the pool */
	uint32_t dups;	 /* DP_TAKE_ALL: an mbuf out twice */
	uint32_t extra;	 /* DP_TAKE_ALL: mbufs beyond DP_POOL */
	uint64_t packets, other, bad_total, end_markers;
	uint64_t bad[PL_REASON_MAX];
	uint64_t polls[2], cycles[2], prev_tsc, tsc_now;
};

#endif
