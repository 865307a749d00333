/* SPDX-License-Identifier: MIT */
/*
 * The verbs objects of one end and the life of its queue pair.
 *
 *   context  an open device (ours with --oob, librdmacm's otherwise)
 *   PD       protection domain: the objects below may only meet inside it
 *   CQ       completion queue, optionally with a completion channel (an fd
 *            that becomes readable when an armed CQ gets a completion)
 *   MR       registered memory: pinned, translated, given an lkey and rkey
 *   QP       queue pair: a send and a receive queue, moved through
 *            RESET -> INIT -> RTR (ready to receive) -> RTS (ready to send)
 *
 * Setup and close mirror each other, like rc_pingpong's pp_init_ctx and
 * pp_close_ctx: the labels of the ladder name what they undo.
 */
#include "verbs.h"
#include "clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * An extended CQ of cqe entries whose completions carry ep->cq_wc_flags
 * (with --hw-stamps: the completion's stamp); NULL and errno on failure.
 */
static struct ibv_cq *create_cq_ex(struct verbs_ep *ep, int cqe)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = (uint32_t)cqe,
		.channel = ep->ch,
		.wc_flags = ep->cq_wc_flags,
	};

	ep->cqx = ibv_create_cq_ex(ep->ctx, &a);
	return ep->cqx ? ibv_cq_ex_to_cq(ep->cqx) : NULL;
}

/* 8< verbs-objects */
/* PD, completion channel, CQ and the registered buffer of slots. */
int verbs_ep_objects(struct verbs_ep *ep, const struct verbs_cfg *c,
		     unsigned slots, unsigned mr_access)
{
	size_t len = (size_t)slots * VERBS_SLOT;
	uint64_t t0;
	int cqe, err;

	ep->pd = ibv_alloc_pd(ep->ctx);
	if (!ep->pd)
		return -errno;
	if (c->events) {
		ep->ch = ibv_create_comp_channel(ep->ctx);
		if (!ep->ch) {
			err = -errno;
			goto out_dealloc_pd;
		}
	}
	/* Duplex (a reflecting receiver, a ping-pong sender): each slot may
	 * owe a receive and a send completion at once. */
	cqe = (int)c->depth * (c->duplex ? 2 : 1) + 1;
	ep->cq = ep->cq_wc_flags ? create_cq_ex(ep, cqe)
				 : ibv_create_cq(ep->ctx, cqe, NULL, ep->ch, 0);
	if (!ep->cq) {
		err = -errno;
		goto out_destroy_channel;
	}
	if (ep->reg_ring) {
		/* The owner of the memory allocates and registers it. */
		t0 = pl_now_ns();
		err = ep->reg_ring(ep, len, mr_access, ep->reg_arg);
		ep->mr_reg_ns = pl_now_ns() - t0;
		if (err)
			goto out_destroy_cq;
		ep->ext_buf = true;
		goto done;
	}
	ep->buf = aligned_alloc(4096, len);
	if (!ep->buf) {
		err = -ENOMEM;
		goto out_destroy_cq;
	}
	memset(ep->buf, 0, len); /* touch it: the registration then pins */
	t0 = pl_now_ns();
	ep->mr = ibv_reg_mr(ep->pd, ep->buf, len, (int)mr_access);
	ep->mr_reg_ns = pl_now_ns() - t0;
	if (!ep->mr) {
		err = -errno;
		goto out_free_buf;
	}
done:
	ep->slots = slots;
	ep->slot_size = VERBS_SLOT;
	return 0;

out_free_buf:
	free(ep->buf);
	ep->buf = NULL;
out_destroy_cq:
	ibv_destroy_cq(ep->cq);
	ep->cq = NULL;
	ep->cqx = NULL;
out_destroy_channel:
	if (ep->ch)
		ibv_destroy_comp_channel(ep->ch);
	ep->ch = NULL;
out_dealloc_pd:
	ibv_dealloc_pd(ep->pd);
	ep->pd = NULL;
	return err;
}
/* >8 verbs-objects */

/* The QP's creation attributes: both queues complete on our one CQ. */
static struct ibv_qp_init_attr qp_attr(const struct verbs_ep *ep,
				       const struct verbs_cfg *c,
				       unsigned send_wr, unsigned recv_wr)
{
	return (struct ibv_qp_init_attr){
		.send_cq = ep->cq,
		.recv_cq = ep->cq,
		.qp_type = c->mode == VERBS_UD ? IBV_QPT_UD : IBV_QPT_RC,
		.sq_sig_all = 0, /* we choose which sends complete */
		.cap = {
			.max_send_wr = send_wr,
			.max_recv_wr = recv_wr,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
}

/* Create the QP: through librdmacm on ep->id, or plainly (--oob). */
int verbs_qp_create(struct verbs_ep *ep, const struct verbs_cfg *c,
		    unsigned send_wr, unsigned recv_wr)
{
	struct ibv_qp_init_attr a = qp_attr(ep, c, send_wr, recv_wr);

	if (ep->id) {
		/* librdmacm also walks it to INIT (and a UD QP to RTS). */
		if (rdma_create_qp(ep->id, ep->pd, &a))
			return -errno;
		ep->qp = ep->id->qp;
		return 0;
	}
	ep->qp = ibv_create_qp(ep->pd, &a);
	if (!ep->qp)
		return -errno;
	ep->psn = (unsigned)lrand48() & 0xffffff;
	return verbs_qp_init(ep, c);
}

/* 8< verbs-qp-state-machine */
/* RESET -> INIT: bind the QP to a port; say what the peer may do to us. */
int verbs_qp_init(struct verbs_ep *ep, const struct verbs_cfg *c)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = (uint8_t)ep->where.port,
		.qkey = VERBS_QKEY,
		.qp_access_flags =
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	mask |= c->mode == VERBS_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	return -ibv_modify_qp(ep->qp, &a, mask);
}

/* INIT -> RTR: for RC, who the one peer is and where its packets go. */
int verbs_qp_rtr(struct verbs_ep *ep, const struct verbs_cfg *c)
{
	enum ibv_mtu mtu = (enum ibv_mtu)ep->remote.mtu;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu < ep->where.mtu ? mtu : ep->where.mtu,
		.dest_qp_num = ntohl(ep->remote.qpn),
		.rq_psn = ntohl(ep->remote.psn),
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 1, /* 0.01 ms: how long to back off on RNR */
		.ah_attr = {
			.is_global = 1, /* RoCE: every packet has a GRH */
			.grh = {
				.sgid_index = (uint8_t)ep->where.gid_index,
				.hop_limit = 64,
			},
			.port_num = (uint8_t)ep->where.port,
		},
	};

	if (c->mode == VERBS_UD) /* UD: the address comes with each send */
		return -ibv_modify_qp(ep->qp, &a, IBV_QP_STATE);
	memcpy(a.ah_attr.grh.dgid.raw, ep->remote.gid, 16);
	return -ibv_modify_qp(ep->qp, &a,
			      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				      IBV_QP_MAX_DEST_RD_ATOMIC |
				      IBV_QP_MIN_RNR_TIMER);
}

/* RTR -> RTS: the send side; for RC its timeouts and retries. */
int verbs_qp_rts(struct verbs_ep *ep, const struct verbs_cfg *c)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = ep->psn,
		.timeout = 14,	/* 4.096 us * 2^14 = 67 ms per ACK wait */
		.retry_cnt = 7, /* packet lost: resend up to 7 times */
		.rnr_retry = 7, /* receiver not ready: retry forever */
		.max_rd_atomic = 1,
	};

	if (c->mode == VERBS_UD)
		return -ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	return -ibv_modify_qp(ep->qp, &a,
			      IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				      IBV_QP_MAX_QP_RD_ATOMIC);
}
/* >8 verbs-qp-state-machine */

/* What we tell the peer: our QP, GID and, for RDMA WRITE, our ring. */
void verbs_wire_fill(const struct verbs_ep *ep, const struct verbs_cfg *c,
		     struct verbs_wire *w)
{
	*w = (struct verbs_wire){
		.magic = htonl(VERBS_WIRE_MAGIC),
		.mode = (uint8_t)c->mode,
		.qpn = htonl(ep->qp->qp_num),
		.psn = htonl(ep->psn),
		.qkey = htonl(VERBS_QKEY),
		.mtu = (uint8_t)ep->where.mtu,
		.rkey = htonl(ep->mr->rkey),
		.slots = htonl(ep->slots),
		.slot_size = htonl(ep->slot_size),
		.addr = htobe64((uint64_t)(uintptr_t)ep->buf),
		.queue = (uint8_t)ep->queue,
		.queues = (uint8_t)verbs_queues(c),
	};
	memcpy(w->gid, ep->where.gid.raw, 16);
}

/* The QPs of an end: --queues, at least 1. */
unsigned verbs_queues(const struct verbs_cfg *c)
{
	return c->queues > 1 ? c->queues : 1;
}

/* Undo everything, newest first; safe on a partly set-up end. */
void verbs_ep_close(struct verbs_ep *ep)
{
	if (ep->ah)
		ibv_destroy_ah(ep->ah);
	if (ep->qp && ep->id && ep->id->qp)
		rdma_destroy_qp(ep->id);
	else if (ep->qp)
		ibv_destroy_qp(ep->qp);
	if (ep->mr)
		ibv_dereg_mr(ep->mr);
	if (!ep->ext_buf)
		free(ep->buf);
	if (ep->cq)
		ibv_destroy_cq(ep->cq);
	if (ep->ch)
		ibv_destroy_comp_channel(ep->ch);
	if (ep->pd)
		ibv_dealloc_pd(ep->pd);
	if (ep->id && ep->id != ep->listen_id)
		rdma_destroy_id(ep->id);
	if (ep->listen_id)
		rdma_destroy_id(ep->listen_id);
	if (ep->cm_ch)
		rdma_destroy_event_channel(ep->cm_ch);
	if (ep->oob_fd >= 0)
		close(ep->oob_fd);
	if (ep->oob_listen >= 0)
		close(ep->oob_listen);
	if (ep->own_ctx)
		ibv_close_device(ep->ctx);
	*ep = (struct verbs_ep){ .oob_fd = -1, .oob_listen = -1 };
}
