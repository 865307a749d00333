/* SPDX-License-Identifier: MIT */
/*
 * The device-memory interface of the GPUDirect variants. A path's GPU
 * variant (kernel-stack/gpu_socket.c, af-xdp/gpu_xsk.c, dpdk/gpu_dpdk.c)
 * reaches GPU memory only through these calls, whatever the backend:
 *
 *   cuda  a real GPU (gpu_cuda.c and consumer.cu, a module loaded at run
 *         time, so the receivers run where no CUDA driver exists)
 *   sim   an emulated GPU (gpu_sim.c): "device memory" in host RAM that
 *         the path cannot read, the same consumer code on the CPU, and an
 *         account of every PCIe crossing and copy a real GPU would cost
 *
 * Device addresses are void * (a NIC or DPDK needs them as such) and
 * uint64_t in descriptors; the path code never dereferences them.
 *
 * Every call returns 0 or -errno (NULL + errno for pointers). Counters are
 * kept here, the same way for both backends: what the emulated GPU counts
 * is "modelled", what a real one counts is "by design" of the variant.
 */
#ifndef PATHLAB_GPU_H
#define PATHLAB_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "consumer.h"
#include "json.h"
#include "report.h"
#include "stats.h"

enum pl_gpu_kind { PL_GPU_NONE, PL_GPU_SIM, PL_GPU_CUDA };

/* "none", "sim", "cuda", NULL: the choices of every --gpu option. */
extern const char *const pl_gpu_kinds[];

/* Flags of pl_gpu_dev_alloc() and pl_gpu_host_register(). */
enum {
	PL_GPU_NIC_WRITES = 1 << 0, /* a NIC DMAs into it: SYNC_MEMOPS */
	PL_GPU_MAPPED = 1 << 1,	    /* the GPU reads it in place over PCIe */
	PL_GPU_ADOPTED = 1 << 2, /* allocated elsewhere (rte_gpu_mem_alloc) */
};

#define PL_GPU_MAX_REGIONS 8

/* A range of memory the GPU can reach. */
struct pl_gpu_region {
	uintptr_t dev; /* the address the GPU (or a NIC) uses */
	void *host;    /* registered host memory, NULL for device memory */
	void *priv;    /* sim: the backend's own view of the bytes */
	size_t len;
	unsigned flags;
};

/* What crossed PCIe and what was copied, in packets and bytes. */
struct pl_gpu_acct {
	uint64_t h2d_transfers, h2d_pkts, h2d_bytes; /* copy engine */
	uint64_t nic_dma_pkts, nic_dma_bytes; /* a NIC wrote device memory */
	uint64_t mapped_pkts, mapped_bytes;   /* GPU read host memory */
	uint64_t meta_bytes;		      /* descriptors in, results out */
	uint64_t launches, checked, verified, bad, other, end_markers;
	uint64_t bad_by_reason[PL_REASON_MAX];
};

struct pl_gpu_ops;

struct pl_gpu {
	enum pl_gpu_kind kind;
	const struct pl_gpu_ops *ops;
	void *be;	  /* the backend's state */
	void *module;	  /* dlopen() handle of the cuda backend */
	char device[256]; /* "NVIDIA H200", or "emulated GPU" */
	char pci[32];	  /* the GPU's PCI address, or "" */
	int numa_node;	  /* of the GPU, -1 when unknown */
	/* Set by the variant: how packets reach the GPU, and its name. */
	const char *variant;	  /* bounce | mapped | copy | nic-dma */
	const char *registration; /* host-pinned | host-mapped | peermem |
				     dmabuf (sim: what it stands for) */
	const char *note;	  /* one line for gpu_detail */
	void (*path_json)(struct pl_json *j, void *arg); /* extras, or NULL */
	void *path_arg;
	struct pl_gpu_region region[PL_GPU_MAX_REGIONS];
	unsigned nregions, last;
	struct pl_gpu_acct acct;
	char copies_note[256];
};

/* A batch: descriptors in and results out, in memory both sides reach. */
struct pl_gpu_batch {
	struct pl_gpu_desc *desc; /* the CPU writes these */
	struct pl_gpu_res *res;	  /* and reads these after pl_gpu_consume() */
	void *desc_dev, *res_dev; /* the same, as the GPU sees them */
	unsigned cap;
};

/*
 * Open the backend of kind (sim or cuda). -ENODEV: no GPU (or no driver),
 * -ENOENT: the cuda backend was not built. why gets a readable reason.
 */
int pl_gpu_open(struct pl_gpu **gp, enum pl_gpu_kind kind, char *why,
		size_t why_len);

/* Free what is left and close the backend. */
void pl_gpu_close(struct pl_gpu *g);

/* Device memory of len bytes (flags: PL_GPU_NIC_WRITES); NULL + errno. */
void *pl_gpu_dev_alloc(struct pl_gpu *g, size_t len, unsigned flags);
void pl_gpu_dev_free(struct pl_gpu *g, void *dev);

/* Accept device memory allocated by someone else (DPDK's gpudev). */
int pl_gpu_dev_adopt(struct pl_gpu *g, void *dev, size_t len);

/*
 * Pin host memory for the GPU's copy engine; with PL_GPU_MAPPED the GPU
 * may also read it in place, at *dev_addr. 0 or -errno.
 */
int pl_gpu_host_register(struct pl_gpu *g, void *host, size_t len,
			 unsigned flags, uint64_t *dev_addr);
void pl_gpu_host_unregister(struct pl_gpu *g, void *host);

/* Queue a copy of len bytes (pkts packets) from pinned host memory. */
int pl_gpu_copy_h2d(struct pl_gpu *g, uint64_t dev, const void *host,
		    size_t len, unsigned pkts);

/* Account pkts packets (bytes) a NIC wrote into device memory. */
void pl_gpu_nic_wrote(struct pl_gpu *g, unsigned pkts, uint64_t bytes);

/* True if [addr, addr + len) lies in one region of device memory. */
bool pl_gpu_in_device(struct pl_gpu *g, uint64_t addr, size_t len);

/* Descriptor and result arrays for cap packets; 0 or -errno. */
int pl_gpu_batch_init(struct pl_gpu *g, struct pl_gpu_batch *b, unsigned cap);
void pl_gpu_batch_free(struct pl_gpu *g, struct pl_gpu_batch *b);

/*
 * Run the consumer over the first n descriptors once the queued copies are
 * done, and wait for its results. 0, or -EFAULT when a descriptor points
 * where the GPU cannot read, or another -errno.
 */
int pl_gpu_consume(struct pl_gpu *g, struct pl_gpu_batch *b, unsigned n);

/*
 * Export device memory as a dma-buf; 0 or -errno (-EOPNOTSUPP: no dma-buf
 * for this GPU, or the emulated one). The hook for the verbs path: a
 * receive buffer from pl_gpu_dev_alloc(g, len, PL_GPU_NIC_WRITES), this fd
 * to ibv_reg_dmabuf_mr(pd, 0, len, (uintptr_t)dev, fd, access); where it
 * fails, ibv_reg_mr() on the device pointer itself (nvidia-peermem).
 */
int pl_gpu_export_dmabuf(struct pl_gpu *g, void *dev, size_t len, int *fd);

/* Put the run's GPU figures into the report (call before emitting it). */
void pl_gpu_report(struct pl_gpu *g, struct pl_report *r);

/* Account the consumer's results of a batch into the run's stats. */
static inline void pl_gpu_account(struct pl_rx_stats *s,
				  const struct pl_gpu_res *res, unsigned n,
				  uint64_t now)
{
	struct pl_pkt p = { 0 };
	unsigned i;

	for (i = 0; i < n; i++) {
		if (res[i].reason != PL_OK) {
			pl_stats_reject(s, (enum pl_reason)res[i].reason);
			continue;
		}
		p.seq = res[i].seq;
		p.tx_ns = res[i].tx_ns;
		p.flow = res[i].flow;
		p.flags = res[i].flags;
		p.payload_len = res[i].payload_len;
		pl_stats_good(s, &p, now);
	}
}

#endif
