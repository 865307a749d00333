/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 12: a verbs connection on the model. The
 * student's code runs in the worker (wk_qp.c); the device it drives, the
 * model of vmodel.c, is here, and every verb the worker calls reaches it
 * (vm_stub.c): the device's state is the grader's.
 */
#include "grade.h"
#include "qp_rpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "vm_world.h"

/* The student's functions (qp_ex.h), run in the worker. */
int qx_rc_connect(struct vm_qp *qp, const struct qx_peer *peer, uint32_t my_psn)
{
	struct qx_req q = request(qp, NULL, NULL);

	q.peer = *peer;
	q.psn = my_psn;
	return ask(QX_RC_CONNECT, &q).ret;
}

int qx_ud_ready(struct vm_qp *qp, uint32_t qkey, uint32_t psn)
{
	struct qx_req q = request(qp, NULL, NULL);

	q.qkey = qkey;
	q.psn = psn;
	return ask(QX_UD_READY, &q).ret;
}

int qx_post_recv(struct vm_qp *qp, const struct vm_mr *mr, size_t off,
		 uint32_t len, uint64_t wr_id)
{
	struct qx_req q = request(qp, mr, NULL);

	q.off = off;
	q.len = len;
	q.wr_id = wr_id;
	return ask(QX_POST_RECV, &q).ret;
}

int qx_write_imm(struct vm_qp *qp, const struct vm_mr *mr, size_t off,
		 uint32_t len, uint64_t remote_addr, uint32_t rkey,
		 uint32_t imm, uint64_t wr_id)
{
	struct qx_req q = request(qp, mr, NULL);

	q.off = off;
	q.len = len;
	q.remote_addr = remote_addr;
	q.rkey = rkey;
	q.imm = imm;
	q.wr_id = wr_id;
	return ask(QX_WRITE_IMM, &q).ret;
}

int qx_poll_imm(struct vm_cq *cq, uint32_t *imm, uint32_t *len, uint64_t *wr_id)
{
	struct qx_req q = request(NULL, NULL, cq);
	struct qx_ans a = ask(QX_POLL_IMM, &q);

	*imm = a.imm;
	*len = a.len;
	*wr_id = a.wr_id;
	return a.ret;
}

static uint32_t psn_a = 100, psn_b = 500;

/* Drawn LIDs, QP numbers and first PSNs for the next connection. */
static void draw_ids(void)
{
	na.lid = (uint16_t)(1 + gr_below(0xbfff));
	nb.lid = (uint16_t)(na.lid + 1 + gr_below(100));
	qa.qp_num = (uint32_t)(2 + gr_below(0xfffff0));
	qb.qp_num = qa.qp_num + 1 + (uint32_t)gr_below(8);
	psn_a = (uint32_t)gr_below(1u << 24);
	psn_b = (uint32_t)gr_below(1u << 24);
}

/* Connect qa and qb both ways with the student's code (PSNs psn_a, _b). */
static void connect_both(void)
{
	struct qx_peer to_b = { nb.lid, qb.qp_num, psn_b };
	struct qx_peer to_a = { na.lid, qa.qp_num, psn_a };
	int ra, rb;

	gr_context("qx_rc_connect()");
	ra = qx_rc_connect(&qa, &to_b, psn_a);
	rb = qx_rc_connect(&qb, &to_a, psn_b);
	gr_context("%s", "");
	GR_CHECK(ra == 0 && rb == 0, "qx_rc_connect() returned %d and %d", ra,
		 rb);
}

/* Both QPs connected as asked: states, addresses, PSNs, access. */
static void check_connected(void)
{
	struct vm_qp_attr a, b;

	vm_query_qp(&qa, &a);
	vm_query_qp(&qb, &b);
	GR_EQ_U(a.qp_state, VM_QPS_RTS);
	GR_EQ_U(b.qp_state, VM_QPS_RTS);
	GR_EQ_U(a.dest_qp_num, qb.qp_num);
	GR_EQ_U(b.dest_qp_num, qa.qp_num);
	GR_EQ_U(a.dlid, nb.lid);
	GR_EQ_U(b.dlid, na.lid);
	GR_EQ_U(a.sq_psn, psn_a);
	GR_EQ_U(a.rq_psn, psn_b);
	GR_EQ_U(b.rq_psn, psn_a);
	GR_EQ_U(a.path_mtu, na.active_mtu);
	GR_CHECK(b.qp_access_flags & VM_ACCESS_REMOTE_WRITE,
		 "the peer may not RDMA-write into this QP's memory");
}

/* RESET -> INIT -> RTR -> RTS, with what the connection needs. */
static int rc_connect(void)
{
	unsigned i;

	setup();
	connect_both();
	GR_STOP_IF_FAILED();
	check_connected();
	/* A QP already connected cannot take RESET -> INIT again. */
	GR_EQ_U(qx_rc_connect(&qa, &(struct qx_peer){ nb.lid, qb.qp_num, 1 },
			      7),
		-EINVAL);
	for (i = 0; i < 5 && !gr_failures; i++) {
		setup();
		draw_ids();
		connect_both();
		GR_STOP_IF_FAILED();
		check_connected();
	}
	return gr_verdict();
}

/* The path MTU is the port's, not a constant. */
static int rc_mtu(void)
{
	struct vm_qp_attr a;

	unsigned i;

	setup();
	na.active_mtu = nb.active_mtu = VM_MTU_1024;
	connect_both();
	GR_STOP_IF_FAILED();
	GR_EQ_U(vm_query_qp(&qa, &a), 0);
	GR_EQ_U(a.path_mtu, VM_MTU_1024);
	for (i = 0; i < 5 && !gr_failures; i++) {
		setup();
		draw_ids();
		na.active_mtu = nb.active_mtu =
			(enum vm_mtu)(VM_MTU_256 + gr_below(5));
		connect_both();
		GR_STOP_IF_FAILED();
		GR_EQ_U(vm_query_qp(&qa, &a), 0);
		GR_EQ_U(a.path_mtu, na.active_mtu);
	}
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
	known(&u);
	r = qx_ud_ready(&u, 0x11111111, 42);
	GR_CHECK(r == 0, "qx_ud_ready() returned %d", r);
	vm_query_qp(&u, &a);
	GR_EQ_U(a.qp_state, VM_QPS_RTS);
	GR_EQ_U(a.qkey, 0x11111111);
	GR_EQ_U(a.sq_psn, 42);
	{
		struct vm_qp v;
		uint32_t qkey = (uint32_t)gr_rand(),
			 psn = (uint32_t)gr_below(1u << 24);

		vm_create_qp(&nb, &v, VM_QPT_UD, &b_scq, &b_rcq);
		known(&v);
		r = qx_ud_ready(&v, qkey, psn);
		GR_CHECK(r == 0, "qx_ud_ready() returned %d", r);
		vm_query_qp(&v, &a);
		GR_EQ_U(a.qp_state, VM_QPS_RTS);
		GR_EQ_U(a.qkey, qkey);
		GR_EQ_U(a.sq_psn, psn);
	}
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
	{
		unsigned i, n = 2;
		size_t off;
		uint32_t len;
		int r;

		for (i = 0; i < 60 && !gr_failures; i++) {
			off = gr_below(2) ? gr_below(65537)
					  : 65536 - gr_below(600);
			len = (uint32_t)(gr_below(2)
						 ? gr_below(65537 - off) +
							   (gr_below(3) == 0)
						 : gr_below(1u << 20));
			r = qx_post_recv(&qb, mr_b, off, len, 1000 + i);
			if (off + len > 65536) {
				GR_CHECK(r == -EINVAL,
					 "a receive of %u bytes at %zu: %d, "
					 "expected -EINVAL",
					 len, off, r);
				continue;
			}
			GR_CHECK(r == 0 || (r == -ENOMEM && n == VM_MAX_RECV),
				 "a receive of %u bytes at %zu: %d, expected 0",
				 len, off, r);
			if (r)
				break;
			GR_CHECK(qb.rq_sge[(qb.rq_head + n) % VM_MAX_RECV]
						 .addr ==
					 (uintptr_t)(buf_b + off),
				 "a receive at %zu posted at the wrong address",
				 off);
			n++;
		}
	}
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
	/* Drawn: offsets, lengths, bytes, immediates. */
	for (r = 0; r < 20 && !gr_failures; r++) {
		uint32_t n = 1 + (uint32_t)gr_below(8192),
			 want = (uint32_t)gr_rand();
		size_t lo = gr_below(65536 - n), ro = gr_below(65536 - n), i;

		for (i = 0; i < n; i++)
			buf_a[lo + i] = (uint8_t)gr_rand();
		GR_EQ_U(qx_post_recv(&qb, mr_b, 0, 0, 500 + r), 0);
		GR_EQ_U(qx_write_imm(&qa, mr_a, lo, n,
				     (uint64_t)(uintptr_t)(buf_b + ro),
				     mr_b->rkey, want, 900 + r),
			0);
		GR_CHECK(!memcmp(buf_b + ro, buf_a + lo, n),
			 "%u bytes from offset %zu did not land at %zu", n, lo,
			 ro);
		GR_CHECK(qx_poll_imm(&b_rcq, &imm, &len, &id) == 1 &&
				 imm == want && len == n && id == 500u + r,
			 "a write of %u bytes, imm %#x: poll said imm %#x len "
			 "%u wr_id %llu",
			 n, want, imm, len, (unsigned long long)id);
	}
	return gr_verdict();
}

/* A write outside the local MR never reaches the device. */
static int write_bounds(void)
{
	struct vm_qp_attr a;
	unsigned i;

	setup();
	connect_both();
	GR_STOP_IF_FAILED();
	GR_EQ_U(qx_write_imm(&qa, mr_a, 65000, 1000, (uintptr_t)buf_b,
			     mr_b->rkey, 1, 1),
		-EINVAL);
	GR_EQ_U(qx_write_imm(&qa, mr_a, SIZE_MAX - 10, 100, (uintptr_t)buf_b,
			     mr_b->rkey, 1, 1),
		-EINVAL);
	for (i = 0; i < 30; i++) {
		size_t off = gr_below(2) ? 65536 - gr_below(1000)
					 : (size_t)gr_rand();
		uint32_t len = (uint32_t)(65536 - (off < 65536 ? off : 0) + 1 +
					  gr_below(1000));

		GR_CHECK(qx_write_imm(&qa, mr_a, off, len, (uintptr_t)buf_b,
				      mr_b->rkey, (uint32_t)gr_rand(),
				      gr_rand()) == -EINVAL,
			 "a write of %u bytes at offset %zu was not refused",
			 len, off);
	}
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
	/* Drawn: a good write among flushed receives. */
	{
		unsigned k = 1 + (unsigned)gr_below(10), i;
		uint32_t want = (uint32_t)gr_rand();

		setup();
		draw_ids();
		connect_both();
		GR_STOP_IF_FAILED();
		GR_EQ_U(qx_post_recv(&qb, mr_b, 0, 64, 7), 0);
		GR_EQ_U(qx_write_imm(&qa, mr_a, 0, 8, (uintptr_t)buf_b,
				     mr_b->rkey, want, 8),
			0);
		for (i = 0; i < k; i++)
			qx_post_recv(&qb, mr_b, 64 * i, 64, 10 + i);
		vm_modify_qp(&qb,
			     &(struct vm_qp_attr){ .qp_state = VM_QPS_ERR },
			     VM_QP_STATE);
		GR_CHECK(qx_poll_imm(&b_rcq, &imm, &len, &id) == 1 &&
				 imm == want,
			 "the write before the flush: no completion with imm "
			 "%#x",
			 want);
		for (i = 0; i < k; i++)
			GR_EQ_U(qx_poll_imm(&b_rcq, &imm, &len, &id), -EIO);
		GR_EQ_U(qx_poll_imm(&b_rcq, &imm, &len, &id), 0);
	}
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
	gr_sandbox(&(struct gr_sandbox){ 0 });
	return gr_main(argc, argv, "12-verbs-qp", cases);
}
