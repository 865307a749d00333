/* SPDX-License-Identifier: MIT */
/*
 * A latency histogram in the style of HdrHistogram: log-linear buckets,
 * constant-time record, at most 1% relative error on any percentile.
 *
 * Values below 2^PL_HIST_SUB_BITS are exact. Above, each power of two
 * [2^k, 2^(k+1)) is split in 2^(PL_HIST_SUB_BITS - 1) equal buckets, so a
 * bucket is at most 1/64 of its value wide; reporting the bucket's midpoint
 * keeps the error within half of that (0.8%).
 */
#ifndef PATHLAB_HIST_H
#define PATHLAB_HIST_H

#include <stdint.h>

#define PL_HIST_SUB_BITS 7
#define PL_HIST_SUB	 (1u << PL_HIST_SUB_BITS)    /* 128 */
#define PL_HIST_HALF	 (PL_HIST_SUB / 2)	     /* 64 */
#define PL_HIST_MAGS	 (64 - PL_HIST_SUB_BITS + 1) /* 58 */
#define PL_HIST_BUCKETS	 (PL_HIST_SUB + (PL_HIST_MAGS - 1) * PL_HIST_HALF)

struct pl_hist {
	uint64_t count;
	uint64_t min, max;
	double sum;
	uint64_t buckets[PL_HIST_BUCKETS];
};

/* Bucket index of v: constant time, one clz. */
static inline unsigned pl_hist_index(uint64_t v)
{
	unsigned mag;

	if (v < PL_HIST_SUB)
		return (unsigned)v;
	mag = 63 - (unsigned)__builtin_clzll(v) - (PL_HIST_SUB_BITS - 1);
	/* top PL_HIST_SUB_BITS bits of v, in [PL_HIST_HALF, PL_HIST_SUB) */
	return PL_HIST_SUB + (mag - 1) * PL_HIST_HALF + (unsigned)(v >> mag) -
	       PL_HIST_HALF;
}

/* Record one value. */
static inline void pl_hist_record(struct pl_hist *h, uint64_t v)
{
	h->buckets[pl_hist_index(v)]++;
	h->count++;
	h->sum += (double)v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void pl_hist_init(struct pl_hist *h);

/* Add every value of src to dst. */
void pl_hist_merge(struct pl_hist *dst, const struct pl_hist *src);

/*
 * The value at percentile p (0 < p <= 100): the smallest recorded value v
 * such that at least p% of values are <= v, within 1%. Clamped to
 * [min, max]; 0 for an empty histogram.
 */
uint64_t pl_hist_percentile(const struct pl_hist *h, double p);

double pl_hist_mean(const struct pl_hist *h);

/* Lowest and highest value that fall in bucket i. */
uint64_t pl_hist_bucket_low(unsigned i);
uint64_t pl_hist_bucket_high(unsigned i);

#endif
