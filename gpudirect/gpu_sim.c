/* SPDX-License-Identifier: MIT */
/*
 * The emulated GPU: runs every GPU variant on a machine without one.
 *
 * "Device memory" is host RAM mapped twice from one memfd: the backend's
 * own view, through which the copy engine and the consumer reach the bytes,
 * and the device address handed to the path. That address is PROT_NONE,
 * as device memory is to a CPU: a path that dereferences it instead of
 * going through the interface dies with SIGSEGV. Memory a NIC writes into
 * (PL_GPU_NIC_WRITES) is writable there until the NIC has it registered
 * (pl_gpu_nic_registered()): the registration pins the pages for the
 * "NIC", then the CPU loses its access, and only the modelled DMA (rxe,
 * in the kernel, through its own mapping of the pinned pages) writes it.
 * Where the "NIC" is a PMD copying on the CPU in this very process (DPDK's
 * vdevs), the memory has to stay open to it, and so to the path.
 * Registered host memory is read in place, at its own address.
 *
 * The consumer is the same code as the CUDA kernel (consumer.h), run on
 * the CPU over the bytes that are really there. A copy is queued, as on a
 * stream, and done only when the consumer runs (the stream is
 * synchronised): bytes changed in the source before then are the bytes
 * that arrive, as a real copy engine may read them late.
 */
#include "gpu_backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A copy on the emulated stream, done when the stream is synchronised. */
struct sim_copy {
	uint8_t *dst;
	const void *src;
	size_t len;
};

/* The emulated stream: the copies queued since its last sync. */
struct sim_be {
	struct sim_copy *q;
	unsigned n, cap;
};

/* The length rounded up to whole pages. */
static size_t page_round(size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (len + pg - 1) / pg * pg;
}

/* Nothing to find: the emulated GPU is always there; its stream. */
static int sim_open(struct pl_gpu *g, char *why, size_t why_len)
{
	struct sim_be *be = calloc(1, sizeof(*be));

	(void)why;
	(void)why_len;
	if (!be)
		return -ENOMEM;
	snprintf(g->device, sizeof(g->device), "emulated GPU");
	snprintf(g->software, sizeof(g->software), "none (emulated)");
	g->be = be;
	return 0;
}

/* Drop the stream (copies never synchronised are never done). */
static void sim_close(struct pl_gpu *g)
{
	struct sim_be *be = g->be;

	free(be->q);
	free(be);
}

/* 8< gpu-sim-dev-alloc */
/* Two views of one memfd: ours (read-write) and the device address. */
static int sim_dev_alloc(struct pl_gpu *g, struct pl_gpu_region *r)
{
	int prot = r->flags & PL_GPU_NIC_WRITES ? PROT_READ | PROT_WRITE
						: PROT_NONE;
	size_t len = page_round(r->len);
	void *priv, *dev;
	int fd, err;

	(void)g;
	fd = memfd_create("pathlab-emulated-gpu", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)len)) {
		err = -errno;
		goto out_close;
	}
	priv = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (priv == MAP_FAILED) {
		err = -errno;
		goto out_close;
	}
	dev = mmap(NULL, len, prot, MAP_SHARED, fd, 0);
	if (dev == MAP_FAILED) {
		err = -errno;
		munmap(priv, len);
		goto out_close;
	}
	close(fd);
	r->priv = priv;
	r->dev = (uintptr_t)dev;
	return 0;

out_close:
	close(fd);
	return err;
}
/* >8 gpu-sim-dev-alloc */

/* Unmap both views. */
static void sim_dev_free(struct pl_gpu *g, struct pl_gpu_region *r)
{
	(void)g;
	munmap((void *)r->dev, page_round(r->len));
	munmap(r->priv, page_round(r->len));
}

/* Host memory is "registered" as it is: the same address (as UVA gives). */
static int sim_host_register(struct pl_gpu *g, struct pl_gpu_region *r)
{
	(void)g;
	r->dev = (uintptr_t)r->host;
	r->priv = r->host;
	return 0;
}

/* Nothing was pinned. */
static void sim_host_unregister(struct pl_gpu *g, struct pl_gpu_region *r)
{
	(void)g;
	(void)r;
}

/* "Pinned, mapped" host memory: ordinary memory, the same address. */
static int sim_host_alloc(struct pl_gpu *g, size_t len, void **host, void **dev)
{
	(void)g;
	*host = calloc(1, len);
	if (!*host)
		return -ENOMEM;
	*dev = *host;
	return 0;
}

/* Free what sim_host_alloc() gave. */
static void sim_host_free(struct pl_gpu *g, void *host, size_t len)
{
	(void)g;
	(void)len;
	free(host);
}

/* 8< gpu-sim-copy */
/* The copy engine: queued on the stream, a memcpy() when it syncs. */
static int sim_copy_h2d(struct pl_gpu *g, struct pl_gpu_region *r, size_t off,
			const void *host, size_t len)
{
	struct sim_be *be = g->be;
	struct sim_copy *q;

	if (be->n == be->cap) {
		q = realloc(be->q, (be->cap ? 2 * be->cap : 256) * sizeof(*q));
		if (!q)
			return -ENOMEM;
		be->q = q;
		be->cap = be->cap ? 2 * be->cap : 256;
	}
	be->q[be->n++] =
		(struct sim_copy){ (uint8_t *)r->priv + off, host, len };
	return 0;
}

/* The stream reaches the consumer: every queued copy is done now. */
static void sim_sync(struct sim_be *be)
{
	unsigned i;

	for (i = 0; i < be->n; i++)
		memcpy(be->q[i].dst, be->q[i].src, be->q[i].len);
	be->n = 0;
}
/* >8 gpu-sim-copy */

/* 8< gpu-sim-consume */
/* The consumer on the CPU, reading each packet where the GPU would. */
static int sim_consume(struct pl_gpu *g, const struct pl_gpu_batch *b,
		       unsigned n)
{
	const struct pl_gpu_desc *d = b->desc_dev;
	struct pl_gpu_res *res = b->res_dev;
	struct pl_gpu_region *r;
	unsigned i;

	sim_sync(g->be); /* the copies queued before, on the same stream */
	for (i = 0; i < n; i++) {
		r = pl_gpu_find(g, d[i].addr, d[i].len);
		if (!r || !r->priv) /* adopted memory is not ours to read */
			return -EFAULT;
		plc_check((const uint8_t *)r->priv + (d[i].addr - r->dev),
			  &d[i], &res[i]);
	}
	return 0;
}
/* >8 gpu-sim-consume */

/* No dma-buf exporter behind emulated memory: the NIC needs a real one. */
static int sim_export_dmabuf(struct pl_gpu *g, void *dev, size_t len, int *fd)
{
	(void)g;
	(void)dev;
	(void)len;
	*fd = -1;
	return -EOPNOTSUPP;
}

/* The "NIC" has the pages pinned: the CPU's view of them goes. */
static void sim_nic_registered(struct pl_gpu *g, struct pl_gpu_region *r)
{
	(void)g;
	if (mprotect((void *)r->dev, page_round(r->len), PROT_NONE))
		fprintf(stderr, "pathlab-gpu: sim: mprotect: %s\n",
			strerror(errno));
}

/* The emulated "NIC" writes with the CPU: nothing to flush. */
static int sim_flush_nic_writes(struct pl_gpu *g)
{
	(void)g;
	return 0;
}

const struct pl_gpu_ops pl_gpu_sim_ops = {
	.abi = PL_GPU_ABI,
	.name = "sim",
	.open = sim_open,
	.close = sim_close,
	.dev_alloc = sim_dev_alloc,
	.dev_free = sim_dev_free,
	.host_register = sim_host_register,
	.host_unregister = sim_host_unregister,
	.host_alloc = sim_host_alloc,
	.host_free = sim_host_free,
	.copy_h2d = sim_copy_h2d,
	.consume = sim_consume,
	.export_dmabuf = sim_export_dmabuf,
	.nic_registered = sim_nic_registered,
	.flush_nic_writes = sim_flush_nic_writes,
};
