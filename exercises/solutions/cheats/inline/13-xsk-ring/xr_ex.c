/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 13: the rings by libxdp's own inline helpers, the
 * exercise written out in <xdp/xsk.h>: the ring lent to them as theirs.
 */
#include "xr_ex.h"

#include <xdp/xsk.h>

/* libxdp's view of our ring (the same fields, another order). */
static struct xsk_ring_prod as_prod(struct xr_ring *r)
{
	return (struct xsk_ring_prod){ .cached_prod = r->cached_prod,
				       .cached_cons = r->cached_cons,
				       .mask = r->mask,
				       .size = r->size,
				       .producer = r->producer,
				       .consumer = r->consumer,
				       .ring = r->addrs };
}

uint32_t xr_prod_reserve(struct xr_ring *r, uint32_t n, uint32_t *idx)
{
	struct xsk_ring_prod p = as_prod(r);
	uint32_t got = xsk_ring_prod__reserve(&p, n, idx);

	r->cached_prod = p.cached_prod;
	r->cached_cons = p.cached_cons;
	return got;
}

void xr_prod_submit(struct xr_ring *r, uint32_t n)
{
	struct xsk_ring_prod p = as_prod(r);

	xsk_ring_prod__submit(&p, n);
}

uint32_t xr_cons_peek(struct xr_ring *r, uint32_t n, uint32_t *idx)
{
	struct xsk_ring_cons c = { .cached_prod = r->cached_prod,
				   .cached_cons = r->cached_cons,
				   .mask = r->mask,
				   .size = r->size,
				   .producer = r->producer,
				   .consumer = r->consumer,
				   .ring = r->addrs };
	uint32_t got = xsk_ring_cons__peek(&c, n, idx);

	r->cached_prod = c.cached_prod;
	r->cached_cons = c.cached_cons;
	return got;
}

void xr_cons_release(struct xr_ring *r, uint32_t n)
{
	struct xsk_ring_cons c = { .consumer = r->consumer,
				   .cached_cons = r->cached_cons };

	xsk_ring_cons__release(&c, n);
	r->cached_cons = c.cached_cons;
}

uint32_t xr_recycle(struct xr_ring *comp, struct xr_ring *fill, uint32_t max)
{
	uint32_t ic, iff, n = xr_cons_peek(comp, max, &ic), i;

	if (!n)
		return 0;
	if (xr_prod_reserve(fill, n, &iff) != n) {
		comp->cached_cons -= n;
		return 0;
	}
	for (i = 0; i < n; i++)
		fill->addrs[(iff + i) & fill->mask] =
			comp->addrs[(ic + i) & comp->mask];
	xr_prod_submit(fill, n);
	xr_cons_release(comp, n);
	return n;
}
