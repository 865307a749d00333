/* SPDX-License-Identifier: MIT */
/* Graded tests of exercise 12: a verbs connection on the model. */
#include "grade.h"
#include "qp_ex.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

/* Two hosts back to back, an RC QP on each, 64 KiB registered on each. */
static struct vm_node na, nb;
static struct vm_cq a_scq, a_rcq, b_scq, b_rcq;
static struct vm_qp qa, qb;
static uint8_t buf_a[65536], buf_b[65536];
static struct vm_mr *mr_a, *mr_b;

static void setup(void)
{
	unsigned acc = VM_ACCESS_LOCAL_WRITE | VM_ACCESS_REMOTE_WRITE;

	vm_link(&na, &nb);
	memset(&a_scq, 0, sizeof(a_scq));
	memset(&a_rcq, 0, sizeof(a_rcq));
	memset(&b_scq, 0, sizeof(b_scq));
	memset(&b_rcq, 0, sizeof(b_rcq));
	vm_create_qp(&na, &qa, VM_QPT_RC, &a_scq, &a_rcq);
	vm_create_qp(&nb, &qb, VM_QPT_RC, &b_scq, &b_rcq);
	mr_a = vm_reg_mr(&na, buf_a, sizeof(buf_a), acc);
	mr_b = vm_reg_mr(&nb, buf_b, sizeof(buf_b), acc);
}

/* Connect qa and qb both ways with the student's code (PSNs 100, 500). */
static void connect_both(void)
{
	struct qx_peer to_b = { nb.lid, qb.qp_num, 500 };
	struct qx_peer to_a = { na.lid, qa.qp_num, 100 };
	int ra, rb;

	gr_context("qx_rc_connect()");
	ra = qx_rc_connect(&qa, &to_b, 100);
	rb = qx_rc_connect(&qb, &to_a, 500);
	GR_CHECK(ra == 0 && rb == 0, "qx_rc_connect() returned %d and %d", ra,
		 rb);
}

/* RESET -> INIT -> RTR -> RTS, with what the connection needs. */
static int rc_connect(void)
{
	struct vm_qp_attr a, b;

	setup();
	connect_both();
	GR_STOP_IF_FAILED();
	vm_query_qp(&qa, &a);
	vm_query_qp(&qb, &b);
	GR_EQ_U(a.qp_state, VM_QPS_RTS);
	GR_EQ_U(b.qp_state, VM_QPS_RTS);
	GR_EQ_U(a.dest_qp_num, qb.qp_num);
	GR_EQ_U(a.dlid, nb.lid);
	GR_EQ_U(a.sq_psn, 100);
	GR_EQ_U(a.rq_psn, 500);
	GR_EQ_U(b.rq_psn, 100);
	GR_EQ_U(a.path_mtu, VM_MTU_4096);
	GR_CHECK(b.qp_access_flags & VM_ACCESS_REMOTE_WRITE,
		 "the peer may not RDMA-write into this QP's memory");
	/* A QP already connected cannot take RESET -> INIT again. */
	GR_EQ_U(qx_rc_connect(&qa, &(struct qx_peer){ nb.lid, qb.qp_num, 1 },
			      7),
		-EINVAL);
	return gr_verdict();
}

/* The path MTU is the port's, not a constant. */
static int rc_mtu(void)
{
	struct vm_qp_attr a;

	setup();
	na.active_mtu = nb.active_mtu = VM_MTU_1024;
	connect_both();
	GR_STOP_IF_FAILED();
	GR_EQ_U(vm_query_qp(&qa, &a), 0);
	GR_EQ_U(a.path_mtu, VM_MTU_1024);
	return gr_verdict();
}

/* A UD QP: a Q_Key, no remote QP, no PSN to expect. */
static int ud_ready(void)
{
	struct vm_qp_attr a;
	struct vm_qp u;
	int r;

	setup();
	vm_create_qp(&na, &u, VM_QPT_UD, &a_scq, &a_rcq);
	r = qx_ud_ready(&u, 0x11111111, 42);
	GR_CHECK(r == 0, "qx_ud_ready() returned %d", r);
	vm_query_qp(&u, &a);
	GR_EQ_U(a.qp_state, VM_QPS_RTS);
	GR_EQ_U(a.qkey, 0x11111111);
	GR_EQ_U(a.sq_psn, 42);
	return gr_verdict();
}

/* Receives: inside the MR or refused before they reach the device. */
static int recv_bounds(void)
{
	setup();
	connect_both();
	GR_STOP_IF_FAILED();
	GR_EQ_U(qx_post_recv(&qb, mr_b, 0, 65536, 1), 0);
	GR_EQ_U(qx_post_recv(&qb, mr_b, 65000, 536, 2), 0);
	GR_EQ_U(qx_post_recv(&qb, mr_b, 65000, 537, 3), -EINVAL);
	GR_EQ_U(qx_post_recv(&qb, mr_b, 70000, 1, 4), -EINVAL);
	GR_EQ_U(qx_post_recv(&qb, mr_b, SIZE_MAX, 2, 5), -EINVAL);
	GR_EQ_U(qb.rq_count, 2);
	GR_EQ_U(qb.rq[0].wr_id, 1);
	GR_EQ_U(qb.rq_sge[1].addr, (uintptr_t)(buf_b + 65000));
	return gr_verdict();
}

/* A write with immediate: the data lands, the responder learns of it. */
static int write_imm(void)
{
	struct vm_wc wc;
	uint32_t imm = 0, len = 0;
	uint64_t id = 0;
	int r;

	setup();
	connect_both();
	GR_STOP_IF_FAILED();
	memset(buf_a + 100, 0x5a, 1000);
	GR_EQ_U(qx_post_recv(&qb, mr_b, 0, 0, 9), 0);
	r = qx_write_imm(&qa, mr_a, 100, 1000,
			 (uint64_t)(uintptr_t)(buf_b + 2048), mr_b->rkey,
			 0xc0ffee01, 77);
	GR_EQ_U(r, 0);
	GR_STOP_IF_FAILED();
	GR_CHECK(buf_b[2048] == 0x5a && buf_b[3047] == 0x5a && buf_b[3048] == 0,
		 "the 1000 bytes did not land at remote_addr");
	GR_EQ_U(b_rcq.count, 1);
	GR_STOP_IF_FAILED();
	GR_EQ_U(b_rcq.wc[b_rcq.head].imm_data, htonl(0xc0ffee01));
	GR_EQ_U(qx_poll_imm(&b_rcq, &imm, &len, &id), 1);
	GR_EQ_U(imm, 0xc0ffee01);
	GR_EQ_U(len, 1000);
	GR_EQ_U(id, 9);
	GR_EQ_U(vm_poll_cq(&a_scq, 1, &wc), 1);
	GR_EQ_U(wc.status, VM_WC_SUCCESS);
	GR_EQ_U(wc.wr_id, 77);
	/* Many writes of several packets each: the PSNs stay in step. */
	for (r = 0; r < 20; r++) {
		qx_post_recv(&qb, mr_b, 0, 0, 100 + r);
		qx_write_imm(&qa, mr_a, 0, 10000, (uintptr_t)buf_b, mr_b->rkey,
			     r, r);
	}
	for (r = 0; r < 20; r++)
		GR_CHECK(qx_poll_imm(&b_rcq, &imm, &len, &id) == 1 &&
				 imm == (uint32_t)r && id == 100u + r,
			 "write %d of 10000 bytes: no completion with imm %d",
			 r, r);
	return gr_verdict();
}

/* A write outside the local MR never reaches the device. */
static int write_bounds(void)
{
	struct vm_qp_attr a;

	setup();
	connect_both();
	GR_STOP_IF_FAILED();
	GR_EQ_U(qx_write_imm(&qa, mr_a, 65000, 1000, (uintptr_t)buf_b,
			     mr_b->rkey, 1, 1),
		-EINVAL);
	GR_EQ_U(qx_write_imm(&qa, mr_a, SIZE_MAX - 10, 100, (uintptr_t)buf_b,
			     mr_b->rkey, 1, 1),
		-EINVAL);
	GR_EQ_U(a_scq.count, 0);
	GR_CHECK(vm_query_qp(&qa, &a) == 0 && a.qp_state == VM_QPS_RTS,
		 "a refused write broke the QP");
	/* Before RTS the device refuses to send: the error comes back. */
	setup();
	GR_EQ_U(qx_write_imm(&qa, mr_a, 0, 10, (uintptr_t)buf_b, mr_b->rkey, 1,
			     1),
		-EINVAL);
	return gr_verdict();
}

/* Completions that are not a write with immediate: -EIO, and consumed. */
static int poll_errors(void)
{
	uint32_t imm, len;
	uint64_t id;

	setup();
	connect_both();
	GR_STOP_IF_FAILED();
	GR_EQ_U(qx_poll_imm(&b_rcq, &imm, &len, &id), 0);
	/* A write without a posted receive: the requester gets RNR. */
	GR_EQ_U(qx_write_imm(&qa, mr_a, 0, 8, (uintptr_t)buf_b, mr_b->rkey, 5,
			     5),
		0);
	GR_EQ_U(qx_poll_imm(&a_scq, &imm, &len, &id), -EIO);
	GR_EQ_U(a_scq.count, 0);
	/* Receives flushed when the QP goes to ERR. */
	qx_post_recv(&qb, mr_b, 0, 64, 1);
	qx_post_recv(&qb, mr_b, 64, 64, 2);
	vm_modify_qp(&qb, &(struct vm_qp_attr){ .qp_state = VM_QPS_ERR },
		     VM_QP_STATE);
	GR_EQ_U(qx_poll_imm(&b_rcq, &imm, &len, &id), -EIO);
	GR_EQ_U(qx_poll_imm(&b_rcq, &imm, &len, &id), -EIO);
	GR_EQ_U(qx_poll_imm(&b_rcq, &imm, &len, &id), 0);
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "rc_connect", 4, "RC: RESET->INIT->RTR->RTS with the peer's QPN, PSN",
	  rc_connect },
	{ "rc_mtu", 1, "the path MTU is the port's active MTU", rc_mtu },
	{ "ud_ready", 2, "UD: Q_Key, no remote QP, to RTS", ud_ready },
	{ "recv_bounds", 2, "receives inside the MR, refused otherwise",
	  recv_bounds },
	{ "write_imm", 5, "WRITE_WITH_IMM: data lands, imm in host order",
	  write_imm },
	{ "write_bounds", 2, "writes outside the MR or before RTS refused",
	  write_bounds },
	{ "poll_errors", 2, "error and flushed completions: -EIO",
	  poll_errors },
	{ 0 }
};

int main(int argc, char **argv)
{
	return gr_main(argc, argv, "12-verbs-qp", cases);
}
