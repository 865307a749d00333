/* SPDX-License-Identifier: MIT */
/*
 * Exercise 10: what the grader asks the worker, and what it answers. The
 * emulated device memory is two memfds the grader shares: the worker maps
 * each a second time with no access at all, and that mapping's address is
 * the region's device address, the one descriptors carry.
 */
#ifndef PATHLAB_EX_GPU_RPC_H
#define PATHLAB_EX_GPU_RPC_H

#include <stdint.h>

#include "consumer.h"
#include "proto.h"

enum { GX_REGIONS = WK_OP_FIRST, GX_CONSUME };

#define GX_REGION (1u << 20)
#define GX_MAXN	  512

/* GX_REGIONS: the shared memfds and their view in the worker; the
 * answer: the device addresses. */
struct gx_regions {
	uint32_t fd[2];
	uint64_t view[2];
	uint64_t dev[2];
};

/* GX_CONSUME: gx_consume() over n descriptors. */
struct gx_consume_in {
	uint32_t n;
	uint32_t pad;
	struct pl_gpu_desc d[GX_MAXN];
};

struct gx_consume_out {
	int32_t ret;
	uint32_t pad;
	struct pl_gpu_res res[GX_MAXN];
};

#endif
