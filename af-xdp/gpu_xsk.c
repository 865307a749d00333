// SPDX-License-Identifier: MIT
/*
 * --gpu sim|cuda on the AF_XDP path.
 *
 * The UMEM is host memory: the kernel copies each frame into it (copy
 * bind) or the NIC writes it there by DMA (zero-copy bind). There is no
 * NIC-to-GPU path on AF_XDP. What the GPU can do is read the frames where
 * they are:
 *
 *   mapped  the UMEM is registered with the GPU, mapped: the consumer
 *           reads each frame across PCIe, in place; no CPU copy at all
 *   copy    each frame is copied into device memory by the copy engine
 *           first (one async copy per frame), then checked there
 *
 * Frames go back to the fill ring only once the consumer is done with them.
 */
#include "rx_xsk.h"
#include "clock.h"
#include "gpu.h"
#include "opt.h"
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

const char *const gpu_xsk_modes[] = { "mapped", "copy", NULL };

struct gpu_xsk {
	struct pl_gpu *g;
	struct pl_gpu_batch b;
	uint64_t umem_dev; /* mapped: the UMEM as the GPU sees it */
	void *stage;	   /* copy: device memory for a batch of frames */
	bool copy;
	int err;
};

/* Point descriptor i at the frame: in the UMEM, or copied to the device. */
static int gpu_desc(struct xsk_rx *rx, struct gpu_xsk *gx, unsigned i,
		    const struct xdp_desc *d)
{
	uint64_t at = gx->umem_dev + d->addr;
	int err = 0;

	if (gx->copy) {
		at = (uintptr_t)gx->stage + (uint64_t)i * rx->cfg->frame_size;
		err = pl_gpu_copy_h2d(gx->g, at,
				      xsk_umem__get_data(rx->area, d->addr),
				      d->len, 1);
	}
	gx->b.desc[i] = (struct pl_gpu_desc){
		.addr = at, .len = d->len, .port = rx->port, .frame = 1
	};
	return err;
}

/* 8< gpu-xsk-burst */
/*
 * The GPU handler: the burst to the GPU, then the frames back to the fill
 * ring. The verdict is the GPU's: its time is read once the consumer is
 * done, not at now.
 */
void gpu_xsk_burst(struct xsk_rx *rx, uint32_t idx_rx, uint32_t n, uint64_t now)
{
	struct gpu_xsk *gx = rx->gpu;
	uint32_t i;
	int err = 0;

	(void)now;
	for (i = 0; !err && i < n; i++)
		err = gpu_desc(rx, gx, i,
			       xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i));
	if (!err)
		err = pl_gpu_consume(gx->g, &gx->b, n);
	if (err) {
		gx->err = err;
		pl_run_request_stop(rx->run);
	} else {
		pl_gpu_account(&rx->stats, gx->b.res, n, pl_now_ns());
	}
	/* The consumer has finished with the frames: the kernel may reuse. */
	xsk_refill(rx, idx_rx, n);
}
/* >8 gpu-xsk-burst */

/* The consumer's verdict on a packet, as the step's static name. */
static const char *check_step(const struct pl_gpu_res *r)
{
	if (r->reason == PL_OK)
		return "consumer checks the packet: ok";
	return pl_reason_is_bad((enum pl_reason)r->reason)
		       ? "consumer checks the packet: bad"
		       : "consumer checks the packet: other";
}

/* Trace frame i of a burst of n: the UMEM, the ring, the GPU's two steps. */
static void gpu_trace_frame(struct xsk_rx *rx, struct gpu_xsk *gx,
			    uint32_t unit, uint32_t idx_rx, uint32_t i,
			    uint32_t n)
{
	const struct xdp_desc *d = xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i);
	const struct pl_gpu_res *r = &gx->b.res[i];
	struct pl_trace *t = &rx->trace;

	if (rx->zerocopy)
		pl_trace_rec(t, unit, PL_AT_NIC, PL_EV_DMA,
			     "DMA frame into UMEM", "len addr", d->len, d->addr,
			     0, 0);
	else
		pl_trace_rec(t, unit, PL_AT_KERNEL, PL_EV_COPY,
			     "copy frame into UMEM", "len addr", d->len,
			     d->addr, 0, 0);
	pl_trace_rec(t, unit, PL_AT_USER, PL_EV_RING,
		     "peek RX ring: descriptor", "index addr len peeked",
		     idx_rx + i, d->addr, d->len, n);
	if (gx->copy)
		pl_trace_rec(t, unit, PL_AT_GPU, PL_EV_COPY,
			     "copy frame to device memory", "dst_addr len",
			     gx->b.desc[i].addr, gx->b.desc[i].len, 0, 0);
	else
		pl_trace_rec(t, unit, PL_AT_GPU, PL_EV_DMA,
			     "GPU reads the frame in the UMEM across PCIe",
			     "addr len", gx->b.desc[i].addr, gx->b.desc[i].len,
			     0, 0);
	pl_trace_rec(t, unit, PL_AT_GPU, PL_EV_CHECK, check_step(r),
		     "seq reason flow", r->seq, r->reason, r->flow, 0);
}

/*
 * The traced GPU handler: gpu_xsk_burst() with the first frames traced
 * while fewer than --trace N are, the frames back on the fill ring traced
 * as well; then the plain handler takes over.
 */
void gpu_xsk_traced_burst(struct xsk_rx *rx, uint32_t idx_rx, uint32_t n,
			  uint64_t now)
{
	struct gpu_xsk *gx = rx->gpu;
	struct pl_trace *t = &rx->trace;
	uint32_t idx_fq, i, first = rx->traced + 1, traced = 0;
	int err = 0;
	bool wake;

	(void)now;
	for (i = 0; !err && i < n; i++)
		err = gpu_desc(rx, gx, i,
			       xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i));
	if (!err)
		err = pl_gpu_consume(gx->g, &gx->b, n);
	if (err) {
		gx->err = err;
		pl_run_request_stop(rx->run);
	} else {
		pl_gpu_account(&rx->stats, gx->b.res, n, pl_now_ns());
		for (i = 0; i < n && rx->traced < t->units; i++, traced++)
			gpu_trace_frame(rx, gx, ++rx->traced, idx_rx, i, n);
	}
	idx_fq = xsk_refill(rx, idx_rx, n);
	wake = xsk_ring_prod__needs_wakeup(&rx->fq);
	for (i = 0; i < traced; i++) {
		pl_trace_rec(
			t, first + i, PL_AT_USER, PL_EV_RING,
			"fill ring: frame back", "index addr count", idx_fq + i,
			*xsk_ring_prod__fill_addr(&rx->fq, idx_fq + i), n, 0);
		pl_trace_rec(t, first + i, PL_AT_USER, PL_EV_RING,
			     "RX ring: release", "consumer count need_wakeup",
			     idx_rx + n, n, wake, 0);
	}
	if (rx->traced >= t->units)
		xsk_trace_end(rx);
}

void gpu_xsk_trace_setup(struct xsk_rx *rx)
{
	struct gpu_xsk *gx = rx->gpu;

	if (gx->copy)
		pl_trace_rec(&rx->trace, 0, PL_AT_GPU, PL_EV_STEP,
			     "pin the UMEM; device memory for a batch",
			     "umem_addr bytes stage_addr stage_bytes",
			     (uintptr_t)rx->area, rx->area_len,
			     (uintptr_t)gx->stage,
			     (uint64_t)rx->batch * rx->cfg->frame_size);
	else
		pl_trace_rec(&rx->trace, 0, PL_AT_GPU, PL_EV_STEP,
			     "map the UMEM for the GPU",
			     "umem_addr bytes dev_addr", (uintptr_t)rx->area,
			     rx->area_len, gx->umem_dev, 0);
}

/* The variant's own figures inside gpu_detail. */
static void gpu_xsk_json(struct pl_json *j, void *arg)
{
	const struct xsk_rx *rx = arg;

	pl_json_u64(j, "umem_bytes", rx->area_len);
	pl_json_str(j, "umem_is", "host memory: no NIC-to-GPU path on AF_XDP");
}

/* 8< gpu-xsk-setup */
/* Register the UMEM (mapped, or pinned for copies); device memory. */
static int gpu_xsk_open(struct xsk_rx *rx, struct gpu_xsk *gx)
{
	struct pl_gpu *g = gx->g;
	size_t stage = (size_t)rx->batch * rx->cfg->frame_size;
	int err;

	err = pl_gpu_host_register(g, rx->area, rx->area_len, 0, &gx->umem_dev);
	if (!err && gx->copy) {
		gx->stage = pl_gpu_dev_alloc(g, stage, 0);
		err = gx->stage ? 0 : -errno;
	}
	if (!err)
		err = pl_gpu_batch_init(g, &gx->b, rx->batch);
	return err;
}
/* >8 gpu-xsk-setup */

int gpu_xsk_setup(struct xsk_rx *rx, const struct cfg *c)
{
	const struct pl_gpu_where at = { .pci = c->gpu_pci,
					 .nic = c->rx.iface };
	struct gpu_xsk *gx = calloc(1, sizeof(*gx));
	char why[512] = "";
	int err;

	if (!gx)
		return -ENOMEM;
	gx->copy = c->gpu_mode == GPU_XSK_COPY;
	err = pl_gpu_open(&gx->g, c->gpu, &at, why, sizeof(why));
	if (err) {
		fprintf(stderr, "pathlab-rx-xsk: --gpu %s: %s\n",
			pl_gpu_kinds[c->gpu], why[0] ? why : strerror(-err));
		/* Setup of a tool: the kernel detaches and frees at exit. */
		exit(err == -ENODEV || err == -ENOENT ? PL_EXIT_SKIP
						      : PL_EXIT_FAIL);
	}
	gx->g->variant = gx->copy ? "copy" : "mapped";
	gx->g->registration = gx->copy ? "host-pinned" : "host-mapped";
	gx->g->note = gx->copy ? "each UMEM frame copied into device memory "
				 "by the copy engine, then checked there"
			       : "the consumer reads each frame in the UMEM "
				 "across PCIe; the UMEM is host memory";
	gx->g->path_json = gpu_xsk_json;
	gx->g->path_arg = rx;
	err = gpu_xsk_open(rx, gx);
	if (err) {
		fprintf(stderr, "pathlab-rx-xsk: --gpu %s: %s\n",
			pl_gpu_kinds[c->gpu], strerror(-err));
		pl_gpu_close(gx->g); /* frees the regions it holds */
		free(gx);
		return err;
	}
	rx->gpu = gx;
	return 0;
}

void gpu_xsk_teardown(struct xsk_rx *rx)
{
	struct gpu_xsk *gx = rx->gpu;

	pl_gpu_batch_free(gx->g, &gx->b);
	if (gx->stage)
		pl_gpu_dev_free(gx->g, gx->stage);
	pl_gpu_host_unregister(gx->g, rx->area);
	pl_gpu_close(gx->g);
	free(gx);
	rx->gpu = NULL;
}

void gpu_xsk_report(struct xsk_rx *rx, struct pl_report *r)
{
	struct gpu_xsk *gx = rx->gpu;

	if (gx->err)
		fprintf(stderr, "pathlab-rx-xsk: the GPU stopped the run: %s\n",
			strerror(-gx->err));
	pl_gpu_report(gx->g, r);
}
