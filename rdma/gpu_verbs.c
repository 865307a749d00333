/* SPDX-License-Identifier: MIT */
/*
 * --gpu sim|cuda on the verbs path: the NIC writes straight into device
 * memory. The ring of receive buffers (ud, rc) or the ring the sender
 * writes into (rc_write_imm) is device memory from the gpudirect
 * interface, registered for the NIC once:
 *
 *   cuda  a dma-buf of the memory (pl_gpu_export_dmabuf) registered with
 *         ibv_reg_dmabuf_mr(); where that fails, ibv_reg_mr() on the
 *         device pointer itself (nvidia-peermem)
 *   sim   ibv_reg_mr() on the emulated device memory: on Soft-RoCE that is
 *         ordinary memory, and rxe's copy into it (the kernel, on the CPU)
 *         stands in for the NIC's DMA; once registered, the process loses
 *         its own access to it (PROT_NONE), as a CPU has none to GPU memory
 *
 * A CPU-copying device (rxe, siw) cannot reach a real GPU's memory: with
 * --gpu cuda it is refused. Completions give (slot, byte_len); a batch of
 * them goes to the consumer, which checks every message in device memory.
 * The CPU never reads a payload byte.
 */
#include "clock.h"
#include "gpu.h"
#include "opt.h"
#include "rx_verbs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RXE_VENDOR_ID 0xffffffu /* drivers/infiniband/sw/rxe */
#define SIW_VENDOR_ID 0x626d74u /* drivers/infiniband/sw/siw */

struct gpu_verbs {
	struct pl_gpu *g;
	struct pl_gpu_batch b;
	void *dev;	  /* the ring, in device memory */
	size_t len;	  /* its bytes */
	int dmabuf_fd;	  /* the exported dma-buf, or -1 */
	int dmabuf_err;	  /* what exporting or registering it said */
	const char *call; /* the registration that worked */
	const char *rdma_dev;
	int err; /* what stopped the loop, or 0 */
};

/* 8< gpu-verbs-burst */
/*
 * The GPU handler: a burst of completions, descriptors, the consumer, then
 * the reposts. The verdict is the GPU's: its time is read once the
 * consumer is done, not at now.
 */
void gpu_verbs_burst(struct verbs_rx *rx, int n, uint64_t now)
{
	struct gpu_verbs *gv = rx->gpu;
	uint64_t dev = (uintptr_t)gv->dev, bytes = 0;
	uint32_t slot[VERBS_MAX_BATCH], len;
	size_t off;
	const struct ibv_wc *wc;
	unsigned k = 0, d = 0;
	int i, err;

	(void)now;
	rx->completions += (unsigned)n;
	for (i = 0; i < n; i++) {
		wc = &rx->wc[i];
		if (wc->status != IBV_WC_SUCCESS) {
			rx->wc_errors++; /* the QP is broken: no repost */
			rx->last_wc_status = wc->status;
			continue;
		}
		slot[k++] = (uint32_t)wc->wr_id;
		if (!verbs_decode_wc(rx, wc, &off, &len))
			continue;
		gv->b.desc[d++] =
			(struct pl_gpu_desc){ .addr = dev + off, .len = len };
		bytes += len;
	}
	if (d) {
		pl_gpu_nic_wrote(gv->g, d, bytes);
		err = pl_gpu_consume(gv->g, &gv->b, d);
		if (err) {
			gv->err = err;
			pl_run_request_stop(rx->run);
			return;
		}
		pl_gpu_account(&rx->stats, gv->b.res, d, pl_now_ns());
	}
	/* The consumer is done with the slots: the NIC may reuse them. */
	if (verbs_post(rx, slot, (int)k))
		rx->post_errors++;
}
/* >8 gpu-verbs-burst */

/* The consumer's verdict on a message, as the step's static name. */
static const char *check_step(const struct pl_gpu_res *r)
{
	if (r->reason == PL_OK)
		return "consumer checks the packet: ok";
	return pl_reason_is_bad((enum pl_reason)r->reason)
		       ? "consumer checks the packet: bad"
		       : "consumer checks the packet: other";
}

/*
 * gpu_verbs_burst() with the first messages traced while *unit < t->units: the
 * completion, the NIC's write into device memory, the consumer's verdict
 * and the repost. A verbs_trace_burst_fn: the GPU's error ends the run.
 */
static int gpu_traced_burst(struct verbs_rx *rx, int n, uint64_t now,
			    uint32_t *unit)
{
	struct gpu_verbs *gv = rx->gpu;
	uint64_t dev = (uintptr_t)gv->dev, bytes = 0;
	uint32_t slot[VERBS_MAX_BATCH], of[VERBS_MAX_BATCH],
		imm[VERBS_MAX_BATCH];
	uint32_t len, first = *unit + 1, traced = 0;
	size_t off;
	struct pl_trace *t = &rx->trace;
	const struct ibv_wc *wc;
	unsigned k = 0, d = 0, i;
	int err;

	(void)now; /* the verdict is timed once the GPU is done */
	rx->completions += (unsigned)n;
	for (i = 0; i < (unsigned)n; i++) {
		wc = &rx->wc[i];
		if (wc->status != IBV_WC_SUCCESS) {
			rx->wc_errors++;
			rx->last_wc_status = wc->status;
			continue;
		}
		slot[k++] = (uint32_t)wc->wr_id;
		if (!verbs_decode_wc(rx, wc, &off, &len))
			continue;
		imm[d] = rx->write_imm ? rx->imm_last : 0;
		of[d] = i;
		gv->b.desc[d++] =
			(struct pl_gpu_desc){ .addr = dev + off, .len = len };
		bytes += len;
	}
	if (d) {
		pl_gpu_nic_wrote(gv->g, d, bytes);
		err = pl_gpu_consume(gv->g, &gv->b, d);
		if (err) {
			gv->err = err;
			pl_run_request_stop(rx->run);
			return err; /* ends the traced loop, no plain one */
		}
		pl_gpu_account(&rx->stats, gv->b.res, d, pl_now_ns());
	}
	for (i = 0; i < d && *unit < t->units; i++, traced++) {
		wc = &rx->wc[of[i]];
		++*unit;
		pl_trace_rec(t, *unit, PL_AT_USER, PL_EV_RING,
			     "ibv_poll_cq(): completion",
			     "wr_id byte_len imm opcode", wc->wr_id,
			     wc->byte_len, imm[i], wc->opcode);
		pl_trace_rec(t, *unit, PL_AT_NIC, PL_EV_DMA,
			     "NIC writes the message into device memory",
			     "addr len slot", gv->b.desc[i].addr,
			     gv->b.desc[i].len,
			     (gv->b.desc[i].addr - dev) / VERBS_SLOT, 0);
		pl_trace_rec(t, *unit, PL_AT_GPU, PL_EV_CHECK,
			     check_step(&gv->b.res[i]), "seq reason flow",
			     gv->b.res[i].seq, gv->b.res[i].reason,
			     gv->b.res[i].flow, 0);
	}
	if (verbs_post(rx, slot, (int)k))
		rx->post_errors++;
	for (i = 0; i < traced; i++)
		pl_trace_rec(t, first + i, PL_AT_USER, PL_EV_RING,
			     "repost the buffer (ibv_post_recv)",
			     "wr_id call count", rx->wc[of[i]].wr_id,
			     rx->recv_posts, (uint64_t)k, 0);
	return 0;
}

/* The traced GPU handler: --trace N messages step by step, then plain. */
void gpu_verbs_traced_burst(struct verbs_rx *rx, int n, uint64_t now)
{
	verbs_trace_step(rx, n, now, gpu_traced_burst);
}

void gpu_verbs_trace_setup(struct verbs_rx *rx)
{
	struct gpu_verbs *gv = rx->gpu;

	pl_trace_rec(&rx->trace, 0, PL_AT_GPU, PL_EV_DMA,
		     !strcmp(gv->call, "ibv_reg_dmabuf_mr")
			     ? "register device memory: ibv_reg_dmabuf_mr"
			     : "register device memory: ibv_reg_mr",
		     "addr bytes lkey rkey", (uintptr_t)gv->dev, gv->len,
		     rx->ep.mr->lkey, rx->ep.mr->rkey);
}

/* 8< gpu-verbs-register */
/*
 * The ring in device memory, registered: dma-buf first, then peermem. The
 * allocation is whole GPU pages (PL_GPU_NIC_WRITES), so the export, which
 * takes whole host pages, covers the ring for any --depth; the MR is the
 * ring's own length.
 */
static int gpu_reg_ring(struct verbs_ep *ep, size_t len, unsigned access,
			void *arg)
{
	struct gpu_verbs *gv = arg;
	int err;

	gv->dev = pl_gpu_dev_alloc(gv->g, len, PL_GPU_NIC_WRITES);
	if (!gv->dev)
		return -errno;
	gv->len = len;
	gv->dmabuf_err =
		pl_gpu_export_dmabuf(gv->g, gv->dev, len, &gv->dmabuf_fd);
	if (!gv->dmabuf_err) {
		ep->mr = ibv_reg_dmabuf_mr(ep->pd, 0, len, (uintptr_t)gv->dev,
					   gv->dmabuf_fd, (int)access);
		if (ep->mr) {
			gv->call = "ibv_reg_dmabuf_mr";
			gv->g->registration = "dmabuf";
		} else {
			gv->dmabuf_err = -errno;
		}
	}
	if (!ep->mr) {
		/* nvidia-peermem (or, emulated, plain memory) behind it. */
		ep->mr = ibv_reg_mr(ep->pd, gv->dev, len, (int)access);
		if (!ep->mr) {
			err = -errno;
			fprintf(stderr,
				"pathlab-rx-verbs: --gpu %s: neither "
				"ibv_reg_dmabuf_mr (%s) nor ibv_reg_mr on the "
				"device pointer (%s) registered device "
				"memory: ibv_reg_mr on GPU memory needs "
				"nvidia-peermem (%s), dma-buf the open NVIDIA "
				"kernel module and Linux 5.12+\n",
				pl_gpu_kinds[gv->g->kind],
				strerror(-gv->dmabuf_err), strerror(-err),
				pl_gpu_peermem());
			return err;
		}
		gv->call = "ibv_reg_mr";
		gv->g->registration = "peermem";
	}
	ep->buf = gv->dev; /* its address for the NIC; never read here */
	pl_gpu_nic_registered(gv->g, gv->dev); /* from now on, the NIC's */
	return 0;
}
/* >8 gpu-verbs-register */

/* True for a device whose "DMA" is a CPU copy in the kernel (rxe, siw). */
static bool cpu_copies(struct ibv_context *ctx)
{
	const char *name = ibv_get_device_name(ctx->device);
	struct ibv_device_attr a;

	if (!strncmp(name, "rxe", 3) || !strncmp(name, "siw", 3))
		return true;
	if (ibv_query_device(ctx, &a))
		return false;
	return a.vendor_id == RXE_VENDOR_ID || a.vendor_id == SIW_VENDOR_ID;
}

/* The verbs variant's part of gpu_detail. */
static void gpu_verbs_json(struct pl_json *j, void *arg)
{
	const struct gpu_verbs *gv = arg;

	pl_json_str(j, "rdma_device", gv->rdma_dev);
	pl_json_str(j, "registration_call", gv->call ? gv->call : "");
	pl_json_str(j, "dmabuf",
		    gv->dmabuf_err ? strerror(-gv->dmabuf_err) : "ok");
	pl_json_u64(j, "device_memory_bytes", gv->len);
}

/* Refuse what cannot work, with the reason; the exit code, or 0. */
static int gpu_verbs_check(struct verbs_rx *rx, const struct cfg *c)
{
	const char *name = ibv_get_device_name(rx->ep.ctx->device);

	if (c->cq != RX_CQ_POLL) {
		fprintf(stderr, "pathlab-rx-verbs: --gpu follows the "
				"busy-polled CQ: --cq poll\n");
		return PL_EXIT_USAGE;
	}
	if (c->gpu == PL_GPU_CUDA && cpu_copies(rx->ep.ctx)) {
		fprintf(stderr,
			"pathlab-rx-verbs: --gpu cuda: %s is a software RDMA "
			"device (rxe/siw): it copies every message with the "
			"CPU and cannot write into GPU memory; only a NIC "
			"that DMAs (ibv_reg_dmabuf_mr or nvidia-peermem) can. "
			"Use --gpu sim here.\n",
			name);
		return PL_EXIT_SKIP;
	}
	return 0;
}

int gpu_verbs_setup(struct verbs_rx *rx, const struct cfg *c)
{
	struct gpu_verbs *gv;
	struct pl_gpu_where at = { .pci = c->gpu_pci };
	char why[512] = "";
	bool sim = c->gpu == PL_GPU_SIM;
	int code, err;

	code = gpu_verbs_check(rx, c);
	if (code)
		exit(code); /* setup of a tool: nothing to undo at exit */
	gv = calloc(1, sizeof(*gv));
	if (!gv)
		return -ENOMEM;
	gv->dmabuf_fd = -1;
	gv->rdma_dev = ibv_get_device_name(rx->ep.ctx->device);
	at.nic = gv->rdma_dev; /* the GPU nearest this RDMA device */
	err = pl_gpu_open(&gv->g, c->gpu, &at, why, sizeof(why));
	if (err) {
		fprintf(stderr, "pathlab-rx-verbs: --gpu %s: %s\n",
			pl_gpu_kinds[c->gpu], why[0] ? why : strerror(-err));
		exit(err == -ENODEV || err == -ENOENT ? PL_EXIT_SKIP
						      : PL_EXIT_FAIL);
	}
	gv->g->variant = "nic-dma";
	gv->g->note = sim ? "sim on Soft-RoCE: ordinary memory; rxe (the "
			    "kernel, on the CPU) writes each message into the "
			    "registered emulated device memory, standing in "
			    "for the NIC's DMA; the consumer checks it there"
			  : "the NIC DMAs each message into registered device "
			    "memory; completions hand (slot, byte_len) to the "
			    "consumer, which checks it there";
	if (sim)
		gv->g->dma_by =
			"rxe's copy (the kernel, on the CPU) lands it in "
			"the emulated device memory, standing in for a "
			"NIC's DMA; the process has no access to that "
			"memory since its registration";
	gv->g->path_json = gpu_verbs_json;
	gv->g->path_arg = gv;
	err = pl_gpu_batch_init(gv->g, &gv->b, rx->batch);
	if (err) {
		pl_gpu_close(gv->g);
		free(gv);
		return err;
	}
	rx->gpu = gv;
	rx->ep.reg_ring = gpu_reg_ring;
	rx->ep.reg_arg = gv;
	return 0;
}

void gpu_verbs_teardown(struct verbs_rx *rx)
{
	struct gpu_verbs *gv = rx->gpu;

	if (!gv)
		return;
	pl_gpu_batch_free(gv->g, &gv->b);
	if (gv->dev)
		pl_gpu_dev_free(gv->g, gv->dev);
	if (gv->dmabuf_fd >= 0)
		close(gv->dmabuf_fd);
	pl_gpu_close(gv->g);
	free(gv);
	rx->gpu = NULL;
}

void gpu_verbs_report(struct verbs_rx *rx, struct pl_report *r)
{
	struct gpu_verbs *gv = rx->gpu;

	if (gv->err)
		fprintf(stderr,
			"pathlab-rx-verbs: the GPU stopped the run: %s\n",
			strerror(-gv->err));
	pl_gpu_report(gv->g, r);
}
