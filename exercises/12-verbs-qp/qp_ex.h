/* SPDX-License-Identifier: MIT */
/*
 * Exercise 12: a verbs connection, from the specification alone. The
 * device is the model of vmodel.h (the rules of libibverbs and the
 * InfiniBand specification, no hardware). Every function returns 0 on
 * success; the errors are negative errno values.
 */
#ifndef PATHLAB_EX_QP_H
#define PATHLAB_EX_QP_H

#include "vmodel.h"

/* What the other side tells us out of band (rdma_cm, a TCP socket). */
struct qx_peer {
	uint16_t lid; /* its port's LID: our address vector's dlid */
	uint32_t qpn; /* its QP number */
	uint32_t psn; /* the first PSN it will send */
};

/*
 * Bring RC QP qp from RESET to RTS, connected to peer: packets we send
 * start at PSN my_psn; the peer may RDMA-write into our memory. Use the
 * largest MTU the port has (qp->node->active_mtu), port 1, P_Key index 0.
 * -EINVAL, naming no step, when a step is refused.
 */
int qx_rc_connect(struct vm_qp *qp, const struct qx_peer *peer,
		  uint32_t my_psn);

/* Bring UD QP qp from RESET to RTS, with Q_Key qkey and first PSN psn. */
int qx_ud_ready(struct vm_qp *qp, uint32_t qkey, uint32_t psn);

/*
 * Post one receive: len bytes at offset off of mr, with wr_id. -EINVAL
 * when [off, off + len) is not inside mr: checked here, before posting.
 */
int qx_post_recv(struct vm_qp *qp, const struct vm_mr *mr, size_t off,
		 uint32_t len, uint64_t wr_id);

/*
 * RDMA WRITE WITH IMMEDIATE, signaled: len bytes at offset off of local
 * mr to remote_addr under rkey, with the 32-bit immediate imm (a host
 * number: the wire carries it big-endian). -EINVAL when [off, off + len)
 * is not inside mr (checked before posting), else the negated error of
 * posting.
 */
int qx_write_imm(struct vm_qp *qp, const struct vm_mr *mr, size_t off,
		 uint32_t len, uint64_t remote_addr, uint32_t rkey,
		 uint32_t imm, uint64_t wr_id);

/*
 * Take one completion off the responder's CQ: 1 for a successful RDMA
 * WRITE WITH IMMEDIATE, with its immediate (a host number), its length
 * and the wr_id of the receive it consumed; 0 when the CQ is empty;
 * -EIO for any other completion (an error, a plain receive), which is
 * taken off the CQ all the same.
 */
int qx_poll_imm(struct vm_cq *cq, uint32_t *imm, uint32_t *len,
		uint64_t *wr_id);

#endif
