/* SPDX-License-Identifier: MIT */
/* Exercise 9's worker: one flow, the student's accounting of it. */
#include "seq_ex.h"
#include "seq_rpc.h"
#include "worker.h"

#include <string.h>

static struct pl_seq q;

/* ex_seq_account() on each number; the flow's counters after them. */
static long account(const void *in, size_t len, void *out, size_t cap)
{
	const struct sx_in *r = in;
	struct sx_state *s = out;
	uint32_t i;

	if (len < offsetof(struct sx_in, seq) || r->n > SX_MAX ||
	    len != offsetof(struct sx_in, seq) + r->n * sizeof(r->seq[0]) ||
	    cap < sizeof(*s))
		return -1;
	if (r->reset)
		memset(&q, 0, sizeof(q));
	for (i = 0; i < r->n; i++)
		s->fresh[i] = ex_seq_account(&q, r->seq[i]);
	s->n = r->n;
	s->started = q.started;
	s->first = q.first;
	s->highest = q.highest;
	s->unique = q.unique;
	s->reordered = q.reordered;
	s->dups = q.dups;
	s->too_late = q.too_late;
	s->missing = ex_seq_missing(&q);
	return (long)(offsetof(struct sx_state, fresh) + r->n);
}

const struct wk_op wk_ops[] = {
	{ "account", account },
	{ 0 },
};
