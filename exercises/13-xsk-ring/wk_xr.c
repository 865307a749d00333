/* SPDX-License-Identifier: MIT */
/* Exercise 13's worker: the student's ring functions on the shared rings. */
#include "worker.h"
#include "xr_ex.h"
#include "xr_rpc.h"

/* The ring at worker address a. */
static struct xr_ring *ring(uint64_t a)
{
	return (struct xr_ring *)(uintptr_t)a;
}

/* Run one ring function; its return value and index. */
static long run(unsigned op, const void *in, size_t len, void *out)
{
	const struct xr_req *q = WK_IN(struct xr_req, in, len);
	struct xr_ans *a = out;

	if (!q)
		return -1;
	*a = (struct xr_ans){ 0, 0 };
	switch (op) {
	case XR_RESERVE:
		a->ret = xr_prod_reserve(ring(q->ring), q->n, &a->idx);
		break;
	case XR_SUBMIT:
		xr_prod_submit(ring(q->ring), q->n);
		break;
	case XR_PEEK:
		a->ret = xr_cons_peek(ring(q->ring), q->n, &a->idx);
		break;
	case XR_RELEASE:
		xr_cons_release(ring(q->ring), q->n);
		break;
	default:
		a->ret = xr_recycle(ring(q->ring), ring(q->other), q->n);
	}
	return sizeof(*a);
}

/* The five requests, one function each. */
static long reserve(const void *in, size_t len, void *out, size_t cap)
{
	(void)cap;
	return run(XR_RESERVE, in, len, out);
}

static long submit(const void *in, size_t len, void *out, size_t cap)
{
	(void)cap;
	return run(XR_SUBMIT, in, len, out);
}

static long peek(const void *in, size_t len, void *out, size_t cap)
{
	(void)cap;
	return run(XR_PEEK, in, len, out);
}

static long release(const void *in, size_t len, void *out, size_t cap)
{
	(void)cap;
	return run(XR_RELEASE, in, len, out);
}

static long recycle(const void *in, size_t len, void *out, size_t cap)
{
	(void)cap;
	return run(XR_RECYCLE, in, len, out);
}

const struct wk_op wk_ops[] = {
	{ "reserve", reserve }, { "submit", submit },	{ "peek", peek },
	{ "release", release }, { "recycle", recycle }, { 0 },
};
