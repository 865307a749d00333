/* SPDX-License-Identifier: MIT */
/*
 * The verbs receiver's setup helpers: one queue's device, CQ, registered
 * ring (and QP, unless rdma_cm makes it later), and their teardown; the
 * first step of the measured window, which lets the sender connect; the
 * receive loop's idle step with --cq event.
 */
#include "rx_verbs.h"
#include "gpu.h"

#include <errno.h>
#include <poll.h>

#define WAIT_MS	  100 /* --cq event: re-check the run's end this often */
#define ACK_EVERY 64  /* acknowledge CQ events in batches (a mutex each) */

/*
 * One queue's device, CQ, registered ring; the QP too unless rdma_cm
 * makes it later. Undone by verbs_close().
 */
static int verbs_open(struct verbs_rx *rx, const struct cfg *c)
{
	unsigned access = IBV_ACCESS_LOCAL_WRITE;
	int err;

	rx->depth = c->v.depth;
	rx->batch = c->v.batch;
	rx->write_imm = c->v.mode == VERBS_RC_WRITE_IMM;
	rx->grh = c->v.mode == VERBS_UD ? VERBS_GRH : 0;
	rx->reflect = c->rx.reflect;
	if (rx->write_imm)
		access |= IBV_ACCESS_REMOTE_WRITE;
	err = verbs_ep_open(&rx->ep, &c->v, true, rx->queue);
	if (!err && c->gpu != PL_GPU_NONE)
		err = gpu_verbs_setup(rx, c); /* the ring goes to the GPU */
	if (!err && c->hw_stamps)
		err = hwstamp_verbs_setup(rx); /* a CQ with stamps */
	if (err)
		goto out_close;
	/*
	 * A WRITE longer than one packet lands before its last packet finds
	 * (or misses) a receive buffer; twice the slots keep the sender from
	 * reaching a slot we have not read yet.
	 */
	err = verbs_ep_objects(&rx->ep, &c->v,
			       rx->write_imm ? 2 * rx->depth : rx->depth,
			       access);
	if (err)
		goto out_close;
	if (c->v.oob) {
		err = verbs_qp_create(&rx->ep, &c->v, send_depth(rx),
				      rx->depth);
		if (err)
			goto out_close;
	}
	return 0;

out_close:
	verbs_ep_close(&rx->ep);
	gpu_verbs_teardown(rx);
	return err;
}

/* Undo verbs_open() and the connection. */
static void verbs_close(struct verbs_rx *rx)
{
	pl_trace_close(&rx->trace); /* a run that ended while tracing */
	if (rx->unacked)
		ibv_ack_cq_events(rx->ep.cq, rx->unacked);
	verbs_disconnect(&rx->ep);
	reflect_teardown(rx); /* its address handles, before the PD */
	verbs_ep_close(&rx->ep);
	gpu_verbs_teardown(rx); /* after the MR over its memory is gone */
}

int verbs_queue_open(struct verbs_rx *rxq, unsigned q, struct pl_run *run,
		     const struct cfg *c)
{
	struct verbs_rx *rx = &rxq[q];
	int err;

	rx->cfg = c;
	rx->run = run;
	rx->queues = rxq;
	rx->queue = q;
	rx->nqueues = verbs_queues(&c->v);
	if (q) /* queue 0's are the run's, set up by pl_rx_begin() */
		pl_stats_init(&rx->stats);
	err = verbs_open(rx, c);
	if (err && q)
		pl_stats_free(&rx->stats);
	return err;
}

void verbs_queue_close(struct verbs_rx *rxq, unsigned q)
{
	verbs_close(&rxq[q]);
	if (q)
		pl_stats_free(&rxq[q].stats);
}

/*
 * The last step before the sender may use this QP: fill its receive queue
 * (every slot of the ring, a batch per call). After the last queue's, take
 * the run's "before" snapshots, so that the counters see every data packet
 * and no connection message.
 */
static int before_accept(void *arg)
{
	struct verbs_rx *first;
	struct verbs_rx *rx = arg;
	uint32_t slot[VERBS_MAX_BATCH];
	unsigned i, k, n;
	int err = 0;

	for (i = 0; i < rx->depth && !err; i += n) {
		n = rx->depth - i < VERBS_MAX_BATCH ? rx->depth - i
						    : VERBS_MAX_BATCH;
		for (k = 0; k < n; k++)
			slot[k] = i + k;
		err = verbs_post(rx, slot, (int)n);
	}
	if (rx->cfg->rx.trace)
		verbs_trace_posted(rx);
	if (rx->queue + 1 < rx->nqueues)
		return err;
	first = &rx->queues[0];
	verbs_hwctr_read(&first->ep.where, &first->hw_before);
	pl_sysctr_read(&first->before, first->ifname);
	return err;
}

/*
 * Let the sender connect (once we said we are ready): every queue's QP in
 * turn, each on its own port; the last one takes "before".
 */
int verbs_accept_sender(void *arg)
{
	struct verbs_rx *rxq = arg;
	unsigned q;
	int err = 0;

	for (q = 0; q < rxq->nqueues && !err; q++)
		err = verbs_accept(&rxq[q].ep, &rxq[q].cfg->v,
				   send_depth(&rxq[q]), rxq[q].depth,
				   before_accept, &rxq[q]);
	if (!err && rxq->cfg->rx.trace)
		verbs_trace_qp(rxq, "QP after the accept");
	return err;
}

/* 8< verbs-event-loop */
/*
 * --cq event, the CQ empty: arm it and poll once more (a completion may
 * have come in between), then sleep on the channel.
 */
void event_wait(struct verbs_rx *rx)
{
	struct pollfd pfd = { .fd = rx->ep.ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_ctx;

	if (!rx->armed) {
		ibv_req_notify_cq(rx->ep.cq, 0);
		rx->arms++;
		rx->armed = true;
		return;
	}
	rx->waits++; /* poll(): sleep until the channel fd is ready */
	if (poll(&pfd, 1, WAIT_MS) <= 0)
		return; /* a timeout, or a signal at the end */
	rx->reads++;	/* ibv_get_cq_event(): read() on the fd */
	if (ibv_get_cq_event(rx->ep.ch, &cq, &cq_ctx))
		return;
	rx->events++;
	rx->armed = false;
	if (++rx->unacked == ACK_EVERY) {
		ibv_ack_cq_events(cq, rx->unacked);
		rx->unacked = 0;
	}
}
/* >8 verbs-event-loop */
