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
 * read its per-CPU counters.
 *
 * setup() -> rx_loop() -> teardown(), the shape every path copies.
 */
#include "rx_xsk.h"
#include "clock.h"
#include "gpu.h"
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

static const char *const actions[] = { "redirect", "drop", "pass", NULL };
static const char *const attaches[] = { "native", "skb", NULL };
static const char *const binds[] = { "copy", "zerocopy", "auto", NULL };
static const char *const loops[] = { "busy", "poll", NULL };
static const char *const onoff[] = { "off", "on", NULL };
static const char *const verdict_names[PL_XDP_VERDICTS] = { "aborted", "drop",
							    "pass", "tx",
							    "redirect" };

/* Parse and account one frame handed to us at now. */
static inline void rx_one(struct xsk_rx *rx, const void *frame, uint32_t len,
			  uint64_t now)
{
	struct pl_pkt p;

	xsk_account(rx, frame, len, now, &p);
}

/* 8< xsk-rx-burst */
/* Take up to a batch off the RX ring and give the frames back to the fill
 * ring; returns how many there were. */
static inline unsigned rx_burst(struct xsk_rx *rx)
{
	uint32_t idx_rx, idx_fq, i, n;
	uint64_t now;

	n = xsk_ring_cons__peek(&rx->rx, rx->batch, &idx_rx);
	if (!n)
		return 0;
	now = pl_now_ns();
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i);

		rx_one(rx, xsk_umem__get_data(rx->area, d->addr), d->len, now);
	}
	/* The frames are ours until they are on the fill ring again. */
	while (xsk_ring_prod__reserve(&rx->fq, n, &idx_fq) != n)
		rx->fill_short++;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&rx->fq, idx_fq + i) =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i)->addr &
			rx->frame_mask;
	xsk_ring_prod__submit(&rx->fq, n);
	xsk_ring_cons__release(&rx->rx, n);
	return n;
}
/* >8 xsk-rx-burst */

/* 8< xsk-busy-loop */
/* Spin on the RX ring; enter the kernel only when it asks (need_wakeup). */
static void busy_loop(struct xsk_rx *rx)
{
	while (!pl_run_done(&rx->run, &rx->stats)) {
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

/* Sleep in poll() whenever the RX ring is empty. */
static void poll_loop(struct xsk_rx *rx)
{
	struct pollfd pfd = { .fd = rx->fd, .events = POLLIN };

	while (!pl_run_done(&rx->run, &rx->stats)) {
		if (rx_burst(rx))
			continue;
		rx->empty++;
		rx->syscalls++;
		if (poll(&pfd, 1, 1000) > 0)
			rx->wakeups++;
	}
}

/* Mirror the program's lab-port counters into the run's stats. */
static void xdp_sync_stats(struct xsk_rx *rx)
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

	while (!pl_run_done(&rx->run, &rx->stats)) {
		nanosleep(&tick, NULL);
		xdp_sync_stats(rx);
	}
}
/* >8 xdp-watch-loop */

/* The program's counters: by verdict, by parse outcome, the lab port. */
static void prog_json(struct pl_json *j, const struct xdp_totals *t)
{
	unsigned i;

	pl_json_obj(j, "prog");
	pl_json_obj(j, "verdicts");
	for (i = 0; i < PL_XDP_VERDICTS; i++) {
		pl_json_obj(j, verdict_names[i]);
		pl_json_u64(j, "packets", t->verdict[i].packets);
		pl_json_u64(j, "bytes", t->verdict[i].bytes);
		pl_json_end(j);
	}
	pl_json_end(j);
	pl_json_obj(j, "by_reason");
	for (i = 0; i < PL_REASON_MAX; i++)
		pl_json_u64(j, pl_reason_name(i), t->reason[i]);
	pl_json_end(j);
	pl_json_u64(j, "lab_data", t->lab.data);
	pl_json_u64(j, "lab_end_markers", t->lab.end_markers);
	pl_json_u64(j, "lab_no_socket", t->lab.no_socket);
	pl_json_u64(j, "sent_by_end_markers", t->end_count);
	pl_json_end(j);
}

/* The path's own figures, nested under "afxdp" or "xdp" in the JSON. */
static void path_json(struct pl_json *j, void *arg)
{
	const struct xsk_rx *rx = arg;
	const struct xdp_statistics *a = &rx->xs, *b = &rx->xs0;

	pl_json_obj(j, rx->xsk ? "afxdp" : "xdp");
	pl_json_str(j, "attach", attaches[rx->cfg->attach]);
	if (rx->xsk) {
		pl_json_str(j, "bind_requested", binds[rx->cfg->bind]);
		pl_json_str(j, "bind", rx->zerocopy ? "zerocopy" : "copy");
		pl_json_bool(j, "need_wakeup", rx->need_wakeup);
		pl_json_str(j, "loop", loops[rx->cfg->loop]);
		pl_json_u64(j, "queue", rx->queue);
		pl_json_u64(j, "batch", rx->batch);
		pl_json_u64(j, "umem_frames", rx->cfg->frames);
		pl_json_u64(j, "frame_size", rx->cfg->frame_size);
		pl_json_u64(j, "headroom", rx->cfg->headroom);
		pl_json_u64(j, "rx_ring", rx->cfg->ring);
		pl_json_u64(j, "syscalls", rx->syscalls);
		pl_json_u64(j, "poll_wakeups", rx->wakeups);
		pl_json_u64(j, "empty_polls", rx->empty);
		pl_json_u64(j, "fill_ring_short", rx->fill_short);
		pl_json_obj(j, "xdp_statistics");
		pl_json_u64(j, "rx_dropped", a->rx_dropped - b->rx_dropped);
		pl_json_u64(j, "rx_invalid_descs",
			    a->rx_invalid_descs - b->rx_invalid_descs);
		pl_json_u64(j, "rx_ring_full",
			    a->rx_ring_full - b->rx_ring_full);
		pl_json_u64(j, "rx_fill_ring_empty_descs",
			    a->rx_fill_ring_empty_descs -
				    b->rx_fill_ring_empty_descs);
		pl_json_end(j);
	} else {
		pl_json_u64(j, "map_reads", rx->map_reads);
	}
	pl_json_str(j, "rx_stamps", "unavailable");
	prog_json(j, &rx->xdp);
	pl_json_end(j);
}

/* Take d off *v, as far as it goes; returns what is left of d. */
static uint64_t take(uint64_t *v, uint64_t d)
{
	uint64_t t = d < *v ? d : *v;

	*v -= t;
	return d - t;
}

/*
 * The path's loss counters (end markers lost before the first one seen are
 * in them too: the report knows how many). In native mode veth
 * counts every failed redirect in its rx_dropped as well (measured): the
 * link is a loss point only for what the socket did not count.
 */
static void add_drops(struct pl_report *r, struct xsk_rx *rx)
{
	uint64_t full = rx->xs.rx_ring_full - rx->xs0.rx_ring_full;
	uint64_t dropped = rx->xs.rx_dropped - rx->xs0.rx_dropped;
	uint64_t link = rx->link_dropped;

	if (!rx->xsk) {
		pl_report_drop(r, "rx_link_dropped", link);
		return;
	}
	if (rx->cfg->attach == ATTACH_NATIVE)
		take(&link, full + dropped);
	pl_report_drop(r, "xsk_rx_ring_full", full);
	pl_report_drop(r, "xsk_rx_dropped", dropped);
	pl_report_drop(r, "xdp_no_socket", rx->xdp.lab.no_socket);
	pl_report_drop(r, "rx_link_dropped_other", link);
}

/* The loop chosen at setup, as pl_rx_measure() runs it. */
static void xsk_loop(void *arg)
{
	struct xsk_rx *rx = arg;

	rx->rx_loop(rx);
}

/* The socket's XDP_STATISTICS, read the moment the loop ends. */
static void xsk_after_loop(void *arg)
{
	struct xsk_rx *rx = arg;

	xsk_read_stats(rx, &rx->xs);
}

/* Run the loop between two counter snapshots and report. */
static int receive_and_report(struct xsk_rx *rx, const struct xsk_cfg *c)
{
	struct pl_sysctr before, after;
	bool afxdp = rx->xsk;
	struct pl_rx_window w = { .loop = xsk_loop,
				  .after_loop = afxdp ? xsk_after_loop : NULL,
				  .arg = rx,
				  .ifname = c->rx.iface,
				  .before = &before,
				  .after = &after };
	char envbuf[32];
	struct pl_report r = {
		.tool = "pathlab-rx-xsk",
		.path = afxdp ? "afxdp" : "xdp",
		.mode = afxdp ? (rx->zerocopy ? "zerocopy" : "copy")
			      : actions[c->action],
		.gpu = "none",
		.workload = pl_workloads[c->rx.workload],
		.env = pl_rx_env(&c->rx, "unknown", envbuf, sizeof(envbuf)),
		.ifname = c->rx.iface,
		.latency_kind = "one-way",
		.copies_per_packet = afxdp && !rx->zerocopy ? 1 : 0,
		.copies_source = "by_design",
		.copies_note =
			!afxdp ? "none: the program decides in place"
			: rx->zerocopy
				? "none: the NIC writes into the UMEM"
				: "kernel copies the frame into the UMEM",
		.loss_points = 0, /* add_drops() names them */
		.stats = &rx->stats,
		.received_source = afxdp ? NULL : "xdp_map",
		.before = &before,
		.after = &after,
		.extra_json = path_json,
		.extra_arg = rx,
	};
	int err;

	err = pl_rx_measure(&c->rx, &rx->run, &w);
	if (err)
		return err;
	rx->link_dropped = after.link_rx_dropped - before.link_rx_dropped;
	if (!afxdp) {
		xdp_sync_stats(rx);
		if (c->rx.trace)
			xdp_trace_consume(rx, after.udp_no_ports -
						      before.udp_no_ports);
	}
	xdp_read_totals(rx);
	r.received_count = rx->xdp.lab.data;
	r.sent_count = rx->xdp.end_count;
	r.syscalls = rx->syscalls;
	r.wakeups = afxdp ? rx->wakeups : 0;
	add_drops(&r, rx);
	if (rx->gpu)
		gpu_xsk_report(rx, &r);
	return pl_report_emit(&r, c->rx.json, c->rx.quiet);
}

/* Set up the program and, for redirect, the socket; pick the loop. */
static int xsk_rx_setup(struct xsk_rx *rx, const struct xsk_cfg *c)
{
	int err;

	rx->cfg = c;
	rx->port = (uint16_t)c->port;
	rx->batch = c->batch;
	err = xdp_prog_setup(rx, c);
	if (err || c->action != PL_XDP_REDIRECT) {
		/* The program traces (--trace); we read it after the run. */
		rx->rx_loop = xdp_watch_loop;
		if (!err && c->rx.trace)
			xdp_trace_setup(rx, c);
		return err;
	}
	err = xsk_setup(rx, c);
	if (err) {
		xdp_prog_teardown(rx);
		return err;
	}
	rx->rx_loop = c->loop == LOOP_POLL ? poll_loop : busy_loop;
	if (c->rx.trace) {
		/* Chosen once, here: the plain loop carries no trace code. */
		rx->rx_plain = rx->rx_loop;
		rx->rx_loop = xsk_traced_loop;
		xsk_trace_setup(rx, c);
	}
	if (c->gpu && (err = gpu_xsk_setup(rx, c))) {
		xsk_teardown(rx);
		xdp_prog_teardown(rx);
	}
	return err;
}

/* Undo xsk_rx_setup(): the socket leaves the map before the program goes. */
static void xsk_rx_teardown(struct xsk_rx *rx)
{
	if (rx->gpu)
		gpu_xsk_teardown(rx);
	pl_trace_close(&rx->trace); /* a run that ended while tracing */
	if (rx->xsk)
		xsk_teardown(rx);
	xdp_prog_teardown(rx);
}

/* Say why setup failed in the words a student needs; the exit code. */
static int setup_error(const struct xsk_cfg *c, int err)
{
	if (err == -EOPNOTSUPP && c->bind == BIND_ZEROCOPY) {
		fprintf(stderr,
			"pathlab-rx-xsk: %s: zero-copy needs a NIC driver "
			"with AF_XDP zero-copy support; veth has none; use "
			"--bind copy or auto\n",
			c->rx.iface);
		return PL_EXIT_SKIP;
	}
	fprintf(stderr, "pathlab-rx-xsk: %s queue %u: %s\n", c->rx.iface,
		c->queue, strerror(-err));
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
	struct xsk_cfg c = { .rx = PL_RX_DEFAULTS,
			     .port = PL_UDP_PORT,
			     .frames = 4096,
			     .frame_size = XSK_UMEM__DEFAULT_FRAME_SIZE,
			     .ring = XSK_RING_CONS__DEFAULT_NUM_DESCS,
			     .batch = 64,
			     .bind = BIND_AUTO,
			     .need_wakeup = true };
	static struct xsk_rx rx;
	int err, wakeup = 1;
	const struct pl_opt opts[] = {
		{ "iface", PL_OPT_STR, &c.rx.iface, "IF",
		  "receiving interface (required)" },
		{ "action", PL_OPT_CHOICE, &c.action, "ACT",
		  "lab datagrams: to the socket, or XDP alone", 0, 0, actions },
		{ "attach", PL_OPT_CHOICE, &c.attach, "MODE",
		  "XDP in the driver, or generic (skb)", 0, 0, attaches },
		{ "bind", PL_OPT_CHOICE, &c.bind, "MODE",
		  "AF_XDP copy, zero-copy, or zero-copy else copy (auto)", 0, 0,
		  binds },
		{ "need-wakeup", PL_OPT_CHOICE, &wakeup, "ON",
		  "XDP_USE_NEED_WAKEUP: enter the kernel only when asked (on)",
		  0, 0, onoff },
		{ "loop", PL_OPT_CHOICE, &c.loop, "KIND",
		  "spin on the RX ring, or sleep in poll()", 0, 0, loops },
		{ "batch", PL_OPT_U32, &c.batch, "N",
		  "descriptors per RX ring peek (64)", 1, MAX_BATCH },
		{ "queue", PL_OPT_U32, &c.queue, "N", "RX queue to bind (0)", 0,
		  PL_XSKS_MAX - 1 },
		{ "frames", PL_OPT_U32, &c.frames, "N",
		  "UMEM frames, a power of two (4096)", 64, 1u << 20 },
		{ "frame-size", PL_OPT_U32, &c.frame_size, "BYTES",
		  "UMEM frame size, 2048 or 4096 (4096)", 2048, 4096 },
		{ "headroom", PL_OPT_U32, &c.headroom, "BYTES",
		  "free bytes before each frame's data (0)", 0, 1024 },
		{ "ring", PL_OPT_U32, &c.ring, "N",
		  "RX ring entries, a power of two (2048)", 64, 1u << 16 },
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
		PL_RX_OPTS(&c.rx, "datagram", "from the interface's driver"),
		{ 0 }
	};

	err = pl_opt_parse(argc, argv, opts, "--iface IF [options]", NULL);
	if (err)
		return err == PL_OPT_HELP ? PL_EXIT_OK : PL_EXIT_USAGE;
	c.need_wakeup = wakeup;
	if (!c.rx.iface || (c.frames & (c.frames - 1)) ||
	    (c.ring & (c.ring - 1)) ||
	    (c.frame_size != 2048 && c.frame_size != 4096)) {
		fprintf(stderr, "pathlab-rx-xsk: --iface is required; --frames "
				"and --ring are powers of two; --frame-size "
				"is 2048 or 4096\n");
		return PL_EXIT_USAGE;
	}
	if (c.gpu && c.action != PL_XDP_REDIRECT) {
		fprintf(stderr, "pathlab-rx-xsk: --gpu needs --action "
				"redirect: XDP alone hands nothing over\n");
		return PL_EXIT_USAGE;
	}
	if (pl_rx_trace_open("pathlab-rx-xsk", &c.rx, &rx.trace, "pkt"))
		return PL_EXIT_USAGE;
	if (pl_rx_begin("pathlab-rx-xsk", &c.rx, &rx.run, &rx.stats))
		return PL_EXIT_USAGE;
	err = xsk_rx_setup(&rx, &c);
	if (err)
		return setup_error(&c, err);
	err = receive_and_report(&rx, &c);
	xsk_rx_teardown(&rx);
	return pl_rx_end(&rx.run, &rx.stats, err);
}
