/* SPDX-License-Identifier: MIT */
/*
 * pathlab-rx-xsk: the XDP and AF_XDP receiver.
 *
 * Our XDP program runs in the driver, before any skb exists. With
 * --action redirect (the afxdp path) it steers the lab's datagrams into an
 * AF_XDP socket: the kernel writes each frame into a UMEM frame we handed
 * it on the fill ring and posts a descriptor on the RX ring, which we read
 * without a system call. With --action drop or pass (the xdp path) there is
 * no socket: the program alone drops (or passes on) the datagrams, and we
 * read its per-CPU counters. --queues N: a socket and a thread per RX
 * queue. --reflect: every good frame goes back out through the socket's
 * TX ring, for pathlab-gen --pingpong.
 *
 * xsk_setup() -> xsk_rx_loop() -> xsk_teardown() -> main(), the
 * skeleton every path has: diff two rx_*.c files to see what differs
 * between the paths. The setup helpers live in xsk_setup.c, the features
 * in their own files (rx_xsk.h names them), the report in report_xsk.c
 * and the command line in opts_xsk.c.
 */
#include "rx_xsk.h"
#include "clock.h"
#include "opt.h"
#include "rx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * The handlers of each kind of run, chosen once at setup, so that no loop
 * tests an option per packet: plain, and the traced one that steps through
 * the first --trace N packets and then hands over to the plain one.
 * check_cfg() refuses the kinds that have no traced handler.
 * An empty RX ring has a handler too: spin and kick, or sleep in poll().
 * XDP alone has none: it traces in the program, its loop watches.
 */
static void choose_loop(const struct cfg *c, struct xsk_rx *rx)
{
	enum { BUSY, POLL, REFLECT, GPU_BUSY, GPU_POLL };
	static const struct {
		burst_fn *plain, *traced;
		idle_fn *idle, *traced_idle;
	} table[] = {
		[BUSY] = { xsk_plain_burst, xsk_traced_burst, xsk_kick_rx,
			   xsk_traced_idle },
		[POLL] = { xsk_plain_burst, xsk_traced_burst, xsk_poll_wait,
			   xsk_traced_idle },
		[REFLECT] = { reflect_xsk_burst, NULL, reflect_xsk_idle, NULL },
		[GPU_BUSY] = { gpu_xsk_burst, gpu_xsk_traced_burst, xsk_kick_rx,
			       xsk_kick_rx },
		[GPU_POLL] = { gpu_xsk_burst, gpu_xsk_traced_burst,
			       xsk_poll_wait, xsk_poll_wait },
	};
	bool in_poll = c->loop == LOOP_POLL;
	int kind = c->rx.reflect ? REFLECT
		   : c->gpu	 ? (in_poll ? GPU_POLL : GPU_BUSY)
		   : in_poll	 ? POLL
				 : BUSY;

	rx->plain_burst = table[kind].plain;
	rx->plain_idle = table[kind].idle;
	rx->on_burst = c->rx.trace ? table[kind].traced : table[kind].plain;
	rx->on_idle = c->rx.trace ? table[kind].traced_idle : table[kind].idle;
	rx->told = true;
}

/*
 * Set up: the program and, for redirect, every queue's socket, each with the
 * handler its run needs; the window the run is measured in. On failure
 * rxq[0].queue is the RX queue it concerns. 0 or -errno.
 */
static int xsk_setup(struct xsk_rx *rxq, struct pl_run *run,
		     const struct cfg *c, struct pl_rx_window *w)
{
	unsigned q, n = pl_rx_queues(&c->rx), failed;
	bool afxdp = c->action == PL_XDP_REDIRECT;
	int err = 0;

	err = xsk_open(rxq, run, c);
	if (err)
		return err;
	for (q = 0; afxdp && q < n; q++) {
		err = xsk_queue_open(rxq, q, run, c);
		if (err)
			break;
		choose_loop(c, &rxq[q]);
	}
	if (err) {
		failed = c->queue + q;
		while (q-- > 0)
			xsk_queue_close(rxq, q);
		xsk_close(rxq);
		rxq->queue = failed;
		return err;
	}
	if (afxdp && c->gpu && (err = gpu_xsk_setup(rxq, c))) {
		sockets_teardown(rxq, c);
		xsk_close(rxq);
		return err;
	}
	/* XDP alone: the program traces; we read it after the run. */
	if (c->rx.trace) {
		(afxdp ? xsk_trace_setup : xdp_trace_setup)(rxq, c);
		if (rxq->gpu)
			gpu_xsk_trace_setup(rxq);
	}
	*w = (struct pl_rx_window){
		.rx_loop = afxdp ? xsk_rx_loop : xdp_watch_loop,
		.queues = rxq,
		.stride = sizeof(*rxq),
		.after_loop = afxdp ? xsk_after_loop : NULL,
		.arg = rxq,
		.ifname = c->rx.iface,
	};
	for (q = 0; q < n; q++)
		w->queue_stats[q] = &rxq[q].stats;
	/* Time the turns of the loops that spin */
	run->polls = afxdp && c->loop != LOOP_POLL; /* not poll(), not XDP */
	return 0;
}

/* 8< xsk-rx-burst */
/* The plain handler: parse and account every frame of the burst, in
 * place, then give the frames back to the fill ring. */
void xsk_plain_burst(struct xsk_rx *rx, uint32_t idx_rx, uint32_t n,
		     uint64_t now)
{
	struct pl_pkt p;
	uint32_t i;

	for (i = 0; i < n; i++) {
		const struct xdp_desc *d =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i);

		rx_one(rx, xsk_umem__get_data(rx->area, d->addr), d->len, now,
		       &p);
	}
	xsk_refill(rx, idx_rx, n);
}
/* >8 xsk-rx-burst */

/* 8< xsk-busy-loop */
/*
 * Take a burst off the RX ring and hand it to the run's handler; when the
 * ring is empty, the idle step: spin, entering the kernel only when it
 * asks (need_wakeup) or when that drives the receive (--busy-poll), or
 * sleep in poll() (--loop poll).
 */
void xsk_rx_loop(void *arg)
{
	struct xsk_rx *rx = arg;
	uint32_t idx_rx, n;

	while (!pl_run_done(rx->run, &rx->stats)) {
		n = xsk_ring_cons__peek(&rx->rx, rx->batch, &idx_rx);
		if (n) {
			rx->on_burst(rx, idx_rx, n, pl_now_ns());
			continue;
		}
		rx->empty++;
		rx->on_idle(rx);
	}
}
/* >8 xsk-busy-loop */

/* Undo xsk_setup(), the last queue first: the sockets leave the map
 * before the program goes. */
static void xsk_teardown(struct xsk_rx *rxq, const struct cfg *c)
{
	if (rxq->gpu)
		gpu_xsk_teardown(rxq);
	pl_trace_close(&rxq->trace); /* a run that ended while tracing */
	if (rxq->xsk)
		sockets_teardown(rxq, c);
	xsk_close(rxq);
}

/* Say why setup failed, in one line; the exit code. */
static int setup_error(const struct cfg *c, const struct xsk_rx *rx, int err)
{
	const char *hint;
	int code = xsk_setup_why(c, err, &hint);

	fprintf(stderr, "pathlab-rx-xsk: %s queue %u: %s%s\n", c->rx.iface,
		rx->queue, strerror(-err), hint);
	return code;
}

int main(int argc, char **argv)
{
	static struct xsk_rx rxq[PL_MAX_QUEUES];
	static struct pl_rx_stats total;
	static struct pl_rx_window w;
	static struct pl_run run;
	struct xsk_rx *rx = &rxq[0];
	struct cfg c;
	int err;

	err = xsk_options(argc, argv, &c);
	if (err >= 0)
		return err;
	if (pl_rx_trace_open("pathlab-rx-xsk", &c.rx, &rx->trace, "pkt"))
		return PL_EXIT_USAGE;
	if (pl_rx_begin("pathlab-rx-xsk", &c.rx, &run, &rx->stats))
		return PL_EXIT_USAGE;
	pl_stats_init(&total);
	err = xsk_setup(rxq, &run, &c, &w);
	if (err)
		return setup_error(&c, rx, err);
	err = pl_rx_measure(&c.rx, &run, &w);
	if (!err)
		err = xsk_report(rxq, &c, &w, &total);
	xsk_teardown(rxq, &c);
	pl_stats_free(&total);
	return pl_rx_end(&run, &rx->stats, err);
}
