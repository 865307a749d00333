/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 3: percentiles from the histogram. The
 * student's percentile runs in the worker (wk_hist.c); the grader fills
 * histograms, fixed and drawn, and compares with common/hist.c.
 */
#include "grade.h"
#include "hist_rpc.h"

#include <math.h>
#include <stdlib.h>

static struct pl_hist h;

/* The student's percentiles p[0..n) of h, into v. */
static void student(const double *p, unsigned n, uint64_t *v)
{
	static struct hx_in q;
	unsigned i;

	q.h = h;
	q.n = n;
	for (i = 0; i < n; i++)
		q.p[i] = p[i];
	gr_call_exact(HX_PERCENTILES, &q, sizeof(q), v, n * sizeof(*v));
}

/* The student's percentile p of h. */
static uint64_t ex_hist_percentile(const struct pl_hist *hh, double p)
{
	uint64_t v;

	(void)hh; /* always h */
	student(&p, 1, &v);
	return v;
}

static uint64_t vals[10000];

/* Compare with qsort. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* h holds n drawn values in [lo, hi], also in vals[] (sorted). */
static void drawn_values(unsigned n, uint64_t lo, uint64_t hi)
{
	unsigned i;

	pl_hist_init(&h);
	for (i = 0; i < n; i++) {
		vals[i] = lo + gr_below(hi - lo + 1);
		pl_hist_record(&h, vals[i]);
	}
	qsort(vals, n, sizeof(vals[0]), cmp_u64);
}

/* The true nearest-rank percentile p of vals[0..n). */
static uint64_t truth(unsigned n, double p)
{
	double r = ceil(p / 100 * n - 1e-9);

	return vals[r < 1 ? 0 : r > n ? n - 1 : (unsigned)r - 1];
}

/* Drawn percentiles p (or drawn, ps NULL) of h: within rel of the truth. */
static void against_truth(unsigned n, const double *ps, unsigned np, double rel)
{
	double p[HX_MAXP];
	uint64_t got[HX_MAXP], want;
	unsigned i;

	for (i = 0; i < np; i++)
		p[i] = ps ? ps[i] : (double)(1 + gr_below(99999)) / 1000.0;
	student(p, np, got);
	for (i = 0; i < np && gr_failures < 3; i++) {
		want = truth(n, p[i]);
		GR_CHECK(fabs((double)got[i] - (double)want) <= rel * want,
			 "p%g of %u drawn values (%llu..%llu) is %llu, the "
			 "true one %llu",
			 p[i], n, (unsigned long long)vals[0],
			 (unsigned long long)vals[n - 1],
			 (unsigned long long)got[i], (unsigned long long)want);
	}
}

/* Drawn percentiles of drawn histograms: the same as common/. */
static void drawn(unsigned rounds, unsigned maxn, unsigned shift)
{
	double p[HX_MAXP];
	uint64_t got[HX_MAXP];
	unsigned round, i, n;

	for (round = 0; round < rounds && !gr_failures; round++) {
		pl_hist_init(&h);
		n = 1 + (unsigned)gr_below(maxn);
		for (i = 0; i < n; i++)
			pl_hist_record(&h,
				       gr_below(1000000000) >> gr_below(shift));
		for (i = 0; i < HX_MAXP; i++)
			p[i] = i < 4 ? (double[]){ 50, 99, 99.9, 100 }[i]
				     : (double)gr_below(100000) / 1000.0;
		student(p, HX_MAXP, got);
		for (i = 0; i < HX_MAXP; i++)
			GR_CHECK(got[i] == pl_hist_percentile(&h, p[i]),
				 "round %u (%u values up to %llu): p%g is "
				 "%llu, common/ says %llu",
				 round, n, (unsigned long long)h.max, p[i],
				 (unsigned long long)got[i],
				 (unsigned long long)pl_hist_percentile(&h,
									p[i]));
	}
}

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
	drawn_values(1 + (unsigned)gr_below(2000), 0, 127);
	against_truth(h.count, NULL, HX_MAXP, 0);
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
	/* Drawn: p right at a rank's edge, and just past it. */
	{
		unsigned n = 1 + (unsigned)gr_below(1000), i, k;
		double p[HX_MAXP];

		drawn_values(n, 0, 127);
		for (i = 0; i < HX_MAXP; i += 2) {
			k = 1 + (unsigned)gr_below(n);
			p[i] = 100.0 * k / n;
			p[i + 1] = p[i] + 1e-6 < 100 ? p[i] + 1e-6 : 100;
		}
		against_truth(n, p, HX_MAXP, 0);
	}
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
	/* Drawn: the same edges of a drawn histogram. */
	drawn_values(1 + (unsigned)gr_below(5000), gr_below(1000),
		     1000 + gr_below(100000000));
	GR_EQ_U(ex_hist_percentile(&h, -(double)gr_below(1000)), h.min);
	GR_EQ_U(ex_hist_percentile(&h, 100 + (double)gr_below(1000)), h.max);
	GR_EQ_U(ex_hist_percentile(&h, -NAN), h.min);
	pl_hist_init(&h);
	GR_EQ_U(ex_hist_percentile(&h, (double)gr_below(100)), 0);
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
	/* Drawn: large values, within 1% of the true percentile. */
	drawn_values(10000, 1000, 1000 + gr_below(1ull << 40));
	against_truth(10000, NULL, HX_MAXP, 0.01);
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
	/* Drawn: a few values inside one wide bucket: never beyond them. */
	{
		uint64_t v = 1000000 + gr_below(1ull << 40);
		unsigned i;

		drawn_values(1 + (unsigned)gr_below(5), v, v + v / 1000);
		for (i = 0; i < 20; i++) {
			uint64_t got = ex_hist_percentile(
				&h, (double)(1 + gr_below(99999)) / 1000);

			GR_CHECK(got >= h.min && got <= h.max,
				 "%llu values in %llu..%llu: a percentile of "
				 "%llu",
				 (unsigned long long)h.count,
				 (unsigned long long)h.min,
				 (unsigned long long)h.max,
				 (unsigned long long)got);
		}
	}
	return gr_verdict();
}

/* Drawn latencies, many percentiles: the same as common/. */
static int matches_common(void)
{
	drawn(200, 5000, 16);
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
	gr_sandbox(&(struct gr_sandbox){ 0 });
	return gr_main(argc, argv, "03-percentile", cases);
}
