/* SPDX-License-Identifier: MIT */
/*
 * --gpu sim|cuda on the socket path: the bounce-buffer baseline.
 *
 * recvmmsg() copies each datagram from the kernel's skb into our buffers,
 * which are pinned for the GPU (cudaHostRegister; with the emulated GPU,
 * ordinary memory). One async copy per batch moves them over PCIe into
 * device memory, and the consumer checks them there. Two copies and one
 * PCIe crossing per packet: what every other GPU variant improves on.
 *
 * The kernel's own answer for zero-copy into GPU memory is device-memory
 * TCP (devmem TCP): TCP only, and it needs a NIC that splits headers from
 * data into separate buffers. There is none for UDP; hence this bounce.
 */
#include "rx_socket.h"
#include "gpu.h"
#include "opt.h"
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gpu_socket {
	struct pl_gpu *g;
	struct pl_gpu_batch b;
	void *dev; /* device memory: one batch of BUF_LEN slots */
	int err;   /* what stopped the loop, or 0 */
};

/* Datagram i's bytes in its buffer (MSG_TRUNC: msg_len may be more). */
static uint32_t held_len(const struct sock_rx *rx, int i)
{
	return rx->msgs[i].msg_len < BUF_LEN ? rx->msgs[i].msg_len : BUF_LEN;
}

/* 8< gpu-socket-batch */
/* The n datagrams of a batch: one copy to the device, then the consumer. */
static int gpu_batch(struct sock_rx *rx, struct gpu_socket *gs, int n)
{
	uint64_t dev = (uintptr_t)gs->dev;
	size_t len = (size_t)(n - 1) * BUF_LEN + held_len(rx, n - 1);
	int i, err;

	/* The batch goes as one transfer of whole slots, gaps included. */
	err = pl_gpu_copy_h2d(gs->g, dev, rx->bufs, len, (unsigned)n);
	for (i = 0; !err && i < n; i++)
		gs->b.desc[i] = (struct pl_gpu_desc){
			.addr = dev + (uint64_t)i * BUF_LEN,
			.len = held_len(rx, i),
		};
	if (!err)
		err = pl_gpu_consume(gs->g, &gs->b, (unsigned)n);
	if (err) {
		gs->err = err;
		pl_run_request_stop(rx->run);
	}
	return err;
}
/* >8 gpu-socket-batch */

/* 8< gpu-socket-loop */
/*
 * Hand the burst to the GPU, account what the GPU found. The verdict is
 * the GPU's: its time is read once the consumer is done, not at now.
 */
void gpu_socket_burst(struct sock_rx *rx, int n, uint64_t now)
{
	struct gpu_socket *gs = rx->gpu;

	(void)now;
	if (!gpu_batch(rx, gs, n)) /* else the run stops */
		pl_gpu_account(&rx->stats, gs->b.res, (unsigned)n, pl_now_ns());
}
/* >8 gpu-socket-loop */

/* Trace datagram i of a batch of n: the call, the two copies, the check. */
static void trace_one(struct sock_rx *rx, uint32_t unit, unsigned i, int n)
{
	struct gpu_socket *gs = rx->gpu;
	const struct pl_gpu_res *r = &gs->b.res[i];
	struct pl_trace *t = &rx->trace;

	pl_trace_rec(t, unit, PL_AT_USER, PL_EV_SYSCALL, "recvmmsg()",
		     "call returned index", rx->syscalls, (uint64_t)n, i, 0);
	pl_trace_rec(t, unit, PL_AT_KERNEL, PL_EV_COPY,
		     "copy skb -> pinned user buffer", "len index addr",
		     rx->msgs[i].msg_len, i, (uintptr_t)rx->bufs[i], 0);
	pl_trace_rec(t, unit, PL_AT_GPU, PL_EV_DMA,
		     "DMA host -> device (one per batch)", "len dev_addr batch",
		     rx->msgs[i].msg_len, gs->b.desc[i].addr, (uint64_t)n, 0);
	pl_trace_rec(t, unit, PL_AT_GPU, PL_EV_CHECK, "consumer checks",
		     "reason seq flow", r->reason, r->seq, r->flow, 0);
}

/* The traced handler: --trace N datagrams step by step, then the plain one. */
void gpu_socket_traced_burst(struct sock_rx *rx, int n, uint64_t now)
{
	struct gpu_socket *gs = rx->gpu;
	struct pl_trace *t = &rx->trace;
	unsigned i;

	(void)now;
	if (gpu_batch(rx, gs, n))
		return; /* the run stops */
	for (i = 0; i < (unsigned)n && rx->traced < t->units; i++)
		trace_one(rx, ++rx->traced, i, n);
	pl_gpu_account(&rx->stats, gs->b.res, (unsigned)n, pl_now_ns());
	if (rx->traced < t->units)
		return;
	pl_trace_close(t);
	rx->on_burst = rx->plain_burst;
}

void gpu_socket_trace_setup(struct sock_rx *rx)
{
	struct gpu_socket *gs = rx->gpu;

	pl_trace_rec(&rx->trace, 0, PL_AT_GPU, PL_EV_STEP,
		     "pin the batch buffers for the GPU's DMA", "bytes addr",
		     (uint64_t)rx->batch * BUF_LEN, (uintptr_t)rx->bufs, 0, 0);
	pl_trace_rec(&rx->trace, 0, PL_AT_GPU, PL_EV_STEP,
		     "device memory for a batch", "bytes dev_addr",
		     (uint64_t)rx->batch * BUF_LEN, (uintptr_t)gs->dev, 0, 0);
}

/* Pinned buffers, device memory, a batch; the exit code on failure. */
static int gpu_socket_open(struct sock_rx *rx, struct gpu_socket *gs,
			   const struct cfg *c)
{
	const struct pl_gpu_where at = { .pci = c->gpu_pci,
					 .nic = c->rx.iface };
	size_t len = (size_t)rx->batch * BUF_LEN;
	char why[512] = "";
	int err;

	err = pl_gpu_open(&gs->g, c->gpu, &at, why, sizeof(why));
	if (err) {
		fprintf(stderr, "pathlab-rx-socket: --gpu %s: %s\n",
			pl_gpu_kinds[c->gpu], why[0] ? why : strerror(-err));
		return err == -ENODEV || err == -ENOENT ? PL_EXIT_SKIP
							: PL_EXIT_FAIL;
	}
	gs->g->variant = "bounce";
	gs->g->registration = "host-pinned";
	gs->g->note = "recvmmsg into pinned host buffers, one async copy per "
		      "batch into device memory, the consumer there";
	err = pl_gpu_host_register(gs->g, rx->bufs, len, 0, NULL);
	gs->dev = err ? NULL : pl_gpu_dev_alloc(gs->g, len, 0);
	if (!err && !gs->dev)
		err = -errno;
	if (!err)
		err = pl_gpu_batch_init(gs->g, &gs->b, rx->batch);
	if (err) {
		fprintf(stderr, "pathlab-rx-socket: --gpu %s: %s\n",
			pl_gpu_kinds[c->gpu], strerror(-err));
		pl_gpu_close(gs->g); /* frees the regions it holds */
		return PL_EXIT_FAIL;
	}
	return 0;
}

int gpu_socket_setup(struct sock_rx *rx, const struct cfg *c)
{
	struct gpu_socket *gs;
	int code;

	if (c->mode != MODE_RECVMMSG) {
		fprintf(stderr,
			"pathlab-rx-socket: --gpu needs --mode recvmmsg\n");
		exit(PL_EXIT_USAGE);
	}
	if (c->stamps)
		fprintf(stderr, "pathlab-rx-socket: --rx-stamps: the GPU loop "
				"does not split the latency; ignored\n");
	gs = calloc(1, sizeof(*gs));
	if (!gs)
		return -ENOMEM;
	code = gpu_socket_open(rx, gs, c);
	if (code)
		exit(code); /* setup of a tool: nothing to undo at exit */
	rx->gpu = gs;
	return 0;
}

void gpu_socket_teardown(struct sock_rx *rx)
{
	struct gpu_socket *gs = rx->gpu;

	pl_gpu_batch_free(gs->g, &gs->b);
	pl_gpu_dev_free(gs->g, gs->dev);
	pl_gpu_host_unregister(gs->g, rx->bufs);
	pl_gpu_close(gs->g);
	free(gs);
	rx->gpu = NULL;
}

void gpu_socket_report(struct sock_rx *rx, struct pl_report *r)
{
	struct gpu_socket *gs = rx->gpu;

	if (gs->err)
		fprintf(stderr,
			"pathlab-rx-socket: the GPU stopped the run: %s\n",
			strerror(-gs->err));
	pl_gpu_report(gs->g, r);
}
