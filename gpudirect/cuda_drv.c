/* SPDX-License-Identifier: MIT */
/*
 * libcuda.so.1 at run time, its calls by version, its errors by name (see
 * cuda_drv.h). Part of libpathlab-gpu-cuda.so.
 */
#include "cuda_drv.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* cuGetProcAddress as every driver since 11.3 exports it (4 arguments). */
typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t);

/* One call of the table: its name, where it goes, whether we need it. */
struct drv_sym {
	const char *name;
	size_t off;
	int required;
};

#define SYM(f, req)                                                            \
	{                                                                      \
		"cu" #f, offsetof(struct cuda_drv, f), req                     \
	}

static const struct drv_sym syms[] = {
	SYM(GetErrorName, 1),
	SYM(GetErrorString, 1),
	SYM(DeviceGetCount, 1),
	SYM(DeviceGet, 1),
	SYM(DeviceGetByPCIBusId, 1),
	SYM(DeviceGetPCIBusId, 1),
	SYM(DeviceGetName, 1),
	SYM(DeviceGetAttribute, 1),
	SYM(DevicePrimaryCtxRetain, 1),
	SYM(DevicePrimaryCtxRelease, 1),
	SYM(CtxSetCurrent, 1),
	SYM(StreamCreate, 1),
	SYM(StreamDestroy, 1),
	SYM(StreamSynchronize, 1),
	SYM(MemAlloc, 1),
	SYM(MemFree, 1),
	SYM(MemHostAlloc, 1),
	SYM(MemFreeHost, 1),
	SYM(MemHostRegister, 1),
	SYM(MemHostUnregister, 1),
	SYM(MemHostGetDevicePointer, 1),
	SYM(MemcpyHtoDAsync, 1),
	SYM(ModuleLoadData, 1),
	SYM(ModuleUnload, 1),
	SYM(ModuleGetFunction, 1),
	SYM(LaunchKernel, 1),
	SYM(PointerSetAttribute, 1),
	SYM(MemGetHandleForAddressRange, 0), /* 11.7: dma-buf */
	SYM(FlushGPUDirectRDMAWrites, 0),
};

int cuda_drv_open(struct cuda_drv *d, char *why, size_t why_len)
{
	CUresult (*version)(int *);
	get_proc_fn get_proc;
	unsigned i;
	void *fn;
	int want;

	*d = (struct cuda_drv){ 0 };
	d->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!d->lib) {
		snprintf(why, why_len,
			 "no CUDA driver (libcuda.so.1 does not load: %s)",
			 dlerror());
		return -ENODEV;
	}
	d->Init = (CUresult(*)(unsigned))dlsym(d->lib, "cuInit");
	version = (CUresult(*)(int *))dlsym(d->lib, "cuDriverGetVersion");
	get_proc = (get_proc_fn)dlsym(d->lib, "cuGetProcAddress");
	if (!d->Init || !version || version(&d->version) ||
	    d->version < PL_CUDA_MIN_DRIVER || !get_proc) {
		snprintf(why, why_len,
			 "the CUDA driver (%d.%d) is older than %d.%d, the "
			 "oldest this backend can use",
			 d->version / 1000, d->version % 1000 / 10,
			 PL_CUDA_MIN_DRIVER / 1000,
			 PL_CUDA_MIN_DRIVER % 1000 / 10);
		cuda_drv_close(d);
		return -EPROTO;
	}
	/* The calls as this driver has them, or as these headers know them. */
	want = d->version < CUDA_VERSION ? d->version : CUDA_VERSION;
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		fn = NULL;
		if (get_proc(syms[i].name, &fn, want,
			     CU_GET_PROC_ADDRESS_DEFAULT))
			fn = NULL;
		if (!fn && syms[i].required) {
			snprintf(why, why_len,
				 "the CUDA driver (%d.%d) has no %s",
				 d->version / 1000, d->version % 1000 / 10,
				 syms[i].name);
			cuda_drv_close(d);
			return -EPROTO;
		}
		memcpy((char *)d + syms[i].off, &fn, sizeof(fn));
	}
	return 0;
}

void cuda_drv_close(struct cuda_drv *d)
{
	/* The driver's threads and exit handlers outlive any dlclose(). */
	d->lib = NULL;
}

const char *cuda_drv_name(const struct cuda_drv *d, CUresult res, char *buf,
			  size_t len)
{
	const char *name = NULL, *text = NULL;

	if (d->GetErrorName)
		d->GetErrorName(res, &name);
	if (d->GetErrorString)
		d->GetErrorString(res, &text);
	if (name)
		snprintf(buf, len, "%s (%s)", name, text ? text : "");
	else
		snprintf(buf, len, "CUresult %d (unknown to this driver)",
			 (int)res);
	return buf;
}

int cuda_drv_errno(CUresult res)
{
	switch (res) {
	case CUDA_SUCCESS:
		return 0;
	case CUDA_ERROR_OUT_OF_MEMORY:
		return -ENOMEM;
	case CUDA_ERROR_INVALID_VALUE:
		return -EINVAL;
	case CUDA_ERROR_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	case CUDA_ERROR_NO_DEVICE:
	case CUDA_ERROR_INVALID_DEVICE:
		return -ENODEV;
	case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
	case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
	case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
		return -EPROTO;
	case CUDA_ERROR_NO_BINARY_FOR_GPU:
	case CUDA_ERROR_INVALID_IMAGE:
	case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
	case CUDA_ERROR_INVALID_PTX:
		return -ENOEXEC;
	case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED:
		return -EEXIST;
	case CUDA_ERROR_ILLEGAL_ADDRESS:
		return -EFAULT;
	case CUDA_ERROR_NOT_PERMITTED:
	case CUDA_ERROR_OPERATING_SYSTEM:
		return -EPERM;
	default:
		return -EIO;
	}
}

int cuda_drv_err(const struct cuda_drv *d, const char *what, CUresult res)
{
	char buf[256];

	fprintf(stderr, "pathlab-gpu: cuda: %s: %s\n", what,
		cuda_drv_name(d, res, buf, sizeof(buf)));
	return cuda_drv_errno(res);
}
