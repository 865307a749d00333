/* SPDX-License-Identifier: MIT */
/*
 * Exercise 12: what the grader and the worker say. The device (the model
 * of vmodel.c) is the grader's, as a real one is outside the process that
 * drives it: the worker has copies of the objects the student's code
 * reads (a QP's number and node, an MR's keys and bounds), and its
 * vm_modify_qp(), vm_post_recv(), vm_post_send(), vm_poll_cq() and
 * vm_query_qp() are calls to the grader's device (vm_stub.c).
 */
#ifndef PATHLAB_EX_QP_RPC_H
#define PATHLAB_EX_QP_RPC_H

#include <stdint.h>

#include "proto.h"
#include "qp_ex.h"

/* The grader asks the worker. */
enum {
	QX_RC_CONNECT = WK_OP_FIRST,
	QX_UD_READY,
	QX_POST_RECV,
	QX_WRITE_IMM,
	QX_POLL_IMM,
};

/* The worker calls the device. */
enum { VD_MODIFY, VD_QUERY, VD_POST_RECV, VD_POST_SEND, VD_POLL };

#define QX_QPS	   4
#define QX_CQS	   4
#define QX_MRS	   2
#define VD_MAX_SGE 4
#define QX_NONE	   0xffffffffu /* a pointer the device does not know */

/* The objects, as the student's code sees them: sent with every call. */
struct qx_world {
	struct {
		uint16_t lid;
		uint32_t active_mtu;
	} node[2];
	struct {
		uint32_t node, type, qp_num, scq, rcq;
	} qp[QX_QPS];
	struct vm_mr mr[QX_MRS];
	uint32_t nqp, nmr;
};

/* A request: the world, then which objects and the arguments. */
struct qx_req {
	struct qx_world w;
	uint32_t qp, mr, cq;
	uint32_t len, psn, qkey, imm, rkey;
	uint64_t off, wr_id, remote_addr;
	struct qx_peer peer;
};

struct qx_ans {
	int32_t ret;
	uint32_t imm, len;
	uint64_t wr_id;
};

/* A call to the device. */
struct vd_call {
	uint32_t qp, cq;
	int32_t mask, n, num_sge;
	struct vm_qp_attr attr;
	struct vm_send_wr send; /* sg_list not used: sge[] */
	uint64_t wr_id;
	struct vm_sge sge[VD_MAX_SGE];
};

struct vd_ans {
	int32_t ret;
	struct vm_qp_attr attr;
	struct vm_wc wc[VM_MAX_CQE];
};

/* The worker's copies of the objects, and how it refreshes them. */
extern struct vm_qp wk_qps[QX_QPS];
extern struct vm_cq wk_cqs[QX_CQS];
extern struct vm_mr wk_mrs[QX_MRS];
void wk_world(const struct qx_world *w);

#endif
