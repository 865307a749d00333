/* SPDX-License-Identifier: MIT */
/*
 * What a backend provides to gpu.c. gpu.c keeps the region table and the
 * counters; a backend only moves memory and runs the consumer. The cuda
 * backend is a module (libpathlab-gpu-cuda.so) that exports its table as
 * PL_GPU_CUDA_OPS; the sim backend is linked in.
 */
#ifndef PATHLAB_GPU_BACKEND_H
#define PATHLAB_GPU_BACKEND_H

#include "gpu.h"

#define PL_GPU_CUDA_MODULE "libpathlab-gpu-cuda.so"
#define PL_GPU_CUDA_OPS	   "pl_gpu_cuda_ops"
#define PL_GPU_ABI	   2 /* bumped when this table changes */

struct pl_gpu_ops {
	unsigned abi; /* PL_GPU_ABI */
	const char *name;
	/*
	 * Open the GPU at g->pci ("" for the first), fill g->device,
	 * g->pci (as the driver names it), g->software,
	 * g->writes_ordering, g->can_flush.
	 */
	int (*open)(struct pl_gpu *g, char *why, size_t why_len);
	void (*close)(struct pl_gpu *g);
	/* Device memory; r->dev out, r->priv for the backend's use. */
	int (*dev_alloc)(struct pl_gpu *g, struct pl_gpu_region *r);
	void (*dev_free)(struct pl_gpu *g, struct pl_gpu_region *r);
	/* Pin and map r->host; r->dev (where kernels read it) out. */
	int (*host_register)(struct pl_gpu *g, struct pl_gpu_region *r);
	void (*host_unregister)(struct pl_gpu *g, struct pl_gpu_region *r);
	/* Pinned host memory the GPU reads and writes in place. */
	int (*host_alloc)(struct pl_gpu *g, size_t len, void **host,
			  void **dev);
	void (*host_free)(struct pl_gpu *g, void *host, size_t len);
	/* Queue an async copy into region r at off. */
	int (*copy_h2d)(struct pl_gpu *g, struct pl_gpu_region *r, size_t off,
			const void *host, size_t len);
	/* Run the consumer after the queued copies; wait for it. */
	int (*consume)(struct pl_gpu *g, const struct pl_gpu_batch *b,
		       unsigned n);
	/* Export [dev, dev + len) (len a multiple of the host page). */
	int (*export_dmabuf)(struct pl_gpu *g, void *dev, size_t len, int *fd);
	/* A NIC has region r mapped: only it writes there now. */
	void (*nic_registered)(struct pl_gpu *g, struct pl_gpu_region *r);
	/* Make completed NIC writes visible to running kernels. */
	int (*flush_nic_writes)(struct pl_gpu *g);
};

/* The emulated GPU (gpu_sim.c), and the CUDA module's table. */
extern const struct pl_gpu_ops pl_gpu_sim_ops;
extern const struct pl_gpu_ops pl_gpu_cuda_ops;

/* The region that holds [addr, addr + len), or NULL. */
struct pl_gpu_region *pl_gpu_find(struct pl_gpu *g, uint64_t addr, size_t len);

#endif
