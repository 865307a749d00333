/* SPDX-License-Identifier: MIT */
/*
 * --gpu sim|cuda on the DPDK path: the PMD writes packets straight into
 * device memory, in five steps before the port starts:
 *
 *   1. device memory: rte_gpu_mem_alloc() on the gpudev device that is the
 *      GPU the backend opened (same PCI address), where DPDK's gpu/cuda
 *      driver probed it (it sets SYNC_MEMOPS); else the backend's
 *      allocation with it. The GPU is on EAL's allow-list (eal.c) for that.
 *   2. rte_extmem_register(): DPDK learns the range (no IOVAs given)
 *   3. rte_dev_dma_map(): the NIC maps it. mlx5 in DPDK 22.11 registers
 *      the range with ibv_reg_mr() on its virtual address, here and again
 *      when the RX queue takes the pool (its mempool registration covers
 *      pinned external buffers): on GPU memory that works only with the
 *      nvidia-peermem module. 22.11 has no dma-buf path for it.
 *   4. rte_pktmbuf_pool_create_extbuf(): mbufs whose data buffers are
 *      slices of that range; the mbuf headers stay in host memory
 *   5. that pool on the RX queue (port.c, through port->ext_pool)
 *
 * Then the poll loop reads only mbuf headers: the address and length of
 * each packet go to the consumer, which checks the frames on the GPU.
 * With the emulated GPU the "NIC" is a vdev whose PMD copies each frame
 * with the CPU into the emulated device memory, standing in for the DMA
 * (so that memory stays open to the CPU: the PMD runs in this process);
 * with a real GPU only a PMD that DMAs can fill device memory.
 */
#define ALLOW_EXPERIMENTAL_API /* gpudev, extmem and dev_dma_map are */
#include "clock.h"
#include "rx_dpdk.h"
#include "gpu.h"
#include "opt.h"
#include "wire.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#define MBUF_CACHE 256

enum { STEP_ALLOC, STEP_EXTMEM, STEP_DMA_MAP, STEP_POOL, STEP_RXQ, STEPS };

static const char *const step_names[STEPS] = {
	"rte_gpu_mem_alloc", "rte_extmem_register", "rte_dev_dma_map",
	"rte_pktmbuf_pool_create_extbuf", "rte_eth_rx_queue_setup"
};

struct gpu_dpdk {
	struct pl_gpu *g;
	struct pl_gpu_batch b;
	struct rte_device *dev;
	void *alloc; /* what was allocated */
	void *base;  /* page-aligned start of what DPDK sees */
	size_t len, page;
	int16_t gpudev; /* rte_gpu device, or -1: the backend allocated */
	bool registered, mapped;
	uint64_t in_device, outside;
	char step[STEPS][192];
	int err;
};

/* 8< gpu-dpdk-burst */
/* Hand a burst to the consumer: only the mbufs' headers are read here. */
static int gpu_burst(struct gpu_dpdk *gd, struct rte_mbuf **bufs, uint16_t n)
{
	uint64_t bytes = 0, at;
	uint16_t i;

	for (i = 0; i < n; i++) {
		at = rte_pktmbuf_mtod(bufs[i], uintptr_t);
		if (pl_gpu_in_device(gd->g, at, bufs[i]->data_len))
			gd->in_device++;
		else
			gd->outside++;
		gd->b.desc[i] = (struct pl_gpu_desc){
			.addr = at,
			.len = bufs[i]->data_len,
			.port = PL_UDP_PORT,
			.frame = 1,
		};
		bytes += bufs[i]->data_len;
	}
	pl_gpu_nic_wrote(gd->g, n, bytes);
	return pl_gpu_consume(gd->g, &gd->b, n);
}
/* >8 gpu-dpdk-burst */

/* 8< gpu-dpdk-loop */
/*
 * The GPU handler: let the GPU check the burst, account, free; as the
 * plain one. The verdict is the GPU's: its time is read once the consumer
 * is done, not at now.
 */
void gpu_dpdk_burst(struct dpdk_queue *q, uint16_t n, uint64_t now)
{
	struct gpu_dpdk *gd = q->rx->gpu;

	(void)now;
	gd->err = gpu_burst(gd, q->bufs, n);
	if (gd->err)
		pl_run_request_stop(q->rx->run);
	else
		pl_gpu_account(q->stats, gd->b.res, n, pl_now_ns());
	rte_pktmbuf_free_bulk(q->bufs, n);
}
/* >8 gpu-dpdk-loop */

/* A lab datagram, good or bad: what the trace follows (not ARP, ...). */
static bool traced_kind(const struct pl_gpu_res *r)
{
	return r->reason == PL_OK ||
	       pl_reason_is_bad((enum pl_reason)r->reason);
}

/* The consumer's verdict on a packet, as the step's static name. */
static const char *check_step(const struct pl_gpu_res *r)
{
	if (r->reason == PL_OK)
		return "consumer checks the packet: ok";
	return pl_reason_is_bad((enum pl_reason)r->reason)
		       ? "consumer checks the packet: bad"
		       : "consumer checks the packet: other";
}

/* Trace the datagrams of a checked burst while fewer than t->units are;
 * free all. */
static void gpu_traced_frames(struct dpdk_rx *rx, struct gpu_dpdk *gd,
			      uint16_t n, uint64_t poll, uint64_t empty)
{
	struct pl_trace *t = &rx->trace;
	uint32_t first = rx->traced + 1, *unit = &rx->traced;
	const struct pl_gpu_res *r;
	uint16_t i;

	for (i = 0; i < n && *unit < t->units; i++) {
		r = &gd->b.res[i];
		if (!traced_kind(r))
			continue;
		++*unit;
		pl_trace_rec(t, *unit, PL_AT_USER, PL_EV_RING,
			     "rte_eth_rx_burst (poll)",
			     "poll returned index empty_before", poll, n, i,
			     empty);
		pl_trace_rec(t, *unit, PL_AT_NIC, PL_EV_DMA,
			     "PMD writes the payload into device memory",
			     "data_addr len in_device region_addr",
			     gd->b.desc[i].addr, gd->b.desc[i].len,
			     pl_gpu_in_device(gd->g, gd->b.desc[i].addr,
					      gd->b.desc[i].len),
			     (uintptr_t)gd->base);
		pl_trace_rec(t, *unit, PL_AT_GPU, PL_EV_CHECK, check_step(r),
			     "seq reason flow", r->seq, r->reason, r->flow, 0);
	}
	dpdk_trace_free(rx, n, first, *unit);
}

/* One burst of the traced GPU handler: checked by the consumer, traced. */
static void gpu_traced_burst(struct dpdk_rx *rx, uint16_t n, uint64_t poll,
			     uint64_t empty, uint64_t now)
{
	struct gpu_dpdk *gd = rx->gpu;

	(void)now;
	gd->err = gpu_burst(gd, rx->queues[0].bufs, n);
	if (gd->err) {
		pl_run_request_stop(rx->run);
		rte_pktmbuf_free_bulk(rx->queues[0].bufs, n);
		return;
	}
	pl_gpu_account(&rx->stats, gd->b.res, n, pl_now_ns());
	gpu_traced_frames(rx, gd, n, poll, empty);
}

/* The traced GPU handler: --trace N frames step by step, then the plain. */
void gpu_dpdk_traced_burst(struct dpdk_queue *q, uint16_t n, uint64_t now)
{
	dpdk_trace_step(q, n, now, gpu_traced_burst);
}

/* The device memory as a setup event; the traced GPU loop goes first. */
void gpu_dpdk_trace_setup(struct dpdk_rx *rx)
{
	struct gpu_dpdk *gd = rx->gpu;

	pl_trace_rec(&rx->trace, 0, PL_AT_GPU, PL_EV_STEP,
		     "device memory: the mbufs' data buffers",
		     "region_addr bytes page_bytes", (uintptr_t)gd->base,
		     gd->len, gd->page, 0);
}

/* Record what a step did, for gpu_detail.dpdk_steps. */
static void step(struct gpu_dpdk *gd, int i, const char *fmt, const char *s)
{
	snprintf(gd->step[i], sizeof(gd->step[i]), fmt, s);
}

/* Why gpudev has no device for GPU pci, in words (for dpdk_steps). */
static void no_gpudev(struct gpu_dpdk *gd, const struct cfg *c, const char *pci)
{
	glob_t gl;
	bool driver =
		!glob(RTE_EAL_PMD_PATH "/librte_gpu_cuda.so*", 0, NULL, &gl);

	globfree(&gl);
	if (!c->gpu_allow[0])
		step(gd, STEP_ALLOC,
		     "no gpudev device: the GPU %s was not on EAL's "
		     "allow-list (-a ADDR); cuMemAlloc + SYNC_MEMOPS instead",
		     pci);
	else if (!driver)
		step(gd, STEP_ALLOC,
		     "no gpudev device for %s: this DPDK has no gpu/cuda "
		     "driver (Debian's 22.11 ships gpudev without it); "
		     "cuMemAlloc + SYNC_MEMOPS instead",
		     pci);
	else
		step(gd, STEP_ALLOC,
		     "no gpudev device for %s: DPDK's gpu/cuda driver did not "
		     "probe it (its GPU table, or see the EAL log); cuMemAlloc "
		     "+ SYNC_MEMOPS instead",
		     pci);
}

/*
 * The gpudev device that is the GPU the backend opened: the same PCI
 * address (gpu/cuda names a device by it). -1 when gpudev has none;
 * -EXDEV when it has devices and none is that GPU.
 */
static int gpudev_of(const struct pl_gpu *g)
{
	struct rte_gpu_info info;
	char pci[16];
	int16_t id;
	int n = 0;

	RTE_GPU_FOREACH(id)
	{
		if (rte_gpu_info_get(id, &info) || !info.name)
			continue;
		n++;
		if (!pl_gpu_pci_norm(info.name, pci, sizeof(pci)) &&
		    !strcmp(pci, g->pci))
			return id;
		fprintf(stderr,
			"pathlab-rx-dpdk: gpudev device %d is %s, not the GPU "
			"CUDA opened (%s)\n",
			id, info.name, g->pci);
	}
	return n ? -EXDEV : -1;
}

/* Step 1: device memory, from gpudev for our GPU if it has it, else ours. */
static int gpu_memory(struct gpu_dpdk *gd, const struct cfg *c)
{
	size_t len = (size_t)c->mbufs * RTE_MBUF_DEFAULT_BUF_SIZE;
	int id = -1;

	gd->gpudev = -1;
	gd->page = c->gpu == PL_GPU_CUDA ? PL_GPU_PAGE
					 : (size_t)sysconf(_SC_PAGESIZE);
	gd->len = RTE_ALIGN_CEIL(len, gd->page);
	if (c->gpu == PL_GPU_CUDA)
		id = gpudev_of(gd->g);
	if (id == -EXDEV)
		return -EXDEV; /* another GPU: its memory is not ours */
	if (id >= 0) {
		gd->gpudev = (int16_t)id;
		gd->alloc = rte_gpu_mem_alloc(gd->gpudev, gd->len,
					      (unsigned)gd->page);
		if (!gd->alloc)
			return -rte_errno;
		gd->base = gd->alloc;
		step(gd, STEP_ALLOC, "%s", "ok");
		return pl_gpu_dev_adopt(gd->g, gd->base, gd->len);
	}
	/* One page more, so that the range DPDK sees starts on a page. */
	gd->alloc =
		pl_gpu_dev_alloc(gd->g, gd->len + gd->page, PL_GPU_NIC_WRITES);
	if (!gd->alloc)
		return -errno;
	gd->base = (void *)RTE_ALIGN_CEIL((uintptr_t)gd->alloc, gd->page);
	if (c->gpu == PL_GPU_CUDA) {
		no_gpudev(gd, c, gd->g->pci);
		fprintf(stderr, "pathlab-rx-dpdk: %s\n", gd->step[STEP_ALLOC]);
	} else
		step(gd, STEP_ALLOC, "%s",
		     "not used: emulated device memory from the backend");
	return 0;
}

/* Say why the NIC could not map GPU memory: nvidia-peermem, mostly. */
static void dma_map_failed(const struct gpu_dpdk *gd)
{
	int e = rte_errno;

	fprintf(stderr,
		"pathlab-rx-dpdk: rte_dev_dma_map of %zu bytes of GPU memory "
		"on %s: %s. mlx5 registers it with ibv_reg_mr(), which on GPU "
		"memory needs the nvidia-peermem module: %s%s\n",
		gd->len, rte_dev_name(gd->dev), rte_strerror(e),
		pl_gpu_peermem(),
		access("/sys/module/nvidia_peermem", F_OK)
			? ""
			: "; so the GPU and the NIC could not peer (see "
			  "labs/pathlab doctor: topology, IOMMU, ACS)");
	rte_errno = e;
}

/* 8< gpu-dpdk-steps */
/* Steps 2 to 4: register, map for the NIC, the pool on that memory. */
static int gpu_pool(struct gpu_dpdk *gd, const struct cfg *c,
		    struct dpdk_port *port, bool vdev)
{
	struct rte_pktmbuf_extmem ext = {
		.buf_ptr = gd->base,
		.buf_iova = RTE_BAD_IOVA, /* the PMD maps it, step 3 */
		.buf_len = gd->len,
		.elt_size = RTE_MBUF_DEFAULT_BUF_SIZE,
	};

	if (rte_extmem_register(gd->base, gd->len, NULL, 0, gd->page))
		return -rte_errno;
	gd->registered = true;
	step(gd, STEP_EXTMEM, "%s", "ok");
	if (rte_dev_dma_map(gd->dev, gd->base, RTE_BAD_IOVA, gd->len) == 0) {
		gd->mapped = true;
		step(gd, STEP_DMA_MAP, "%s",
		     vdev ? "ok (a vdev: nothing to map)" : "ok");
	} else if (vdev) {
		/* A vdev copies with the CPU: no IOMMU to program. */
		step(gd, STEP_DMA_MAP, "not supported by this vdev: %s",
		     rte_strerror(rte_errno));
	} else {
		dma_map_failed(gd);
		return -rte_errno;
	}
	port->ext_pool = rte_pktmbuf_pool_create_extbuf(
		"pathlab_gpu", c->mbufs, MBUF_CACHE, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id(), &ext, 1);
	if (!port->ext_pool)
		return -rte_errno;
	step(gd, STEP_POOL, "%s", "ok");
	return 0;
}
/* >8 gpu-dpdk-steps */

/* The GPU detail of the DPDK variant: the steps and where mbufs were. */
static void gpu_dpdk_json(struct pl_json *j, void *arg)
{
	const struct gpu_dpdk *gd = arg;
	int i;

	pl_json_obj(j, "dpdk_steps");
	for (i = 0; i < STEP_RXQ; i++)
		pl_json_str(j, step_names[i], gd->step[i]);
	/* A run is reported only once port_setup() has put the pool there. */
	pl_json_str(j, step_names[STEP_RXQ], "ok");
	pl_json_end(j);
	pl_json_u64(j, "device_memory_bytes", gd->len);
	pl_json_u64(j, "page_bytes", gd->page);
	pl_json_u64(j, "mbufs_in_device", gd->in_device);
	pl_json_u64(j, "mbufs_outside_device", gd->outside);
}

/*
 * Refuse what cannot work, with the reason; true for a vdev (its PMD
 * copies with the CPU). cuda needs a PMD that DMAs; net_af_xdp makes its
 * UMEM of the pool's own memory, data inline, so a pool whose data
 * buffers are elsewhere fails in its rte_eth_rx_queue_setup().
 */
static bool port_check(struct gpu_dpdk *gd, const struct cfg *c)
{
	struct rte_eth_dev_info info;
	uint16_t id;
	bool vdev;

	RTE_ETH_FOREACH_DEV(id)
	break;
	if (rte_eth_dev_info_get(id, &info))
		return true;
	gd->dev = info.device;
	vdev = !strcmp(rte_bus_name(rte_dev_bus(gd->dev)), "vdev");
	if (vdev && c->gpu == PL_GPU_CUDA) {
		fprintf(stderr,
			"pathlab-rx-dpdk: --gpu cuda: %s is a vdev, whose PMD "
			"copies every frame with the CPU; only a PMD that DMAs "
			"into device memory (a PCI NIC, e.g. mlx5) can land "
			"packets there. Use --gpu sim here.\n",
			info.driver_name);
		exit(PL_EXIT_SKIP);
	}
	if (!strcmp(info.driver_name, "net_af_xdp")) {
		fprintf(stderr,
			"pathlab-rx-dpdk: --gpu: net_af_xdp builds its UMEM "
			"from the mempool's own memory, data inline, so it "
			"cannot fill mbufs whose data lies in device memory "
			"(rte_eth_rx_queue_setup fails). Use --vdev-kind "
			"af_packet.\n");
		exit(PL_EXIT_SKIP);
	}
	return vdev;
}

/* Open the GPU, or leave: no GPU is a skip, as no NIC is. */
static void gpu_open_or_exit(struct gpu_dpdk *gd, const struct cfg *c)
{
	const struct pl_gpu_where at = {
		.pci = c->gpu_allow[0] ? c->gpu_allow : c->gpu_pci,
		.nic = c->pci ? c->pci : c->rx.iface,
	};
	char why[512] = "";
	int err = pl_gpu_open(&gd->g, c->gpu, &at, why, sizeof(why));

	if (!err)
		return;
	fprintf(stderr, "pathlab-rx-dpdk: --gpu %s: %s\n", pl_gpu_kinds[c->gpu],
		why[0] ? why : strerror(-err));
	exit(err == -ENODEV || err == -ENOENT ? PL_EXIT_SKIP : PL_EXIT_FAIL);
}

int gpu_dpdk_pick(struct cfg *c)
{
	const struct pl_gpu_where at = { .pci = c->gpu_pci, .nic = c->pci };
	char how[256] = "";

	c->gpu_allow[0] = '\0';
	if (c->gpu != PL_GPU_CUDA || !c->pci)
		return 0;
	if (pl_gpu_pick("", &at, c->gpu_allow, sizeof(c->gpu_allow), how,
			sizeof(how))) {
		fprintf(stderr, "pathlab-rx-dpdk: %s\n", how);
		return -EINVAL;
	}
	return 0;
}

int gpu_dpdk_setup(struct dpdk_rx *rx, const struct cfg *c)
{
	struct gpu_dpdk *gd;
	unsigned i;
	bool vdev;
	int err;

	if (rte_eth_dev_count_avail() != 1)
		return -ENODEV; /* port_setup() says why */
	gd = calloc(1, sizeof(*gd));
	if (!gd)
		return -ENOMEM;
	vdev = port_check(gd, c);
	gpu_open_or_exit(gd, c);
	gd->g->variant = "nic-dma";
	/* mlx5 in DPDK 22.11 registers the range with ibv_reg_mr() only. */
	gd->g->registration = "peermem";
	if (vdev)
		gd->g->dma_by = "the vdev's PMD copies it, on the CPU, into "
				"the (emulated) device memory: a CPU copy "
				"standing in for a NIC's DMA";
	gd->g->note = vdev ? "the mbufs' data buffers are (emulated) device "
			     "memory: the vdev's copy into them stands in for "
			     "the NIC's DMA"
			   : "the NIC DMAs each frame into an mbuf whose data "
			     "buffer is device memory";
	gd->g->path_json = gpu_dpdk_json;
	gd->g->path_arg = gd;
	err = gpu_memory(gd, c);
	if (!err)
		err = gpu_pool(gd, c, &rx->port, vdev);
	if (!err)
		err = pl_gpu_batch_init(gd->g, &gd->b, rx->burst);
	if (err) {
		/* The first step that did not finish is the one that failed. */
		for (i = 0; i < STEP_RXQ && gd->step[i][0]; i++)
			;
		fprintf(stderr, "pathlab-rx-dpdk: --gpu %s: %s: %s\n",
			pl_gpu_kinds[c->gpu],
			i < STEP_RXQ ? step_names[i] : "the consumer's batch",
			err == -EXDEV ? "gpudev's devices are other GPUs than "
					"the one CUDA opened"
				      : strerror(-err));
		rx->gpu = gd;
		gpu_dpdk_teardown(rx);
		return err;
	}
	rx->gpu = gd;
	return 0;
}

void gpu_dpdk_teardown(struct dpdk_rx *rx)
{
	struct gpu_dpdk *gd = rx->gpu;

	/* A pool the port never took is still ours to free. */
	if (rx->port.ext_pool && rx->port.pool != rx->port.ext_pool)
		rte_mempool_free(rx->port.ext_pool);
	rx->port.ext_pool = NULL;
	pl_gpu_batch_free(gd->g, &gd->b);
	if (gd->mapped)
		rte_dev_dma_unmap(gd->dev, gd->base, RTE_BAD_IOVA, gd->len);
	if (gd->registered)
		rte_extmem_unregister(gd->base, gd->len);
	if (gd->gpudev >= 0 && gd->alloc) {
		pl_gpu_dev_free(gd->g, gd->alloc);
		rte_gpu_mem_free(gd->gpudev, gd->alloc);
	} else if (gd->alloc) {
		pl_gpu_dev_free(gd->g, gd->alloc);
	}
	pl_gpu_close(gd->g);
	free(gd);
	rx->gpu = NULL;
}

void gpu_dpdk_report(struct dpdk_rx *rx, struct pl_report *r)
{
	struct gpu_dpdk *gd = rx->gpu;

	if (gd->err)
		fprintf(stderr,
			"pathlab-rx-dpdk: the GPU stopped the run: %s\n",
			strerror(-gd->err));
	pl_gpu_report(gd->g, r);
}
