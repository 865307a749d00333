/* SPDX-License-Identifier: MIT */
/* Exercise 1's worker: the student's two functions, on the grader's data. */
#include "budget_ex.h"
#include "budget_rpc.h"
#include "worker.h"

#include <string.h>

/* ex_budget_compute() on each input. */
static long budget(const void *in, size_t len, void *out, size_t cap)
{
	const struct bx_budget_in *q = in;
	struct pl_budget b;
	size_t i, n = len / sizeof(*q);

	if (len % sizeof(*q) || n > BX_MAX || n * sizeof(b) > cap)
		return -1;
	for (i = 0; i < n; i++) {
		memset(&b, 0, sizeof(b));
		ex_budget_compute(q[i].rate_bps, q[i].frame_bytes,
				  q[i].clock_hz, &b);
		memcpy((char *)out + i * sizeof(b), &b, sizeof(b));
	}
	return (long)(n * sizeof(b));
}

/* ex_frame_for_payload() on each input. */
static long frame(const void *in, size_t len, void *out, size_t cap)
{
	const struct bx_frame_in *q = in;
	uint32_t *r = out;
	size_t i, n = len / sizeof(*q);

	if (len % sizeof(*q) || n > BX_MAX || n * sizeof(*r) > cap)
		return -1;
	for (i = 0; i < n; i++)
		r[i] = ex_frame_for_payload(q[i].payload, q[i].vlan != 0);
	return (long)(n * sizeof(*r));
}

const struct wk_op wk_ops[] = {
	{ "budget", budget },
	{ "frame", frame },
	{ 0 },
};
