/* SPDX-License-Identifier: MIT */
/* Exercise 12's worker: the student's verbs code, on the grader's device. */
#include "qp_rpc.h"
#include "worker.h"

/* The request, its world copied in; NULL if malformed. */
static const struct qx_req *req(const void *in, size_t len)
{
	const struct qx_req *q = WK_IN(struct qx_req, in, len);

	if (!q || q->qp >= QX_QPS || q->mr >= QX_MRS || q->cq >= QX_CQS)
		return NULL;
	wk_world(&q->w);
	return q;
}

/* Answer ret (and what a poll found). */
static long answer(void *out, int ret, uint32_t imm, uint32_t len,
		   uint64_t wr_id)
{
	*(struct qx_ans *)out = (struct qx_ans){ ret, imm, len, wr_id };
	return sizeof(struct qx_ans);
}

static long rc_connect(const void *in, size_t len, void *out, size_t cap)
{
	const struct qx_req *q = req(in, len);

	(void)cap;
	return q ? answer(out, qx_rc_connect(&wk_qps[q->qp], &q->peer, q->psn),
			  0, 0, 0)
		 : -1;
}

static long ud_ready(const void *in, size_t len, void *out, size_t cap)
{
	const struct qx_req *q = req(in, len);

	(void)cap;
	return q ? answer(out, qx_ud_ready(&wk_qps[q->qp], q->qkey, q->psn), 0,
			  0, 0)
		 : -1;
}

static long post_recv(const void *in, size_t len, void *out, size_t cap)
{
	const struct qx_req *q = req(in, len);

	(void)cap;
	return q ? answer(out,
			  qx_post_recv(&wk_qps[q->qp], &wk_mrs[q->mr], q->off,
				       q->len, q->wr_id),
			  0, 0, 0)
		 : -1;
}

static long write_imm(const void *in, size_t len, void *out, size_t cap)
{
	const struct qx_req *q = req(in, len);

	(void)cap;
	return q ? answer(out,
			  qx_write_imm(&wk_qps[q->qp], &wk_mrs[q->mr], q->off,
				       q->len, q->remote_addr, q->rkey, q->imm,
				       q->wr_id),
			  0, 0, 0)
		 : -1;
}

static long poll_imm(const void *in, size_t len, void *out, size_t cap)
{
	const struct qx_req *q = req(in, len);
	uint32_t imm = 0, n = 0;
	uint64_t id = 0;
	int r;

	(void)cap;
	if (!q)
		return -1;
	r = qx_poll_imm(&wk_cqs[q->cq], &imm, &n, &id);
	return answer(out, r, imm, n, id);
}

const struct wk_op wk_ops[] = {
	{ "rc_connect", rc_connect }, { "ud_ready", ud_ready },
	{ "post_recv", post_recv },   { "write_imm", write_imm },
	{ "poll_imm", poll_imm },     { 0 },
};
