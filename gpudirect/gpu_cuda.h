/* SPDX-License-Identifier: MIT */
/*
 * What the two files of the CUDA backend share: its state and the
 * handful of calls between them. gpu_cuda.c opens the GPU, runs the
 * consumer and holds the ops table; gpu_cuda_mem.c is its memory.
 */
#ifndef PATHLAB_GPU_CUDA_H
#define PATHLAB_GPU_CUDA_H

#include "cuda_drv.h"
#include "gpu_backend.h"

struct cuda_be {
	struct cuda_drv d;
	CUdevice dev;
	CUcontext ctx;
	CUstream stream;
	CUmodule mod;
	CUfunction fn;
	void *image; /* the fatbin, copied to an aligned home */
	int dmabuf;  /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED */
	int rdma;    /* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED */
};

/* Make the GPU's context this thread's (the loop may run elsewhere). */
CUresult cuda_ctx_on(struct cuda_be *be);

/* gpu_cuda_mem.c: the memory ops of the table. */
int cuda_dev_alloc(struct pl_gpu *g, struct pl_gpu_region *r);
void cuda_dev_free(struct pl_gpu *g, struct pl_gpu_region *r);
int cuda_host_register(struct pl_gpu *g, struct pl_gpu_region *r);
void cuda_host_unregister(struct pl_gpu *g, struct pl_gpu_region *r);
int cuda_host_alloc(struct pl_gpu *g, size_t len, void **host, void **dev);
void cuda_host_free(struct pl_gpu *g, void *host, size_t len);
int cuda_copy_h2d(struct pl_gpu *g, struct pl_gpu_region *r, size_t off,
		  const void *host, size_t len);
int cuda_export_dmabuf(struct pl_gpu *g, void *dev, size_t len, int *fd);
void cuda_nic_registered(struct pl_gpu *g, struct pl_gpu_region *r);

#endif
