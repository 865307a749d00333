// SPDX-License-Identifier: MIT
/*
 * The XDP / AF_XDP receiver's report, from what the run left: the run's
 * figures, the path's own under "afxdp" or "xdp" in the JSON.
 */
#include "rx_xsk.h"
#include "report.h"
#include "rx.h"
#include "sysctr.h"

static const char *const verdict_names[PL_XDP_VERDICTS] = { "aborted", "drop",
							    "pass", "tx",
							    "redirect" };

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
	pl_json_obj(j, "passed_by_reason");
	for (i = 0; i < PL_REASON_MAX; i++)
		pl_json_u64(j, pl_reason_name(i), t->passed[i]);
	pl_json_end(j);
	pl_json_u64(j, "lab_data", t->lab.data);
	pl_json_u64(j, "lab_end_markers", t->lab.end_markers);
	pl_json_u64(j, "lab_no_socket", t->lab.no_socket);
	pl_json_u64(j, "sent_by_end_markers", t->end_count);
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
	pl_json_str(j, "attach", xsk_attaches[rx->cfg->attach]);
	if (rx->xsk) {
		pl_json_str(j, "bind_requested", xsk_binds[rx->cfg->bind]);
		pl_json_str(j, "bind", rx->zerocopy ? "zerocopy" : "copy");
		pl_json_bool(j, "need_wakeup", rx->need_wakeup);
		pl_json_str(j, "loop", xsk_loops[rx->cfg->loop]);
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
		pl_report_link_drop(r, "rx_link_dropped", link);
		return;
	}
	if (rx->cfg->attach == ATTACH_NATIVE)
		take(&link, full + dropped);
	pl_report_drop(r, "xsk_rx_ring_full", full);
	pl_report_drop(r, "xsk_rx_dropped", dropped);
	pl_report_drop(r, "xdp_no_socket", rx->xdp.lab.no_socket);
	pl_report_link_drop(r, "rx_link_dropped_other", link);
}

/*
 * What the XDP program passed on to the kernel that was not ours, by
 * reason (user space never sees it): bad or other in s, and the count the
 * report keeps the link's drops of apart from the loss.
 */
static void add_passed(struct pl_rx_stats *s, const struct xdp_totals *t,
		       struct pl_report *r)
{
	unsigned i;

	r->not_ours_set = true;
	r->not_ours_source = "xdp_pass_by_reason";
	for (i = PL_OK + 1; i < PL_REASON_MAX; i++) {
		pl_stats_reject_n(s, i, t->passed[i]);
		r->not_ours_to_kernel += t->passed[i];
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
static void queues_report(struct xsk_rx *rxq, const struct cfg *c,
			  const struct pl_rx_window *w,
			  struct pl_rx_stats *total, struct pl_report_queue *rq,
			  struct pl_report *r)
{
	unsigned q, n = pl_rx_queues(&c->rx);

	pl_rx_report_queues(&c->rx, w, total, rq, r);
	for (q = 0; q < n; q++) {
		rq[q].id = rxq[q].queue;
		rq[q].syscalls = rxq[q].syscalls;
		rq[q].wakeups = rxq[q].wakeups;
	}
	for (q = 1; q < n; q++)
		fold_queue(&rxq[0], &rxq[q]);
}

/* Write the report of the run measured in w; 0 or -errno. */
int xsk_report(struct xsk_rx *rxq, const struct cfg *c,
	       const struct pl_rx_window *w, struct pl_rx_stats *total)
{
	struct xsk_rx *rx = &rxq[0];
	struct pl_report_queue rq[PL_MAX_QUEUES];
	const struct pl_sysctr *before = w->before, *after = w->after;
	bool afxdp = rx->xsk;
	char envbuf[32];
	struct pl_report r = {
		.tool = "pathlab-rx-xsk",
		.path = afxdp ? "afxdp" : "xdp",
		.mode = afxdp ? (rx->zerocopy ? "zerocopy" : "copy")
			      : xsk_actions[c->action],
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
		.before = before,
		.after = after,
		.extra_json = path_json,
		.extra_arg = rx,
	};
	if (pl_rx_queues(&c->rx) > 1)
		queues_report(rxq, c, w, total, rq, &r);
	if (c->rx.reflect)
		reflect_report(rx, &r);
	rx->link_dropped = after->link_rx_dropped - before->link_rx_dropped;
	if (!afxdp) {
		xdp_sync_stats(rx);
		if (c->rx.trace)
			xdp_trace_consume(rx, after->udp_no_ports -
						      before->udp_no_ports);
	}
	xdp_read_totals(rx);
	add_passed(pl_rx_queues(&c->rx) > 1 ? total : &rx->stats, &rx->xdp, &r);
	r.received_count = rx->xdp.lab.data;
	r.sent_count = rx->xdp.end_count;
	r.syscalls = rx->syscalls;
	r.wakeups = afxdp ? rx->wakeups : 0;
	r.busy_poll = rx->busy_poll;
	r.busy_poll_napi_id = rx->busy_poll ? pl_xsk_napi_id() : 0;
	add_drops(&r, rx);
	if (rx->gpu)
		gpu_xsk_report(rx, &r);
	return pl_report_emit(&r, c->rx.json, c->rx.quiet);
}
