/* SPDX-License-Identifier: MIT */
/* Exercise 14's worker: the student's sizing and loop, the grader's port. */
#include "dx_rpc.h"
#include "worker.h"

/* dx_pool_size() of each configuration. */
static long pool_size(const void *in, size_t len, void *out, size_t cap)
{
	const struct dx_cfg *c = in;
	uint32_t *r = out;
	size_t i, n = len / sizeof(*c);

	if (len % sizeof(*c) || n > DX_BATCH || n * sizeof(*r) > cap)
		return -1;
	for (i = 0; i < n; i++)
		r[i] = dx_pool_size(&c[i]);
	return (long)(n * sizeof(*r));
}

/* dx_cache_ok() of each pair. */
static long cache_ok(const void *in, size_t len, void *out, size_t cap)
{
	const struct dx_cache_in *c = in;
	int32_t *r = out;
	size_t i, n = len / sizeof(*c);

	if (len % sizeof(*c) || n > DX_BATCH || n * sizeof(*r) > cap)
		return -1;
	for (i = 0; i < n; i++)
		r[i] = dx_cache_ok(c[i].n, c[i].cache);
	return (long)(n * sizeof(*r));
}

/* One turn of dx_forward_once() on the port. */
static long forward(const void *in, size_t len, void *out, size_t cap)
{
	const struct dx_forward_in *q = WK_IN(struct dx_forward_in, in, len);

	if (!q || cap < sizeof(uint32_t) || q->nmbufs > DM_MAX_MBUFS)
		return -1;
	wk_port.n = q->nmbufs;
	*(uint32_t *)out = dx_forward_once(&wk_port, q->burst);
	return sizeof(uint32_t);
}

const struct wk_op wk_ops[] = {
	{ "pool_size", pool_size },
	{ "cache_ok", cache_ok },
	{ "forward", forward },
	{ 0 },
};
