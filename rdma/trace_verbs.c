/* SPDX-License-Identifier: MIT */
/*
 * --trace N on the verbs path: the first N messages step by step, with the
 * values of this run: the objects of setup (device, PD, CQ, the registered
 * ring with its keys, the QP and its state as it goes to RTS, the receives
 * posted), then per message the buffer the NIC wrote, the completion that
 * says so (wr_id, byte_len, immediate, opcode), what the parser found and
 * the buffer posted again. Then the plain poll loop takes over.
 *
 * QP states print as numbers: 1 INIT, 2 RTR, 3 RTS (enum ibv_qp_state).
 */
#include "clock.h"
#include "rx_verbs.h"

#include <arpa/inet.h>
#include <string.h>

/* The QP's current state (enum ibv_qp_state), read from the device. */
static unsigned qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (!qp || ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

/* Record the QP: its number, type, and state now. */
void verbs_trace_qp(struct verbs_rx *rx, const char *name)
{
	struct ibv_qp *qp = rx->ep.qp;

	pl_trace_rec(&rx->trace, 0, PL_AT_NIC, PL_EV_STEP, name,
		     "qp_num ud state", qp->qp_num, qp->qp_type == IBV_QPT_UD,
		     qp_state(qp), 0);
}

/* Device, PD, CQ and the registered ring, as setup events. */
void verbs_trace_setup(struct verbs_rx *rx)
{
	struct pl_trace *t = &rx->trace;
	const struct verbs_ep *ep = &rx->ep;

	pl_trace_rec(t, 0, PL_AT_USER, PL_EV_SYSCALL, "open device",
		     "ib_port gid_index mtu async_fd", ep->where.port,
		     (uint64_t)ep->where.gid_index,
		     verbs_mtu_bytes(ep->where.mtu),
		     (uint64_t)ep->ctx->async_fd);
	pl_trace_rec(t, 0, PL_AT_NIC, PL_EV_STEP, "alloc PD", "handle",
		     ep->pd->handle, 0, 0, 0);
	pl_trace_rec(t, 0, PL_AT_NIC, PL_EV_RING, "create CQ", "cqe handle",
		     (uint64_t)ep->cq->cqe, ep->cq->handle, 0, 0);
	pl_trace_rec(t, 0, PL_AT_NIC, PL_EV_DMA, "register: pin, NIC map",
		     "addr length lkey rkey", (uintptr_t)ep->mr->addr,
		     ep->mr->length, ep->mr->lkey, ep->mr->rkey);
	if (ep->qp) /* --oob: the QP exists already; rdma_cm makes it later */
		verbs_trace_qp(rx, "QP created");
}

/* The QP's state and the receives posted, before the accept. */
void verbs_trace_posted(struct verbs_rx *rx)
{
	verbs_trace_qp(rx, "QP before the accept");
	pl_trace_rec(&rx->trace, 0, PL_AT_USER, PL_EV_RING,
		     "post receive requests", "count calls first_addr lkey",
		     rx->depth, rx->recv_posts, (uintptr_t)rx->ep.buf,
		     rx->ep.mr->lkey);
}

/*
 * Trace the completions of one poll while *unit < t->units and account
 * them all, as verbs_plain_burst() does; then repost their buffers in one call.
 * A verbs_trace_burst_fn: 0, it never ends the run.
 */
static int traced_burst(struct verbs_rx *rx, int n, uint64_t now,
			uint32_t *unit)
{
	struct pl_trace *t = &rx->trace;
	uint32_t slot[VERBS_MAX_BATCH], tunit[VERBS_MAX_BATCH],
		tslot[VERBS_MAX_BATCH];
	const struct ibv_wc *wc;
	const uint8_t *buf;
	enum pl_reason r;
	struct pl_pkt p;
	uint32_t len, imm;
	size_t off;
	int i, k = 0, tk = 0;

	rx->completions += (unsigned)n;
	for (i = 0; i < n; i++) {
		wc = &rx->wc[i];
		if (wc->status != IBV_WC_SUCCESS) {
			rx->wc_errors++;
			rx->last_wc_status = wc->status;
			continue;
		}
		slot[k++] = (uint32_t)wc->wr_id;
		if (!verbs_decode_wc(rx, wc, &off, &len))
			continue;
		imm = rx->write_imm ? rx->imm_last : 0;
		buf = rx->ep.buf + off;
		memset(&p, 0, sizeof(p));
		r = rx_one(rx, buf, len, now, &p);
		if (*unit >= t->units)
			continue;
		tslot[tk] = slot[k - 1];
		tunit[tk++] = ++*unit;
		pl_trace_rec(t, *unit, PL_AT_NIC, PL_EV_DMA,
			     rx->write_imm ? "RDMA WRITE into the ring"
					   : "DMA into the posted buffer",
			     "addr len slot", (uintptr_t)buf, len,
			     rx->write_imm ? imm : slot[k - 1], 0);
		pl_trace_rec(t, *unit, PL_AT_USER, PL_EV_RING,
			     "ibv_poll_cq(): completion",
			     "wr_id byte_len imm opcode", wc->wr_id,
			     wc->byte_len, imm, wc->opcode);
		pl_trace_rec(t, *unit, PL_AT_USER, PL_EV_STEP, "parse in place",
			     "reason seq flow one_way_ns", r, p.seq, p.flow,
			     r == PL_OK && now > p.tx_ns ? now - p.tx_ns : 0);
	}
	if (verbs_post(rx, slot, k))
		rx->post_errors++;
	for (i = 0; i < tk; i++)
		pl_trace_rec(t, tunit[i], PL_AT_USER, PL_EV_RING,
			     "repost the buffer (ibv_post_recv)",
			     "wr_id call count", tslot[i], rx->recv_posts,
			     (uint64_t)k, 0);
	return 0; /* the CPU loop never ends the run here */
}

void verbs_trace_step(struct verbs_rx *rx, int n, uint64_t now,
		      verbs_trace_burst_fn *fn)
{
	/* An error ends the run: no plain handler, nothing more traced. */
	if (!fn(rx, n, now, &rx->traced) && rx->traced < rx->trace.units)
		return;
	pl_trace_close(&rx->trace);
	rx->on_burst = rx->plain_burst;
}

/* Trace the first messages, then hand over to the plain handler. */
void verbs_traced_burst(struct verbs_rx *rx, int n, uint64_t now)
{
	verbs_trace_step(rx, n, now, traced_burst);
}
