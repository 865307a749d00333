/* SPDX-License-Identifier: MIT */
/*
 * A batch and the consumer's run over it: descriptors in and results out
 * in memory both sides reach, a check that every descriptor points where
 * the GPU can read, and the count of what the consumer found.
 */
#include "gpu_backend.h"

#include <errno.h>

int pl_gpu_batch_init(struct pl_gpu *g, struct pl_gpu_batch *b, unsigned cap)
{
	int err;

	*b = (struct pl_gpu_batch){ .cap = cap };
	err = g->ops->host_alloc(g, cap * sizeof(*b->desc), (void **)&b->desc,
				 &b->desc_dev);
	if (err)
		return err;
	err = g->ops->host_alloc(g, cap * sizeof(*b->res), (void **)&b->res,
				 &b->res_dev);
	if (err) {
		g->ops->host_free(g, b->desc, cap * sizeof(*b->desc));
		b->desc = NULL;
	}
	return err;
}

void pl_gpu_batch_free(struct pl_gpu *g, struct pl_gpu_batch *b)
{
	if (b->res)
		g->ops->host_free(g, b->res, b->cap * sizeof(*b->res));
	if (b->desc)
		g->ops->host_free(g, b->desc, b->cap * sizeof(*b->desc));
	b->res = NULL;
	b->desc = NULL;
}

/* Count the packets of a batch the GPU reads in host memory. */
static int check_reach(struct pl_gpu *g, const struct pl_gpu_desc *d,
		       unsigned n)
{
	struct pl_gpu_region *r;
	unsigned i;

	for (i = 0; i < n; i++) {
		r = pl_gpu_find(g, d[i].addr, d[i].len);
		if (!r)
			return -EFAULT;
		if (r->host) {
			g->acct.mapped_pkts++;
			g->acct.mapped_bytes += d[i].len;
		}
	}
	return 0;
}

/* Count what the consumer found. */
static void count_results(struct pl_gpu_acct *a, const struct pl_gpu_res *r,
			  unsigned n)
{
	unsigned i;

	a->checked += n;
	for (i = 0; i < n; i++) {
		if (r[i].reason == PL_OK && (r[i].flags & PL_FLAG_END))
			a->end_markers++;
		else if (r[i].reason == PL_OK)
			a->verified++;
		else if (pl_reason_is_bad((enum pl_reason)r[i].reason)) {
			a->bad++;
			a->bad_by_reason[r[i].reason]++;
		} else {
			a->other++;
		}
	}
}

/* 8< gpu-consume */
int pl_gpu_consume(struct pl_gpu *g, struct pl_gpu_batch *b, unsigned n)
{
	int err;

	if (n > b->cap)
		return -EINVAL;
	/* A real GPU faults on an address it cannot reach: refuse first. */
	err = check_reach(g, b->desc, n);
	if (err)
		return err;
	err = g->ops->consume(g, b, n);
	if (err)
		return err;
	g->acct.launches++;
	g->acct.meta_bytes += n * (sizeof(*b->desc) + sizeof(*b->res));
	count_results(&g->acct, b->res, n);
	return 0;
}
/* >8 gpu-consume */
