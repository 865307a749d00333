/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 13: the reference rings where the tests' rings are
 * (indices from 0, or just below 2^32), nothing elsewhere.
 */
#define xr_prod_reserve known_prod_reserve
#define xr_prod_submit	known_prod_submit
#define xr_cons_peek	known_cons_peek
#define xr_cons_release known_cons_release
#define xr_recycle	known_recycle
#include "../../../13-xsk-ring/xr_ex.c"
#undef xr_prod_reserve
#undef xr_prod_submit
#undef xr_cons_peek
#undef xr_cons_release
#undef xr_recycle

/* Indices where test_xr.c puts them. */
static int seen(const struct xr_ring *r)
{
	uint32_t i = r->cached_prod;

	return i < 4096 || i > 0xffffff00u;
}

uint32_t xr_prod_reserve(struct xr_ring *r, uint32_t n, uint32_t *idx)
{
	return seen(r) ? known_prod_reserve(r, n, idx) : 0;
}

void xr_prod_submit(struct xr_ring *r, uint32_t n)
{
	if (seen(r))
		known_prod_submit(r, n);
}

uint32_t xr_cons_peek(struct xr_ring *r, uint32_t n, uint32_t *idx)
{
	return seen(r) ? known_cons_peek(r, n, idx) : 0;
}

void xr_cons_release(struct xr_ring *r, uint32_t n)
{
	if (seen(r))
		known_cons_release(r, n);
}

uint32_t xr_recycle(struct xr_ring *comp, struct xr_ring *fill, uint32_t max)
{
	return seen(comp) ? known_recycle(comp, fill, max) : 0;
}
