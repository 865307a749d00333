/* SPDX-License-Identifier: MIT */
/*
 * The dispatch of the device-memory interface: it opens a backend (the
 * emulated GPU, linked in, or the CUDA module, loaded at run time), keeps
 * the table of memory regions the GPU can reach, checks every address it
 * is handed against it, and counts what crossed PCIe and what was copied
 * (the consumer's side is in gpu_consume.c).
 */
#include "gpu_backend.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const pl_gpu_kinds[] = { "none", "sim", "cuda", NULL };

/*
 * Where the CUDA module may be: PATHLAB_GPU_CUDA_MODULE, build, install.
 * It stays loaded until exit (RTLD_NODELETE): the CUDA runtime in it
 * keeps threads and exit handlers that must not outlive its code.
 */
static void *load_cuda_module(char *why, size_t why_len)
{
	const char *env = getenv("PATHLAB_GPU_CUDA_MODULE");
	const char *dirs[] = { PL_GPU_BUILD_DIR, PL_GPU_INSTALL_DIR };
	char path[4096];
	unsigned i;
	void *h;

	if (env && *env) {
		h = dlopen(env, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
		if (!h)
			snprintf(why, why_len, "%s", dlerror());
		return h;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i],
			 PL_GPU_CUDA_MODULE);
		if (access(path, R_OK))
			continue;
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
		if (!h)
			snprintf(why, why_len, "%s", dlerror());
		return h;
	}
	snprintf(why, why_len,
		 "the cuda backend is not built (meson found no nvcc)");
	return NULL;
}

/* The ops of kind: linked in (sim) or from the module (cuda). */
static const struct pl_gpu_ops *backend(struct pl_gpu *g, char *why,
					size_t why_len)
{
	const struct pl_gpu_ops *ops;

	if (g->kind == PL_GPU_SIM)
		return &pl_gpu_sim_ops;
	g->module = load_cuda_module(why, why_len);
	if (!g->module)
		return NULL;
	ops = dlsym(g->module, PL_GPU_CUDA_OPS);
	if (!ops || ops->abi != PL_GPU_ABI) {
		snprintf(why, why_len, "%s is from another build of pathlab",
			 PL_GPU_CUDA_MODULE);
		return NULL;
	}
	return ops;
}

/*
 * Say why an open failed where a GPU is there all the same: that is a
 * GPU this build or this machine cannot use, a failed run (-EIO), not a
 * machine without one (a skip).
 */
static int present_but_unusable(int err, char *why, size_t why_len)
{
	char first[32] = "", was[256];
	unsigned n = pl_gpu_sysfs_gpus("", first, sizeof(first));

	if ((err != -ENODEV && err != -ENOENT) || !n)
		return err;
	snprintf(was, sizeof(was), "%s", why);
	snprintf(why, why_len,
		 "%u NVIDIA GPU(s) on PCI (the first at %s), and none usable: "
		 "%s",
		 n, first, was);
	return -EIO;
}

/*
 * The GPU the driver opened must be the one sysfs picked (want, "" when
 * none was): CUDA's device order need not be PCI order, and a kernel on
 * another GPU would touch another GPU's memory. Its NUMA node, too.
 */
static int same_gpu(struct pl_gpu *g, const char *want, char *why,
		    size_t why_len)
{
	char pci[32], path[96], node[16];

	if (pl_gpu_pci_norm(g->pci, pci, sizeof(pci)) ||
	    (want[0] && strcmp(pci, want))) {
		snprintf(why, why_len,
			 "CUDA opened the GPU at %s, not the one at %s", g->pci,
			 want);
		return -EIO;
	}
	snprintf(g->pci, sizeof(g->pci), "%s", pci);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", pci);
	g->numa_node =
		pl_gpu_sys_line("", path, node, sizeof(node)) ? -1 : atoi(node);
	return 0;
}

int pl_gpu_open(struct pl_gpu **gp, enum pl_gpu_kind kind,
		const struct pl_gpu_where *at, char *why, size_t why_len)
{
	struct pl_gpu *g;
	char want[32];
	int err;

	*gp = NULL;
	if (kind != PL_GPU_SIM && kind != PL_GPU_CUDA)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->kind = kind;
	g->numa_node = -1;
	g->writes_ordering = -1;
	g->variant = g->registration = g->note = "";
	snprintf(g->picked, sizeof(g->picked), "the emulated GPU");
	if (kind == PL_GPU_CUDA) {
		err = pl_gpu_pick("", at, g->pci, sizeof(g->pci), g->picked,
				  sizeof(g->picked));
		if (err) {
			snprintf(why, why_len, "%s", g->picked);
			err = -EINVAL; /* bad input: not a skip */
			goto out_free;
		}
	}
	g->ops = backend(g, why, why_len);
	if (!g->ops) {
		err = -ENOENT;
		goto out_free;
	}
	snprintf(want, sizeof(want), "%s", g->pci);
	err = g->ops->open(g, why, why_len);
	if (err)
		goto out_free;
	if (kind == PL_GPU_CUDA) {
		err = same_gpu(g, want, why, why_len);
		if (err)
			goto out_close;
	}
	*gp = g;
	return 0;

out_close:
	g->ops->close(g);
out_free:
	if (kind == PL_GPU_CUDA)
		err = present_but_unusable(err, why, why_len);
	if (g->module)
		dlclose(g->module);
	free(g);
	return err;
}

/* Drop region i from the table. */
static void region_drop(struct pl_gpu *g, unsigned i)
{
	g->region[i] = g->region[--g->nregions];
	g->last = 0;
}

void pl_gpu_close(struct pl_gpu *g)
{
	if (!g)
		return;
	while (g->nregions) {
		struct pl_gpu_region *r = &g->region[g->nregions - 1];

		if (r->host)
			g->ops->host_unregister(g, r);
		else if (!(r->flags & PL_GPU_ADOPTED))
			g->ops->dev_free(g, r);
		g->nregions--;
	}
	g->ops->close(g);
	if (g->module)
		dlclose(g->module);
	free(g);
}

struct pl_gpu_region *pl_gpu_find(struct pl_gpu *g, uint64_t addr, size_t len)
{
	struct pl_gpu_region *r;
	unsigned k, i;

	for (k = 0; k < g->nregions; k++) {
		i = (g->last + k) % g->nregions;
		r = &g->region[i];
		if (addr >= r->dev && addr - r->dev <= r->len &&
		    len <= r->len - (addr - r->dev)) {
			g->last = i;
			return r;
		}
	}
	return NULL;
}

/* The registered host region that holds [p, p + len), or NULL. */
static struct pl_gpu_region *find_host(struct pl_gpu *g, const void *p,
				       size_t len)
{
	uintptr_t a = (uintptr_t)p, h;
	unsigned i;

	for (i = 0; i < g->nregions; i++) {
		h = (uintptr_t)g->region[i].host;
		if (h && a >= h && a - h <= g->region[i].len &&
		    len <= g->region[i].len - (a - h))
			return &g->region[i];
	}
	return NULL;
}

void *pl_gpu_dev_alloc(struct pl_gpu *g, size_t len, unsigned flags)
{
	struct pl_gpu_region *r;
	int err;

	if (!len || g->nregions == PL_GPU_MAX_REGIONS) {
		errno = len ? ENOSPC : EINVAL;
		return NULL;
	}
	/* A NIC maps, and dma-buf exports, whole pages: give it whole ones. */
	if (flags & PL_GPU_NIC_WRITES)
		len = (len + PL_GPU_PAGE - 1) / PL_GPU_PAGE * PL_GPU_PAGE;
	r = &g->region[g->nregions];
	*r = (struct pl_gpu_region){ .len = len, .flags = flags };
	err = g->ops->dev_alloc(g, r);
	if (err) {
		errno = -err;
		return NULL;
	}
	g->nregions++;
	return (void *)r->dev;
}

void pl_gpu_dev_free(struct pl_gpu *g, void *dev)
{
	unsigned i;

	for (i = 0; i < g->nregions; i++)
		if (!g->region[i].host && g->region[i].dev == (uintptr_t)dev) {
			if (!(g->region[i].flags & PL_GPU_ADOPTED))
				g->ops->dev_free(g, &g->region[i]);
			region_drop(g, i);
			return;
		}
}

int pl_gpu_dev_adopt(struct pl_gpu *g, void *dev, size_t len)
{
	if (!dev || !len)
		return -EINVAL;
	if (g->nregions == PL_GPU_MAX_REGIONS)
		return -ENOSPC;
	g->region[g->nregions++] = (struct pl_gpu_region){
		.dev = (uintptr_t)dev,
		.len = len,
		.flags = PL_GPU_ADOPTED | PL_GPU_NIC_WRITES,
	};
	return 0;
}

int pl_gpu_host_register(struct pl_gpu *g, void *host, size_t len,
			 unsigned flags, uint64_t *dev_addr)
{
	struct pl_gpu_region *r;
	int err;

	if (!host || !len)
		return -EINVAL;
	if (g->nregions == PL_GPU_MAX_REGIONS)
		return -ENOSPC;
	r = &g->region[g->nregions];
	*r = (struct pl_gpu_region){ .host = host, .len = len, .flags = flags };
	err = g->ops->host_register(g, r);
	if (err)
		return err;
	g->nregions++;
	if (dev_addr)
		*dev_addr = r->dev;
	return 0;
}

void pl_gpu_host_unregister(struct pl_gpu *g, void *host)
{
	unsigned i;

	for (i = 0; i < g->nregions; i++)
		if (g->region[i].host == host) {
			g->ops->host_unregister(g, &g->region[i]);
			region_drop(g, i);
			return;
		}
}

/* 8< gpu-copy-h2d */
int pl_gpu_copy_h2d(struct pl_gpu *g, uint64_t dev, const void *host,
		    size_t len, unsigned pkts)
{
	struct pl_gpu_region *r = pl_gpu_find(g, dev, len);

	/* Only pinned memory can be the source of an async DMA. */
	if (!r || r->host || !find_host(g, host, len))
		return -EFAULT;
	g->acct.h2d_transfers++;
	g->acct.h2d_pkts += pkts;
	g->acct.h2d_bytes += len;
	return g->ops->copy_h2d(g, r, (size_t)(dev - r->dev), host, len);
}
/* >8 gpu-copy-h2d */

void pl_gpu_nic_wrote(struct pl_gpu *g, unsigned pkts, uint64_t bytes)
{
	g->acct.nic_dma_pkts += pkts;
	g->acct.nic_dma_bytes += bytes;
}

bool pl_gpu_in_device(struct pl_gpu *g, uint64_t addr, size_t len)
{
	struct pl_gpu_region *r = pl_gpu_find(g, addr, len);

	return r && !r->host;
}

void pl_gpu_nic_registered(struct pl_gpu *g, void *dev)
{
	struct pl_gpu_region *r = pl_gpu_find(g, (uintptr_t)dev, 1);

	if (!r || r->host || r->dev != (uintptr_t)dev ||
	    (r->flags & PL_GPU_NIC_OWNED))
		return;
	r->flags |= PL_GPU_NIC_OWNED;
	g->ops->nic_registered(g, r);
}

const char *pl_gpu_peermem(void)
{
	return access("/sys/module/nvidia_peermem", F_OK)
		       ? "nvidia-peermem is not loaded (modprobe "
			 "nvidia-peermem)"
		       : "nvidia-peermem is loaded";
}

int pl_gpu_flush_nic_writes(struct pl_gpu *g)
{
	return g->ops->flush_nic_writes(g);
}

int pl_gpu_export_dmabuf(struct pl_gpu *g, void *dev, size_t len, int *fd)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct pl_gpu_region *r;

	*fd = -1;
	/* The export takes whole host pages: round up, inside the region. */
	len = (len + pg - 1) / pg * pg;
	r = pl_gpu_find(g, (uintptr_t)dev, len);
	if (!r || r->host)
		return -EFAULT;
	if ((uintptr_t)dev % pg)
		return -EINVAL;
	return g->ops->export_dmabuf(g, dev, len, fd);
}
