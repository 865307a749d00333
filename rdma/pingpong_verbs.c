/* SPDX-License-Identifier: MIT */
/*
 * pathlab-tx-verbs --pingpong: the sender side of the round-trip workload
 * on the verbs path.
 *
 * One ping at a time: a SEND flagged PL_FLAG_PING on its flow's QP; the
 * receiver (--reflect) sends the same message back as a SEND of its own,
 * which lands in one of the receive buffers we keep posted behind the
 * send ring. We busy-poll our CQ for it and take the round trip on our
 * own clock: from the TX stamp in the payload (taken as the ping was
 * built) to the poll that returned the reply. Both stamps are ours: no
 * two clocks are compared.
 *
 * perftest's ib_send_lat (and sockperf) print half of the round trip as
 * "latency"; the "rtt" object here is the whole round trip, with the
 * fields of pathlab-gen --pingpong's. The first --warmup pings are not
 * measured; a ping whose reply does not come within --reply-timeout is
 * lost (UD may lose one) and the next one goes; a reply that comes later
 * is counted late.
 */
#include "clock.h"
#include "verbs_tx.h"

#include <errno.h>
#include <stdlib.h>

#define PP_SPIN_NS 50000 /* --rate: sleep until this close, then spin */
#define PP_GIVE_UP 50	 /* pings unanswered in a row: nobody reflects */

/* The ping in flight: what its reflection must carry. */
struct ping {
	uint8_t flow;
	uint32_t seq;
	uint64_t tx_ns;
};

/* What became of one ping. */
/* Post receive buffers for the n slots of QP q's ring in slot[]. */
static int post_recvs(struct tx_queue *q, const uint32_t *slot, unsigned n)
{
	struct ibv_recv_wr wr[TX_PINGPONG_RECVS], *bad;
	struct ibv_sge sge[TX_PINGPONG_RECVS];
	unsigned i;

	for (i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)(q->ep.buf +
					    (size_t)slot[i] * VERBS_SLOT),
			.length = VERBS_SLOT,
			.lkey = q->ep.mr->lkey,
		};
		wr[i] = (struct ibv_recv_wr){
			.wr_id = TX_RECV_TAG | slot[i],
			.next = i + 1 < n ? &wr[i + 1] : NULL,
			.sg_list = &sge[i],
			.num_sge = 1,
		};
	}
	return n ? -ibv_post_recv(q->ep.qp, wr, &bad) : 0;
}

int pingpong_setup(struct verbs_tx *tx)
{
	uint32_t slot[TX_PINGPONG_RECVS];
	unsigned q, i;
	int err = 0;

	tx->rtt = calloc(1, sizeof(*tx->rtt));
	if (!tx->rtt)
		return -ENOMEM;
	pl_hist_init(&tx->rtt->hist);
	/* The receive buffers are the ring's slots after the send slots. */
	for (i = 0; i < tx->recv_slots; i++)
		slot[i] = tx->depth + i;
	for (q = 0; q < tx->nq && !err; q++)
		err = post_recvs(&tx->q[q], slot, tx->recv_slots);
	return err;
}

/* What the ping just posted on QP q carries, read back from its slot. */
static void ping_sent(const struct verbs_tx *tx, const struct tx_queue *q,
		      struct ping *p)
{
	unsigned slot = (unsigned)((q->posted - 1) % tx->depth);
	struct pl_pkt pkt = { 0 };

	pl_parse_payload(q->ep.buf + (size_t)slot * VERBS_SLOT, tx->payload,
			 &pkt);
	*p = (struct ping){ .flow = pkt.flow,
			    .seq = pkt.seq,
			    .tx_ns = pkt.tx_ns };
}

/*
 * Classify a receive completion while p is in flight: true for p's reply;
 * otherwise counted late (an earlier ping's) or mismatched. Its buffer is
 * posted again, unless the completion failed (the QP is broken then).
 */
static bool is_reply(struct verbs_tx *tx, struct tx_queue *q,
		     const struct ibv_wc *wc, const struct ping *p)
{
	unsigned grh = tx->cfg->v.mode == VERBS_UD ? VERBS_GRH : 0;
	uint32_t slot = (uint32_t)(wc->wr_id & ~TX_RECV_TAG);
	struct pl_rtt *r = tx->rtt;
	struct pl_pkt pkt;
	bool mine = false;

	if (wc->status != IBV_WC_SUCCESS) {
		r->recv_errors++;
		return false;
	}
	if (wc->byte_len < grh ||
	    pl_parse_payload(q->ep.buf + (size_t)slot * VERBS_SLOT + grh,
			     wc->byte_len - grh, &pkt) != PL_OK ||
	    !(pkt.flags & PL_FLAG_PING) || pkt.flow != p->flow)
		r->mismatched++;
	else if (pkt.seq == p->seq && pkt.tx_ns == p->tx_ns)
		mine = true;
	else if ((int32_t)(p->seq - pkt.seq) > 0)
		r->late++; /* an earlier ping's reply, after its timeout */
	else
		r->mismatched++;
	if (post_recvs(q, &slot, 1))
		r->recv_errors++;
	return mine;
}

/* 8< verbs-pingpong-wait */
/*
 * Busy-poll QP q's CQ until p's reply (its round trip in *rtt_ns), the
 * deadline, a failed send, or a stop. Send completions are booked on the
 * way: the ping's own may come before or after the reply.
 */
static enum pl_pong await_reply(struct verbs_tx *tx, struct tx_queue *q,
				const struct ping *p, uint64_t deadline,
				uint64_t *rtt_ns, volatile sig_atomic_t *stop)
{
	bool got = false;
	uint64_t now;
	int i, n;

	while (!*stop) {
		n = ibv_poll_cq(q->ep.cq, VERBS_MAX_BATCH, tx->wc);
		now = pl_now_ns(); /* the reply is here: stop the clock */
		tx->cq_polls++;
		for (i = 0; i < n; i++) {
			if (!(tx->wc[i].wr_id & TX_RECV_TAG))
				tx_verbs_send_done(tx, q, &tx->wc[i]);
			else if (is_reply(tx, q, &tx->wc[i], p))
				got = true;
		}
		if (got) {
			*rtt_ns = now - p->tx_ns;
			return PL_PONG_OK;
		}
		if (q->fail_index != TX_NO_INDEX)
			return PL_PONG_FAILED;
		if (n <= 0 && now >= deadline)
			return PL_PONG_TIMEOUT;
	}
	return PL_PONG_STOPPED;
}
/* >8 verbs-pingpong-wait */

void pingpong_run(struct verbs_tx *tx, volatile sig_atomic_t *stop)
{
	const struct tx_cfg *c = tx->cfg;
	uint64_t period = c->rate ? 1000000000ull / c->rate : 0;
	uint64_t timeout = (uint64_t)c->reply_timeout_ms * 1000000ull;
	uint64_t deadline = pl_now_ns(), rtt_ns = 0, k, now;
	unsigned unanswered = 0;
	struct tx_queue *q;
	struct ping p;
	enum pl_pong got;

	for (k = 0; k < c->count && !*stop; k++) {
		if (period) {
			pl_wait_until(deadline, PP_SPIN_NS);
			deadline += period;
		}
		/* Ping k on flow k % flows, which lives on QP flow % N. */
		q = &tx->q[(k % tx->flows) % tx->nq];
		if (!tx_verbs_post(tx, q, 1, false, true))
			break;
		ping_sent(tx, q, &p);
		got = await_reply(tx, q, &p, pl_now_ns() + timeout, &rtt_ns,
				  stop);
		if (got == PL_PONG_STOPPED || got == PL_PONG_FAILED)
			break;
		pl_rtt_account(tx->rtt, k < c->warmup, got, rtt_ns);
		unanswered = got == PL_PONG_OK ? 0 : unanswered + 1;
		if (unanswered == PP_GIVE_UP) {
			tx->rtt->gave_up = true;
			break;
		}
		now = pl_now_ns();
		if (deadline < now)
			deadline = now; /* behind (a slow reply): no burst */
	}
}
