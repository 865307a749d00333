/* SPDX-License-Identifier: MIT */
/*
 * Log-linear latency histogram: the parts that are not on the fast path.
 * pl_hist_index() and pl_hist_record() live inline in hist.h.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "hist.h"

/* Empty the histogram: no values, min above any value, max below any. */
void pl_hist_init(struct pl_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

/* Add every value of src to dst, bucket by bucket. */
void pl_hist_merge(struct pl_hist *dst, const struct pl_hist *src)
{
	unsigned i;

	for (i = 0; i < PL_HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* Lowest value that falls in bucket i (UINT64_MAX past the last bucket). */
uint64_t pl_hist_bucket_low(unsigned i)
{
	unsigned mag, sub;

	if (i < PL_HIST_SUB)
		return i;
	if (i >= PL_HIST_BUCKETS)
		return UINT64_MAX;
	/* undo pl_hist_index(): i = SUB + (mag - 1) * HALF + sub - HALF */
	mag = (i - PL_HIST_SUB) / PL_HIST_HALF + 1;
	sub = (i - PL_HIST_SUB) % PL_HIST_HALF + PL_HIST_HALF;
	return (uint64_t)sub << mag;
}

/* Highest value that falls in bucket i (UINT64_MAX past the last bucket). */
uint64_t pl_hist_bucket_high(unsigned i)
{
	unsigned mag;

	if (i < PL_HIST_SUB)
		return i;
	if (i >= PL_HIST_BUCKETS)
		return UINT64_MAX;
	mag = (i - PL_HIST_SUB) / PL_HIST_HALF + 1;
	/* written as low + (width - 1) so the last bucket ends at 2^64 - 1 */
	return pl_hist_bucket_low(i) + ((1ull << mag) - 1);
}

/* 8< hist-percentile */
/* The 1-based rank of the nearest-rank percentile p of count values. */
static uint64_t pl_hist_rank(uint64_t count, double p)
{
	double r = p / 100.0 * (double)count;
	uint64_t rank;

	/*
	 * 99.9 has no exact binary form: 99.9 / 100 * 1000 comes out as
	 * 999.0000000000001, and ceil() would then skip to rank 1000. Shave
	 * off a few units of rounding noise first.
	 */
	r -= r * (4 * DBL_EPSILON);
	rank = (uint64_t)ceil(r);
	if (rank < 1)
		rank = 1;
	if (rank > count)
		rank = count;
	return rank;
}

/* The value at percentile p: walk the buckets up to the nearest rank. */
uint64_t pl_hist_percentile(const struct pl_hist *h, double p)
{
	uint64_t rank, seen = 0, low, high, v;
	unsigned i;

	if (h->count == 0)
		return 0;
	/* written as !(p > 0) so that a NaN lands here too */
	if (!(p > 0))
		return h->min;
	if (p >= 100)
		return h->max;

	rank = pl_hist_rank(h->count, p);
	for (i = 0; i < PL_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	if (i == PL_HIST_BUCKETS)
		return h->max;

	low = pl_hist_bucket_low(i);
	high = pl_hist_bucket_high(i);
	/* the middle is never more than half a bucket from the true value */
	v = low + (high - low) / 2;
	/* min and max are exact, and no recorded value lies beyond them */
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}
/* >8 hist-percentile */

/* Arithmetic mean of the recorded values; 0 when there are none. */
double pl_hist_mean(const struct pl_hist *h)
{
	if (h->count == 0)
		return 0;
	return h->sum / (double)h->count;
}
