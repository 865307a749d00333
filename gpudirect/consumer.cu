/* SPDX-License-Identifier: MIT */
/*
 * The consumer kernel: one thread per packet runs plc_check() from
 * consumer.h on bytes the GPU reads where they are (device memory, or host
 * memory mapped for it across PCIe) and writes the result record.
 *
 * Built into a fatbin (SASS for each architecture the build names, PTX for
 * the ones after) that gpu_cuda.c loads with cuModuleLoadData() and
 * launches with cuLaunchKernel(): the name is C's, not C++'s.
 */
/* wire.h is C11; the same check is spelled static_assert in C++. */
#define _Static_assert static_assert
#include "consumer.h"

/* 8< gpu-consumer-kernel */
/* Check packet i of the batch: descriptors in, results out. */
extern "C" __global__ void pl_consumer_kernel(const struct pl_gpu_desc *desc,
					      struct pl_gpu_res *res,
					      unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		plc_check((const uint8_t *)(uintptr_t)desc[i].addr, &desc[i],
			  &res[i]);
}
/* >8 gpu-consumer-kernel */
