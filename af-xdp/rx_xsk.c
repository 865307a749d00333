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

/* 8< xsk-busy-loop */
/* Spin on the RX ring; enter the kernel only when it asks (need_wakeup). */
static void busy_loop(struct xsk_rx *rx)
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

/* 8< xsk-reflect */
/*
 * --reflect, the far end of the rtt workload: a good frame goes from the
 * RX ring to the TX ring in place (same UMEM address, addresses swapped,
 * UDP checksum computed afresh); the kernel sends it out of the queue it
 * came in on, and the completion ring hands the address back, for the
 * fill ring. We copy no frame and lose none: each is on exactly one ring
 * or in flight.
 */

/* Sent frames, from the completion ring back onto the fill ring. */
static void tx_reclaim(struct xsk_rx *rx)
{
	uint32_t idx_cq, idx_fq, i, n;

	n = xsk_ring_cons__peek(&rx->cq, MAX_BATCH, &idx_cq);
	if (!n)
		return;
	while (xsk_ring_prod__reserve(&rx->fq, n, &idx_fq) != n)
		rx->fill_short++;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&rx->fq, idx_fq + i) =
			*xsk_ring_cons__comp_addr(&rx->cq, idx_cq + i) &
			rx->frame_mask;
	xsk_ring_prod__submit(&rx->fq, n);
	xsk_ring_cons__release(&rx->cq, n);
	rx->tx_completed += n;
}

/*
 * Have the kernel send what is on the TX ring. In copy mode only this
 * system call sends, a limited batch per call (EAGAIN: some are left, or
 * the device was busy: the next call goes on). EBUSY: the device dropped
 * a frame; its address still comes back on the completion ring.
 */
static void tx_kick(struct xsk_rx *rx)
{
	if (rx->need_wakeup && !xsk_ring_prod__needs_wakeup(&rx->tx))
		return;
	rx->syscalls++;
	if (sendto(rx->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
	    errno == EBUSY)
		rx->tx_dropped++;
}

/* True while descriptors wait on the TX ring for the kernel to take. */
static bool tx_waiting(struct xsk_rx *rx)
{
	return xsk_prod_nb_free(&rx->tx, rx->cfg->ring) < rx->cfg->ring;
}

/* Room for n descriptors on the TX ring, after one kick if it is full. */
static bool tx_reserve(struct xsk_rx *rx, uint32_t n, uint32_t *idx)
{
	if (xsk_ring_prod__reserve(&rx->tx, n, idx) == n)
		return true;
	tx_kick(rx);
	tx_reclaim(rx);
	return xsk_ring_prod__reserve(&rx->tx, n, idx) == n;
}

/*
 * Take up to a batch off the RX ring: the good frames turned around onto
 * the TX ring, the others (and all of them when it has no room) back to
 * the fill ring; then one kick. Returns how many there were.
 */
static unsigned reflect_burst(struct xsk_rx *rx)
{
	uint32_t idx_rx, idx_tx = 0, idx_fq = 0, i, n, good = 0;
	bool ok[MAX_BATCH];
	struct pl_pkt p;
	uint64_t now;

	n = xsk_ring_cons__peek(&rx->rx, rx->batch, &idx_rx);
	if (!n)
		return 0;
	now = pl_now_ns();
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i);
		void *frame = xsk_umem__get_data(rx->area, d->addr);

		ok[i] = pl_rx_frame(&rx->stats, frame, d->len, rx->port, now,
				    &p) == PL_OK;
		if (ok[i]) {
			pl_frame_reflect(frame, &p);
			/* The sender's may be partial (veth): a whole one. */
			pl_frame_udp_csum(frame, &p);
			good++;
		}
	}
	if (good && !tx_reserve(rx, good, &idx_tx)) {
		rx->tx_no_room += good;
		good = 0;
		memset(ok, 0, n * sizeof(ok[0]));
	}
	while (n > good &&
	       xsk_ring_prod__reserve(&rx->fq, n - good, &idx_fq) != n - good)
		rx->fill_short++;
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i);

		if (ok[i])
			*xsk_ring_prod__tx_desc(&rx->tx, idx_tx++) =
				(struct xdp_desc){ .addr = d->addr,
						   .len = d->len };
		else
			*xsk_ring_prod__fill_addr(&rx->fq, idx_fq++) =
				d->addr & rx->frame_mask;
	}
	xsk_ring_prod__submit(&rx->tx, good);
	xsk_ring_prod__submit(&rx->fq, n - good);
	xsk_ring_cons__release(&rx->rx, n);
	rx->tx_queued += good;
	if (good)
		tx_kick(rx);
	return n;
}

/*
 * The reflecting loop: take the completions, reflect a batch; when the RX
 * ring is empty, kick what waits on the TX ring, else spin or sleep in
 * poll() as --loop says.
 */
static void reflect_loop(struct xsk_rx *rx)
{
	struct pollfd pfd = { .fd = rx->fd, .events = POLLIN };
	bool in_poll = rx->cfg->loop == LOOP_POLL;

	while (!pl_run_done(rx->run, &rx->stats)) {
		tx_reclaim(rx);
		if (reflect_burst(rx))
			continue;
		rx->empty++;
		if (tx_waiting(rx)) {
			tx_kick(rx);
		} else if (in_poll) {
			rx->syscalls++;
			if (poll(&pfd, 1, 1000) > 0)
				rx->wakeups++;
		} else if (xsk_ring_prod__needs_wakeup(&rx->fq)) {
			recvfrom(rx->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
			rx->syscalls++;
		}
	}
}
/* >8 xsk-reflect */

/* After the loop: send what still waits on the TX ring, take it back. */
static void tx_flush(struct xsk_rx *rx)
{
	unsigned i;

	for (i = 0; i < 64 && tx_waiting(rx); i++)
		tx_kick(rx);
	tx_reclaim(rx);
}

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

	while (!pl_run_done(rx->run, &rx->stats)) {
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

/* --reflect: what went through the TX ring. */
static void tx_json(struct pl_json *j, const struct xsk_rx *rx)
{
	pl_json_obj(j, "tx");
	pl_json_u64(j, "tx_ring", rx->cfg->ring);
	pl_json_u64(j, "queued", rx->tx_queued);
	pl_json_u64(j, "completed", rx->tx_completed);
	pl_json_u64(j, "ring_full", rx->tx_no_room);
	pl_json_u64(j, "send_dropped", rx->tx_dropped);
	pl_json_u64(j, "invalid_descs",
		    rx->xs.tx_invalid_descs - rx->xs0.tx_invalid_descs);
	pl_json_end(j);
}

/*
 * The path's own figures, nested under "afxdp" or "xdp" in the JSON; with
 * many queues, the first queue's counters are the sums (fold_queue()).
 */
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
		if (rx->cfg->rx.reflect)
			tx_json(j, rx);
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

/* Queue q's loop, as pl_rx_measure() runs it on queue q's thread. */
static void xsk_queue_loop(void *arg, unsigned q)
{
	struct xsk_rx *rxq = arg;

	rxq[q].rx_loop(&rxq[q]);
}

/*
 * The moment the loops end: send the reflections still on a TX ring, then
 * read every socket's XDP_STATISTICS.
 */
static void xsk_after_loop(void *arg)
{
	struct xsk_rx *rxq = arg;
	unsigned q, n = pl_rx_queues(&rxq[0].cfg->rx);

	for (q = 0; q < n; q++) {
		if (rxq[q].cfg->rx.reflect)
			tx_flush(&rxq[q]);
		xsk_read_stats(&rxq[q], &rxq[q].xs);
	}
}

/* Add what b counted over the run (after - before) to to. */
static void xs_add(struct xdp_statistics *to, const struct xsk_rx *b)
{
	const struct xdp_statistics *x = &b->xs, *x0 = &b->xs0;

	to->rx_dropped += x->rx_dropped - x0->rx_dropped;
	to->rx_invalid_descs += x->rx_invalid_descs - x0->rx_invalid_descs;
	to->tx_invalid_descs += x->tx_invalid_descs - x0->tx_invalid_descs;
	to->rx_ring_full += x->rx_ring_full - x0->rx_ring_full;
	to->rx_fill_ring_empty_descs +=
		x->rx_fill_ring_empty_descs - x0->rx_fill_ring_empty_descs;
	to->tx_ring_empty_descs +=
		x->tx_ring_empty_descs - x0->tx_ring_empty_descs;
}

/* Add queue b's loop and socket counters to a's. */
static void fold_queue(struct xsk_rx *a, const struct xsk_rx *b)
{
	a->syscalls += b->syscalls;
	a->wakeups += b->wakeups;
	a->empty += b->empty;
	a->fill_short += b->fill_short;
	a->tx_queued += b->tx_queued;
	a->tx_no_room += b->tx_no_room;
	a->tx_dropped += b->tx_dropped;
	a->tx_completed += b->tx_completed;
	xs_add(&a->xs, b);
}

/*
 * A run on many queues: the merged stats for the totals, one report entry
 * per queue (id: the device's RX queue), then every queue's counters
 * folded into the first's, which the path's JSON and drops read.
 */
static void queues_report(struct xsk_rx *rxq, const struct xsk_cfg *c,
			  const struct pl_rx_window *w,
			  struct pl_rx_stats *total, struct pl_report_queue *rq,
			  struct pl_report *r)
{
	unsigned q, n = pl_rx_queues(&c->rx);

	pl_rx_merge_queues(&c->rx, w, total);
	r->stats = total;
	r->queues = rq;
	r->nqueues = n;
	for (q = 0; q < n; q++)
		rq[q] = (struct pl_report_queue){
			.id = rxq[q].queue,
			.cpu = pl_rx_queue_cpu(&c->rx, q),
			.stats = &rxq[q].stats,
			.syscalls = rxq[q].syscalls,
			.wakeups = rxq[q].wakeups,
		};
	for (q = 1; q < n; q++)
		fold_queue(&rxq[0], &rxq[q]);
}

/*
 * --reflect: sent back is what went on the TX ring less what the device
 * dropped or the kernel found invalid; those and the frames the full TX
 * ring had no room for are the errors.
 */
static void reflect_report(const struct xsk_rx *rx, struct pl_report *r)
{
	uint64_t invalid = rx->xs.tx_invalid_descs - rx->xs0.tx_invalid_descs;
	uint64_t lost = rx->tx_dropped + invalid;

	r->reflect = true;
	r->reflected = rx->tx_queued > lost ? rx->tx_queued - lost : 0;
	r->reflect_errors = rx->tx_no_room + lost;
}

/* Run the loop (or the queues' loops) between two snapshots and report. */
static int receive_and_report(struct xsk_rx *rxq, const struct xsk_cfg *c,
			      struct pl_rx_stats *total)
{
	struct xsk_rx *rx = &rxq[0];
	struct pl_report_queue rq[PL_MAX_QUEUES];
	struct pl_sysctr before, after;
	bool afxdp = rx->xsk;
	struct pl_rx_window w = { .loop = xsk_loop,
				  .queue_loop = xsk_queue_loop,
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
	unsigned q;
	int err;

	for (q = 0; q < pl_rx_queues(&c->rx); q++)
		w.queue_stats[q] = &rxq[q].stats;
	/* Time the turns of the spinning loops (not poll(), not XDP alone) */
	rx->run->polls = c->loop != LOOP_POLL && c->action == PL_XDP_REDIRECT;
	err = pl_rx_measure(&c->rx, rx->run, &w);
	if (err)
		return err;
	if (pl_rx_queues(&c->rx) > 1)
		queues_report(rxq, c, &w, total, rq, &r);
	if (c->rx.reflect)
		reflect_report(rx, &r);
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
	err = xsk_setup(rx, c);
	if (err) {
		if (q)
			pl_stats_free(&rx->stats);
		return err;
	}
	if (c->rx.reflect)
		rx->rx_loop = reflect_loop;
	else
		rx->rx_loop = c->loop == LOOP_POLL ? poll_loop : busy_loop;
	return 0;
}
/* >8 xsk-queues */

/* Undo queue_socket_setup(): out of the map, socket and UMEM gone. */
static void queue_socket_teardown(struct xsk_rx *rxq, unsigned q)
{
	xsk_teardown(&rxq[q]);
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
 * Set up the program and, for redirect, a socket per queue; pick the
 * loops. On failure *where is the RX queue it concerns.
 */
static int xsk_rx_setup(struct xsk_rx *rxq, const struct xsk_cfg *c,
			unsigned *where)
{
	struct xsk_rx *rx = &rxq[0];
	int err;

	rx->cfg = c;
	rx->port = (uint16_t)c->port;
	rx->batch = c->batch;
	*where = c->queue;
	err = xdp_prog_setup(rx, c);
	if (err || c->action != PL_XDP_REDIRECT) {
		/* The program traces (--trace); we read it after the run. */
		rx->rx_loop = xdp_watch_loop;
		if (!err && c->rx.trace)
			xdp_trace_setup(rx, c);
		return err;
	}
	err = sockets_setup(rxq, c, where);
	if (err) {
		xdp_prog_teardown(rx);
		return err;
	}
	if (c->rx.trace) {
		/* Chosen once, here: the plain loop carries no trace code. */
		rx->rx_plain = rx->rx_loop;
		rx->rx_loop = xsk_traced_loop;
		xsk_trace_setup(rx, c);
	}
	if (c->gpu && (err = gpu_xsk_setup(rx, c))) {
		sockets_teardown(rxq, c);
		xdp_prog_teardown(rx);
	}
	return err;
}

/* Undo xsk_rx_setup(): the sockets leave the map before the program goes. */
static void xsk_rx_teardown(struct xsk_rx *rxq, const struct xsk_cfg *c)
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
	if (!check_cfg(&c) || !check_queues(&c))
		return PL_EXIT_USAGE;
	if (pl_rx_trace_open("pathlab-rx-xsk", &c.rx, &rx->trace, "pkt"))
		return PL_EXIT_USAGE;
	rx->run = &run;
	if (pl_rx_begin("pathlab-rx-xsk", &c.rx, &run, &rx->stats))
		return PL_EXIT_USAGE;
	pl_stats_init(&total);
	err = xsk_rx_setup(rxq, &c, &where);
	if (err)
		return setup_error(&c, where, err);
	err = receive_and_report(rxq, &c, &total);
	xsk_rx_teardown(rxq, &c);
	pl_stats_free(&total);
	return pl_rx_end(&run, &rx->stats, err);
}
