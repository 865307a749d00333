/* SPDX-License-Identifier: MIT */
/*
 * Exercise 13: what the grader asks the worker, and what it answers. The
 * rings live in memory the two share, as an AF_XDP socket's rings are
 * shared with the kernel: the grader plays the kernel's side on them
 * between the requests; a request names a ring by its address in the
 * worker.
 */
#ifndef PATHLAB_EX_XR_RPC_H
#define PATHLAB_EX_XR_RPC_H

#include <stdint.h>

#include "proto.h"

enum {
	XR_RESERVE = WK_OP_FIRST,
	XR_SUBMIT,
	XR_PEEK,
	XR_RELEASE,
	XR_RECYCLE,
};

/* Every request: the ring(s) and a count; the answer: a count, an index. */
struct xr_req {
	uint64_t ring;	/* struct xr_ring, in the worker */
	uint64_t other; /* XR_RECYCLE: the fill ring (ring: comp) */
	uint32_t n;
	uint32_t pad;
};

struct xr_ans {
	uint32_t ret;
	uint32_t idx;
};

#endif
