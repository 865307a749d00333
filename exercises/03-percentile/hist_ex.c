/* SPDX-License-Identifier: MIT */
/*
 * Exercise 3: a percentile from the latency histogram.
 *
 * Every receiver records each packet's one-way latency into a
 * log-linear histogram (common/hist.h): values below 128 have a bucket
 * each; above, every power of two is split into 64 buckets. The report
 * quotes p50, p99 and p99.9 from it. Recording is one increment; this is
 * the other half: finding the value at a percentile. Fill in the
 * "Exercise 3.N" marks. pl_hist_bucket_low() and pl_hist_bucket_high()
 * give the range of values a bucket holds.
 */
#include "hist_ex.h"

#include <float.h>
#include <math.h>

/* The 1-based rank of the nearest-rank percentile p of count values. */
static uint64_t rank_of(uint64_t count, double p)
{
	/*
	 * Exercise 3.1: the nearest rank is ceil(p / 100 * count), at least
	 * 1 and at most count. Beware: 99.9 / 100 * 1000 comes out as
	 * 999.0000000000001 in binary floating point, and ceil() would then
	 * give 1000. Take a few units of rounding noise off first
	 * (r -= r * 4 * DBL_EPSILON).
	 */
	return 1;
}

/* The value at percentile p: walk the buckets up to the nearest rank. */
uint64_t ex_hist_percentile(const struct pl_hist *h, double p)
{
	uint64_t rank, seen = 0, low, high, v = 0;
	unsigned i = 0;

	/*
	 * Exercise 3.2: the edges. An empty histogram has no percentiles:
	 * return 0. For p <= 0 return the minimum (write the test as
	 * !(p > 0) so that a NaN lands there too), for p >= 100 the maximum.
	 */

	rank = rank_of(h->count, p);
	/* Exercise 3.3: which bucket holds the value of that rank? */

	low = pl_hist_bucket_low(i);
	high = pl_hist_bucket_high(i);
	/*
	 * Exercise 3.4: one value for the bucket, never more than half a
	 * bucket from the true one, and never beyond what was recorded
	 * (h->min and h->max are exact).
	 */
	return v;
}
