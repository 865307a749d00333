/* SPDX-License-Identifier: MIT */
#include "report.h"
#include "budget.h"
#include "clock.h"
#include "out.h"

#include <errno.h>
#include <string.h>

/* Everything the JSON and the table show, derived once from the inputs. */
struct figures {
	struct pl_sysctr d; /* counter deltas over the run */
	struct pl_seq_totals t;
	uint64_t sent, received, lost, drops_total;
	const char *sent_source;
	int64_t unattributed;
	struct pl_drop drops[PL_REPORT_MAX_DROPS + 3];
	unsigned ndrops;
	/* Frames not ours on to the kernel, and the link drops that were. */
	uint64_t not_ours, not_ours_dropped;
	const char *not_ours_source;
	double duration_s, window_s, pps, gbps;
	unsigned payload, frame;
	double hz, busy_s, cyc_rx, cyc_sys;
	/* The receive cost on the receiving cores (receive_figures()). */
	double rcv_kernel, rcv_app, busy_share;
	unsigned napi_threads;
	const char *kernel_source;
	/* Where the receive work ran, and how long it waited for a CPU. */
	const char *placement;
	char placement_label[64];
	int napi_cpu, receiver_cpu;
	uint64_t napi_wait_ns, receiver_wait_ns;
	double napi_wait_share, receiver_wait_share;
	bool contended;
	struct pl_budget b10, b100;
};

/* A run whose receive threads or NAPI threads waited longer than this
 * share of the window for a CPU is "contended". */
#define PL_CONTENDED_SHARE 0.10

void pl_report_drop(struct pl_report *r, const char *name, uint64_t count)
{
	if (r->ndrops < PL_REPORT_MAX_DROPS)
		r->drops[r->ndrops++] = (struct pl_drop){ name, count, false };
}

void pl_report_link_drop(struct pl_report *r, const char *name, uint64_t count)
{
	if (r->ndrops < PL_REPORT_MAX_DROPS)
		r->drops[r->ndrops++] = (struct pl_drop){ name, count, true };
}

/* Per packet, or 0 when nothing was received. */
static double per_pkt(double v, uint64_t n)
{
	return n ? v / (double)n : 0;
}

/*
 * Append a named loss counter to the figures. One that is the link's
 * (link) counted the frames not ours that the kernel dropped too: those
 * go to not_ours_dropped, as many as there were, and the rest is ours.
 */
static void add_drop(struct figures *f, const char *name, uint64_t n, bool link)
{
	uint64_t theirs = 0;

	if (link) {
		theirs = f->not_ours - f->not_ours_dropped;
		theirs = theirs < n ? theirs : n;
		f->not_ours_dropped += theirs;
	}
	f->drops[f->ndrops++] = (struct pl_drop){ name, n - theirs, link };
	f->drops_total += n - theirs;
}

/*
 * The frames not ours that went on into the kernel: as the path counted
 * them, else the link's frames that never reached IPv4 (ours all do).
 */
static void not_ours_figures(struct figures *f, const struct pl_report *r)
{
	if (r->not_ours_set) {
		f->not_ours = r->not_ours_to_kernel;
		f->not_ours_source =
			r->not_ours_source ? r->not_ours_source : "path";
		return;
	}
	f->not_ours = f->d.link_rx_packets > f->d.ip_in_receives
			      ? f->d.link_rx_packets - f->d.ip_in_receives
			      : 0;
	f->not_ours_source = "link_rx_packets_minus_ip_in_receives";
}

/* Who sent how many: the end marker when every flow sent one. */
static void sent_figures(struct figures *f, const struct pl_report *r)
{
	const struct pl_seq_totals *t = &f->t;

	f->received = t->unique;
	if (r->received_source) {
		/* Counted where the packets went (e.g. an XDP map). */
		f->received = r->received_count;
		f->sent = r->sent_count ? r->sent_count : r->received_count;
		f->sent_source = r->sent_count ? "end_marker" : "received";
	} else if (t->flows && t->flows_with_end == t->flows) {
		f->sent = t->end_count;
		f->sent_source = "end_marker";
	} else {
		f->sent = t->unique + t->missing;
		f->sent_source = "sequence";
	}
	f->lost = f->sent > f->received ? f->sent - f->received : 0;
}

/* Loss points: the system's counters this path names, then its own. */
static void drop_figures(struct figures *f, const struct pl_report *r)
{
	unsigned i;

	not_ours_figures(f, r);
	if (r->loss_points & PL_LOSS_LINK)
		add_drop(f, "rx_link_dropped", f->d.link_rx_dropped, true);
	if (r->loss_points & PL_LOSS_BACKLOG)
		add_drop(f, "rx_backlog_dropped", f->d.softnet_dropped, false);
	if (r->loss_points & PL_LOSS_SOCKET)
		add_drop(f, "rx_udp_rcvbuf_errors", f->d.udp_rcvbuf_errors,
			 false);
	for (i = 0; i < r->ndrops; i++)
		add_drop(f, r->drops[i].name, r->drops[i].count,
			 r->drops[i].link);
	/*
	 * The loss counters also count the end markers lost before the first
	 * one seen, where lost counts data only.
	 */
	f->unattributed =
		(int64_t)(f->lost + f->t.end_lost) - (int64_t)f->drops_total;
}

/*
 * The receive rate over the train: from the first datagram to the end
 * marker, which the sender sends right after its last datagram. Without
 * it, to the last datagram. (Stamps are taken per burst, so a few bursts
 * alone would give a rate from a few microseconds.)
 */
static void rate_figures(struct figures *f, const struct pl_rx_stats *s)
{
	uint64_t end = s->end_ns > s->last_ns ? s->end_ns : s->last_ns;

	f->duration_s = s->packets && end > s->first_ns
				? (double)(end - s->first_ns) / 1e9
				: f->window_s;
	if (!s->packets || end <= s->first_ns)
		return;
	if (s->end_ns > s->last_ns)
		f->pps = (double)s->packets / f->duration_s;
	else if (s->packets > 1)
		f->pps = (double)(s->packets - 1) / f->duration_s;
}

/*
 * The receive cost: the link's NAPI threads' run time (the kernel's part)
 * plus the receive loops' useful time (the application's part), in TSC
 * cycles per packet received. A loop's useful time is its threads' run
 * time times the share of its turns' TSC time that brought packets: a
 * blocking loop's turns nearly all do, a busy poller's empty polls do not.
 * Scaling the run time by a share, rather than adding up busy turns, keeps
 * out what another task on the same core did while it preempted the loop.
 */
static void receive_figures(struct figures *f, const struct pl_rx_stats *s)
{
	const struct pl_sysctr *d = &f->d;
	uint64_t napi_ns = 0, turns = s->busy_tsc + s->idle_tsc;
	unsigned i;

	for (i = 0; i < d->napi_count; i++) {
		if (!d->napi[i].pid)
			continue;
		f->napi_threads++;
		napi_ns += d->napi[i].run_ns;
	}
	f->kernel_source = d->napi_err	      ? "unavailable"
			   : !d->napi_count   ? "no_napi"
			   : !f->napi_threads ? "napi_not_threaded"
			   : d->napi_changed  ? "napi_threads_changed"
					      : "napi_threads";
	f->busy_share = turns ? (double)s->busy_tsc / (double)turns : 1;
	f->rcv_kernel = per_pkt((double)napi_ns / 1e9 * f->hz, f->received);
	f->rcv_app =
		per_pkt((double)s->loop_run_ns / 1e9 * f->busy_share * f->hz,
			f->received);
}

/*
 * Where the kernel's receive work ran (run.placement): in the receiver's
 * own calls (preferred busy polling, with the link's deferral knobs set so
 * that NAPI stays the poller's), in a NAPI thread on the receiver's CPU or
 * on another, or in softirq. And how long the receive loops and the NAPI
 * threads waited for a CPU (schedstat run_delay), as a share of the window
 * per thread: above PL_CONTENDED_SHARE the run is contended.
 */
static void placement_figures(struct figures *f, const struct pl_report *r)
{
	const struct pl_sysctr *d = &f->d;
	const struct pl_rx_stats *s = r->stats;
	double window_ns = (double)d->mono_ns;
	bool deferred = d->napi_defer_hard_irqs && d->gro_flush_timeout_ns;
	unsigned i, loops = s->loop_threads ? s->loop_threads : 1;

	f->napi_cpu = -1;
	for (i = 0; i < d->napi_count; i++) {
		if (!d->napi[i].pid)
			continue;
		if (f->napi_cpu < 0)
			f->napi_cpu = d->napi[i].cpu;
		f->napi_wait_ns += d->napi[i].wait_ns;
	}
	f->receiver_cpu = s->loop_cpu;
	f->receiver_wait_ns = s->loop_wait_ns;
	if (window_ns > 0) {
		f->receiver_wait_share =
			(double)f->receiver_wait_ns / (window_ns * loops);
		if (f->napi_threads)
			f->napi_wait_share = (double)f->napi_wait_ns /
					     (window_ns * f->napi_threads);
	}
	f->contended = f->receiver_wait_share > PL_CONTENDED_SHARE ||
		       f->napi_wait_share > PL_CONTENDED_SHARE;
	if (r->busy_poll && r->busy_poll_napi_id && deferred) {
		f->placement = "busy-poll";
		snprintf(f->placement_label, sizeof(f->placement_label),
			 "busy poll");
	} else if (d->napi_err || !d->napi_count) {
		f->placement = "none";
		snprintf(f->placement_label, sizeof(f->placement_label),
			 "no NAPI seen");
	} else if (!f->napi_threads) {
		f->placement = "softirq";
		snprintf(f->placement_label, sizeof(f->placement_label),
			 "NAPI in softirq");
	} else if (f->napi_cpu == f->receiver_cpu) {
		f->placement = "rx-core";
		snprintf(f->placement_label, sizeof(f->placement_label),
			 "NAPI on rx core");
	} else {
		f->placement = "other-core";
		snprintf(f->placement_label, sizeof(f->placement_label),
			 "NAPI on cpu %d", f->napi_cpu);
	}
	if (r->busy_poll && strcmp(f->placement, "busy-poll"))
		strncat(f->placement_label,
			!r->busy_poll_napi_id ? ", busy poll idle: no NAPI id"
					      : ", busy poll not deferred",
			sizeof(f->placement_label) -
				strlen(f->placement_label) - 1);
}

/* The placement and the waits (placement_figures()) in the JSON. */
static void json_placement(struct pl_json *j, const struct figures *f,
			   const struct pl_report *r)
{
	pl_json_obj(j, "placement");
	pl_json_str(j, "napi", f->placement);
	pl_json_str(j, "label", f->placement_label);
	pl_json_i64(j, "napi_cpu", f->napi_cpu);
	pl_json_i64(j, "receiver_cpu", f->receiver_cpu);
	pl_json_bool(j, "busy_poll", r->busy_poll);
	pl_json_u64(j, "busy_poll_napi_id", r->busy_poll_napi_id);
	pl_json_u64(j, "napi_defer_hard_irqs", f->d.napi_defer_hard_irqs);
	pl_json_u64(j, "gro_flush_timeout_ns", f->d.gro_flush_timeout_ns);
	pl_json_end(j);
	pl_json_obj(j, "run_delay");
	pl_json_u64(j, "receiver_ns", f->receiver_wait_ns);
	pl_json_u64(j, "napi_ns", f->napi_wait_ns);
	pl_json_dbl(j, "receiver_share", f->receiver_wait_share);
	pl_json_dbl(j, "napi_share", f->napi_wait_share);
	pl_json_dbl(j, "receiver_per_packet_ns",
		    per_pkt((double)f->receiver_wait_ns, f->received));
	pl_json_dbl(j, "napi_per_packet_ns",
		    per_pkt((double)f->napi_wait_ns, f->received));
	pl_json_dbl(j, "contended_above_share", PL_CONTENDED_SHARE);
	pl_json_end(j);
	pl_json_bool(j, "contended", f->contended);
}

/* Derive every figure of the report once. */
static void figures(const struct pl_report *r, struct figures *f)
{
	const struct pl_rx_stats *s = r->stats;
	const struct pl_tsc *tsc = pl_tsc();

	memset(f, 0, sizeof(*f));
	pl_sysctr_delta(r->before, r->after, &f->d);
	pl_stats_totals(s, &f->t);
	sent_figures(f, r);
	drop_figures(f, r);
	f->payload = s->payload_len;
	f->frame = f->payload ? pl_frame_for_payload(f->payload, false) : 0;
	f->window_s = (double)f->d.mono_ns / 1e9;
	rate_figures(f, s);
	f->gbps = f->pps * f->frame * 8 / 1e9;
	f->hz = tsc->hz;
	f->busy_s = pl_sysctr_busy_s(&f->d);
	f->cyc_rx =
		per_pkt((double)f->d.self_run_ns / 1e9 * f->hz, f->received);
	f->cyc_sys = per_pkt(f->busy_s * f->hz, f->received);
	receive_figures(f, s);
	placement_figures(f, r);
	pl_budget_compute(10000000000ull, f->frame ? f->frame : 64, f->hz,
			  &f->b10);
	pl_budget_compute(100000000000ull, f->frame ? f->frame : 64, f->hz,
			  &f->b100);
}

/* latency_ns and its split: percentiles of one histogram. */
static void json_hist(struct pl_json *j, const char *key, const char *kind,
		      const struct pl_hist *h)
{
	pl_json_obj(j, key);
	if (kind)
		pl_json_str(j, "kind", kind);
	pl_json_str(j, "clock", "CLOCK_MONOTONIC");
	pl_json_u64(j, "count", h->count);
	pl_json_u64(j, "min", h->count ? h->min : 0);
	pl_json_dbl(j, "mean", pl_hist_mean(h));
	pl_json_u64(j, "p50", pl_hist_percentile(h, 50));
	pl_json_u64(j, "p90", pl_hist_percentile(h, 90));
	pl_json_u64(j, "p99", pl_hist_percentile(h, 99));
	pl_json_u64(j, "p999", pl_hist_percentile(h, 99.9));
	pl_json_u64(j, "p9999", pl_hist_percentile(h, 99.99));
	pl_json_u64(j, "max", h->max);
	pl_json_end(j);
}

/* Identity, counts and loss accounting. */
static void json_counts(struct pl_json *j, const struct pl_report *r,
			const struct figures *f)
{
	const struct pl_rx_stats *s = r->stats;
	unsigned i;

	pl_json_u64(j, "sent", f->sent);
	pl_json_str(j, "sent_source", f->sent_source);
	pl_json_u64(j, "received", f->received);
	pl_json_str(j, "received_source",
		    r->received_source ? r->received_source : "sequence");
	pl_json_u64(j, "lost", f->lost);
	pl_json_u64(j, "bad", s->bad_total);
	pl_json_obj(j, "bad_by_reason");
	for (i = PL_BAD_ETH_TRUNC; i < PL_REASON_MAX; i++)
		pl_json_u64(j, pl_reason_name(i), s->bad[i]);
	pl_json_end(j);
	pl_json_u64(j, "other", s->other);
	pl_json_u64(j, "duplicates", f->t.dups);
	pl_json_u64(j, "reordered", f->t.reordered);
	pl_json_u64(j, "end_markers", s->end_markers);
	pl_json_u64(j, "end_markers_lost", f->t.end_lost);
	pl_json_obj(j, "drops");
	for (i = 0; i < f->ndrops; i++)
		pl_json_u64(j, f->drops[i].name, f->drops[i].count);
	pl_json_end(j);
	pl_json_i64(j, "unattributed", f->unattributed);
	pl_json_obj(j, "not_ours");
	pl_json_u64(j, "to_kernel", f->not_ours);
	pl_json_str(j, "to_kernel_source", f->not_ours_source);
	pl_json_u64(j, "link_dropped", f->not_ours_dropped);
	pl_json_end(j);
	pl_json_dbl(j, "duration_s", f->duration_s);
	pl_json_dbl(j, "window_s", f->window_s);
	pl_json_dbl(j, "pps", f->pps);
	pl_json_dbl(j, "gbps", f->gbps);
}

/*
 * The receive rate of one queue over its own train: first datagram to its
 * end marker (or last datagram), as rate_figures() does for the run.
 */
static double queue_pps(const struct pl_rx_stats *s)
{
	uint64_t end = s->end_ns > s->last_ns ? s->end_ns : s->last_ns;

	if (s->packets < 2 || end <= s->first_ns)
		return 0;
	return (double)(s->packets - (s->end_ns > s->last_ns ? 0 : 1)) /
	       ((double)(end - s->first_ns) / 1e9);
}

/* queue_count, and with many queues what each one received. */
static void json_queues(struct pl_json *j, const struct pl_report *r,
			const struct figures *f)
{
	const struct pl_report_queue *q;
	struct pl_seq_totals t;
	unsigned i;

	pl_json_u64(j, "queue_count", r->nqueues ? r->nqueues : 1);
	if (!r->nqueues)
		return;
	pl_json_arr(j, "queues");
	for (i = 0; i < r->nqueues; i++) {
		q = &r->queues[i];
		pl_stats_totals(q->stats, &t);
		pl_json_obj(j, NULL);
		pl_json_u64(j, "queue", q->id);
		pl_json_i64(j, "cpu", q->cpu == ~0u ? -1 : (int64_t)q->cpu);
		pl_json_u64(j, "received", t.unique);
		pl_json_u64(j, "packets", q->stats->packets);
		pl_json_u64(j, "bytes", q->stats->bytes);
		pl_json_u64(j, "bad", q->stats->bad_total);
		pl_json_u64(j, "other", q->stats->other);
		pl_json_u64(j, "missing", t.missing);
		pl_json_u64(j, "flows", t.flows);
		pl_json_u64(j, "end_markers", q->stats->end_markers);
		pl_json_dbl(j, "share", per_pkt((double)t.unique, f->received));
		pl_json_dbl(j, "pps", queue_pps(q->stats));
		pl_json_u64(j, "syscalls", q->syscalls);
		pl_json_u64(j, "wakeups", q->wakeups);
		pl_json_end(j);
	}
	pl_json_endarr(j);
}

/* CPU time, cycles and the other per-packet costs. */
static void json_costs(struct pl_json *j, const struct pl_report *r,
		       const struct figures *f)
{
	const struct pl_sysctr *d = &f->d;
	uint64_t n = f->received;

	pl_json_obj(j, "cpu");
	pl_json_dbl(j, "rx_user_s", d->self_user_s);
	pl_json_dbl(j, "rx_sys_s", d->self_sys_s);
	pl_json_dbl(j, "rx_run_s", (double)d->self_run_ns / 1e9);
	pl_json_dbl(j, "all_user_s", d->all.user_s + d->all.nice_s);
	pl_json_dbl(j, "all_sys_s", d->all.sys_s);
	pl_json_dbl(j, "all_softirq_s", d->all.softirq_s);
	pl_json_dbl(j, "all_irq_s", d->all.irq_s);
	pl_json_dbl(j, "all_busy_s", f->busy_s);
	pl_json_dbl(j, "all_steal_s", d->all.steal_s);
	pl_json_u64(j, "cpus", d->ncpus);
	pl_json_end(j);
	pl_json_obj(j, "cycles_per_packet");
	pl_json_dbl(j, "receiver", f->cyc_rx);
	pl_json_dbl(j, "system", f->cyc_sys);
	pl_json_end(j);
	pl_json_str(j, "cycles_source", "cpu_time_x_tsc");
	pl_json_dbl(j, "syscalls_per_packet", per_pkt((double)r->syscalls, n));
	pl_json_u64(j, "syscalls", r->syscalls);
	pl_json_dbl(j, "copies_per_packet", r->copies_per_packet);
	pl_json_str(j, "copies_source", r->copies_source);
	pl_json_str(j, "copies_note", r->copies_note ? r->copies_note : "");
	pl_json_dbl(j, "wakeups_per_packet", per_pkt((double)r->wakeups, n));
	pl_json_dbl(j, "softirqs_per_packet",
		    per_pkt((double)d->net_rx_softirqs, n));
	pl_json_dbl(j, "hw_irqs_per_packet", per_pkt((double)d->link_irqs, n));
	pl_json_str(j, "hw_irqs_source",
		    d->link_has_irqs ? "/proc/interrupts"
		    : r->env && !strncmp(r->env, "veth", 4)
			    ? "none on veth"
			    : "no irq line names the link");
	pl_json_u64(j, "ctx_switches", d->self_nvcsw + d->self_nivcsw);
	pl_json_u64(j, "ctx_switches_voluntary", d->self_nvcsw);
}

/* True when the kernel's part of the receive cost was measured. */
static bool kernel_measured(const struct figures *f)
{
	return !strcmp(f->kernel_source, "napi_threads") ||
	       !strcmp(f->kernel_source, "napi_threads_changed");
}

/* What the kernel's part of the receive cost stands on, in words. */
static const char *kernel_note(const struct figures *f)
{
	if (!strcmp(f->kernel_source, "napi_threads"))
		return "the link's threaded NAPI: driver, XDP, GRO, taps, "
		       "IP and UDP, on the CPUs the threads ran on";
	if (!strcmp(f->kernel_source, "napi_not_threaded"))
		return "not measured: NAPI runs in softirq context, on "
		       "whichever CPU took the interrupt (echo 1 > "
		       "/sys/class/net/IF/threaded to measure it)";
	if (!strcmp(f->kernel_source, "no_napi"))
		return "not measured: the link has no NAPI instance (veth "
		       "without GRO or XDP does its receive work on the "
		       "sender's CPU)";
	if (!strcmp(f->kernel_source, "napi_threads_changed"))
		return "partly measured: a NAPI thread came or went during "
		       "the run";
	return "not measured: no interface, or a kernel without netdev "
	       "netlink NAPI_GET";
}

/*
 * receive_cycles_per_packet, the path's own cost on the receiving cores,
 * and where the receive work ran: the NAPI threads and NET_RX by CPU.
 */
static void json_receive(struct pl_json *j, const struct pl_rx_stats *s,
			 const struct figures *f)
{
	const struct pl_sysctr *d = &f->d;
	unsigned i,
		ncpu = d->ncpus < PL_SYSCTR_CPUS ? d->ncpus : PL_SYSCTR_CPUS;

	pl_json_obj(j, "receive_cycles_per_packet");
	pl_json_dbl(j, "total", f->rcv_kernel + f->rcv_app);
	pl_json_dbl(j, "kernel", f->rcv_kernel);
	pl_json_dbl(j, "app", f->rcv_app);
	pl_json_str(j, "kernel_source", f->kernel_source);
	pl_json_str(j, "kernel_note", kernel_note(f));
	pl_json_str(j, "app_source",
		    s->busy_tsc + s->idle_tsc ? "loop_run_time_x_busy_share"
					      : "loop_run_time");
	pl_json_dbl(j, "app_busy_share", f->busy_share);
	pl_json_u64(j, "loop_threads", s->loop_threads);
	pl_json_dbl(j, "loop_run_s", (double)s->loop_run_ns / 1e9);
	pl_json_u64(j, "napi_threads", f->napi_threads);
	pl_json_str(j, "napi_found_by",
		    d->napi_by_name ? "thread_name" : "netdev_netlink");
	pl_json_end(j);
	pl_json_arr(j, "napi");
	for (i = 0; i < d->napi_count; i++) {
		pl_json_obj(j, NULL);
		pl_json_u64(j, "id", d->napi[i].id);
		pl_json_i64(j, "pid", d->napi[i].pid);
		pl_json_i64(j, "cpu", d->napi[i].cpu);
		pl_json_dbl(j, "run_s", (double)d->napi[i].run_ns / 1e9);
		pl_json_dbl(j, "wait_s", (double)d->napi[i].wait_ns / 1e9);
		pl_json_end(j);
	}
	pl_json_endarr(j);
	pl_json_arr(j, "net_rx_softirqs_by_cpu");
	for (i = 0; i < ncpu; i++)
		pl_json_u64(j, NULL, d->net_rx_softirqs_cpu[i]);
	pl_json_endarr(j);
}

/* True for a run of a GPU variant. */
static bool gpu_run(const struct pl_report *r)
{
	return r->gpu && strcmp(r->gpu, "none");
}

/* The GPU variants' figures; gpu_detail comes at the end. */
static void json_gpu(struct pl_json *j, const struct pl_report *r)
{
	pl_json_u64(j, "gpu_verified", r->gpu_verified);
	pl_json_u64(j, "gpu_bad", r->gpu_bad);
	pl_json_dbl(j, "pcie_crossings_per_packet",
		    r->pcie_crossings_per_packet);
	pl_json_str(j, "pcie_source", r->pcie_source ? r->pcie_source : "");
}

/* What the kernel's own counters saw, inside the receiver's namespace. */
static void json_kernel(struct pl_json *j, const struct figures *f)
{
	const struct pl_sysctr *d = &f->d;

	pl_json_u64(j, "kernel_udp_in_datagrams", d->udp_in_datagrams);
	pl_json_u64(j, "kernel_udp_no_ports", d->udp_no_ports);
	pl_json_u64(j, "kernel_udp_rcvbuf_errors", d->udp_rcvbuf_errors);
	pl_json_u64(j, "kernel_udp_in_errors", d->udp_in_errors);
	pl_json_u64(j, "kernel_udp_in_csum_errors", d->udp_in_csum_errors);
	pl_json_u64(j, "kernel_ip_in_receives", d->ip_in_receives);
	pl_json_u64(j, "kernel_ip_in_hdr_errors", d->ip_in_hdr_errors);
	pl_json_u64(j, "kernel_ip_in_truncated_pkts", d->ip_in_truncated_pkts);
	pl_json_u64(j, "kernel_ip_reasm_reqds", d->ip_reasm_reqds);
	pl_json_u64(j, "kernel_ip_in_unknown_protos", d->ip_in_unknown_protos);
	pl_json_u64(j, "kernel_net_rx_softirqs", d->net_rx_softirqs);
	pl_json_u64(j, "kernel_interrupts", d->interrupts);
	pl_json_u64(j, "link_rx_errors", d->link_rx_errors);
	pl_json_u64(j, "link_rx_packets", d->link_rx_packets);
	pl_json_u64(j, "link_rx_dropped", d->link_rx_dropped);
	pl_json_u64(j, "tcpdump_seen", 0);
}

void pl_report_json(FILE *out, const struct pl_report *r)
{
	struct pl_json j;
	struct figures f;

	figures(r, &f);
	pl_json_init(&j, out, true);
	pl_json_obj(&j, NULL);
	pl_json_str(&j, "tool", r->tool);
	pl_json_str(&j, "path", r->path);
	pl_json_str(&j, "mode", r->mode);
	pl_json_str(&j, "gpu", r->gpu ? r->gpu : "none");
	pl_json_str(&j, "workload", r->workload);
	pl_json_str(&j, "env", r->env);
	pl_json_str(&j, "ifname", r->ifname ? r->ifname : "");
	pl_json_u64(&j, "frame_bytes", f.frame);
	pl_json_u64(&j, "payload_bytes", f.payload);
	json_counts(&j, r, &f);
	json_queues(&j, r, &f);
	if (r->reflect) {
		pl_json_obj(&j, "reflect");
		pl_json_u64(&j, "reflected", r->reflected);
		pl_json_u64(&j, "errors", r->reflect_errors);
		pl_json_end(&j);
	}
	json_hist(&j, "latency_ns", r->latency_kind, &r->stats->lat);
	if (r->stats->lat_stack.count) {
		json_hist(&j, "latency_to_stack_ns", r->latency_kind,
			  &r->stats->lat_stack);
		json_hist(&j, "latency_stack_to_user_ns", NULL,
			  &r->stats->lat_user);
	}
	pl_json_u64(&j, "latency_skipped", r->stats->lat_skipped);
	pl_json_str(&j, "rx_stamp_source",
		    r->rx_stamp_source ? r->rx_stamp_source : "none");
	json_costs(&j, r, &f);
	json_receive(&j, r->stats, &f);
	json_placement(&j, &f, r);
	pl_json_u64(&j, "extra_work_cycles", pl_stats_extra_work_cycles());
	if (gpu_run(r))
		json_gpu(&j, r);
	json_kernel(&j, &f);
	pl_json_obj(&j, "budget");
	pl_json_dbl(&j, "clock_hz", f.hz);
	pl_json_str(&j, "clock_source", pl_tsc()->is_tsc ? "tsc" : "ns");
	pl_json_dbl(&j, "clock_err_ppm", pl_tsc()->err_ppm);
	pl_json_bool(&j, "clock_invariant", pl_tsc()->invariant);
	pl_json_dbl(&j, "cycles_10g", f.b10.cycles_per_frame);
	pl_json_dbl(&j, "cycles_100g", f.b100.cycles_per_frame);
	pl_json_u64(&j, "frames_per_second_10g", f.b10.frames_per_second);
	pl_json_u64(&j, "frames_per_second_100g", f.b100.frames_per_second);
	pl_json_end(&j);
	if (r->extra_json)
		r->extra_json(&j, r->extra_arg);
	if (gpu_run(r) && r->gpu_json)
		r->gpu_json(&j, r->gpu_arg);
	pl_json_end(&j);
	pl_json_done(&j);
}

int pl_report_write(const char *path, const struct pl_report *r)
{
	struct pl_out o;
	int err = pl_out_open(&o, path);

	if (!err) {
		pl_report_json(o.f, r);
		err = pl_out_close(&o);
	}
	if (err)
		pl_out_error(r->tool, "--json", path, err);
	return err;
}

/* Nanoseconds as microseconds with two decimals. */
static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

/* One line per queue of a run on many queues. */
static void table_queue(FILE *out, const struct pl_report_queue *q,
			uint64_t received)
{
	struct pl_seq_totals t;

	pl_stats_totals(q->stats, &t);
	fprintf(out,
		"  queue %-3u cpu %-3d received %llu (%.1f%%)  %.1f kpps"
		"  flows %u  bad %llu\n",
		q->id, q->cpu == ~0u ? -1 : (int)q->cpu,
		(unsigned long long)t.unique,
		100 * per_pkt((double)t.unique, received),
		queue_pps(q->stats) / 1e3, t.flows,
		(unsigned long long)q->stats->bad_total);
}

void pl_report_table(FILE *out, const struct pl_report *r)
{
	const struct pl_rx_stats *s = r->stats;
	const struct pl_hist *h = &s->lat;
	struct figures f;
	unsigned i;

	figures(r, &f);
	fprintf(out, "%s  %s/%s  gpu %s  %s  %u B frames  %s\n", r->tool,
		r->path, r->mode, r->gpu ? r->gpu : "none", r->env, f.frame,
		r->workload);
	fprintf(out,
		"  received  %llu of %llu sent (%s)  lost %llu  bad %llu"
		"  dups %llu  reordered %llu\n",
		(unsigned long long)f.received, (unsigned long long)f.sent,
		f.sent_source, (unsigned long long)f.lost,
		(unsigned long long)s->bad_total, (unsigned long long)f.t.dups,
		(unsigned long long)f.t.reordered);
	fprintf(out, "  drops    ");
	for (i = 0; i < f.ndrops; i++)
		fprintf(out, " %s %llu", f.drops[i].name,
			(unsigned long long)f.drops[i].count);
	fprintf(out, "  unattributed %lld%s\n", (long long)f.unattributed,
		f.unattributed > 0
			? " (not seen by this receiver's counters: datagrams"
			  " the sending link dropped after the send are in "
			  "pathlab-gen's line; compare merges both)"
			: "");
	if (f.not_ours)
		fprintf(out,
			"  not ours  %llu frames on to the kernel (%s), %llu "
			"of "
			"them dropped at the link: not in the loss\n",
			(unsigned long long)f.not_ours, f.not_ours_source,
			(unsigned long long)f.not_ours_dropped);
	fprintf(out, "  rate      %.1f kpps  %.3f Gbit/s over %.3f s\n",
		f.pps / 1e3, f.gbps, f.duration_s);
	for (i = 0; i < r->nqueues; i++)
		table_queue(out, &r->queues[i], f.received);
	if (r->reflect)
		fprintf(out, "  reflect   sent back %llu  failed %llu\n",
			(unsigned long long)r->reflected,
			(unsigned long long)r->reflect_errors);
	if (!h->count)
		fprintf(out, "  latency   none measured (no packet reached "
			     "this program with a stamp)\n");
	else
		fprintf(out,
			"  latency   %s p50 %.1f us  p99 %.1f us  p99.9 %.1f "
			"us  max %.1f us\n",
			r->latency_kind, us(pl_hist_percentile(h, 50)),
			us(pl_hist_percentile(h, 99)),
			us(pl_hist_percentile(h, 99.9)), us(h->max));
	if (s->lat_stack.count)
		fprintf(out,
			"            to the %s RX stamp p50 %.1f us,"
			" from it to the application p50 %.1f us\n",
			r->rx_stamp_source &&
					!strcmp(r->rx_stamp_source, "hardware")
				? "NIC's"
				: "kernel's",
			us(pl_hist_percentile(&s->lat_stack, 50)),
			us(pl_hist_percentile(&s->lat_user, 50)));
	fprintf(out,
		"  CPU       receiver %.3f s (user %.3f sys %.3f)  all CPUs"
		" busy %.3f s (softirq %.3f steal %.3f)\n",
		(double)f.d.self_run_ns / 1e9, f.d.self_user_s, f.d.self_sys_s,
		f.busy_s, f.d.all.softirq_s, f.d.all.steal_s);
	if (kernel_measured(&f))
		fprintf(out,
			"  receive   %.0f cycles/pkt on the receiving cores: "
			"kernel %.0f (%s) + app %.0f (busy share %.2f)\n",
			f.rcv_kernel + f.rcv_app, f.rcv_kernel, f.kernel_source,
			f.rcv_app, f.busy_share);
	else
		fprintf(out,
			"  receive   app %.0f cycles/pkt (busy share %.2f); "
			"the "
			"kernel's share not measured (%s): no total, read "
			"system-wide cycles\n",
			f.rcv_app, f.busy_share, f.kernel_source);
	fprintf(out,
		"  placement %s (receiver cpu %d, NAPI thread cpu %d)  waited "
		"for a CPU: receiver %.1f%% NAPI %.1f%% of the run%s\n",
		f.placement_label, f.receiver_cpu, f.napi_cpu,
		100 * f.receiver_wait_share, 100 * f.napi_wait_share,
		f.contended ? "  CONTENDED" : "");
	fprintf(out,
		"  per pkt   cycles receiver %.0f system %.0f  syscalls "
		"%.3f  copies %g (%s)  wakeups %.3f  NET_RX softirqs %.3f\n",
		f.cyc_rx, f.cyc_sys, per_pkt((double)r->syscalls, f.received),
		r->copies_per_packet, r->copies_source,
		per_pkt((double)r->wakeups, f.received),
		per_pkt((double)f.d.net_rx_softirqs, f.received));
	if (gpu_run(r))
		fprintf(out,
			"  gpu       consumer verified %llu  bad %llu  PCIe "
			"crossings %.2f per packet (%s)\n",
			(unsigned long long)r->gpu_verified,
			(unsigned long long)r->gpu_bad,
			r->pcie_crossings_per_packet,
			r->pcie_source ? r->pcie_source : "");
	if (kernel_measured(&f))
		fprintf(out,
			"  budget    at 10 GbE / %u B a core has %.1f cycles "
			"per packet (100 GbE: %.1f); this path spent %.0f on "
			"the receiving cores (%.0f system-wide, generator "
			"included)\n",
			f.b10.frame_bytes, f.b10.cycles_per_frame,
			f.b100.cycles_per_frame, f.rcv_kernel + f.rcv_app,
			f.cyc_sys);
	else
		fprintf(out,
			"  budget    at 10 GbE / %u B a core has %.1f cycles "
			"per packet (100 GbE: %.1f); this path spent %.0f "
			"system-wide (generator included)\n",
			f.b10.frame_bytes, f.b10.cycles_per_frame,
			f.b100.cycles_per_frame, f.cyc_sys);
	fprintf(out,
		"  kernel    Udp InDatagrams +%llu  NoPorts +%llu  "
		"RcvbufErrors +%llu  Ip InHdrErrors +%llu  link rx +%llu "
		"dropped +%llu\n",
		(unsigned long long)f.d.udp_in_datagrams,
		(unsigned long long)f.d.udp_no_ports,
		(unsigned long long)f.d.udp_rcvbuf_errors,
		(unsigned long long)f.d.ip_in_hdr_errors,
		(unsigned long long)f.d.link_rx_packets,
		(unsigned long long)f.d.link_rx_dropped);
}

int pl_report_emit(const struct pl_report *r, const char *json_path, bool quiet)
{
	if (!quiet)
		pl_report_table(stderr, r);
	return json_path ? pl_report_write(json_path, r) : 0;
}
