/* SPDX-License-Identifier: MIT */
/*
 * The CUDA backend, built into libpathlab-gpu-cuda.so with consumer.cu and
 * loaded by gpu.c only for --gpu cuda, so that no receiver needs a CUDA
 * library to start. The runtime is linked in statically; the few driver
 * calls (the pointer attribute, the dma-buf export) are looked up through
 * cudaGetDriverEntryPointByVersion(), so the module links no libcuda and
 * loads on a machine without a driver, where open() says "no GPU".
 *
 * One stream carries everything: the async host-to-device copies, then
 * the consumer kernel, then the wait. Descriptors and results live in
 * pinned host memory mapped for the GPU (a few bytes per packet).
 * Simplification: one GPU, CUDA device 0, and one batch in flight; a
 * pipeline would copy batch n+1 while the kernel checks batch n.
 */
#include "gpu_backend.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The ABI version of the driver calls we look up (CUDA 12.0). */
#define DRIVER_API_VERSION 12000

typedef CUresult (*set_attr_fn)(const void *, CUpointer_attribute, CUdeviceptr);
typedef CUresult (*get_handle_fn)(void *, CUdeviceptr, size_t,
				  CUmemRangeHandleType, unsigned long long);
typedef CUresult (*dev_attr_fn)(int *, CUdevice_attribute, CUdevice);
typedef CUresult (*dev_get_fn)(CUdevice *, int);

struct cuda_be {
	int ordinal;
	cudaStream_t stream;
	set_attr_fn set_attr;
	get_handle_fn get_handle;
	dev_attr_fn dev_attr;
	dev_get_fn dev_get;
};

/* consumer.cu: launch the kernel over n descriptors on a stream. */
int pl_consumer_launch(const struct pl_gpu_desc *desc, struct pl_gpu_res *res,
		       unsigned n, void *stream);

/* Say what failed and turn a CUDA error into -errno. */
static int cuda_err(const char *what, cudaError_t e)
{
	fprintf(stderr, "pathlab-gpu: cuda: %s: %s\n", what,
		cudaGetErrorString(e));
	switch (e) {
	case cudaErrorMemoryAllocation:
		return -ENOMEM;
	case cudaErrorInvalidValue:
		return -EINVAL;
	case cudaErrorNotSupported:
		return -EOPNOTSUPP;
	case cudaErrorNoDevice:
	case cudaErrorInsufficientDriver:
		return -ENODEV;
	default:
		return -EIO;
	}
}

/* Look up one driver call; NULL if the driver lacks it. */
static void *driver_call(const char *name)
{
	enum cudaDriverEntryPointQueryResult q;
	void *fn = NULL;

	if (cudaGetDriverEntryPointByVersion(name, &fn, DRIVER_API_VERSION,
					     cudaEnableDefault, &q) ||
	    q != cudaDriverEntryPointSuccess)
		return NULL;
	return fn;
}

/* Why no device can be used: no driver, an old driver, or no GPU. */
static void no_device(cudaError_t e, char *why, size_t why_len)
{
	int drv = 0;

	cudaDriverGetVersion(&drv);
	if (!drv)
		snprintf(why, why_len,
			 "no CUDA driver (libcuda.so.1): no GPU on this "
			 "machine");
	else if (e == cudaErrorInsufficientDriver)
		snprintf(why, why_len,
			 "the CUDA driver (%d.%d) is older than the runtime "
			 "this was built with (%d.%d)",
			 drv / 1000, drv % 1000 / 10, CUDART_VERSION / 1000,
			 CUDART_VERSION % 1000 / 10);
	else
		snprintf(why, why_len, "%s",
			 e ? cudaGetErrorString(e) : "no CUDA device");
}

/* The NUMA node of PCI device pci from sysfs, or -1. */
static int pci_numa_node(const char *pci)
{
	char path[128];
	int node = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", pci);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &node) != 1)
			node = -1;
		fclose(f);
	}
	return node;
}

/* Device 0: its name and place, a stream, the driver calls. */
static int cuda_open(struct pl_gpu *g, char *why, size_t why_len)
{
	struct cudaDeviceProp prop;
	struct cuda_be *be;
	cudaError_t e;
	int n = 0;

	e = cudaGetDeviceCount(&n);
	if (e || !n) {
		no_device(e, why, why_len);
		return -ENODEV;
	}
	be = calloc(1, sizeof(*be));
	if (!be)
		return -ENOMEM;
	e = cudaSetDevice(be->ordinal);
	if (!e)
		e = cudaGetDeviceProperties(&prop, be->ordinal);
	if (!e)
		e = cudaStreamCreateWithFlags(&be->stream,
					      cudaStreamNonBlocking);
	if (e) {
		snprintf(why, why_len, "%s", cudaGetErrorString(e));
		free(be);
		return -ENODEV;
	}
	snprintf(g->device, sizeof(g->device), "%s", prop.name);
	snprintf(g->pci, sizeof(g->pci), "%04x:%02x:%02x.0", prop.pciDomainID,
		 prop.pciBusID, prop.pciDeviceID);
	g->numa_node = pci_numa_node(g->pci);
	be->set_attr = (set_attr_fn)driver_call("cuPointerSetAttribute");
	be->get_handle =
		(get_handle_fn)driver_call("cuMemGetHandleForAddressRange");
	be->dev_attr = (dev_attr_fn)driver_call("cuDeviceGetAttribute");
	be->dev_get = (dev_get_fn)driver_call("cuDeviceGet");
	g->be = be;
	return 0;
}

/* Wait for the stream, then release it. */
static void cuda_close(struct pl_gpu *g)
{
	struct cuda_be *be = g->be;

	cudaStreamSynchronize(be->stream);
	cudaStreamDestroy(be->stream);
	free(be);
}

/* 8< gpu-cuda-dev-alloc */
/*
 * Device memory. Where a NIC will DMA into it, SYNC_MEMOPS makes every
 * synchronous CUDA memory operation on the range complete before it
 * returns (what GPUDirect RDMA asks of a buffer a peer device writes). It
 * does not wait for the peer's DMA: the NIC's completion says when that
 * write has landed.
 */
static int cuda_dev_alloc(struct pl_gpu *g, struct pl_gpu_region *r)
{
	struct cuda_be *be = g->be;
	unsigned one = 1;
	void *p = NULL;
	cudaError_t e;

	e = cudaMalloc(&p, r->len);
	if (e)
		return cuda_err("cudaMalloc", e);
	if (r->flags & PL_GPU_NIC_WRITES) {
		if (!be->set_attr ||
		    be->set_attr(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
				 (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS) {
			fprintf(stderr, "pathlab-gpu: cuda: "
					"cuPointerSetAttribute(SYNC_MEMOPS) "
					"failed\n");
			cudaFree(p);
			return -EIO;
		}
	}
	r->dev = (uintptr_t)p;
	return 0;
}
/* >8 gpu-cuda-dev-alloc */

/* Free device memory. */
static void cuda_dev_free(struct pl_gpu *g, struct pl_gpu_region *r)
{
	(void)g;
	cudaFree((void *)r->dev);
}

/* 8< gpu-cuda-host-register */
/* Pin host memory; mapped, the GPU reads it in place at r->dev. */
static int cuda_host_register(struct pl_gpu *g, struct pl_gpu_region *r)
{
	unsigned flags = r->flags & PL_GPU_MAPPED ? cudaHostRegisterMapped
						  : cudaHostRegisterDefault;
	void *dev = r->host;
	cudaError_t e;

	(void)g;
	e = cudaHostRegister(r->host, r->len, flags);
	if (e)
		return cuda_err("cudaHostRegister", e);
	if (flags == cudaHostRegisterMapped) {
		e = cudaHostGetDevicePointer(&dev, r->host, 0);
		if (e) {
			cudaHostUnregister(r->host);
			return cuda_err("cudaHostGetDevicePointer", e);
		}
	}
	r->dev = (uintptr_t)dev;
	return 0;
}
/* >8 gpu-cuda-host-register */

/* Unpin. */
static void cuda_host_unregister(struct pl_gpu *g, struct pl_gpu_region *r)
{
	(void)g;
	cudaHostUnregister(r->host);
}

/* Pinned host memory mapped for the GPU, zeroed. */
static int cuda_host_alloc(struct pl_gpu *g, size_t len, void **host,
			   void **dev)
{
	cudaError_t e;

	(void)g;
	e = cudaHostAlloc(host, len, cudaHostAllocMapped);
	if (e)
		return cuda_err("cudaHostAlloc", e);
	e = cudaHostGetDevicePointer(dev, *host, 0);
	if (e) {
		cudaFreeHost(*host);
		return cuda_err("cudaHostGetDevicePointer", e);
	}
	memset(*host, 0, len);
	return 0;
}

/* Free what cuda_host_alloc() gave. */
static void cuda_host_free(struct pl_gpu *g, void *host, size_t len)
{
	(void)g;
	(void)len;
	cudaFreeHost(host);
}

/* Queue the copy on our stream: the DMA engine does it, not the CPU. */
static int cuda_copy_h2d(struct pl_gpu *g, struct pl_gpu_region *r, size_t off,
			 const void *host, size_t len)
{
	struct cuda_be *be = g->be;
	cudaError_t e;

	e = cudaMemcpyAsync((uint8_t *)r->dev + off, host, len,
			    cudaMemcpyHostToDevice, be->stream);
	return e ? cuda_err("cudaMemcpyAsync", e) : 0;
}

/* The kernel after the copies on the same stream; wait for its results. */
static int cuda_consume(struct pl_gpu *g, const struct pl_gpu_batch *b,
			unsigned n)
{
	struct cuda_be *be = g->be;
	cudaError_t e;

	e = (cudaError_t)pl_consumer_launch(b->desc_dev, b->res_dev, n,
					    be->stream);
	if (e)
		return cuda_err("consumer launch", e);
	e = cudaStreamSynchronize(be->stream);
	return e ? cuda_err("cudaStreamSynchronize", e) : 0;
}

/* 8< gpu-cuda-dmabuf */
/* A dma-buf fd for device memory, for ibv_reg_dmabuf_mr(). */
static int cuda_export_dmabuf(struct pl_gpu *g, void *dev, size_t len, int *fd)
{
	struct cuda_be *be = g->be;
	CUdevice cudev;
	int ok = 0;

	*fd = -1;
	if (!be->get_handle || !be->dev_attr || !be->dev_get ||
	    be->dev_get(&cudev, be->ordinal) != CUDA_SUCCESS ||
	    be->dev_attr(&ok, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, cudev) !=
		    CUDA_SUCCESS ||
	    !ok)
		return -EOPNOTSUPP;
	/* Both ends must be host-page aligned: the caller rounds. */
	if (be->get_handle(fd, (CUdeviceptr)(uintptr_t)dev, len,
			   CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD,
			   0) != CUDA_SUCCESS)
		return -EIO;
	return 0;
}
/* >8 gpu-cuda-dmabuf */

const struct pl_gpu_ops pl_gpu_cuda_ops = {
	.abi = PL_GPU_ABI,
	.name = "cuda",
	.open = cuda_open,
	.close = cuda_close,
	.dev_alloc = cuda_dev_alloc,
	.dev_free = cuda_dev_free,
	.host_register = cuda_host_register,
	.host_unregister = cuda_host_unregister,
	.host_alloc = cuda_host_alloc,
	.host_free = cuda_host_free,
	.copy_h2d = cuda_copy_h2d,
	.consume = cuda_consume,
	.export_dmabuf = cuda_export_dmabuf,
};
