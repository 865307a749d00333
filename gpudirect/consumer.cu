/* SPDX-License-Identifier: MIT */
/*
 * The consumer kernel: one thread per packet runs plc_check() from
 * consumer.h on bytes the GPU reads where they are (device memory, or host
 * memory mapped for it across PCIe) and writes the result record.
 */
/* wire.h is C11; the same check is spelled static_assert in C++. */
#define _Static_assert static_assert
#include "consumer.h"

#include <cuda_runtime.h>

#define PL_CONSUMER_THREADS 128

/* 8< gpu-consumer-kernel */
/* Check packet i of the batch: descriptors in, results out. */
__global__ void pl_consumer_kernel(const struct pl_gpu_desc *desc,
				   struct pl_gpu_res *res, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		plc_check((const uint8_t *)(uintptr_t)desc[i].addr, &desc[i],
			  &res[i]);
}
/* >8 gpu-consumer-kernel */

/* Launch the kernel over n descriptors on stream; a cudaError_t. */
extern "C" int pl_consumer_launch(const struct pl_gpu_desc *desc,
				  struct pl_gpu_res *res, unsigned n,
				  void *stream)
{
	unsigned blocks = (n + PL_CONSUMER_THREADS - 1) / PL_CONSUMER_THREADS;

	if (!n)
		return cudaSuccess;
	pl_consumer_kernel<<<blocks, PL_CONSUMER_THREADS, 0,
			     (cudaStream_t)stream>>>(desc, res, n);
	return (int)cudaGetLastError();
}
