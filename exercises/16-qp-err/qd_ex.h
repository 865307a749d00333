/* SPDX-License-Identifier: MIT */
/*
 * Exercise 16: a QP that ends in ERR. On the verbs model of exercise 12
 * (vmodel.h), a stream of RDMA writes with immediate from QP a to QP b.
 */
#ifndef PATHLAB_EX_QD_H
#define PATHLAB_EX_QD_H

#include "vmodel.h"

/*
 * Connect RC QPs a and b both ways (a sends from PSN psn_a, b from psn_b;
 * each may RDMA-write into the other's memory), post n receives on b,
 * then n signaled RDMA WRITE WITH IMMEDIATE from a: len bytes at the
 * start of mr_a to offset i * len of mr_b, immediate imm0 + i. Returns
 * how many of the writes completed successfully on a's send CQ, or
 * -EINVAL when a step of a connection is refused.
 */
int qd_stream(struct vm_qp *a, struct vm_qp *b, const struct vm_mr *mr_a,
	      const struct vm_mr *mr_b, uint32_t psn_a, uint32_t psn_b,
	      unsigned n, uint32_t len, uint32_t imm0);

#endif
