/* SPDX-License-Identifier: MIT */
/*
 * Exercise 10: a GPU consumer that validates packets. The descriptors and
 * results are those of gpudirect/consumer.h, the interface both GPU
 * backends (cuda and the emulated sim) run the consumer through.
 */
#ifndef PATHLAB_EX_GPU_CONSUMER_H
#define PATHLAB_EX_GPU_CONSUMER_H

#include <stddef.h>
#include <stdint.h>

#include "consumer.h"

/*
 * The consumer's own checks are the reference of this exercise: the code
 * under test may use the byte helpers (plc_be16(), plc_be32(), plc_sum()),
 * not the checks, which the build poisons before the first line of this
 * file (gx_poison.h). Only the grader, which compares with them, has them.
 */

/*
 * Memory the GPU can reach, as the emulated GPU keeps it: dev is the
 * address the path and the descriptors use (the CPU may not read it), view
 * the backend's own mapping of the same len bytes.
 */
struct gx_region {
	uint64_t dev;
	const uint8_t *view;
	size_t len;
};

/* Check a pathlab payload (what plc_payload() does) and fill *r. */
uint8_t gx_payload(const uint8_t *b, uint32_t len, struct pl_gpu_res *r);

/*
 * Run the consumer over n descriptors whose bytes lie in the nreg regions:
 * one result per descriptor. 0, or -EFAULT when a descriptor points
 * outside every region (what sim_consume() of gpudirect/gpu_sim.c does).
 */
int gx_consume(const struct gx_region *reg, unsigned nreg,
	       const struct pl_gpu_desc *d, struct pl_gpu_res *res, unsigned n);

#endif
