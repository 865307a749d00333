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
 * reflect_xsk.c, trace_xsk.c, gpu_xsk.c, and the report in report_xsk.c.
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
static const char *const onoff[] = { "off", "on", NULL };

/* 8< xsk-rx-burst */
/* Take up to a batch off the RX ring and give the frames back to the fill
 * ring; returns how many there were. */
static inline unsigned rx_burst(struct xsk_rx *rx)
{
	uint32_t idx_rx, i, n;
	struct pl_pkt p;
	uint64_t now;

	n = xsk_ring_cons__peek(&rx->rx, rx->batch, &idx_rx);
	if (!n)
		return 0;
	now = pl_now_ns();
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i);

		pl_rx_frame(&rx->stats, xsk_umem__get_data(rx->area, d->addr),
			    d->len, rx->port, now, &p);
	}
	xsk_refill(rx, idx_rx, n);
	return n;
}
/* >8 xsk-rx-burst */

/* Sleep in poll() whenever the RX ring is empty. */
static void poll_loop(struct xsk_rx *rx)
{
	struct pollfd pfd = { .fd = rx->fd, .events = POLLIN };

	while (!pl_run_done(rx->run, &rx->stats)) {
		if (rx_burst(rx))
			continue;
		rx->empty++;
		rx->syscalls++;
		if (poll(&pfd, 1, 1000) > 0)
			rx->wakeups++;
	}
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
/* XDP alone: nothing reaches user space; watch the program's counters. */
static void xdp_watch_loop(struct xsk_rx *rx)
{
	const struct timespec tick = { .tv_nsec = 1000000 };

	while (!pl_run_done(rx->run, &rx->stats)) {
		nanosleep(&tick, NULL);
		xdp_sync_stats(rx);
	}
}
/* >8 xdp-watch-loop */

/*
 * The loop of each kind of run, chosen once at setup, so that no loop
 * tests an option per frame: plain, and the traced one that steps through
 * the first --trace N frames and then runs the plain one (*plain). XDP
 * alone traces in the program: its loop stays. check_cfg() refuses the
 * kinds that have no traced loop.
 */
static rx_loop_fn *choose_loop(const struct xsk_cfg *c, rx_loop_fn **plain)
{
	enum { WATCH, BUSY, POLL, REFLECT, GPU_BUSY, GPU_POLL };
	static const struct {
		rx_loop_fn *plain, *traced;
	} table[] = {
		[WATCH] = { xdp_watch_loop, xdp_watch_loop },
		[BUSY] = { xsk_rx_loop, xsk_traced_loop },
		[POLL] = { poll_loop, xsk_traced_loop },
		[REFLECT] = { reflect_xsk_loop, NULL },
		[GPU_BUSY] = { gpu_xsk_busy_loop, gpu_xsk_traced_loop },
		[GPU_POLL] = { gpu_xsk_poll_loop, gpu_xsk_traced_loop },
	};
	bool in_poll = c->loop == LOOP_POLL;
	int kind = c->action != PL_XDP_REDIRECT ? WATCH
		   : c->rx.reflect		? REFLECT
		   : c->gpu  ? (in_poll ? GPU_POLL : GPU_BUSY)
		   : in_poll ? POLL
			     : BUSY;

	*plain = table[kind].plain;
	return c->rx.trace ? table[kind].traced : table[kind].plain;
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
			      const struct xsk_cfg *c)
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
static int sockets_setup(struct xsk_rx *rxq, const struct xsk_cfg *c,
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
static void sockets_teardown(struct xsk_rx *rxq, const struct xsk_cfg *c)
{
	unsigned q;

	for (q = pl_rx_queues(&c->rx); q-- > 0;)
		queue_socket_teardown(rxq, q);
}

/*
 * Set up the program and, for redirect, a socket per queue; choose the
 * loops. On failure *where is the RX queue it concerns.
 */
static int xsk_setup(struct xsk_rx *rxq, const struct xsk_cfg *c,
		     unsigned *where)
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
		rx->rx_loop = choose_loop(c, &rx->rx_plain);
		if (!err && c->rx.trace)
			xdp_trace_setup(rx, c);
		return err;
	}
	err = sockets_setup(rxq, c, where);
	if (err) {
		xdp_prog_teardown(rx);
		return err;
	}
	for (q = 0; q < pl_rx_queues(&c->rx); q++)
		rxq[q].rx_loop = choose_loop(c, &rxq[q].rx_plain);
	if (c->rx.trace)
		xsk_trace_setup(rx, c);
	if (c->gpu && (err = gpu_xsk_setup(rx, c))) {
		sockets_teardown(rxq, c);
		xdp_prog_teardown(rx);
	}
	return err;
}

/* 8< xsk-busy-loop */
/* Spin on the RX ring; enter the kernel only when it asks (need_wakeup). */
void xsk_rx_loop(struct xsk_rx *rx)
{
	while (!pl_run_done(rx->run, &rx->stats)) {
		if (rx_burst(rx))
			continue;
		rx->empty++;
		if (xsk_ring_prod__needs_wakeup(&rx->fq)) {
			recvfrom(rx->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
			rx->syscalls++;
		}
	}
}
/* >8 xsk-busy-loop */

/* Undo xsk_setup(): the sockets leave the map before the program goes. */
static void xsk_teardown(struct xsk_rx *rxq, const struct xsk_cfg *c)
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
static int setup_error(const struct xsk_cfg *c, unsigned queue, int err)
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

/* The options that do not go together; a one-line error and false. */
static bool check_cfg(const struct xsk_cfg *c)
{
	const char *why = NULL;

	if (!c->rx.iface || (c->frames & (c->frames - 1)) ||
	    (c->ring & (c->ring - 1)) ||
	    (c->frame_size != 2048 && c->frame_size != 4096))
		why = "--iface is required; --frames and --ring are powers "
		      "of two; --frame-size is 2048 or 4096";
	else if (c->gpu && c->action != PL_XDP_REDIRECT)
		why = "--gpu needs --action redirect: XDP alone hands "
		      "nothing over";
	else if (pl_rx_queues(&c->rx) > 1 && c->action != PL_XDP_REDIRECT)
		why = "--queues needs --action redirect: XDP alone has no "
		      "thread per queue (the program runs on every queue, in "
		      "the driver, and counts per CPU)";
	else if (pl_rx_queues(&c->rx) > 1 && (c->rx.trace || c->gpu))
		why = "--queues runs the plain loop: no --trace or --gpu "
		      "with it";
	else if (c->rx.reflect && c->action != PL_XDP_REDIRECT)
		why = "--reflect needs --action redirect: it sends through "
		      "the AF_XDP socket's TX ring";
	else if (c->rx.reflect && (c->rx.trace || c->gpu))
		why = "--reflect runs the plain loop: no --trace or --gpu "
		      "with it";
	else if (c->queue + pl_rx_queues(&c->rx) > PL_XSKS_MAX)
		why = "--queue + --queues go past the xsks map's 64 entries";
	if (why)
		fprintf(stderr, "pathlab-rx-xsk: %s\n", why);
	return !why;
}

/*
 * The RX queues --queue and --queues ask for must exist on the interface
 * (ethtool -l): a clear error here, not EINVAL from the bind. Skipped
 * when the interface cannot say (the bind then decides).
 */
static bool check_queues(const struct xsk_cfg *c)
{
	unsigned n = pl_rx_queues(&c->rx);
	int have;

	if (c->action != PL_XDP_REDIRECT)
		return true;
	have = xsk_link_rx_queues(c->rx.iface);
	if (have <= 0 || c->queue + n <= (unsigned)have)
		return true;
	fprintf(stderr,
		"pathlab-rx-xsk: --queue %u --queues %u: %s has %d RX "
		"queue(s) (ethtool -l %s; the lab: PATHLAB_QUEUES)\n",
		c->queue, n, c->rx.iface, have, c->rx.iface);
	return false;
}

int main(int argc, char **argv)
{
	struct xsk_cfg c = { .rx = PL_RX_DEFAULTS,
			     .port = PL_UDP_PORT,
			     .frames = 4096,
			     .frame_size = XSK_UMEM__DEFAULT_FRAME_SIZE,
			     .ring = XSK_RING_CONS__DEFAULT_NUM_DESCS,
			     .batch = 64,
			     .bind = BIND_AUTO,
			     .need_wakeup = true };
	static struct xsk_rx rxq[PL_MAX_QUEUES];
	static struct pl_rx_stats total;
	static struct pl_run run;
	struct xsk_rx *rx = &rxq[0];
	unsigned where;
	int err, wakeup = 1;
	const struct pl_opt opts[] = {
		{ "iface", PL_OPT_STR, &c.rx.iface, "IF",
		  "receiving interface (required)" },
		{ "action", PL_OPT_CHOICE, &c.action, "ACT",
		  "lab datagrams: to the socket, or XDP alone", 0, 0,
		  xsk_actions },
		{ "attach", PL_OPT_CHOICE, &c.attach, "MODE",
		  "XDP in the driver, or generic (skb)", 0, 0, xsk_attaches },
		{ "bind", PL_OPT_CHOICE, &c.bind, "MODE",
		  "AF_XDP copy, zero-copy, or zero-copy else copy (auto)", 0, 0,
		  xsk_binds },
		{ "need-wakeup", PL_OPT_CHOICE, &wakeup, "ON",
		  "XDP_USE_NEED_WAKEUP: enter the kernel only when asked (on)",
		  0, 0, onoff },
		{ "loop", PL_OPT_CHOICE, &c.loop, "KIND",
		  "spin on the RX ring, or sleep in poll()", 0, 0, xsk_loops },
		{ "batch", PL_OPT_U32, &c.batch, "N",
		  "descriptors per RX ring peek (64)", 1, MAX_BATCH },
		{ "queue", PL_OPT_U32, &c.queue, "N",
		  "RX queue to bind, the first of --queues (0)", 0,
		  PL_XSKS_MAX - 1 },
		{ "frames", PL_OPT_U32, &c.frames, "N",
		  "UMEM frames, a power of two (4096)", 64, 1u << 20 },
		{ "frame-size", PL_OPT_U32, &c.frame_size, "BYTES",
		  "UMEM frame size, 2048 or 4096 (4096)", 2048, 4096 },
		{ "headroom", PL_OPT_U32, &c.headroom, "BYTES",
		  "free bytes before each frame's data (0)", 0, 1024 },
		{ "ring", PL_OPT_U32, &c.ring, "N",
		  "RX ring (and --reflect TX ring) entries, a power of two "
		  "(2048)",
		  64, 1u << 16 },
		{ "port", PL_OPT_U32, &c.port, "N", "UDP port (9000)", 1,
		  65535 },
		{ "gpu", PL_OPT_CHOICE, &c.gpu, "KIND",
		  "GPU variant: none, sim (emulated GPU) or cuda", 0, 0,
		  pl_gpu_kinds },
		{ "gpu-mode", PL_OPT_CHOICE, &c.gpu_mode, "MODE",
		  "the GPU reads the UMEM in place, or gets a copy", 0, 0,
		  gpu_xsk_modes },
		PL_RX_OPT_TRACE(&c.rx, "datagram"),
		PL_RX_OPT_CPU(&c.rx),
		PL_RX_OPT_QUEUES(&c.rx, "RX queue"),
		PL_RX_OPT_REFLECT(&c.rx, "AF_XDP TX ring"),
		PL_RX_OPTS(&c.rx, "datagram", "from the interface's driver"),
		{ 0 }
	};

	err = pl_opt_parse(argc, argv, opts, "--iface IF [options]", NULL);
	if (err)
		return err == PL_OPT_HELP ? PL_EXIT_OK : PL_EXIT_USAGE;
	c.need_wakeup = wakeup;
	if (!check_cfg(&c) || !check_queues(&c) ||
	    pl_mgmt_refuse_iface("pathlab-rx-xsk", c.rx.iface))
		return PL_EXIT_USAGE;
	if (pl_rx_trace_open("pathlab-rx-xsk", &c.rx, &rx->trace, "pkt"))
		return PL_EXIT_USAGE;
	rx->run = &run;
	if (pl_rx_begin("pathlab-rx-xsk", &c.rx, &run, &rx->stats))
		return PL_EXIT_USAGE;
	pl_stats_init(&total);
	err = xsk_setup(rxq, &c, &where);
	if (err)
		return setup_error(&c, where, err);
	err = xsk_report(rxq, &c, &total);
	xsk_teardown(rxq, &c);
	pl_stats_free(&total);
	return pl_rx_end(&run, &rx->stats, err);
}
