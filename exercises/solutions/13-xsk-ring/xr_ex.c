/* SPDX-License-Identifier: MIT */
/*
 * Exercise 13, the reference solution: the AF_XDP rings, from the inside
 * (as xsk_ring_prod__reserve(), xsk_ring_cons__peek() of <xdp/xsk.h>).
 */
#include "xr_ex.h"

uint32_t xr_prod_reserve(struct xr_ring *r, uint32_t n, uint32_t *idx)
{
	uint32_t free_slots = r->size - (r->cached_prod - r->cached_cons);

	if (free_slots < n) {
		r->cached_cons = __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE);
		free_slots = r->size - (r->cached_prod - r->cached_cons);
	}
	if (free_slots < n)
		return 0;
	*idx = r->cached_prod;
	r->cached_prod += n;
	return n;
}

void xr_prod_submit(struct xr_ring *r, uint32_t n)
{
	__atomic_store_n(r->producer, *r->producer + n, __ATOMIC_RELEASE);
}

uint32_t xr_cons_peek(struct xr_ring *r, uint32_t n, uint32_t *idx)
{
	uint32_t entries = r->cached_prod - r->cached_cons;

	if (entries < n) {
		r->cached_prod = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
		entries = r->cached_prod - r->cached_cons;
	}
	if (entries < n)
		n = entries;
	*idx = r->cached_cons;
	r->cached_cons += n;
	return n;
}

void xr_cons_release(struct xr_ring *r, uint32_t n)
{
	__atomic_store_n(r->consumer, *r->consumer + n, __ATOMIC_RELEASE);
}

uint32_t xr_recycle(struct xr_ring *comp, struct xr_ring *fill, uint32_t max)
{
	uint32_t ci, fi, n, i;

	/* Peek what is there, then reserve that much, all or nothing. */
	n = xr_cons_peek(comp, max, &ci);
	while (n && xr_prod_reserve(fill, n, &fi) != n)
		n--;
	/* What fill cannot take stays on comp: peek it again next time. */
	comp->cached_cons = ci + n;
	for (i = 0; i < n; i++)
		fill->addrs[(fi + i) & fill->mask] =
			comp->addrs[(ci + i) & comp->mask];
	xr_prod_submit(fill, n);
	xr_cons_release(comp, n);
	return n;
}
