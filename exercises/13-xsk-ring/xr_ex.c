/* SPDX-License-Identifier: MIT */
/*
 * Exercise 13: the AF_XDP rings, from the inside. Read xr_ex.h, then
 * fill in the marks "Exercise 13.N". The shared indices are read with
 * __atomic_load_n(p, __ATOMIC_ACQUIRE) and written with
 * __atomic_store_n(p, v, __ATOMIC_RELEASE): the other side runs on
 * another CPU (the kernel's NAPI poll).
 */
#include "xr_ex.h"

uint32_t xr_prod_reserve(struct xr_ring *r, uint32_t n, uint32_t *idx)
{
	/*
	 * Exercise 13.1: how many slots are free, from the cached copies?
	 * Unsigned subtraction survives the wrap. Only when too few, look
	 * at the consumer's shared index again.
	 */
	return 0;
}

void xr_prod_submit(struct xr_ring *r, uint32_t n)
{
	/* Exercise 13.2: publish. */
}

uint32_t xr_cons_peek(struct xr_ring *r, uint32_t n, uint32_t *idx)
{
	/* Exercise 13.3: the mirror image of 13.1. */
	return 0;
}

void xr_cons_release(struct xr_ring *r, uint32_t n)
{
	/* Exercise 13.4: the mirror image of 13.2. */
}

uint32_t xr_recycle(struct xr_ring *comp, struct xr_ring *fill, uint32_t max)
{
	/*
	 * Exercise 13.5: with the four functions above. Peek first or
	 * reserve first? Either way, release on comp only what fill took.
	 */
	return 0;
}
