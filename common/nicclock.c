/* SPDX-License-Identifier: MIT */
/* Reading a NIC's clock against CLOCK_MONOTONIC (nicclock.h says why). */
#include "nicclock.h"
#include "clock.h"

#include <errno.h>

int pl_clock_sample(pl_clock_read_fn *read, void *ctx, uint64_t mask,
		    uint64_t *raw, uint64_t *mono, uint64_t *window_ns)
{
	uint64_t m0, m1, r, best = UINT64_MAX;
	int i, err = -EIO;

	for (i = 0; i < 3; i++) {
		m0 = pl_now_ns();
		err = read(ctx, &r);
		m1 = pl_now_ns();
		if (err)
			continue;
		if (m1 - m0 < best) {
			best = m1 - m0;
			*raw = r & mask;
			*mono = m0 + (m1 - m0) / 2;
		}
	}
	if (best == UINT64_MAX)
		return err;
	if (window_ns)
		*window_ns = best;
	return 0;
}

int pl_nicclock_resync(struct pl_nicclock *c, pl_clock_read_fn *read, void *ctx)
{
	int err = pl_clock_sample(read, ctx, c->mask, &c->base_raw,
				  &c->base_mono, &c->window_ns);

	c->valid = !err && c->ns_per_tick > 0;
	return err;
}
