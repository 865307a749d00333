/* SPDX-License-Identifier: MIT */
/*
 * The CUDA driver API as the cuda backend uses it: libcuda.so.1 opened at
 * run time, each call looked up with cuGetProcAddress() at the version the
 * driver has (or the one these headers know, if older), and each CUresult
 * named. No CUDA runtime is linked at all: the runtime of a toolkit refuses
 * a driver older than itself (CUDA 13.0's wants 580 or later), while these
 * calls have kept their form since CUDA 11.4, the oldest driver this
 * takes. The consumer kernel comes as a fatbin (SASS for the data-centre
 * architectures the build names, plus PTX for newer ones), loaded at open.
 */
#ifndef PATHLAB_CUDA_DRV_H
#define PATHLAB_CUDA_DRV_H

#include <cuda.h>
#include <stddef.h>

#define PL_CUDA_MIN_DRIVER 11040 /* cuGetProcAddress, the RDMA attributes */

/* The driver calls the backend makes (NULL where the driver lacks one). */
struct cuda_drv {
	void *lib;
	int version; /* cuDriverGetVersion(): 12040 is 12.4 */
	CUresult (*Init)(unsigned);
	CUresult (*GetErrorName)(CUresult, const char **);
	CUresult (*GetErrorString)(CUresult, const char **);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetByPCIBusId)(CUdevice *, const char *);
	CUresult (*DeviceGetPCIBusId)(char *, int, CUdevice);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*StreamCreate)(CUstream *, unsigned);
	CUresult (*StreamDestroy)(CUstream);
	CUresult (*StreamSynchronize)(CUstream);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemHostAlloc)(void **, size_t, unsigned);
	CUresult (*MemFreeHost)(void *);
	CUresult (*MemHostRegister)(void *, size_t, unsigned);
	CUresult (*MemHostUnregister)(void *);
	CUresult (*MemHostGetDevicePointer)(CUdeviceptr *, void *, unsigned);
	CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t,
				    CUstream);
	CUresult (*ModuleLoadData)(CUmodule *, const void *);
	CUresult (*ModuleUnload)(CUmodule);
	CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
				 unsigned, unsigned, unsigned, unsigned,
				 CUstream, void **, void **);
	CUresult (*PointerSetAttribute)(const void *, CUpointer_attribute,
					CUdeviceptr);
	/* Newer than the minimum: NULL on a driver without them. */
	CUresult (*MemGetHandleForAddressRange)(void *, CUdeviceptr, size_t,
						CUmemRangeHandleType,
						unsigned long long);
	CUresult (*FlushGPUDirectRDMAWrites)(CUflushGPUDirectRDMAWritesTarget,
					     CUflushGPUDirectRDMAWritesScope);
};

/*
 * Open libcuda.so.1, cuInit() it and look the calls up. -ENODEV: no driver
 * (why says so); -EPROTO: one older than PL_CUDA_MIN_DRIVER or without a
 * call we need; another -errno from cuInit(). 0 when d is ready.
 */
int cuda_drv_open(struct cuda_drv *d, char *why, size_t why_len);

/* Close the library (after the last call). */
void cuda_drv_close(struct cuda_drv *d);

/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for res, into buf. */
const char *cuda_drv_name(const struct cuda_drv *d, CUresult res, char *buf,
			  size_t len);

/* Print "pathlab-gpu: cuda: what: NAME (text)"; res as -errno. */
int cuda_drv_err(const struct cuda_drv *d, const char *what, CUresult res);

/* The -errno closest to a CUresult (never silent: see cuda_drv_err()). */
int cuda_drv_errno(CUresult res);

#endif
