/* SPDX-License-Identifier: MIT */
/*
 * The model's world of the graders of exercises 12 and 16: two hosts
 * back to back (na, nb), an RC QP on each (qa, qb) with a send and a
 * receive CQ, 64 KiB registered on each (mr_a, mr_b); what the worker's
 * copies are (request()), and the device its verbs reach (served once
 * setup() ran).
 */
#ifndef PATHLAB_EX_VM_WORLD_H
#define PATHLAB_EX_VM_WORLD_H

#include "qp_rpc.h"

extern struct vm_node na, nb;
extern struct vm_cq a_scq, a_rcq, b_scq, b_rcq;
extern struct vm_qp qa, qb;
extern uint8_t buf_a[65536], buf_b[65536];
extern struct vm_mr *mr_a, *mr_b;

/*
 * What the device reported to the worker's polls, per CQ (in the order of
 * a_scq, a_rcq, b_scq, b_rcq): completions by status, and the status of
 * the first error one (-1: none).
 */
extern uint64_t vw_polled[QX_CQS][VM_WC_WR_FLUSH_ERR + 1];
extern int vw_first_error[QX_CQS];

/* A fresh world; the worker's verbs served by its model from now on. */
void setup(void);

/* Let the worker know QP qp too (a QP created after setup()). */
void known(struct vm_qp *qp);

/* A request about qp, mr, cq, with the world as the worker must see it. */
struct qx_req request(struct vm_qp *qp, const struct vm_mr *mr,
		      struct vm_cq *cq);

/* Send request op; the worker's answer. */
struct qx_ans ask(unsigned op, const struct qx_req *q);

#endif
