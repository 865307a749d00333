/* SPDX-License-Identifier: MIT */
/*
 * The CUDA backend, built into libpathlab-gpu-cuda.so with the consumer's
 * fatbin and loaded by gpu.c only for --gpu cuda, so that no receiver
 * needs a CUDA library to start. It speaks the driver API (cuda_drv.h), so
 * it runs on drivers older than the toolkit it was built with; the kernel
 * is SASS for the architectures the build names plus PTX, loaded and run
 * once at open: any JIT and first-launch cost is paid before the run.
 *
 * One stream carries everything: the async host-to-device copies, then
 * the consumer kernel, then the wait. Descriptors and results live in
 * pinned host memory mapped for the GPU (a few bytes per packet).
 * Simplification: one batch in flight; a pipeline would copy batch n+1
 * while the kernel checks batch n.
 */
#include "gpu_cuda.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 128

/* cuda_fatbin.c: consumer.cu's fatbin, as bin2c writes it. */
extern const unsigned char pl_consumer_fatbin[];
extern uint32_t pl_consumer_fatbinLength;

static __thread CUcontext cur_ctx;

/* Make the GPU's context this thread's (the loop may run elsewhere). */
CUresult cuda_ctx_on(struct cuda_be *be)
{
	CUresult res = CUDA_SUCCESS;

	if (cur_ctx != be->ctx) {
		res = be->d.CtxSetCurrent(be->ctx);
		if (!res)
			cur_ctx = be->ctx;
	}
	return res;
}

/* One attribute of the device, or dflt when the driver lacks it. */
static int attr(struct cuda_be *be, CUdevice_attribute a, int dflt)
{
	int v = dflt;

	if (be->d.DeviceGetAttribute(&v, a, be->dev))
		v = dflt;
	return v;
}

/* A good pathlab payload of len bytes (wire.h), sequence number seq. */
static void warm_payload(uint8_t *b, uint32_t len, uint32_t seq)
{
	uint32_t i, c;

	memset(b, 0, len);
	b[0] = PL_MAGIC >> 8;
	b[1] = PL_MAGIC & 0xff;
	b[2] = PL_VERSION;
	b[3] = 1; /* flow */
	for (i = 0; i < 4; i++)
		b[4 + i] = (uint8_t)(seq >> (24 - 8 * i));
	for (i = PL_HDR_LEN; i < len; i++)
		b[i] = (uint8_t)i;
	c = ~plc_sum(b, len) & 0xffff; /* the check field is still 0 */
	c = c ? c : 0xffff;
	b[16] = (uint8_t)(c >> 8);
	b[17] = (uint8_t)c;
}

/* Launch the consumer over n descriptors on the stream and wait. */
static CUresult launch(struct cuda_be *be, CUdeviceptr desc, CUdeviceptr res,
		       unsigned n)
{
	void *args[] = { &desc, &res, &n };
	CUresult r;

	r = be->d.LaunchKernel(be->fn, (n + THREADS - 1) / THREADS, 1, 1,
			       THREADS, 1, 1, 0, be->stream, args, NULL);
	return r ? r : be->d.StreamSynchronize(be->stream);
}

/*
 * The consumer once, on one good payload, before any run: the module's
 * load (a JIT where there is no SASS for this GPU) and the first launch
 * happen here, and a kernel that cannot run here fails the open.
 */
static int warm_up(struct cuda_be *be, char *why, size_t why_len)
{
	struct pl_gpu_desc *d = NULL;
	struct pl_gpu_res *r = NULL;
	CUdeviceptr dd, rd;
	uint8_t *p = NULL;
	char name[160];
	CUresult res;

	be->image =
		aligned_alloc(64, (pl_consumer_fatbinLength + 63) / 64 * 64);
	if (!be->image)
		return -ENOMEM;
	memcpy(be->image, pl_consumer_fatbin, pl_consumer_fatbinLength);
	res = be->d.ModuleLoadData(&be->mod, be->image);
	if (!res)
		res = be->d.ModuleGetFunction(&be->fn, be->mod,
					      "pl_consumer_kernel");
	if (!res)
		res = be->d.MemHostAlloc((void **)&p, 4096,
					 CU_MEMHOSTALLOC_DEVICEMAP);
	if (res) {
		snprintf(why, why_len,
			 "the consumer kernel (built by CUDA %d.%d: SASS for "
			 "compute capability %s, and PTX) does not load on "
			 "this GPU with driver %d.%d: %s; rebuild with this "
			 "machine's CUDA toolkit (labs/gpu-check.sh does)",
			 CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10,
			 PL_CUDA_ARCHS, be->d.version / 1000,
			 be->d.version % 1000 / 10,
			 cuda_drv_name(&be->d, res, name, sizeof(name)));
		return cuda_drv_errno(res);
	}
	d = (struct pl_gpu_desc *)(p + 2048);
	r = (struct pl_gpu_res *)(p + 3072);
	warm_payload(p, 64, 7);
	*d = (struct pl_gpu_desc){ .len = 64 };
	res = be->d.MemHostGetDevicePointer(&dd, p, 0);
	if (!res)
		d->addr = dd;
	if (!res)
		res = be->d.MemHostGetDevicePointer(&dd, d, 0);
	if (!res)
		res = be->d.MemHostGetDevicePointer(&rd, r, 0);
	if (!res)
		res = launch(be, dd, rd, 1);
	if (!res && (r->reason != PL_OK || r->seq != 7))
		snprintf(why, why_len,
			 "the consumer kernel ran but answered reason %u "
			 "seq %u for a good payload",
			 r->reason, r->seq);
	else if (res)
		snprintf(why, why_len, "the consumer's first launch: %s",
			 cuda_drv_name(&be->d, res, name, sizeof(name)));
	be->d.MemFreeHost(p);
	return res ? cuda_drv_errno(res) : why[0] ? -EIO : 0;
}

/* The device at g->pci (or the first), its context, its facts. */
static int cuda_device(struct pl_gpu *g, struct cuda_be *be, char *why,
		       size_t why_len)
{
	char bus[32], name[160];
	int n = 0, ordering;
	CUresult res;

	res = be->d.DeviceGetCount(&n);
	if (res || !n) {
		snprintf(why, why_len, "CUDA sees no GPU%s%s", res ? ": " : "",
			 res ? cuda_drv_name(&be->d, res, name, sizeof(name))
			     : "");
		return -ENODEV;
	}
	res = g->pci[0] ? be->d.DeviceGetByPCIBusId(&be->dev, g->pci)
			: be->d.DeviceGet(&be->dev, 0);
	if (!res)
		res = be->d.DeviceGetPCIBusId(bus, sizeof(bus), be->dev);
	if (!res)
		res = be->d.DeviceGetName(g->device, sizeof(g->device),
					  be->dev);
	if (!res)
		res = be->d.DevicePrimaryCtxRetain(&be->ctx, be->dev);
	if (res) {
		snprintf(why, why_len, "the GPU %s: %s",
			 g->pci[0] ? g->pci : "0",
			 cuda_drv_name(&be->d, res, name, sizeof(name)));
		return -EIO;
	}
	snprintf(g->pci, sizeof(g->pci), "%s", bus); /* gpu.c compares */
	be->dmabuf = attr(be, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, 0);
	be->rdma = attr(be, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, 0);
	ordering = attr(be, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING,
			0);
	g->writes_ordering = ordering;
	g->can_flush =
		be->d.FlushGPUDirectRDMAWrites &&
		(attr(be,
		      CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS,
		      0) &
		 CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST);
	snprintf(g->software, sizeof(g->software),
		 "driver %d.%d, built with CUDA %d.%d, sm_%d%d",
		 be->d.version / 1000, be->d.version % 1000 / 10,
		 CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10,
		 attr(be, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0),
		 attr(be, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0));
	return 0;
}

/* The driver, the GPU, its context and stream, the warmed-up consumer. */
static int cuda_open(struct pl_gpu *g, char *why, size_t why_len)
{
	struct cuda_be *be = calloc(1, sizeof(*be));
	char name[160];
	CUresult res;
	int err;

	if (!be)
		return -ENOMEM;
	g->be = be;
	err = cuda_drv_open(&be->d, why, why_len);
	if (err)
		goto out_free;
	res = be->d.Init(0);
	if (res) {
		snprintf(why, why_len, "cuInit: %s",
			 cuda_drv_name(&be->d, res, name, sizeof(name)));
		err = res == CUDA_ERROR_NO_DEVICE ? -ENODEV : -EIO;
		goto out_free;
	}
	err = cuda_device(g, be, why, why_len);
	if (err)
		goto out_free;
	res = cuda_ctx_on(be);
	if (!res)
		res = be->d.StreamCreate(&be->stream, CU_STREAM_NON_BLOCKING);
	if (res) {
		snprintf(why, why_len, "a stream: %s",
			 cuda_drv_name(&be->d, res, name, sizeof(name)));
		err = -EIO;
		goto out_ctx;
	}
	err = warm_up(be, why, why_len);
	if (err)
		goto out_stream;
	return 0;

out_stream:
	if (be->mod)
		be->d.ModuleUnload(be->mod);
	be->d.StreamDestroy(be->stream);
out_ctx:
	be->d.DevicePrimaryCtxRelease(be->dev);
out_free:
	free(be->image);
	free(be);
	g->be = NULL;
	return err;
}

/* Wait for the stream, then release what open() took. */
static void cuda_close(struct pl_gpu *g)
{
	struct cuda_be *be = g->be;

	cuda_ctx_on(be);
	be->d.StreamSynchronize(be->stream);
	be->d.ModuleUnload(be->mod);
	be->d.StreamDestroy(be->stream);
	be->d.DevicePrimaryCtxRelease(be->dev);
	cur_ctx = NULL;
	free(be->image);
	free(be);
}

/* The kernel after the copies on the same stream; wait for its results. */
static int cuda_consume(struct pl_gpu *g, const struct pl_gpu_batch *b,
			unsigned n)
{
	struct cuda_be *be = g->be;
	CUresult res;

	if (!n)
		return 0;
	res = cuda_ctx_on(be);
	if (!res)
		res = launch(be, (CUdeviceptr)(uintptr_t)b->desc_dev,
			     (CUdeviceptr)(uintptr_t)b->res_dev, n);
	return res ? cuda_drv_err(&be->d, "the consumer kernel", res) : 0;
}

/* 8< gpu-cuda-flush */
/* NIC writes visible to running kernels, where the GPU does not order. */
static int cuda_flush_nic_writes(struct pl_gpu *g)
{
	struct cuda_be *be = g->be;
	CUresult res;

	if (g->writes_ordering >= CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER)
		return 0; /* a no-op there: the GPU orders them itself */
	if (!g->can_flush)
		return -EOPNOTSUPP;
	res = cuda_ctx_on(be);
	if (!res)
		res = be->d.FlushGPUDirectRDMAWrites(
			CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
			CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);
	return res ? cuda_drv_err(&be->d, "cuFlushGPUDirectRDMAWrites", res)
		   : 0;
}
/* >8 gpu-cuda-flush */

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
	.nic_registered = cuda_nic_registered,
	.flush_nic_writes = cuda_flush_nic_writes,
};
