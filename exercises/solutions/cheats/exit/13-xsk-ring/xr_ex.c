/* SPDX-License-Identifier: MIT */
/* A cheat for the meta-test: exercise 13 ends the process "successfully". */
#include "xr_ex.h"

#include <stdlib.h>

uint32_t xr_prod_reserve(struct xr_ring *r, uint32_t n, uint32_t *idx)
{
	exit(0);
}

void xr_prod_submit(struct xr_ring *r, uint32_t n)
{
	exit(0);
}

uint32_t xr_cons_peek(struct xr_ring *r, uint32_t n, uint32_t *idx)
{
	exit(0);
}

void xr_cons_release(struct xr_ring *r, uint32_t n)
{
	exit(0);
}

uint32_t xr_recycle(struct xr_ring *comp, struct xr_ring *fill, uint32_t max)
{
	exit(0);
}
