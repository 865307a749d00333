/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for libcuda.so.1, for the tests only: the CUDA driver calls
 * the cuda backend makes, done on the CPU, so that its code (the lookups
 * by version, the device by PCI address, the page arithmetic, the
 * warm-up, the launch's arguments, every error path) runs on a machine
 * without a GPU. It is as picky as the real driver where the backend
 * could go wrong: the fatbin must be a fatbin that names the kernel, a
 * dma-buf range must be whole pages inside one allocation, SYNC_MEMOPS
 * goes on an allocation, copies run only when the stream reaches the
 * kernel. A "kernel launch" runs the consumer (consumer.h) on the CPU.
 *
 * What it plays is set in the environment:
 *   PL_FAKE_CUDA_VERSION  the driver's version (12040)
 *   PL_FAKE_CUDA_DEVICES  how many GPUs (1)
 *   PL_FAKE_CUDA_PCI      the GPU's bus id, as CUDA writes it (0000:3B:00.0)
 *   PL_FAKE_CUDA_DMABUF   1: dma-buf export supported (1)
 *   PL_FAKE_CUDA_ORDERING GPU_DIRECT_RDMA_WRITES_ORDERING (0)
 */
#include <cuda.h>

#undef cuGetProcAddress /* the 4-argument one, which cuda.h renames */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "consumer.h"

#define MAX_ALLOC    64
#define MAX_COPY     4096
#define FATBIN_MAGIC 0xba55ed50u

static struct {
	uintptr_t at;
	size_t len;
} allocs[MAX_ALLOC];

static struct {
	void *dst;
	const void *src;
	size_t len;
} copies[MAX_COPY];
static unsigned ncopies;

/* An integer from the environment, or dflt. */
static int env(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : dflt;
}

/* Record an allocation [p, p + len). */
static void track(void *p, size_t len)
{
	unsigned i;

	for (i = 0; i < MAX_ALLOC; i++)
		if (!allocs[i].at) {
			allocs[i].at = (uintptr_t)p;
			allocs[i].len = len;
			return;
		}
}

/* The allocation that holds [p, p + len), or -1. */
static int owner(uintptr_t p, size_t len)
{
	unsigned i;

	for (i = 0; i < MAX_ALLOC; i++)
		if (allocs[i].at && p >= allocs[i].at &&
		    p + len <= allocs[i].at + allocs[i].len)
			return (int)i;
	return -1;
}

/* Forget allocation p; CUDA_ERROR_INVALID_VALUE if it is none. */
static CUresult untrack(uintptr_t p)
{
	int i = owner(p, 1);

	if (i < 0 || allocs[i].at != p)
		return CUDA_ERROR_INVALID_VALUE;
	allocs[i].at = 0;
	return CUDA_SUCCESS;
}

CUresult cuInit(unsigned flags)
{
	(void)flags;
	return env("PL_FAKE_CUDA_DEVICES", 1) ? CUDA_SUCCESS
					      : CUDA_ERROR_NO_DEVICE;
}

CUresult cuDriverGetVersion(int *v)
{
	*v = env("PL_FAKE_CUDA_VERSION", 12040);
	return CUDA_SUCCESS;
}

static CUresult f_error_name(CUresult r, const char **s)
{
	*s = r == CUDA_ERROR_INVALID_VALUE   ? "CUDA_ERROR_INVALID_VALUE"
	     : r == CUDA_ERROR_NOT_SUPPORTED ? "CUDA_ERROR_NOT_SUPPORTED"
					     : "CUDA_ERROR_UNKNOWN";
	return CUDA_SUCCESS;
}

static CUresult f_error_string(CUresult r, const char **s)
{
	*s = r == CUDA_ERROR_INVALID_VALUE ? "invalid argument"
					   : "from the fake driver";
	return CUDA_SUCCESS;
}

static CUresult f_count(int *n)
{
	*n = env("PL_FAKE_CUDA_DEVICES", 1);
	return CUDA_SUCCESS;
}

static CUresult f_get(CUdevice *d, int i)
{
	*d = i;
	return i < env("PL_FAKE_CUDA_DEVICES", 1) ? CUDA_SUCCESS
						  : CUDA_ERROR_INVALID_DEVICE;
}

static const char *bus_id(void)
{
	const char *v = getenv("PL_FAKE_CUDA_PCI");

	return v && *v ? v : "0000:3B:00.0";
}

static CUresult f_by_bus(CUdevice *d, const char *bus)
{
	*d = 0;
	return strcasecmp(bus, bus_id()) ? CUDA_ERROR_INVALID_DEVICE
					 : CUDA_SUCCESS;
}

static CUresult f_bus(char *buf, int len, CUdevice d)
{
	(void)d;
	snprintf(buf, (size_t)len, "%s", bus_id());
	return CUDA_SUCCESS;
}

static CUresult f_name(char *buf, int len, CUdevice d)
{
	(void)d;
	snprintf(buf, (size_t)len, "pathlab fake CUDA driver (no GPU)");
	return CUDA_SUCCESS;
}

static CUresult f_attr(int *v, CUdevice_attribute a, CUdevice d)
{
	(void)d;
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED:
		*v = env("PL_FAKE_CUDA_DMABUF", 1);
		break;
	case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING:
		*v = env("PL_FAKE_CUDA_ORDERING", 0);
		break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
		*v = 9;
		break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
		*v = 0;
		break;
	default: /* RDMA supported, flush options: host */
		*v = 1;
		break;
	}
	return CUDA_SUCCESS;
}

static CUresult f_ctx_retain(CUcontext *c, CUdevice d)
{
	(void)d;
	*c = (CUcontext)(uintptr_t)0x1000;
	return CUDA_SUCCESS;
}

static CUresult f_ok_dev(CUdevice d)
{
	(void)d;
	return CUDA_SUCCESS;
}

static CUresult f_ctx_set(CUcontext c)
{
	return c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

static CUresult f_stream_create(CUstream *s, unsigned flags)
{
	(void)flags;
	*s = (CUstream)(uintptr_t)0x2000;
	return CUDA_SUCCESS;
}

static CUresult f_ok_stream(CUstream s)
{
	(void)s;
	return CUDA_SUCCESS;
}

static CUresult f_alloc(CUdeviceptr *p, size_t len)
{
	/* 256-byte aligned, as cudaMalloc promises, and no more. */
	uint8_t *m = aligned_alloc(4096, (len + 8191) / 4096 * 4096);

	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*p = (CUdeviceptr)(uintptr_t)(m + 256);
	track(m + 256, len);
	return CUDA_SUCCESS;
}

static CUresult f_free(CUdeviceptr p)
{
	CUresult r = untrack((uintptr_t)p);

	if (!r)
		free((uint8_t *)(uintptr_t)p - 256);
	return r;
}

static CUresult f_host_alloc(void **p, size_t len, unsigned flags)
{
	(void)flags;
	*p = aligned_alloc(4096, (len + 4095) / 4096 * 4096);
	if (!*p)
		return CUDA_ERROR_OUT_OF_MEMORY;
	track(*p, len);
	return CUDA_SUCCESS;
}

static CUresult f_free_host(void *p)
{
	CUresult r = untrack((uintptr_t)p);

	if (!r)
		free(p);
	return r;
}

static CUresult f_register(void *p, size_t len, unsigned flags)
{
	if (!(flags & CU_MEMHOSTREGISTER_DEVICEMAP))
		return CUDA_ERROR_INVALID_VALUE; /* the backend always maps */
	if (owner((uintptr_t)p, 1) >= 0)
		return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
	track(p, len);
	return CUDA_SUCCESS;
}

static CUresult f_unregister(void *p)
{
	return untrack((uintptr_t)p);
}

static CUresult f_dev_ptr(CUdeviceptr *d, void *p, unsigned flags)
{
	if (flags || owner((uintptr_t)p, 1) < 0)
		return CUDA_ERROR_INVALID_VALUE;
	*d = (CUdeviceptr)(uintptr_t)p; /* unified addressing */
	return CUDA_SUCCESS;
}

static CUresult f_copy(CUdeviceptr dst, const void *src, size_t len, CUstream s)
{
	(void)s;
	if (owner(dst, len) < 0 || ncopies == MAX_COPY)
		return CUDA_ERROR_INVALID_VALUE;
	copies[ncopies].dst = (void *)(uintptr_t)dst;
	copies[ncopies].src = src;
	copies[ncopies++].len = len;
	return CUDA_SUCCESS;
}

static CUresult f_load(CUmodule *m, const void *image)
{
	uint32_t magic;

	memcpy(&magic, image, sizeof(magic));
	if (magic != FATBIN_MAGIC || (uintptr_t)image % 8)
		return CUDA_ERROR_INVALID_IMAGE;
	*m = (CUmodule)image;
	return CUDA_SUCCESS;
}

static CUresult f_unload(CUmodule m)
{
	return m ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The kernel's name must be in the image as C spells it (no mangling). */
static CUresult f_function(CUfunction *f, CUmodule m, const char *name)
{
	const uint8_t *img = (const void *)m;
	uint64_t size;
	size_t n = strlen(name), i;

	memcpy(&size, img + 8, sizeof(size)); /* header size + payload */
	for (i = 0; i + n < size + 16; i++)
		if (!memcmp(img + i, name, n) && img[i + n] == 0 &&
		    !strcmp(name, "pl_consumer_kernel")) {
			*f = (CUfunction)(uintptr_t)0x3000;
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_NOT_FOUND;
}

/* The stream reaches the kernel: the queued copies, then the consumer. */
static CUresult f_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
			 unsigned bx, unsigned by, unsigned bz, unsigned shm,
			 CUstream s, void **args, void **extra)
{
	const struct pl_gpu_desc *d;
	struct pl_gpu_res *r;
	unsigned i, n;

	(void)s;
	if (!f || !args || extra || gy != 1 || gz != 1 || by != 1 || bz != 1 ||
	    shm)
		return CUDA_ERROR_INVALID_VALUE;
	d = (const void *)(uintptr_t) * (CUdeviceptr *)args[0];
	r = (void *)(uintptr_t) * (CUdeviceptr *)args[1];
	n = *(unsigned *)args[2];
	if ((uint64_t)gx * bx < n)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < ncopies; i++)
		memcpy(copies[i].dst, copies[i].src, copies[i].len);
	ncopies = 0;
	for (i = 0; i < n; i++) {
		if (owner(d[i].addr, d[i].len) < 0)
			return CUDA_ERROR_ILLEGAL_ADDRESS;
		plc_check((const uint8_t *)(uintptr_t)d[i].addr, &d[i], &r[i]);
	}
	return CUDA_SUCCESS;
}

static CUresult f_set_attr(const void *v, CUpointer_attribute a, CUdeviceptr p)
{
	int i = owner(p, 1);

	if (a != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS ||
	    *(const unsigned *)v != 1 || i < 0 || allocs[i].at != p)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* A dma-buf: whole host pages, inside one allocation. */
static CUresult f_handle(void *fd, CUdeviceptr p, size_t len,
			 CUmemRangeHandleType t, unsigned long long flags)
{
	long pg = sysconf(_SC_PAGESIZE);

	if (t != CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD || flags || p % pg ||
	    len % pg || owner(p, len) < 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (!env("PL_FAKE_CUDA_DMABUF", 1))
		return CUDA_ERROR_NOT_SUPPORTED;
	*(int *)fd = memfd_create("pathlab-fake-dmabuf", MFD_CLOEXEC);
	return *(int *)fd < 0 ? CUDA_ERROR_OPERATING_SYSTEM : CUDA_SUCCESS;
}

static CUresult f_flush(CUflushGPUDirectRDMAWritesTarget t,
			CUflushGPUDirectRDMAWritesScope s)
{
	return t == CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX &&
			       s >= CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER
		       ? CUDA_SUCCESS
		       : CUDA_ERROR_INVALID_VALUE;
}

/* Every call by name, as cuGetProcAddress hands them out. */
static const struct {
	const char *name;
	void *fn;
} calls[] = {
	{ "cuGetErrorName", (void *)f_error_name },
	{ "cuGetErrorString", (void *)f_error_string },
	{ "cuDeviceGetCount", (void *)f_count },
	{ "cuDeviceGet", (void *)f_get },
	{ "cuDeviceGetByPCIBusId", (void *)f_by_bus },
	{ "cuDeviceGetPCIBusId", (void *)f_bus },
	{ "cuDeviceGetName", (void *)f_name },
	{ "cuDeviceGetAttribute", (void *)f_attr },
	{ "cuDevicePrimaryCtxRetain", (void *)f_ctx_retain },
	{ "cuDevicePrimaryCtxRelease", (void *)f_ok_dev },
	{ "cuCtxSetCurrent", (void *)f_ctx_set },
	{ "cuStreamCreate", (void *)f_stream_create },
	{ "cuStreamDestroy", (void *)f_ok_stream },
	{ "cuStreamSynchronize", (void *)f_ok_stream },
	{ "cuMemAlloc", (void *)f_alloc },
	{ "cuMemFree", (void *)f_free },
	{ "cuMemHostAlloc", (void *)f_host_alloc },
	{ "cuMemFreeHost", (void *)f_free_host },
	{ "cuMemHostRegister", (void *)f_register },
	{ "cuMemHostUnregister", (void *)f_unregister },
	{ "cuMemHostGetDevicePointer", (void *)f_dev_ptr },
	{ "cuMemcpyHtoDAsync", (void *)f_copy },
	{ "cuModuleLoadData", (void *)f_load },
	{ "cuModuleUnload", (void *)f_unload },
	{ "cuModuleGetFunction", (void *)f_function },
	{ "cuLaunchKernel", (void *)f_launch },
	{ "cuPointerSetAttribute", (void *)f_set_attr },
	{ "cuMemGetHandleForAddressRange", (void *)f_handle },
	{ "cuFlushGPUDirectRDMAWrites", (void *)f_flush },
};

CUresult cuGetProcAddress(const char *name, void **fn, int version,
			  cuuint64_t flags);

/* The 4-argument form every driver since 11.3 exports under this name. */
CUresult cuGetProcAddress(const char *name, void **fn, int version,
			  cuuint64_t flags)
{
	unsigned i;

	(void)flags;
	*fn = NULL;
	if (version > env("PL_FAKE_CUDA_VERSION", 12040))
		return CUDA_ERROR_INVALID_VALUE; /* asked for the future */
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (!strcmp(calls[i].name, name)) {
			*fn = calls[i].fn;
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_NOT_FOUND;
}
