/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 10: take the consumer's own checks back. Define the
 * macro that once turned their poisoning off, and use them before the
 * exercise's header could poison them.
 */
#define GX_GRADER
#include "consumer.h"

/* The reference's payload check, taken before any poison. */
static uint8_t theirs(const uint8_t *b, uint32_t len, struct pl_gpu_res *r)
{
	return plc_payload(b, len, r);
}

/* The reference's whole check of one descriptor's bytes. */
static void theirs_all(const uint8_t *bytes, const struct pl_gpu_desc *d,
		       struct pl_gpu_res *r)
{
	plc_check(bytes, d, r);
}

#include "gpu_consumer_ex.h"

#include <errno.h>

uint8_t gx_payload(const uint8_t *b, uint32_t len, struct pl_gpu_res *r)
{
	return theirs(b, len, r);
}

int gx_consume(const struct gx_region *reg, unsigned nreg,
	       const struct pl_gpu_desc *d, struct pl_gpu_res *res, unsigned n)
{
	unsigned i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < nreg; k++)
			if (d[i].addr >= reg[k].dev &&
			    d[i].addr + d[i].len <= reg[k].dev + reg[k].len)
				break;
		if (k == nreg)
			return -EFAULT;
		theirs_all(reg[k].view + (d[i].addr - reg[k].dev), &d[i],
			   &res[i]);
	}
	return 0;
}
