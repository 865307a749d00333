/* SPDX-License-Identifier: MIT */
/*
 * The device-memory interface of the GPUDirect variants. A path's GPU
 * variant (kernel-stack/gpu_socket.c, af-xdp/gpu_xsk.c, dpdk/gpu_dpdk.c,
 * rdma/gpu_verbs.c) reaches GPU memory only through these calls, whatever
 * the backend:
 *
 *   cuda  a real GPU (gpu_cuda.c, gpu_cuda_mem.c and the kernel of
 *         consumer.cu: a module loaded at run time that opens the CUDA
 *         driver itself, so the receivers run where no CUDA driver exists)
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

/* Flags of pl_gpu_dev_alloc(). */
enum {
	/* A NIC DMAs into it: SYNC_MEMOPS; both ends on a 64 KiB GPU page. */
	PL_GPU_NIC_WRITES = 1 << 0,
	PL_GPU_ADOPTED = 1 << 2,   /* allocated elsewhere (rte_gpu_mem_alloc) */
	PL_GPU_NIC_OWNED = 1 << 3, /* a NIC has it mapped (set by gpu.c) */
};

#define PL_GPU_PAGE (64u * 1024) /* what GPUDirect RDMA maps in */

/* Which GPU to open (cuda): by its PCI address, else the nearest a NIC. */
struct pl_gpu_where {
	const char *pci; /* --gpu-pci ADDR, or NULL */
	const char *nic; /* the receiving NIC: its interface, RDMA device
			    or PCI address; NULL when there is none */
};

/* The --gpu-pci row of a receiver's option table (p: const char **). */
/* clang-format off */
#define PL_GPU_OPT_PCI(p)						\
	{ "gpu-pci", PL_OPT_STR, (p), "ADDR",				\
	  "--gpu cuda: the GPU at PCI address ADDR (default: the one "	\
	  "nearest the receiving NIC)" }
/* clang-format on */

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
	void *be;	   /* the backend's state */
	void *module;	   /* dlopen() handle of the cuda backend */
	char device[256];  /* "NVIDIA H200", or "emulated GPU" */
	char pci[32];	   /* the GPU's PCI address, or "" */
	int numa_node;	   /* of the GPU, -1 when unknown */
	char picked[192];  /* how that GPU was chosen */
	char software[96]; /* driver and toolkit versions */
	/* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING (0, 100, 200),
	 * -1 for the emulated GPU; and whether cuFlushGPUDirectRDMAWrites
	 * is there when it is needed. */
	int writes_ordering;
	bool can_flush;
	/* Set by the variant: how packets reach the GPU, and its name. */
	const char *variant;	  /* bounce | mapped | copy | nic-dma */
	const char *registration; /* host-pinned | host-mapped | peermem |
				     dmabuf (sim: what it stands for) */
	const char *note;	  /* one line for gpu_detail */
	/* Who writes the memory of nic-dma: NULL for the NIC's DMA, else
	 * the CPU copy standing in for it ("the af_packet PMD's copy"). */
	const char *dma_by;
	void (*path_json)(struct pl_json *j, void *arg); /* extras, or NULL */
	void *path_arg;
	struct pl_gpu_region region[PL_GPU_MAX_REGIONS];
	unsigned nregions, last;
	struct pl_gpu_acct acct;
	char copies_note[384];
};

/* A batch: descriptors in and results out, in memory both sides reach. */
struct pl_gpu_batch {
	struct pl_gpu_desc *desc; /* the CPU writes these */
	struct pl_gpu_res *res;	  /* and reads these after pl_gpu_consume() */
	void *desc_dev, *res_dev; /* the same, as the GPU sees them */
	unsigned cap;
};

/*
 * Open the backend of kind (sim or cuda), for cuda the GPU at says. Then
 * -ENODEV: no GPU on this machine, -ENOENT: the cuda backend was not
 * built (both a skip); anything else: a GPU is there and cannot be used
 * (a failed run). why gets a readable reason.
 */
int pl_gpu_open(struct pl_gpu **gp, enum pl_gpu_kind kind,
		const struct pl_gpu_where *at, char *why, size_t why_len);

/* Free what is left and close the backend. */
void pl_gpu_close(struct pl_gpu *g);

/*
 * Device memory of len bytes; NULL + errno. With PL_GPU_NIC_WRITES it
 * starts on a GPU page and its length is rounded up to one (what a NIC's
 * registration and a dma-buf export need); region->len says how much.
 */
void *pl_gpu_dev_alloc(struct pl_gpu *g, size_t len, unsigned flags);
void pl_gpu_dev_free(struct pl_gpu *g, void *dev);

/* Accept device memory allocated by someone else (DPDK's gpudev). */
int pl_gpu_dev_adopt(struct pl_gpu *g, void *dev, size_t len);

/*
 * Pin host memory: the copy engine may copy from it, and a kernel may
 * read it in place at *dev_addr. (64-bit Linux has unified addressing:
 * every pinned range is mapped for the GPU, at its host address; there is
 * no "pinned but not mapped".) flags: 0. 0 or -errno.
 */
int pl_gpu_host_register(struct pl_gpu *g, void *host, size_t len,
			 unsigned flags, uint64_t *dev_addr);
void pl_gpu_host_unregister(struct pl_gpu *g, void *host);

/*
 * Queue a copy of len bytes (pkts packets) from pinned host memory. It is
 * done some time before the consumer's next run ends: until then the host
 * bytes must stay as they are (the emulated GPU copies them only then).
 */
int pl_gpu_copy_h2d(struct pl_gpu *g, uint64_t dev, const void *host,
		    size_t len, unsigned pkts);

/*
 * Device memory dev is registered with a NIC now: only the NIC writes it
 * from here on. The emulated GPU takes the CPU's access away (PROT_NONE),
 * as a real GPU's memory never had it: a CPU read faults in both.
 */
void pl_gpu_nic_registered(struct pl_gpu *g, void *dev);

/*
 * Make the NIC writes that completed before this call visible to kernels
 * already running on the GPU: cuFlushGPUDirectRDMAWrites where the GPU's
 * GPU_DIRECT_RDMA_WRITES_ORDERING does not already order them. A kernel
 * launched after the CPU saw the NIC's completion (pl_gpu_consume) needs
 * none: CUDA orders the writes before work the CPU submits after them.
 * A persistent or flag-polling consumer calls this between seeing the
 * completion and telling the kernel. 0 or -errno.
 */
int pl_gpu_flush_nic_writes(struct pl_gpu *g);

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
 * for this GPU, or the emulated one). len is rounded up to whole host
 * pages (the export takes nothing else); the memory of
 * pl_gpu_dev_alloc(g, len, PL_GPU_NIC_WRITES) has room for that. The hook
 * for the verbs path: this fd to ibv_reg_dmabuf_mr(pd, 0, len,
 * (uintptr_t)dev, fd, access); where it fails, ibv_reg_mr() on the device
 * pointer itself (nvidia-peermem).
 */
int pl_gpu_export_dmabuf(struct pl_gpu *g, void *dev, size_t len, int *fd);

/* Normalise a PCI address ("3b:00.0" -> "0000:3b:00.0"); 0 or -EINVAL. */
int pl_gpu_pci_norm(const char *in, char *out, size_t len);

/*
 * gpu_pci.c: the GPU a run opens, from sysfs under root ("" for this
 * machine): at->pci when given (-EINVAL: not an address, -ENODEV: no
 * NVIDIA GPU there), else the one nearest at->nic by PCIe topology, else
 * the first in PCI order; pci stays "" when sysfs lists none. how says
 * which, in words. 0 or -errno.
 */
int pl_gpu_pick(const char *root, const struct pl_gpu_where *at, char *pci,
		size_t len, char *how, size_t how_len);

/*
 * Check --gpu-pci against --gpu: an address, and only with cuda; a
 * one-line error naming the option and false otherwise.
 */
bool pl_gpu_opts_ok(const char *prog, int gpu, const char *gpu_pci);

/* The first line of root + path into buf, without its newline; 0/-errno. */
int pl_gpu_sys_line(const char *root, const char *path, char *buf, size_t len);

/* The NVIDIA GPUs sysfs under root lists; the first's address in first. */
unsigned pl_gpu_sysfs_gpus(const char *root, char *first, size_t len);

/*
 * Whether the nvidia-peermem module is loaded, in words: what ibv_reg_mr()
 * on GPU memory (and so mlx5's DPDK PMD) needs.
 */
const char *pl_gpu_peermem(void);

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
