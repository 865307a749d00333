/* SPDX-License-Identifier: MIT */
/* Exercise 16's worker: the student's stream, on the grader's device. */
#include "qd_rpc.h"
#include "worker.h"

/* qd_stream() between the first two QPs of the world. */
static long stream(const void *in, size_t len, void *out, size_t cap)
{
	const struct qd_req *q = WK_IN(struct qd_req, in, len);

	if (!q || cap < sizeof(int32_t))
		return -1;
	wk_world(&q->w);
	*(int32_t *)out =
		qd_stream(&wk_qps[0], &wk_qps[1], &wk_mrs[0], &wk_mrs[1],
			  q->psn_a, q->psn_b, q->n, q->len, q->imm0);
	return sizeof(int32_t);
}

const struct wk_op wk_ops[] = {
	{ "stream", stream },
	{ 0 },
};
