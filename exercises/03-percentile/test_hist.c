/* SPDX-License-Identifier: MIT */
/* Graded tests of exercise 3: percentiles from the histogram. */
#include "grade.h"
#include "hist_ex.h"

#include <math.h>
#include <stdlib.h>

/* The reference of common/: the code under test may not call it. */
GR_REFERENCE(uint64_t, pl_hist_percentile, (const struct pl_hist *h, double p))

static struct pl_hist h;

/* An empty histogram, then n values from v(i). */
static void fill(unsigned n, uint64_t (*v)(unsigned))
{
	unsigned i;

	pl_hist_init(&h);
	for (i = 0; i < n; i++)
		pl_hist_record(&h, v(i));
}

static uint64_t one_to_100(unsigned i)
{
	return i + 1;
}

/* Below 128 every value has its own bucket: percentiles are exact. */
static int exact_small(void)
{
	fill(100, one_to_100);
	GR_EQ_U(ex_hist_percentile(&h, 50), 50);
	GR_EQ_U(ex_hist_percentile(&h, 90), 90);
	GR_EQ_U(ex_hist_percentile(&h, 99), 99);
	GR_EQ_U(ex_hist_percentile(&h, 1), 1);
	GR_EQ_U(ex_hist_percentile(&h, 0.5), 1);
	GR_EQ_U(ex_hist_percentile(&h, 50.5), 51);
	return gr_verdict();
}

static uint64_t tens(unsigned i)
{
	return 10 * (i + 1);
}

static uint64_t one_high(unsigned i)
{
	return i == 999 ? 100 : 5;
}

/* Nearest rank: ceil(p% of count), and 99.9% of 1000 is rank 999. */
static int nearest_rank(void)
{
	fill(10, tens); /* 10, 20, ..., 100 */
	GR_EQ_U(ex_hist_percentile(&h, 25), 30);
	GR_EQ_U(ex_hist_percentile(&h, 10), 10);
	GR_EQ_U(ex_hist_percentile(&h, 11), 20);
	GR_EQ_U(ex_hist_percentile(&h, 90.0001), 100);
	fill(1000, one_high); /* 999 times 5, once 100 */
	GR_EQ_U(ex_hist_percentile(&h, 99.9), 5);
	GR_EQ_U(ex_hist_percentile(&h, 99.95), 100);
	return gr_verdict();
}

static uint64_t seven_to_90(unsigned i)
{
	return 7 + i * 83 / 99;
}

/* Empty, p <= 0, NaN, p >= 100. */
static int edges(void)
{
	pl_hist_init(&h);
	GR_EQ_U(ex_hist_percentile(&h, 50), 0);
	GR_EQ_U(ex_hist_percentile(&h, 100), 0);
	fill(100, seven_to_90);
	GR_EQ_U(ex_hist_percentile(&h, 0), 7);
	GR_EQ_U(ex_hist_percentile(&h, -5), 7);
	GR_EQ_U(ex_hist_percentile(&h, NAN), 7);
	GR_EQ_U(ex_hist_percentile(&h, 100), 90);
	GR_EQ_U(ex_hist_percentile(&h, 150), 90);
	return gr_verdict();
}

static uint64_t spread(unsigned i)
{
	return 1000 + (uint64_t)i * 99;
}

/* Large values share buckets: within 1% of the true percentile. */
static int large_values(void)
{
	static const double ps[] = { 1, 10, 25, 50, 75, 90, 99, 99.9 };
	unsigned i, n = 10000;
	uint64_t want, got;

	fill(n, spread); /* 1000 .. 990,901 in steps of 99 */
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		want = spread((unsigned)ceil(ps[i] / 100 * n - 1e-9) - 1);
		got = ex_hist_percentile(&h, ps[i]);
		GR_CHECK(
			fabs((double)got - (double)want) <= 0.01 * want,
			"p%g of 1000..990901 is %llu, expected %llu within 1%%",
			ps[i], (unsigned long long)got,
			(unsigned long long)want);
	}
	return gr_verdict();
}

static uint64_t single(unsigned i)
{
	(void)i;
	return 1000003;
}

/* One value: every percentile is that value (the middle is clamped). */
static int clamped(void)
{
	fill(1, single);
	GR_EQ_U(ex_hist_percentile(&h, 1), 1000003);
	GR_EQ_U(ex_hist_percentile(&h, 50), 1000003);
	GR_EQ_U(ex_hist_percentile(&h, 99.99), 1000003);
	return gr_verdict();
}

/* Random latencies, many percentiles: the same as common/. */
static int matches_common(void)
{
	static const double ps[] = { 0.001, 0.1, 1,  10,   25,	  50,
				     75,    90,	 99, 99.9, 99.99, 100 };
	unsigned round, i, n;

	srand(7);
	for (round = 0; round < 200 && !gr_failures; round++) {
		pl_hist_init(&h);
		n = 1 + (unsigned)(rand() % 5000);
		for (i = 0; i < n; i++)
			pl_hist_record(&h, (uint64_t)(rand() % 1000000) >>
						   (rand() % 16));
		for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
			uint64_t want = __real_pl_hist_percentile(&h, ps[i]);
			uint64_t got = ex_hist_percentile(&h, ps[i]);

			GR_CHECK(got == want,
				 "round %u (%u values): p%g is %llu, common/ "
				 "says %llu",
				 round, n, ps[i], (unsigned long long)got,
				 (unsigned long long)want);
		}
	}
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "exact_small", 3, "values below 128 come out exact", exact_small },
	{ "nearest_rank", 2, "the nearest rank, 99.9% of 1000 included",
	  nearest_rank },
	{ "edges", 2, "empty, p <= 0, NaN, p >= 100", edges },
	{ "large_values", 3, "large values within 1%", large_values },
	{ "clamped", 1, "the bucket's middle clamped to [min, max]", clamped },
	{ "matches_common", 2, "same as common/ on random histograms",
	  matches_common },
	{ 0 }
};

int main(int argc, char **argv)
{
	return gr_main(argc, argv, "03-percentile", cases);
}
