/* SPDX-License-Identifier: MIT */
/*
 * Exercise 3: a percentile from the latency histogram. Reference
 * solution: what common/hist.c does.
 */
#include "hist_ex.h"

#include <float.h>
#include <math.h>

/* The 1-based rank of the nearest-rank percentile p of count values. */
static uint64_t rank_of(uint64_t count, double p)
{
	/* Exercise 3.1 */
	double r = p / 100.0 * (double)count;
	uint64_t rank;

	r -= r * (4 * DBL_EPSILON);
	rank = (uint64_t)ceil(r);
	if (rank < 1)
		rank = 1;
	if (rank > count)
		rank = count;
	return rank;
}

/* The value at percentile p: walk the buckets up to the nearest rank. */
uint64_t ex_hist_percentile(const struct pl_hist *h, double p)
{
	uint64_t rank, seen = 0, low, high, v = 0;
	unsigned i = 0;

	/* Exercise 3.2 */
	if (h->count == 0)
		return 0;
	if (!(p > 0))
		return h->min;
	if (p >= 100)
		return h->max;

	rank = rank_of(h->count, p);
	/* Exercise 3.3 */
	for (i = 0; i < PL_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	if (i == PL_HIST_BUCKETS)
		return h->max;

	low = pl_hist_bucket_low(i);
	high = pl_hist_bucket_high(i);
	/* Exercise 3.4 */
	v = low + (high - low) / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}
