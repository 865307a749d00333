/* SPDX-License-Identifier: MIT */
/*
 * The verbs receiver's setup helpers: one queue's device, CQ, registered
 * ring (and QP, unless rdma_cm makes it later), and their teardown.
 */
#include "rx_verbs.h"
#include "gpu.h"

#include <errno.h>

/*
 * One queue's device, CQ, registered ring; the QP too unless rdma_cm
 * makes it later. Undone by verbs_close().
 */
int verbs_open(struct verbs_rx *rx, const struct cfg *c)
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
	if (c->rx.trace) {
		verbs_trace_setup(rx);
		if (rx->gpu)
			gpu_verbs_trace(rx);
	}
	return 0;

out_close:
	verbs_ep_close(&rx->ep);
	gpu_verbs_teardown(rx);
	return err;
}

/* Undo verbs_open() and the connection. */
void verbs_close(struct verbs_rx *rx)
{
	pl_trace_close(&rx->trace); /* a run that ended while tracing */
	if (rx->unacked)
		ibv_ack_cq_events(rx->ep.cq, rx->unacked);
	verbs_disconnect(&rx->ep);
	reflect_teardown(rx); /* its address handles, before the PD */
	verbs_ep_close(&rx->ep);
	gpu_verbs_teardown(rx); /* after the MR over its memory is gone */
}
