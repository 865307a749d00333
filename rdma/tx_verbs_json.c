/* SPDX-License-Identifier: MIT */
/*
 * The sender's summary: a line on stderr and a JSON object shaped like
 * pathlab-gen's, so labs/plab/merge.py takes "sent" and "drops" from it.
 */
#include "json.h"
#include "opt.h"
#include "out.h"
#include "verbs_tx.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

/* Each QP: its number, its peer's, and what went on it. */
static void json_qps(struct pl_json *j, const struct verbs_tx *tx)
{
	const struct tx_queue *q;
	unsigned i;

	pl_json_arr(j, "qps");
	for (i = 0; i < tx->nq; i++) {
		q = &tx->q[i];
		pl_json_obj(j, NULL);
		pl_json_u64(j, "queue", i);
		pl_json_u64(j, "qpn", q->ep.qp ? q->ep.qp->qp_num : 0);
		pl_json_u64(j, "peer_qpn", ntohl(q->ep.remote.qpn));
		pl_json_u64(j, "flows", q->nflows);
		pl_json_u64(j, "work_requests", q->posted);
		pl_json_u64(j, "sent", q->sent);
		pl_json_end(j);
	}
	pl_json_endarr(j);
}

/* Work requests posted on every QP. */
static uint64_t work_requests(const struct verbs_tx *tx)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < tx->nq; i++)
		n += tx->q[i].posted;
	return n;
}

/* What the send side did besides sending: the verbs object. */
static void json_verbs(struct pl_json *j, const struct verbs_tx *tx)
{
	const struct verbs_where *w = &tx->q[0].ep.where;
	unsigned i;

	pl_json_obj(j, "verbs");
	pl_json_str(j, "device", w->dev);
	pl_json_i64(j, "gid_index", w->gid_index);
	pl_json_str(j, "netdev", w->ifname);
	pl_json_str(j, "connect", tx->cfg->v.oob ? "tcp_oob" : "rdma_cm");
	pl_json_u64(j, "path_mtu", verbs_mtu_bytes(w->mtu));
	pl_json_u64(j, "depth", tx->depth);
	pl_json_u64(j, "batch", tx->batch);
	pl_json_u64(j, "signal_every", tx->signal);
	pl_json_u64(j, "queues", tx->nq);
	pl_json_u64(j, "work_requests", work_requests(tx));
	pl_json_u64(j, "post_send_calls", tx->post_calls);
	pl_json_str(j, "post_send_is",
		    strncmp(w->dev, "rxe", 3) ? "a doorbell (MMIO write)"
					      : "a system call (rxe)");
	pl_json_u64(j, "cq_polls", tx->cq_polls);
	pl_json_u64(j, "wc_errors", tx->wc_errors);
	pl_json_str(j, "last_wc_error",
		    tx->wc_errors ? ibv_wc_status_str(tx->last_status) : "");
	pl_json_bool(j, "stalled", tx->stalled);
	pl_json_dbl(j, "mr_reg_us", (double)tx->q[0].ep.mr_reg_ns / 1e3);
	pl_json_obj(j, "device_counters");
	for (i = 0; i < tx->hw_after.n; i++)
		pl_json_u64(j, tx->hw_after.name[i],
			    verbs_hwctr_delta(&tx->hw_before, &tx->hw_after,
					      tx->hw_after.name[i]));
	pl_json_end(j);
	json_qps(j, tx);
	pl_json_end(j);
}

/* The summary object. */
static void write_json(FILE *f, const struct verbs_tx *tx)
{
	const struct tx_cfg *c = tx->cfg;
	struct pl_sysctr d;
	struct pl_json j;
	double secs = (double)(tx->end_ns - tx->start_ns) / 1e9;
	double pps = secs > 0 ? (double)tx->sent / secs : 0;
	unsigned frame = pl_frame_for_payload(tx->payload, false), i;

	pl_sysctr_delta(&tx->before, &tx->after, &d);
	pl_json_init(&j, f, true);
	pl_json_obj(&j, NULL);
	pl_json_str(&j, "tool", "pathlab-tx-verbs");
	pl_json_str(&j, "tx", "verbs");
	pl_json_str(&j, "mode", verbs_modes[c->v.mode]);
	pl_json_str(&j, "dst", c->v.peer);
	pl_json_u64(&j, "port", c->v.port);
	pl_json_u64(&j, "flows", tx->flows);
	pl_json_u64(&j, "frame_bytes", frame);
	pl_json_u64(&j, "payload_bytes", tx->payload);
	pl_json_u64(&j, "rate_target_pps", c->rate);
	pl_json_u64(&j, "count_requested", c->count);
	pl_json_u64(&j, "sent", tx->sent);
	pl_json_u64(&j, "send_errors", tx->wc_errors + tx->post_errors);
	pl_json_str(&j, "last_error",
		    tx->post_errors ? strerror(tx->last_errno)
		    : tx->wc_errors ? ibv_wc_status_str(tx->last_status)
		    : tx->stalled   ? "no completion within --timeout"
				    : "");
	pl_json_u64(&j, "bad_sent", tx->bad_sent);
	pl_json_obj(&j, "bad_sent_by_reason");
	for (i = PL_BAD_ETH_TRUNC; i < PL_REASON_MAX; i++)
		pl_json_u64(&j, pl_reason_name(i), tx->bad[i]);
	pl_json_end(&j);
	pl_json_u64(&j, "end_markers_sent", tx->end_sent);
	if (tx->rtt)
		pl_rtt_json(
			&j, tx->rtt,
			"whole round trip on the sender's clock (ping posted "
			"to its reflection polled from the CQ); perftest's "
			"ib_send_lat reports half of it as latency");
	pl_json_dbl(&j, "duration_s", secs);
	pl_json_dbl(&j, "pps", pps);
	pl_json_dbl(&j, "gbps", pps * frame * 8 / 1e9);
	/* Nothing is lost on the send side once a send completed. */
	pl_json_obj(&j, "drops");
	pl_json_end(&j);
	pl_json_obj(&j, "counters");
	pl_json_u64(&j, "link_tx_packets", d.link_tx_packets);
	pl_json_u64(&j, "link_tx_dropped", d.link_tx_dropped);
	pl_json_end(&j);
	pl_json_obj(&j, "cpu");
	pl_json_dbl(&j, "user_s", d.self_user_s);
	pl_json_dbl(&j, "sys_s", d.self_sys_s);
	pl_json_dbl(&j, "run_s", (double)d.self_run_ns / 1e9);
	pl_json_dbl(&j, "all_busy_s", pl_sysctr_busy_s(&d));
	pl_json_end(&j);
	json_verbs(&j, tx);
	pl_json_end(&j);
	pl_json_done(&j);
}

/* The summary line (unless --quiet) and the JSON (with --json). */
int tx_verbs_report(const struct verbs_tx *tx)
{
	const struct tx_cfg *c = tx->cfg;
	struct pl_out o;
	int err;

	if (!c->quiet)
		fprintf(stderr,
			"pathlab-tx-verbs: sent %llu %s messages of %u B in "
			"%.3f s (%llu malformed, %llu end markers), %llu "
			"ibv_post_send calls, %llu errors%s%s\n",
			(unsigned long long)tx->sent, verbs_modes[c->v.mode],
			tx->payload, (double)(tx->end_ns - tx->start_ns) / 1e9,
			(unsigned long long)tx->bad_sent,
			(unsigned long long)tx->end_sent,
			(unsigned long long)tx->post_calls,
			(unsigned long long)(tx->wc_errors + tx->post_errors),
			tx->stalled ? ", the receiver stopped answering" : "",
			tx->wc_errors ? ", last: " : "");
	if (!c->quiet && tx->wc_errors)
		fprintf(stderr, "  %s\n", ibv_wc_status_str(tx->last_status));
	if (tx->rtt && (!c->quiet || tx->rtt->gave_up))
		pl_rtt_print(stderr, "pathlab-tx-verbs", tx->rtt);
	if (!c->json)
		return 0;
	err = pl_out_open(&o, c->json);
	if (!err) {
		write_json(o.f, tx);
		err = pl_out_close(&o);
	}
	if (err)
		pl_out_error("pathlab-tx-verbs", "--json", c->json, err);
	return err;
}
