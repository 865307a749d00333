/* SPDX-License-Identifier: MIT */
/*
 * Exercise 16: what the grader asks the worker. The device is exercise
 * 12's model, kept by the grader (vm_world.h); the worker reaches it
 * through exercise 12's vm_stub.c.
 */
#ifndef PATHLAB_EX_QD_RPC_H
#define PATHLAB_EX_QD_RPC_H

#include "qd_ex.h"
#include "qp_rpc.h"

enum { QD_STREAM = WK_OP_FIRST };

/* QD_STREAM: qd_stream() on QPs 0 and 1, MRs 0 and 1; an int32_t. */
struct qd_req {
	struct qx_world w;
	uint32_t psn_a, psn_b, n, len, imm0;
};

#endif
