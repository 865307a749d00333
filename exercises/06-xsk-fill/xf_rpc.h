/* SPDX-License-Identifier: MIT */
/*
 * Exercise 6: what the grader asks the worker, and what it answers. The
 * rings and the UMEM are memory the grader shares with the worker, as the
 * kernel shares them with an AF_XDP receiver; the grader plays the
 * kernel on them between the calls. The receiver's own state, struct
 * xsk_rx, is the worker's: the grader tells it where the rings are (in
 * the worker's addresses).
 */
#ifndef PATHLAB_EX_XF_RPC_H
#define PATHLAB_EX_XF_RPC_H

#include <stdint.h>

#include "proto.h"

enum { XF_SETUP = WK_OP_FIRST, XF_FILL_ALL, XF_BURST, XF_LIVE, XF_DRAIN };

/* XF_SETUP: the receiver's rings, UMEM, batch. */
struct xf_setup {
	uint64_t fq_prod, fq_cons, fq_flags, fq_ring; /* worker addresses */
	uint64_t rx_prod, rx_cons, rx_flags, rx_ring;
	uint64_t area, area_len, frame_mask;
	uint32_t fq_size, rx_size, batch, port;
	uint32_t fq_cached_prod; /* what the grader put on the fill ring */
	uint32_t pad;
};

/* XF_FILL_ALL: ex_fill_all(); the answer: what it returned (int32_t). */
struct xf_fill_in {
	uint32_t frames, frame_size;
};

/* XF_BURST: ex_rx_burst() once; the receiver's counters after it. */
struct xf_counts {
	uint32_t ret, pad;
	uint64_t packets, bytes, bad_total, unique, fill_short;
	uint64_t end_markers, unique_all; /* unique_all: over the flows */
};

/*
 * XF_LIVE: the receiver on a real AF_XDP socket (the worker's descriptor
 * fd), its rings mapped from it, its UMEM shared by the grader at area;
 * then ex_fill_all(). The answer: what it returned (int32_t).
 */
struct xf_live {
	uint32_t fd, frames, frame_size, batch;
	uint64_t area;
};

/* XF_DRAIN: ex_rx_burst() (waking the kernel when it asks) until want
 * packets are in or idle_ms go by with none; the counters. */
struct xf_drain {
	uint64_t want;
	uint32_t idle_ms, pad;
};

#endif
