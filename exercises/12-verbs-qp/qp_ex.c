/* SPDX-License-Identifier: MIT */
/*
 * Exercise 12: a verbs connection, from the specification alone.
 *
 * qp_ex.h says what each function does; vmodel.h is the device, with the
 * rules it enforces. ibv_modify_qp(3) lists which attributes each step
 * needs. Nothing here is given but the signatures: write the bodies at
 * the marks "Exercise 12.N".
 */
#include "qp_ex.h"

#include <errno.h>

int qx_rc_connect(struct vm_qp *qp, const struct qx_peer *peer, uint32_t my_psn)
{
	/* Exercise 12.1: RESET -> INIT -> RTR -> RTS for an RC QP. */
	return -ENOSYS;
}

int qx_ud_ready(struct vm_qp *qp, uint32_t qkey, uint32_t psn)
{
	/* Exercise 12.2: the same steps for a UD QP: what does it not need? */
	return -ENOSYS;
}

int qx_post_recv(struct vm_qp *qp, const struct vm_mr *mr, size_t off,
		 uint32_t len, uint64_t wr_id)
{
	/* Exercise 12.3: one receive work request, bounds checked first. */
	return -ENOSYS;
}

int qx_write_imm(struct vm_qp *qp, const struct vm_mr *mr, size_t off,
		 uint32_t len, uint64_t remote_addr, uint32_t rkey,
		 uint32_t imm, uint64_t wr_id)
{
	/* Exercise 12.4: one RDMA WRITE WITH IMMEDIATE work request. */
	return -ENOSYS;
}

int qx_poll_imm(struct vm_cq *cq, uint32_t *imm, uint32_t *len, uint64_t *wr_id)
{
	/* Exercise 12.5: one completion, checked and decoded. */
	return -ENOSYS;
}
