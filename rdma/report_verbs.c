/* SPDX-License-Identifier: MIT */
/*
 * The verbs receiver's measured window and report: the sender connects,
 * the loop (or one per queue) runs between two snapshots of the counters;
 * then its own figures: what the loop counted, what rxe's counters saw,
 * where the losses went; the "verbs" object of the run JSON and one more
 * line under the common table.
 */
#include "clock.h"
#include "rx_verbs.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

/* True if this machine says it is virtual (CPU flag, or QEMU's DMI). */
static bool in_vm(void)
{
	char line[256];
	bool vm = false;
	FILE *f;

	f = fopen("/proc/cpuinfo", "r");
	while (f && !vm && fgets(line, sizeof(line), f))
		vm = !strncmp(line, "flags", 5) && strstr(line, " hypervisor");
	if (f)
		fclose(f);
	f = fopen("/sys/class/dmi/id/sys_vendor", "r");
	if (f && fgets(line, sizeof(line), f))
		vm = vm || !strncmp(line, "QEMU", 4);
	if (f)
		fclose(f);
	return vm;
}

/* The env label: Soft-RoCE in a VM, Soft-RoCE, or a NIC. */
const char *rx_env_label(const struct verbs_where *w)
{
	if (strncmp(w->dev, "rxe", 3))
		return "nic";
	return in_vm() ? "vm-softroce" : "softroce";
}

/* True when both ends use one device: rxe hands packets across in memory. */
static bool same_device(const struct verbs_rx *rx)
{
	return !memcmp(rx->ep.remote.gid, rx->ep.where.gid.raw, 16);
}

/* What the loops of every queue counted, summed for the run. */
struct rx_sums {
	uint64_t completions, polls, empty, arms, waits, reads, events;
	uint64_t wc_errors, recv_posts, post_errors;
	uint64_t imm_completions, imm_bad_slot, leftover, after_end;
	uint64_t reflected, reflect_errors, reflect_posts, reflect_wrs;
	uint64_t reflect_ahs;
	int last_wc_status; /* of a queue that had an error */
};

/* Sum the counters of the run's queues (rx is the first). */
static void rx_sum(const struct verbs_rx *rx, struct rx_sums *s)
{
	const struct verbs_rx *q;
	unsigned i;

	*s = (struct rx_sums){ 0 };
	for (i = 0; i < rx->nqueues; i++) {
		q = &rx->queues[i];
		s->completions += q->completions;
		s->polls += q->polls;
		s->empty += q->empty;
		s->arms += q->arms;
		s->waits += q->waits;
		s->reads += q->reads;
		s->events += q->events;
		s->wc_errors += q->wc_errors;
		s->recv_posts += q->recv_posts;
		s->post_errors += q->post_errors;
		s->imm_completions += q->imm_completions;
		s->imm_bad_slot += q->imm_bad_slot;
		s->leftover += q->leftover;
		s->after_end += q->after_end;
		s->reflected += q->reflected;
		s->reflect_errors += q->reflect_errors;
		s->reflect_posts += q->reflect_posts;
		s->reflect_wrs += q->reflect_wrs;
		s->reflect_ahs += q->npeers;
		if (q->wc_errors || q->reflect_errors)
			s->last_wc_status = q->last_wc_status;
	}
}

/*
 * Data-path system calls of one queue: none while polling. With events:
 * poll() and read() on the channel, and the arm, which rxe runs as a
 * command in the kernel (a hardware NIC rings a doorbell).
 */
uint64_t rx_verbs_syscalls(const struct verbs_rx *rx)
{
	return rx->waits + rx->reads +
	       (strncmp(rx->ep.where.dev, "rxe", 3) ? 0 : rx->arms);
}

/* Reflections still in flight at the end may complete: wait this long. */
#define REFLECT_DRAIN_NS 200000000ull

/*
 * True if a receive left in the CQ after the run holds a data message:
 * one the sequence count calls lost, though it came (after the run's last
 * poll). Read without counting anything, as the loops do not see it; an
 * end marker is not data, and device memory (--gpu) is not read here.
 */
static bool leftover_data(const struct verbs_rx *rx, const struct ibv_wc *wc)
{
	struct pl_pkt p;
	size_t off;
	uint32_t len;

	if (wc->status != IBV_WC_SUCCESS || rx->gpu ||
	    verbs_locate(rx, wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM, wc->wr_id,
			 wc->byte_len, wc->imm_data, &off, &len) != VERBS_OK)
		return false;
	return pl_parse_payload(rx->ep.buf + off, len, &p) == PL_OK &&
	       !(p.flags & PL_FLAG_END);
}

/*
 * Take what is left in one queue's CQ: receives the loop did not see, and
 * (--reflect) the completions of sends still in flight when it ended,
 * which are waited for a little.
 */
static void drain_queue(struct verbs_rx *rx)
{
	uint64_t until = pl_now_ns() + REFLECT_DRAIN_NS;
	int i, n;

	for (;;) {
		n = ibv_poll_cq(rx->ep.cq, VERBS_MAX_BATCH, rx->wc);
		for (i = 0; i < n; i++) {
			if (rx->wc[i].wr_id & VERBS_SEND_TAG) {
				reflect_done(rx, &rx->wc[i]);
				continue;
			}
			rx->leftover++;
			rx->after_end += leftover_data(rx, &rx->wc[i]);
		}
		if (n > 0)
			continue;
		if (rx->reflect_cqes >= rx->reflect_wrs || pl_now_ns() > until)
			break;
	}
}

/*
 * After the run, the losses (the CQs were drained as the loop ended). On
 * UD a message that finds no posted buffer is dropped without a trace but for
 * rxe's rcvd_pkts, which counts it: what rxe received and we never
 * completed is what the empty receive queue cost. On RC the same shortage
 * is an RNR NAK to the sender, which retries: no loss, only delay.
 */
void rx_verbs_account(struct verbs_rx *rx, struct pl_report *r)
{
	struct rx_sums s;
	uint64_t rcvd, seen;
	unsigned q;

	rx_sum(rx, &s);
	rcvd = verbs_hwctr_delta(&rx->hw_before, &rx->hw_after, "rcvd_pkts");
	/* One device for both ends: it also received our reflections. */
	seen = s.completions + s.leftover + (same_device(rx) ? s.reflected : 0);
	if (rx->cfg->v.mode == VERBS_UD && rcvd > seen)
		rx->ud_dropped = rcvd - seen;
	if (rx->cfg->v.mode == VERBS_UD)
		pl_report_drop(r, "rx_ud_rq_empty", rx->ud_dropped);
	/* Data that came after the run's last poll: lost to the run. */
	pl_report_drop(r, "rx_after_end", s.after_end);
	r->syscalls = 0;
	for (q = 0; q < rx->nqueues; q++)
		r->syscalls += rx_verbs_syscalls(&rx->queues[q]);
	r->wakeups = s.events;
	r->reflect = rx->reflect;
	r->reflected = s.reflected;
	r->reflect_errors = s.reflect_errors;
}

/* The rxe counters that moved during the run, as an object. */
static void json_hwctr(struct pl_json *j, const struct verbs_rx *rx)
{
	const struct verbs_hwctr *a = &rx->hw_before, *b = &rx->hw_after;
	unsigned i;

	pl_json_obj(j, "device_counters");
	for (i = 0; i < b->n; i++)
		pl_json_u64(j, b->name[i], verbs_hwctr_delta(a, b, b->name[i]));
	pl_json_end(j);
}

/*
 * Packets and bytes on the wire for one message of len bytes: Ethernet 14,
 * IPv4 20, UDP 8, BTH 12, ICRC 4 and FCS 4 per packet, plus the DETH (8)
 * on UD, the RETH (16) on a WRITE's first packet and the immediate (4) on
 * its last; each packet's payload padded to a multiple of 4.
 */
static unsigned roce_wire(const struct verbs_rx *rx, unsigned len,
			  unsigned *bytes)
{
	unsigned mtu = verbs_mtu_bytes(rx->ep.where.mtu), n, i, chunk;

	n = mtu && len > mtu ? (len + mtu - 1) / mtu : 1;
	*bytes = 0;
	for (i = 0; i < n; i++) {
		chunk = i + 1 < n ? mtu : len - i * mtu;
		*bytes += 62 + ((chunk + 3) & ~3u);
		if (rx->cfg->v.mode == VERBS_UD)
			*bytes += 8;
	}
	if (rx->write_imm)
		*bytes += 16 + 4;
	return n;
}

/* Where the end lives and how it is set up. */
static void json_setup(struct pl_json *j, const struct verbs_rx *rx)
{
	const struct verbs_where *w = &rx->ep.where;
	const struct cfg *c = rx->cfg;
	char gid[INET6_ADDRSTRLEN];
	unsigned packets, wire;

	inet_ntop(AF_INET6, w->gid.raw, gid, sizeof(gid));
	pl_json_str(j, "device", w->dev);
	pl_json_u64(j, "ib_port", w->port);
	pl_json_i64(j, "gid_index", w->gid_index);
	pl_json_str(j, "gid", gid);
	pl_json_str(j, "netdev", w->ifname);
	pl_json_bool(j, "rxe_loopback", same_device(rx));
	pl_json_str(j, "connect", c->v.oob ? "tcp_oob" : "rdma_cm");
	pl_json_str(j, "qp_type", c->v.mode == VERBS_UD ? "UD" : "RC");
	pl_json_str(j, "opcode",
		    rx->write_imm ? "RDMA_WRITE_WITH_IMM" : "SEND");
	pl_json_str(j, "cq", c->cq == RX_CQ_EVENT ? "event" : "poll");
	pl_json_u64(j, "path_mtu", verbs_mtu_bytes(w->mtu));
	pl_json_u64(j, "rx_depth", rx->depth);
	pl_json_u64(j, "poll_batch", rx->batch);
	pl_json_u64(j, "slot_bytes", VERBS_SLOT);
	pl_json_u64(j, "grh_bytes", rx->grh);
	packets = roce_wire(rx, rx->stats.payload_len, &wire);
	pl_json_u64(j, "roce_packets_per_message", packets);
	pl_json_u64(j, "roce_wire_bytes_per_message", wire);
	pl_json_u64(j, "ring_slots", rx->ep.slots);
	pl_json_u64(j, "mr_bytes",
		    (uint64_t)rx->ep.slots * VERBS_SLOT * rx->nqueues);
	pl_json_dbl(j, "mr_reg_us", (double)rx->ep.mr_reg_ns / 1e3);
}

/* Each QP of the run: its number, and what its loop counted. */
static void json_qps(struct pl_json *j, const struct verbs_rx *rx)
{
	const struct verbs_rx *q;
	unsigned i;

	pl_json_arr(j, "qps");
	for (i = 0; i < rx->nqueues; i++) {
		q = &rx->queues[i];
		pl_json_obj(j, NULL);
		pl_json_u64(j, "queue", i);
		pl_json_u64(j, "qpn", q->ep.qp ? q->ep.qp->qp_num : 0);
		pl_json_u64(j, "peer_qpn", ntohl(q->ep.remote.qpn));
		pl_json_u64(j, "completions", q->completions);
		pl_json_u64(j, "cq_polls", q->polls);
		pl_json_u64(j, "reflected", q->reflected);
		pl_json_end(j);
	}
	pl_json_endarr(j);
}

/* --reflect: how the messages went back. */
static void json_reflect(struct pl_json *j, const struct verbs_rx *rx,
			 const struct rx_sums *s)
{
	pl_json_obj(j, "reflect");
	pl_json_str(j, "how",
		    rx->grh ? "SEND to the completion's source (wc.src_qp, "
			      "an address handle from its GRH)"
			    : "SEND on the same QP");
	pl_json_u64(j, "sends_posted", s->reflect_wrs);
	pl_json_u64(j, "post_send_calls", s->reflect_posts);
	pl_json_u64(j, "sends_completed", s->reflected);
	pl_json_u64(j, "errors", s->reflect_errors);
	pl_json_u64(j, "address_handles", s->reflect_ahs);
	pl_json_end(j);
}

/* The "verbs" object of the run JSON. */
void rx_verbs_json(struct pl_json *j, void *arg)
{
	const struct verbs_rx *rx = arg;
	const struct verbs_hwctr *a = &rx->hw_before, *b = &rx->hw_after;
	struct rx_sums s;

	rx_sum(rx, &s);
	pl_json_obj(j, "verbs");
	json_setup(j, rx);
	pl_json_u64(j, "completions", s.completions);
	pl_json_u64(j, "cq_polls", s.polls);
	pl_json_u64(j, "cq_empty_polls", s.empty);
	pl_json_u64(j, "cq_arms", s.arms);
	pl_json_u64(j, "cq_events", s.events);
	pl_json_u64(j, "event_waits", s.waits);
	pl_json_u64(j, "event_reads", s.reads);
	pl_json_str(j, "syscalls_counted",
		    "poll() and ibv_get_cq_event()'s read() per wait, "
		    "ibv_req_notify_cq() on rxe (a kernel command); "
		    "none while busy-polling");
	pl_json_u64(j, "wc_errors", s.wc_errors);
	pl_json_str(j, "last_wc_error",
		    s.wc_errors || s.reflect_errors
			    ? ibv_wc_status_str(s.last_wc_status)
			    : "");
	pl_json_u64(j, "recv_post_calls", s.recv_posts);
	pl_json_u64(j, "recv_post_errors", s.post_errors);
	pl_json_u64(j, "imm_completions", s.imm_completions);
	pl_json_u64(j, "imm_last_slot", rx->imm_last);
	pl_json_u64(j, "imm_bad_slot", s.imm_bad_slot);
	pl_json_u64(j, "leftover_completions", s.leftover);
	pl_json_u64(j, "leftover_data", s.after_end);
	pl_json_u64(j, "rnr_naks_sent",
		    verbs_hwctr_delta(a, b, "send_rnr_err"));
	pl_json_u64(j, "ud_rq_empty_drops", rx->ud_dropped);
	pl_json_str(j, "ud_drop_source",
		    same_device(rx) ? "derived: rxe rcvd_pkts - receive "
				      "completions (device shared with the "
				      "sender: approximate)"
				    : "derived: rxe rcvd_pkts - receive "
				      "completions");
	json_hwctr(j, rx);
	json_qps(j, rx);
	if (rx->reflect)
		json_reflect(j, rx, &s);
	if (rx->cfg->hw_stamps)
		hwstamp_verbs_json(j, rx);
	pl_json_end(j);
}

/* One line under the common table: the CQ's side of the story. */
void rx_verbs_table(FILE *f, const struct verbs_rx *rx, const struct cfg *c)
{
	const struct verbs_where *w = &rx->ep.where;
	struct rx_sums s;

	rx_sum(rx, &s);
	fprintf(f,
		"  verbs     %s port %u GID %d (%s) %s via %s, %u QP%s, CQ %s: "
		"polls %llu (empty %llu), arms %llu, events %llu\n",
		w->dev, w->port, w->gid_index, w->ifname,
		verbs_modes[c->v.mode], c->v.oob ? "TCP" : "rdma_cm",
		rx->nqueues, rx->nqueues > 1 ? "s" : "",
		c->cq == RX_CQ_EVENT ? "event" : "poll",
		(unsigned long long)s.polls, (unsigned long long)s.empty,
		(unsigned long long)s.arms, (unsigned long long)s.events);
	fprintf(f,
		"            RNR NAKs sent %llu  UD drops (rq empty) %llu  "
		"WC errors %llu",
		(unsigned long long)verbs_hwctr_delta(
			&rx->hw_before, &rx->hw_after, "send_rnr_err"),
		(unsigned long long)rx->ud_dropped,
		(unsigned long long)s.wc_errors);
	if (rx->write_imm)
		fprintf(f, "  immediates %llu, last slot %u",
			(unsigned long long)s.imm_completions, rx->imm_last);
	fprintf(f, "%s\n", same_device(rx) ? "  (rxe loopback)" : "");
	if (c->hw_stamps)
		hwstamp_verbs_table(f, rx);
}

/* The CQs drained and rxe's counters read, the moment the loop ends. */
void verbs_after_loop(void *arg)
{
	struct verbs_rx *rx = arg;
	unsigned q;

	/*
	 * What is left in the CQs first, then rxe's counters: rcvd_pkts then
	 * counts every message we have seen and none that came later (an
	 * end marker of a later round, taken for a receive-queue drop).
	 */
	for (q = 0; q < rx->nqueues; q++)
		drain_queue(&rx->queues[q]);
	verbs_hwctr_read(&rx->ep.where, &rx->hw_after);
}

/*
 * A run on many queues: the merged stats for the report's totals, and one
 * report entry per queue (its QP's index).
 */
static void queues_report(struct verbs_rx *rxq, const struct cfg *c,
			  const struct pl_rx_window *w,
			  struct pl_rx_stats *total, struct pl_report_queue *rq,
			  struct pl_report *r)
{
	unsigned q, n = rxq->nqueues;

	pl_rx_report_queues(&c->rx, w, total, rq, r);
	for (q = 0; q < n; q++) {
		rq[q].syscalls = rx_verbs_syscalls(&rxq[q]);
		rq[q].wakeups = rxq[q].events;
	}
}

/* Write the report of the run measured in w; 0 or -errno. */
int verbs_report(struct verbs_rx *rx, const struct cfg *c,
		 const struct pl_rx_window *w, struct pl_rx_stats *total)
{
	struct pl_report_queue rq[PL_MAX_QUEUES];
	struct pl_report r = {
		.tool = "pathlab-rx-verbs",
		.path = "verbs",
		.mode = verbs_modes[c->v.mode],
		.gpu = "none",
		.workload = pl_workloads[c->rx.workload],
		.env = c->rx.env ? c->rx.env : rx_env_label(&rx->ep.where),
		.ifname = rx->ifname,
		.latency_kind = "one-way",
		.rx_stamp_source = c->hw_stamps ? "hardware" : "none",
		.copies_per_packet = 0,
		.copies_source = "by_design",
		.copies_note =
			"the NIC writes into the registered buffer "
			"(here rxe, in the guest kernel, does that write)",
		.loss_points = PL_LOSS_LINK,
		.stats = &rx->stats,
		.before = &rx->before,
		.after = &rx->after,
		.extra_json = rx_verbs_json,
		.extra_arg = rx,
	};
	int err;

	rx_verbs_account(rx, &r);
	if (rx->nqueues > 1)
		queues_report(rx, c, w, total, rq, &r);
	if (rx->gpu)
		gpu_verbs_report(rx, &r);
	err = pl_report_emit(&r, c->rx.json, c->rx.quiet);
	if (!c->rx.quiet)
		rx_verbs_table(stderr, rx, c);
	return err;
}
