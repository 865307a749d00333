/* SPDX-License-Identifier: MIT */
/* Exercise 8's worker: the receiving end, the student's post and poll. */
#include "clock.h"
#include "verbs_cq_ex.h"
#include "verbs_end.h"
#include "verbs_rpc.h"
#include "wire.h"
#include "worker.h"

#include <string.h>

static struct ex_verbs_rx rx;
static struct vx_end end;

/* The receiver's counters; ret as given. */
static long state(void *out, int32_t ret)
{
	struct vx_state *s = out;

	*s = (struct vx_state){
		.ret = ret,
		.last_wc_status = rx.last_wc_status,
		.completions = rx.completions,
		.polls = rx.polls,
		.empty = rx.empty,
		.wc_errors = rx.wc_errors,
		.recv_posts = rx.recv_posts,
		.post_errors = rx.post_errors,
		.packets = rx.stats.packets,
		.bad_total = rx.stats.bad_total,
		.bytes = rx.stats.bytes,
	};
	return sizeof(*s);
}

/* The receiving end on the device named; where to send to it. */
static long setup(const void *in, size_t len, void *out, size_t cap)
{
	const struct vx_setup *q = WK_IN(struct vx_setup, in, len);
	struct vx_where *w = out;

	if (!q || !q->slots || q->slots > VX_MAX_SLOTS || !q->batch ||
	    q->batch > EX_MAX_BATCH || cap < sizeof(*w) ||
	    memchr(q->dev, 0, sizeof(q->dev)) == NULL ||
	    memchr(q->addr, 0, sizeof(q->addr)) == NULL)
		return -1;
	if (vx_end_open(&end, q->dev, q->addr, q->slots, EX_SLOT, false))
		return -1;
	rx = (struct ex_verbs_rx){
		.qp = end.qp,
		.cq = end.cq,
		.mr = end.mr,
		.buf = end.buf,
		.slots = q->slots,
		.batch = q->batch,
		.grh = EX_GRH,
	};
	pl_stats_init(&rx.stats);
	w->qpn = end.qp->qp_num;
	memcpy(w->gid, end.gid.raw, sizeof(w->gid));
	return sizeof(*w);
}

/* ex_post_slots() on the slots asked for. */
static long post(const void *in, size_t len, void *out, size_t cap)
{
	const uint32_t *slot = in;

	if (!rx.qp || len % sizeof(*slot) ||
	    len / sizeof(*slot) > EX_MAX_BATCH || cap < sizeof(struct vx_state))
		return -1;
	return state(out, ex_post_slots(&rx, slot, (int)(len / sizeof(*slot))));
}

/* The harness posts every slot, its own way. */
static long post_all(const void *in, size_t len, void *out, size_t cap)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	unsigned i;

	(void)in;
	if (!rx.qp || len || cap < sizeof(struct vx_state))
		return -1;
	for (i = 0; i < rx.slots; i++) {
		sge = (struct ibv_sge){ .addr = (uintptr_t)(rx.buf +
							    i * EX_SLOT),
					.length = EX_SLOT,
					.lkey = rx.mr->lkey };
		wr = (struct ibv_recv_wr){ .wr_id = i,
					   .sg_list = &sge,
					   .num_sge = 1 };
		if (ibv_post_recv(rx.qp, &wr, &bad))
			return -1;
	}
	return state(out, 0);
}

/* ex_poll_once() once. */
static long poll_once(const void *in, size_t len, void *out, size_t cap)
{
	(void)in;
	if (!rx.qp || len || cap < sizeof(struct vx_state))
		return -1;
	return state(out, ex_poll_once(&rx));
}

/* ex_poll_once() until want packets are in, or idle_ms go by idle. */
static long poll_for(const void *in, size_t len, void *out, size_t cap)
{
	const struct vx_poll_for *q = WK_IN(struct vx_poll_for, in, len);
	uint64_t last = pl_now_ns();

	if (!rx.qp || !q || cap < sizeof(struct vx_state))
		return -1;
	while (rx.stats.packets < q->want &&
	       pl_now_ns() - last < q->idle_ms * 1000000ull)
		if (ex_poll_once(&rx) > 0)
			last = pl_now_ns();
	return state(out, 0);
}

/* The harness polls for n completions: did each land in its slot? */
static long landed(const void *in, size_t len, void *out, size_t cap)
{
	const uint32_t *n = WK_IN(uint32_t, in, len);
	struct vx_state *s = out;
	struct ibv_wc wc[16];
	struct pl_pkt p;
	uint32_t got = 0, ok = 0, i;
	uint64_t t0;
	int k;

	if (!rx.qp || !n || cap < sizeof(*s))
		return -1;
	for (t0 = pl_now_ns(); got < *n && pl_now_ns() - t0 < 3000000000ull;) {
		k = ibv_poll_cq(rx.cq, 16, wc);
		for (i = 0; i < (uint32_t)(k > 0 ? k : 0); i++, got++) {
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].wr_id >= rx.slots)
				continue;
			ok += pl_parse_payload(
				      rx.buf + wc[i].wr_id * EX_SLOT + EX_GRH,
				      wc[i].byte_len - EX_GRH, &p) == PL_OK;
		}
	}
	state(out, 0);
	s->landed = got;
	s->in_slot = ok;
	return sizeof(*s);
}

/* The QP to ERR: its receives are flushed. */
static long to_err(const void *in, size_t len, void *out, size_t cap)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	(void)in;
	if (!rx.qp || len || cap < sizeof(struct vx_state) ||
	    ibv_modify_qp(rx.qp, &a, IBV_QP_STATE))
		return -1;
	return state(out, 0);
}

const struct wk_op wk_ops[] = {
	{ "setup", setup },	  { "post", post },
	{ "post_all", post_all }, { "poll", poll_once },
	{ "poll_for", poll_for }, { "landed", landed },
	{ "to_err", to_err },	  { 0 },
};
