// SPDX-License-Identifier: MIT
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
 * xsk_setup() -> xsk_rx_loop() -> xsk_teardown() -> main(), the skeleton
 * every path has (rx_socket.c, rx_dpdk.c, rx_verbs.c). The features live
 * in their own files: xsk_setup.c (program, UMEM, rings, socket),
 * reflect_xsk.c, trace_xsk.c, gpu_xsk.c, the report in report_xsk.c and
 * the command line in opts_xsk.c.
 */
#include "rx_xsk.h"
#include "clock.h"
#include "gpu.h"
#include "mgmt.h"
#include "opt.h"
#include "report.h"
#include "rx.h"
#include "sysctr.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

const char *const xsk_actions[] = { "redirect", "drop", "pass", NULL };
const char *const xsk_attaches[] = { "native", "skb", NULL };
const char *const xsk_binds[] = { "copy", "zerocopy", "auto", NULL };
const char *const xsk_loops[] = { "busy", "poll", NULL };

/* 8< xsk-rx-burst */
/* The plain handler: parse and account the burst's frames in place, then
 * give them back to the fill ring. */
static void rx_burst(struct xsk_rx *rx, uint32_t idx_rx, uint32_t n,
		     uint64_t now)
{
	struct pl_pkt p;
	uint32_t i;

	for (i = 0; i < n; i++) {
		const struct xdp_desc *d =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i);

		pl_rx_frame(&rx->stats, xsk_umem__get_data(rx->area, d->addr),
			    d->len, rx->port, now, &p);
	}
	xsk_refill(rx, idx_rx, n);
}
/* >8 xsk-rx-burst */

/* --loop poll: sleep in poll() until the RX ring has frames. */
void xsk_poll_wait(struct xsk_rx *rx)
{
	struct pollfd pfd = { .fd = rx->fd, .events = POLLIN };

	rx->syscalls++;
	if (poll(&pfd, 1, 1000) > 0)
		rx->wakeups++;
}

/* Mirror the program's lab-port counters into the run's stats. */
void xdp_sync_stats(struct xsk_rx *rx)
{
	const struct pl_xdp_lab *l = &rx->xdp.lab;

	if (xdp_read_lab(rx))
		return;
	rx->stats.packets = l->data;
	rx->stats.end_markers = l->end_markers;
	rx->stats.first_ns = l->first_ns;
	rx->stats.last_ns = l->last_ns;
	rx->stats.payload_len = (uint16_t)l->payload_len;
}

/* 8< xdp-watch-loop */
/*
 * XDP alone: nothing reaches user space; watch the program's counters.
 * A loop of its own: there is no socket, no ring, nothing to receive.
 */
void xdp_watch_loop(void *arg)
{
	struct xsk_rx *rx = arg;
	const struct timespec tick = { .tv_nsec = 1000000 };

	while (!pl_run_done(rx->run, &rx->stats)) {
		nanosleep(&tick, NULL);
		xdp_sync_stats(rx);
	}
}
/* >8 xdp-watch-loop */

/*
 * The handlers of each kind of run, chosen once at setup, so that no loop
 * tests an option per frame: one for a burst and one for an empty RX ring
 * (spin and kick, or sleep in poll()), plain, and traced ones that step
 * through the first --trace N frames and then hand over to the plain ones.
 * XDP alone has none: it traces in the program, its loop watches. Where
 * check_cfg() refuses a kind with --trace, it has no traced handler.
 */
static void choose_loop(const struct cfg *c, struct xsk_rx *rx)
{
	enum { BUSY, POLL, REFLECT, GPU_BUSY, GPU_POLL };
	static const struct {
		burst_fn *plain, *traced;
		idle_fn *idle, *traced_idle;
	} table[] = {
		[BUSY] = { rx_burst, xsk_traced_burst, xsk_kick_rx,
			   xsk_traced_idle },
		[POLL] = { rx_burst, xsk_traced_burst, xsk_poll_wait,
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

/* 8< xsk-queues */
/*
 * Queue q's socket, on RX queue --queue + q, in the xsks map at that index:
 * the program redirects each frame by ctx->rx_queue_index, so a frame
 * reaches the socket of the queue it arrived on. Each queue has a UMEM of
 * its own, not one UMEM shared (XDP_SHARED_UMEM) with a fill and a
 * completion ring per queue: a frame then never leaves its queue's thread,
 * so no two threads hand out frames of one pool and no lock is needed.
 * Sharing pays where frames move between queues or devices (forwarding
 * without a copy); a receiver moves none. The cost: --frames per queue.
 */
static int queue_socket_setup(struct xsk_rx *rxq, unsigned q,
			      const struct cfg *c)
{
	struct xsk_rx *rx = &rxq[q];
	int err;

	if (q) { /* the program, its settings and the run: queue 0's */
		rx->cfg = c;
		rx->port = rxq[0].port;
		rx->batch = rxq[0].batch;
		rx->skel = rxq[0].skel;
		rx->ifindex = rxq[0].ifindex;
		rx->link_fd = -1;
		rx->run = rxq[0].run;
		pl_stats_init(&rx->stats);
	}
	rx->queue = c->queue + q;
	err = xsk_socket_open(rx, c);
	if (err) {
		if (q)
			pl_stats_free(&rx->stats);
		return err;
	}
	return 0;
}
/* >8 xsk-queues */

/* Undo queue_socket_setup(): out of the map, socket and UMEM gone. */
static void queue_socket_teardown(struct xsk_rx *rxq, unsigned q)
{
	xsk_socket_close(&rxq[q]);
	if (q)
		pl_stats_free(&rxq[q].stats);
}

/* Every queue's socket; on failure *where is the RX queue that failed. */
static int sockets_setup(struct xsk_rx *rxq, const struct cfg *c,
			 unsigned *where)
{
	unsigned q, n = pl_rx_queues(&c->rx);
	int err;

	for (q = 0; q < n; q++) {
		err = queue_socket_setup(rxq, q, c);
		if (err) {
			*where = c->queue + q;
			while (q-- > 0)
				queue_socket_teardown(rxq, q);
			return err;
		}
	}
	return 0;
}

/* Undo sockets_setup(), the last queue first. */
static void sockets_teardown(struct xsk_rx *rxq, const struct cfg *c)
{
	unsigned q;

	for (q = pl_rx_queues(&c->rx); q-- > 0;)
		queue_socket_teardown(rxq, q);
}

/* The window the run is measured in: the loop over every queue. */
static void xsk_window(struct xsk_rx *rxq, const struct cfg *c,
		       struct pl_rx_window *w)
{
	unsigned q;

	w->rx_loop = rxq[0].xsk ? xsk_rx_loop : xdp_watch_loop;
	w->queues = rxq;
	w->stride = sizeof(*rxq);
	w->after_loop = rxq[0].xsk ? xsk_after_loop : NULL;
	w->arg = rxq;
	w->ifname = c->rx.iface;
	for (q = 0; q < pl_rx_queues(&c->rx); q++)
		w->queue_stats[q] = &rxq[q].stats;
	/* Time the turns of the spinning loops (not poll(), not XDP alone) */
	rxq[0].run->polls =
		c->loop != LOOP_POLL && c->action == PL_XDP_REDIRECT;
}

/*
 * Set up the program and, for redirect, a socket per queue; choose the
 * handlers; describe the window. On failure *where is the RX queue it
 * concerns.
 */
static int xsk_setup(struct xsk_rx *rxq, const struct cfg *c, unsigned *where,
		     struct pl_rx_window *w)
{
	struct xsk_rx *rx = &rxq[0];
	unsigned q;
	int err;

	rx->cfg = c;
	rx->port = (uint16_t)c->port;
	rx->batch = c->batch;
	*where = c->queue;
	err = xdp_prog_setup(rx, c);
	if (err || c->action != PL_XDP_REDIRECT) {
		/* The program traces (--trace); we read it after the run. */
		if (!err && c->rx.trace)
			xdp_trace_setup(rx, c);
		if (!err)
			xsk_window(rxq, c, w);
		return err;
	}
	err = sockets_setup(rxq, c, where);
	if (err) {
		xdp_prog_teardown(rx);
		return err;
	}
	for (q = 0; q < pl_rx_queues(&c->rx); q++)
		choose_loop(c, &rxq[q]);
	if (c->rx.trace)
		xsk_trace_setup(rx, c);
	if (c->gpu && (err = gpu_xsk_setup(rx, c))) {
		sockets_teardown(rxq, c);
		xdp_prog_teardown(rx);
		return err;
	}
	xsk_window(rxq, c, w);
	return 0;
}

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

/* Undo xsk_setup(): the sockets leave the map before the program goes. */
static void xsk_teardown(struct xsk_rx *rxq, const struct cfg *c)
{
	struct xsk_rx *rx = &rxq[0];

	if (rx->gpu)
		gpu_xsk_teardown(rx);
	pl_trace_close(&rx->trace); /* a run that ended while tracing */
	if (rx->xsk)
		sockets_teardown(rxq, c);
	xdp_prog_teardown(rx);
}

/* Say why setup failed in the words a student needs; the exit code. */
static int setup_error(const struct cfg *c, unsigned queue, int err)
{
	if (err == -EOPNOTSUPP && c->bind == BIND_ZEROCOPY) {
		fprintf(stderr,
			"pathlab-rx-xsk: %s: zero-copy needs a NIC driver "
			"with AF_XDP zero-copy support; veth has none; use "
			"--bind copy or auto\n",
			c->rx.iface);
		return PL_EXIT_SKIP;
	}
	fprintf(stderr, "pathlab-rx-xsk: %s queue %u: %s\n", c->rx.iface, queue,
		strerror(-err));
	if (err == -EPERM || err == -EACCES) {
		fprintf(stderr, "pathlab-rx-xsk: needs root (CAP_BPF, "
				"CAP_NET_ADMIN, CAP_NET_RAW)\n");
		return PL_EXIT_SKIP;
	}
	if (err == -EBUSY)
		fprintf(stderr,
			"pathlab-rx-xsk: another XDP program is "
			"attached to %s (one per interface here)\n",
			c->rx.iface);
	return err == -ENODEV || err == -EINVAL ? PL_EXIT_USAGE : PL_EXIT_FAIL;
}

int main(int argc, char **argv)
{
	struct cfg c;
	static struct xsk_rx rxq[PL_MAX_QUEUES];
	static struct pl_rx_stats total;
	static struct pl_run run;
	static struct pl_rx_window w;
	struct xsk_rx *rx = &rxq[0];
	unsigned where;
	int err;

	err = xsk_options(argc, argv, &c);
	if (err >= 0)
		return err;
	if (pl_rx_trace_open("pathlab-rx-xsk", &c.rx, &rx->trace, "pkt"))
		return PL_EXIT_USAGE;
	rx->run = &run;
	if (pl_rx_begin("pathlab-rx-xsk", &c.rx, &run, &rx->stats))
		return PL_EXIT_USAGE;
	pl_stats_init(&total);
	err = xsk_setup(rxq, &c, &where, &w);
	if (err)
		return setup_error(&c, where, err);
	err = pl_rx_measure(&c.rx, &run, &w);
	if (!err)
		err = xsk_report(rxq, &c, &w, &total);
	xsk_teardown(rxq, &c);
	pl_stats_free(&total);
	return pl_rx_end(&run, &rx->stats, err);
}
