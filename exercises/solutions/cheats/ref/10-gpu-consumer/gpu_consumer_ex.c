/* SPDX-License-Identifier: MIT */
/* A cheat for the meta-test: exercise 10 by calling the reference (it does not
 * compile: the reference is poisoned). */
#include "gpu_consumer_ex.h"

uint8_t gx_payload(const uint8_t *b, uint32_t len, struct pl_gpu_res *r)
{
	return plc_payload(b, len, r);
}

int gx_consume(const struct gx_region *reg, unsigned nreg,
	       const struct pl_gpu_desc *d, struct pl_gpu_res *res, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		plc_check(reg[0].view + (d[i].addr - reg[0].dev), &d[i],
			  &res[i]);
	return 0;
}
