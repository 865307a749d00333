/* SPDX-License-Identifier: MIT */
/*
 * The CUDA backend's memory (see gpu_cuda.c): device memory, pinned and
 * mapped host memory, the copy engine's queue, the dma-buf export.
 */
#include "gpu_cuda.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* 8< gpu-cuda-dev-alloc */
/*
 * Device memory. Where a NIC will DMA into it: on a GPU page (one more is
 * allocated, the start aligned up), GPUDirect RDMA checked, and
 * SYNC_MEMOPS set, which makes every synchronous CUDA memory operation on
 * the range (a cudaMemcpy, a cudaMemset) finished when it returns, so
 * that a NIC reading or writing the range after it sees its result. It
 * says nothing about the NIC's own writes: see pl_gpu_flush_nic_writes().
 */
int cuda_dev_alloc(struct pl_gpu *g, struct pl_gpu_region *r)
{
	bool nic = r->flags & PL_GPU_NIC_WRITES;
	struct cuda_be *be = g->be;
	CUdeviceptr p = 0;
	unsigned one = 1;
	CUresult res;

	if (nic && !be->rdma) {
		fprintf(stderr,
			"pathlab-gpu: cuda: %s does not support "
			"GPUDirect RDMA (CU_DEVICE_ATTRIBUTE_GPU_"
			"DIRECT_RDMA_SUPPORTED is 0): no NIC can "
			"write its memory\n",
			g->device);
		return -EOPNOTSUPP;
	}
	res = cuda_ctx_on(be);
	if (!res)
		res = be->d.MemAlloc(&p, r->len + (nic ? PL_GPU_PAGE : 0));
	if (res)
		return cuda_drv_err(&be->d, "cuMemAlloc", res);
	r->priv = (void *)(uintptr_t)p; /* what cuMemFree takes */
	r->dev = nic ? (p + PL_GPU_PAGE - 1) / PL_GPU_PAGE * PL_GPU_PAGE : p;
	if (nic) {
		res = be->d.PointerSetAttribute(
			&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p);
		if (res) {
			be->d.MemFree(p);
			return cuda_drv_err(
				&be->d, "cuPointerSetAttribute(SYNC_MEMOPS)",
				res);
		}
	}
	return 0;
}
/* >8 gpu-cuda-dev-alloc */

/* Free device memory. */
void cuda_dev_free(struct pl_gpu *g, struct pl_gpu_region *r)
{
	struct cuda_be *be = g->be;

	cuda_ctx_on(be);
	be->d.MemFree((CUdeviceptr)(uintptr_t)r->priv);
}

/* 8< gpu-cuda-host-register */
/* Pin host memory, mapped: kernels read it in place at r->dev. */
int cuda_host_register(struct pl_gpu *g, struct pl_gpu_region *r)
{
	struct cuda_be *be = g->be;
	CUdeviceptr dev = 0;
	CUresult res;

	res = cuda_ctx_on(be);
	if (!res)
		res = be->d.MemHostRegister(
			r->host, r->len,
			CU_MEMHOSTREGISTER_DEVICEMAP |
				CU_MEMHOSTREGISTER_PORTABLE);
	if (res)
		return cuda_drv_err(&be->d, "cuMemHostRegister", res);
	res = be->d.MemHostGetDevicePointer(&dev, r->host, 0);
	if (res) {
		be->d.MemHostUnregister(r->host);
		return cuda_drv_err(&be->d, "cuMemHostGetDevicePointer", res);
	}
	r->dev = dev; /* with unified addressing: r->host itself */
	return 0;
}
/* >8 gpu-cuda-host-register */

/* Unpin. */
void cuda_host_unregister(struct pl_gpu *g, struct pl_gpu_region *r)
{
	struct cuda_be *be = g->be;

	cuda_ctx_on(be);
	be->d.MemHostUnregister(r->host);
}

/* Pinned host memory mapped for the GPU, zeroed. */
int cuda_host_alloc(struct pl_gpu *g, size_t len, void **host, void **dev)
{
	struct cuda_be *be = g->be;
	CUdeviceptr d = 0;
	CUresult res;

	res = cuda_ctx_on(be);
	if (!res)
		res = be->d.MemHostAlloc(host, len, CU_MEMHOSTALLOC_DEVICEMAP);
	if (res)
		return cuda_drv_err(&be->d, "cuMemHostAlloc", res);
	res = be->d.MemHostGetDevicePointer(&d, *host, 0);
	if (res) {
		be->d.MemFreeHost(*host);
		return cuda_drv_err(&be->d, "cuMemHostGetDevicePointer", res);
	}
	*dev = (void *)(uintptr_t)d;
	memset(*host, 0, len);
	return 0;
}

/* Free what cuda_host_alloc() gave. */
void cuda_host_free(struct pl_gpu *g, void *host, size_t len)
{
	struct cuda_be *be = g->be;

	(void)len;
	cuda_ctx_on(be);
	be->d.MemFreeHost(host);
}

/* Queue the copy on our stream: the DMA engine does it, not the CPU. */
int cuda_copy_h2d(struct pl_gpu *g, struct pl_gpu_region *r, size_t off,
		  const void *host, size_t len)
{
	struct cuda_be *be = g->be;
	CUresult res;

	res = cuda_ctx_on(be);
	if (!res)
		res = be->d.MemcpyHtoDAsync(r->dev + off, host, len,
					    be->stream);
	return res ? cuda_drv_err(&be->d, "cuMemcpyHtoDAsync", res) : 0;
}

/* 8< gpu-cuda-dmabuf */
/* A dma-buf fd for device memory, for ibv_reg_dmabuf_mr(). */
int cuda_export_dmabuf(struct pl_gpu *g, void *dev, size_t len, int *fd)
{
	struct cuda_be *be = g->be;
	CUresult res;

	if (!be->dmabuf || !be->d.MemGetHandleForAddressRange) {
		fprintf(stderr,
			"pathlab-gpu: cuda: %s: no dma-buf export "
			"(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0: "
			"it needs the open kernel module and Linux "
			"5.12 or later)\n",
			g->device);
		return -EOPNOTSUPP;
	}
	/* Both ends host-page aligned: gpu.c rounds len, dev_alloc aligns. */
	res = cuda_ctx_on(be);
	if (!res)
		res = be->d.MemGetHandleForAddressRange(
			fd, (CUdeviceptr)(uintptr_t)dev, len,
			CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	return res ? cuda_drv_err(&be->d, "cuMemGetHandleForAddressRange", res)
		   : 0;
}
/* >8 gpu-cuda-dmabuf */

/* Nothing to do: CUDA memory was never the CPU's. */
void cuda_nic_registered(struct pl_gpu *g, struct pl_gpu_region *r)
{
	(void)g;
	(void)r;
}
