/* SPDX-License-Identifier: MIT */
/*
 * A NIC's clock against CLOCK_MONOTONIC: what --hw-stamps needs on every
 * path. A NIC stamps a frame (or a completion) with its own clock, which
 * is neither CLOCK_MONOTONIC nor, often, nanoseconds: the PTP hardware
 * clock in ns (socket path), a free-running counter some bits wide at
 * hca_core_clock kHz (verbs), whatever the PMD's clock counts, its rate
 * measured (DPDK). One reading of both clocks (the base) and the rate
 * turn a raw stamp into monotonic ns. Clocks drift apart (tens of ppm),
 * so each path takes the reading again every few ms.
 *
 * The arithmetic is inline and needs no device, so a unit test checks it.
 */
#ifndef PATHLAB_NICCLOCK_H
#define PATHLAB_NICCLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct pl_nicclock {
	bool valid;	    /* a base and a rate are known */
	uint64_t mask;	    /* the counter's bits, all ones (~0: 64 bits) */
	double ns_per_tick; /* 1 when the clock counts nanoseconds */
	uint64_t base_raw;  /* the NIC's clock read ... */
	uint64_t base_mono; /* ... at this CLOCK_MONOTONIC time */
	uint64_t window_ns; /* that read took this long: its error is half */
};

/* Reads the NIC's clock now into *raw: 0, or -errno. */
typedef int pl_clock_read_fn(void *ctx, uint64_t *raw);

/*
 * Read the NIC's clock between two reads of CLOCK_MONOTONIC, three times,
 * and keep the shortest: *raw (masked) and *mono, the middle of its
 * window (*window_ns long). 0, or the last read's -errno if none worked.
 */
int pl_clock_sample(pl_clock_read_fn *read, void *ctx, uint64_t mask,
		    uint64_t *raw, uint64_t *mono, uint64_t *window_ns);

/*
 * Take a new base (the rate is kept): 0, or -errno and then no stamp
 * converts until a later one works (the split skips rather than guess).
 */
int pl_nicclock_resync(struct pl_nicclock *c, pl_clock_read_fn *read,
		       void *ctx);

/*
 * Ticks from b to a on a counter of mask's bits, across a wrap; negative
 * when a is before b (the nearer way round).
 */
static inline int64_t pl_tick_delta(uint64_t a, uint64_t b, uint64_t mask)
{
	uint64_t d = (a - b) & mask;

	return d > mask >> 1 ? -(int64_t)(mask - d) - 1 : (int64_t)d;
}

/* A raw stamp in CLOCK_MONOTONIC ns; 0 when no base is known (or < 0). */
static inline uint64_t pl_nicclock_ns(const struct pl_nicclock *c, uint64_t raw)
{
	int64_t d, ns;

	if (!c->valid)
		return 0;
	d = pl_tick_delta(raw & c->mask, c->base_raw & c->mask, c->mask);
	ns = (int64_t)c->base_mono + (int64_t)((double)d * c->ns_per_tick);
	return ns > 0 ? (uint64_t)ns : 0;
}

#endif
