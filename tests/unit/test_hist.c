/* SPDX-License-Identifier: MIT */
/*
 * The histogram against the truth: every bucket's bounds, and percentiles
 * compared with the exact nearest-rank answer found by sorting the data.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hist.h"

#define BIG_N	  1000000
#define MAX_ERR	  0.01 /* what hist.h promises */
#define MAX_SHOWN 5    /* failures printed per test, to keep output short */

static uint64_t rng_state = 0x5eed;
static double worst_overall;

/* splitmix64: small, good enough, and the same numbers on every run. */
static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A random value in [lo, hi]. */
static uint64_t rng_range(uint64_t lo, uint64_t hi)
{
	/* hi - lo + 1 would wrap to 0 for the full 64-bit range */
	if (hi - lo == UINT64_MAX)
		return rng_next();
	return lo + rng_next() % (hi - lo + 1);
}

/* A random double in (0, 1]. */
static double rng_unit(void)
{
	return (double)((rng_next() >> 11) + 1) * 0x1p-53;
}

/* A standard normal deviate (Box-Muller). */
static double rng_normal(void)
{
	double u1 = rng_unit(), u2 = rng_unit();

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* qsort() comparison for uint64_t. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* |got - want| / want, with 0 for an exact answer. */
static double rel_err(uint64_t got, uint64_t want)
{
	uint64_t d = got > want ? got - want : want - got;

	if (d == 0)
		return 0;
	if (want == 0)
		return INFINITY;
	return (double)d / (double)want;
}

/* Fill h with the n values of v. */
static void hist_of(struct pl_hist *h, const uint64_t *v, size_t n)
{
	size_t i;

	pl_hist_init(h);
	for (i = 0; i < n; i++)
		pl_hist_record(h, v[i]);
}

/* Fixed values of the index math, worked out by hand from hist.h. */
static void test_known_buckets(void)
{
	CHECK_EQ_U(pl_hist_index(0), 0);
	CHECK_EQ_U(pl_hist_index(127), 127);
	/* from 128 on, buckets are 2 wide, then 4 from 256 ... */
	CHECK_EQ_U(pl_hist_index(128), 128);
	CHECK_EQ_U(pl_hist_index(129), 128);
	CHECK_EQ_U(pl_hist_index(130), 129);
	CHECK_EQ_U(pl_hist_index(255), 191);
	CHECK_EQ_U(pl_hist_index(256), 192);
	CHECK_EQ_U(pl_hist_index(259), 192);
	CHECK_EQ_U(pl_hist_index(260), 193);
	CHECK_EQ_U(pl_hist_index(UINT64_MAX), PL_HIST_BUCKETS - 1);
	CHECK_EQ_U(PL_HIST_BUCKETS, 3776);
	CHECK_EQ_U(pl_hist_bucket_low(128), 128);
	CHECK_EQ_U(pl_hist_bucket_high(128), 129);
	CHECK_EQ_U(pl_hist_bucket_low(192), 256);
	CHECK_EQ_U(pl_hist_bucket_high(192), 259);
	CHECK_EQ_U(pl_hist_bucket_low(PL_HIST_BUCKETS - 1), 127ull << 57);
	CHECK_EQ_U(pl_hist_bucket_high(PL_HIST_BUCKETS - 1), UINT64_MAX);
}

/* low/high invert index, and the buckets tile [0, 2^64) with no gap. */
static void test_bucket_bounds(void)
{
	uint64_t lo, hi, v, next = 0;
	unsigned i, k, bad = 0;

	for (i = 0; i < PL_HIST_BUCKETS; i++) {
		lo = pl_hist_bucket_low(i);
		hi = pl_hist_bucket_high(i);
		if (lo != next || lo > hi || pl_hist_index(lo) != i ||
		    pl_hist_index(hi) != i) {
			if (bad++ < MAX_SHOWN)
				fprintf(stderr,
					"bucket %u: [%llu, %llu], expected "
					"low %llu\n",
					i, (unsigned long long)lo,
					(unsigned long long)hi,
					(unsigned long long)next);
		}
		/* exact below 128; above, at most 1/64 of the value wide */
		if (i < PL_HIST_SUB ? lo != hi : (hi - lo + 1) * 64 > lo) {
			if (bad++ < MAX_SHOWN)
				fprintf(stderr, "bucket %u too wide\n", i);
		}
		for (k = 0; k < 16; k++) {
			v = rng_range(lo, hi);
			if (pl_hist_index(v) != i && bad++ < MAX_SHOWN)
				fprintf(stderr, "index(%llu) != %u\n",
					(unsigned long long)v, i);
		}
		next = hi + 1;
	}
	/* the last bucket ends at UINT64_MAX, so next wrapped to 0 */
	CHECK_EQ_U(next, 0);
	CHECK_EQ_U(bad, 0);

	/* random values of every magnitude land in a bucket that holds them */
	for (k = 0; k < BIG_N; k++) {
		v = rng_next() >> (rng_next() % 64);
		i = pl_hist_index(v);
		if ((i >= PL_HIST_BUCKETS || v < pl_hist_bucket_low(i) ||
		     v > pl_hist_bucket_high(i)) &&
		    bad++ < MAX_SHOWN)
			fprintf(stderr, "value %llu in bucket %u\n",
				(unsigned long long)v, i);
	}
	CHECK_EQ_U(bad, 0);
}

/* Compare one percentile, given in millionths, with the sorted truth. */
static double check_pct(const char *name, const struct pl_hist *h,
			const uint64_t *sorted, size_t n, uint64_t ppm,
			unsigned *bad)
{
	/* nearest rank, in integers: ceil(ppm * n / 10^6), 1-based */
	uint64_t rank = (ppm * n + 999999) / 1000000;
	uint64_t want = sorted[rank - 1];
	uint64_t got = pl_hist_percentile(h, (double)ppm / 1e4);
	double err = rel_err(got, want);

	/* midpoint or clamp, the answer stays in the true value's bucket */
	if ((err > MAX_ERR || pl_hist_index(got) != pl_hist_index(want) ||
	     (want < PL_HIST_SUB && got != want)) &&
	    (*bad)++ < MAX_SHOWN)
		fprintf(stderr, "%s: p%g = %llu, exact %llu (rank %llu)\n",
			name, (double)ppm / 1e4, (unsigned long long)got,
			(unsigned long long)want, (unsigned long long)rank);
	return err;
}

/*
 * Record v[0..n), check count, min, max and mean, then sort v and check
 * percentiles against it. Returns the worst relative error seen, and the
 * percentile (in millionths) where it was seen.
 */
static double check_data(const char *name, uint64_t *v, size_t n,
			 uint64_t *at_ppm)
{
	static const uint64_t key_ppm[] = { 500000, 900000, 990000, 999000,
					    999900, 999990, 999999, 1 };
	struct pl_hist h;
	uint64_t sum = 0;
	long double lsum = 0;
	uint64_t min = UINT64_MAX, max = 0, ppm, worst_ppm = 0;
	double err, worst = 0, want_mean;
	unsigned bad = 0;
	size_t i;

	hist_of(&h, v, n);
	for (i = 0; i < n; i++) {
		/* past 2^53 the integer sum gives up; lsum takes over */
		if (sum <= (1ull << 53) && v[i] <= (1ull << 53))
			sum += v[i];
		else
			sum = UINT64_MAX;
		lsum += v[i];
		if (v[i] < min)
			min = v[i];
		if (v[i] > max)
			max = v[i];
	}
	CHECK_EQ_U(h.count, n);
	CHECK_EQ_U(h.min, min);
	CHECK_EQ_U(h.max, max);
	if (sum < (1ull << 53)) {
		/* every partial sum is an integer below 2^53: no rounding */
		want_mean = (double)sum / (double)n;
		CHECK(h.sum == (double)sum);
		CHECK(pl_hist_mean(&h) == want_mean);
	} else {
		want_mean = (double)(lsum / n);
		CHECK(fabs(pl_hist_mean(&h) - want_mean) <= 1e-9 * want_mean);
	}
	CHECK_EQ_U(pl_hist_percentile(&h, 0), min);
	CHECK_EQ_U(pl_hist_percentile(&h, -5), min);
	CHECK_EQ_U(pl_hist_percentile(&h, 100), max);
	CHECK_EQ_U(pl_hist_percentile(&h, 250), max);

	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < sizeof(key_ppm) / sizeof(key_ppm[0]); i++) {
		err = check_pct(name, &h, v, n, key_ppm[i], &bad);
		if (err > worst) {
			worst = err;
			worst_ppm = key_ppm[i];
		}
	}
	/* a sweep over the whole range, with a step prime to most n */
	for (ppm = 1; ppm <= 1000000; ppm += 997) {
		err = check_pct(name, &h, v, n, ppm, &bad);
		if (err > worst) {
			worst = err;
			worst_ppm = ppm;
		}
	}
	CHECK_EQ_U(bad, 0);
	*at_ppm = worst_ppm;
	return worst;
}

/* Print one summary line for a data set. */
static void report(const char *name, size_t n, double worst, uint64_t ppm)
{
	if (worst == 0)
		printf("hist: %-24s n=%-8zu exact\n", name, n);
	else
		printf("hist: %-24s n=%-8zu worst rel err %.4f%% (p%g)\n", name,
		       n, worst * 100, (double)ppm / 1e4);
	if (worst > worst_overall)
		worst_overall = worst;
}

/* Check one data set and print its summary line. */
static void check_set(const char *name, uint64_t *v, size_t n)
{
	uint64_t ppm;
	double worst = check_data(name, v, n, &ppm);

	report(name, n, worst, ppm);
}

/* Uniform over [0, 2^32), over a wide range, and log-uniform over 2^64. */
static void test_uniform(uint64_t *v)
{
	size_t i;

	for (i = 0; i < BIG_N; i++)
		v[i] = rng_next() >> 32;
	check_set("uniform [0, 2^32)", v, BIG_N);

	for (i = 0; i < BIG_N; i++)
		v[i] = rng_range(1000, 1000000000000ull);
	check_set("uniform [1e3, 1e12]", v, BIG_N);

	for (i = 0; i < BIG_N; i++)
		v[i] = rng_next() >> (rng_next() % 64);
	check_set("log-uniform [0, 2^64)", v, BIG_N);
}

/* Latencies in ns: log-normal around 20 us, 2% exponential tail to 10 ms. */
static void fill_latency(uint64_t *v, size_t n)
{
	double x;
	size_t i;

	for (i = 0; i < n; i++) {
		if (rng_next() % 100 < 2)
			x = 1000 - 1e6 * log(rng_unit());
		else
			x = exp(log(20000) + 0.8 * rng_normal());
		if (x < 1000)
			x = 1000;
		if (x > 1e7)
			x = 1e7;
		v[i] = (uint64_t)x;
	}
}

/* Skewed data with a long tail, the shape real latencies have. */
static void test_skewed(uint64_t *v)
{
	fill_latency(v, BIG_N);
	check_set("latency lognormal+tail", v, BIG_N);
}

/* n=1 and n=2: every percentile of one value is that value. */
static void test_tiny_counts(void)
{
	static const uint64_t one[] = { 0,	    1,	       127,  128,
					129,	    1000,      1007, 123456789,
					1ull << 63, UINT64_MAX };
	static const uint64_t two[][2] = {
		{ 5, 1000000000 }, { 0, UINT64_MAX }, { 1000, 1000 },
		{ 129, 128 },	   { 127, 128 },      { 1001, 1006 },
	};
	struct pl_hist h;
	uint64_t v[2], ppm, worst_ppm = 0;
	double p, err, worst = 0;
	unsigned i;

	for (i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		hist_of(&h, &one[i], 1);
		for (p = 0; p <= 100; p += 0.5)
			CHECK_EQ_U(pl_hist_percentile(&h, p), one[i]);
		CHECK(pl_hist_mean(&h) == (double)one[i]);
		v[0] = one[i];
		err = check_data("n=1", v, 1, &ppm);
		if (err > worst) {
			worst = err;
			worst_ppm = ppm;
		}
	}
	report("n=1 (10 sets)", 1, worst, worst_ppm);

	worst = 0;
	for (i = 0; i < sizeof(two) / sizeof(two[0]); i++) {
		memcpy(v, two[i], sizeof(v));
		err = check_data("n=2", v, 2, &ppm);
		if (err > worst) {
			worst = err;
			worst_ppm = ppm;
		}
	}
	report("n=2 (6 sets)", 2, worst, worst_ppm);
}

/* Data built to hurt: duplicates, gaps, boundaries, both ends of 2^64. */
static void test_adversarial(uint64_t *v)
{
	struct pl_hist h;
	size_t i, n;

	/* all equal: the clamp to [min, max] makes every answer exact */
	for (i = 0; i < 100000; i++)
		v[i] = 123456789;
	hist_of(&h, v, 100000);
	CHECK_EQ_U(pl_hist_percentile(&h, 50), 123456789);
	CHECK_EQ_U(pl_hist_percentile(&h, 99.99), 123456789);
	check_set("all equal", v, 100000);

	/*
	 * 999 small values and one huge: p99.9 is rank 999, a small value.
	 * Computed as ceil(99.9 / 100 * 1000) in doubles it would be rank
	 * 1000 and the answer a million times too big.
	 */
	for (i = 0; i < 999; i++)
		v[i] = rng_range(1000, 1010);
	v[999] = 1000000000000ull;
	hist_of(&h, v, 1000);
	/* within 1% of a value in 1000..1010, nowhere near 10^12 */
	CHECK(pl_hist_percentile(&h, 99.9) <= 1021);
	CHECK_EQ_U(pl_hist_percentile(&h, 99.95), 1000000000000ull);
	check_set("999 small + 1 huge", v, 1000);

	/* two equal clusters six orders of magnitude apart */
	for (i = 0; i < 200000; i++)
		v[i] = i % 2 ? rng_range(4900, 5100)
			     : rng_range(4990000000ull, 5010000000ull);
	hist_of(&h, v, 200000);
	CHECK(pl_hist_percentile(&h, 50) <= 5100);
	CHECK(pl_hist_percentile(&h, 50.001) >= 4990000000ull);
	check_set("two clusters", v, 200000);

	/* the first and last value of every bucket */
	n = 0;
	for (i = 0; i < PL_HIST_BUCKETS; i++) {
		v[n++] = pl_hist_bucket_low((unsigned)i);
		v[n++] = pl_hist_bucket_high((unsigned)i);
	}
	check_set("bucket boundaries", v, n);

	/* tiny values have buckets of their own and must come back exact */
	for (i = 0; i < 128; i++)
		v[i] = i;
	for (; i < 100000; i++)
		v[i] = rng_range(0, 127);
	check_set("tiny 0..127", v, 100000);

	/* huge values around 2^63, up to the largest uint64_t */
	for (i = 0; i < 100000; i++)
		v[i] = (1ull << 63) - (1ull << 40) + rng_range(0, 1ull << 41);
	v[0] = UINT64_MAX;
	v[1] = (1ull << 63) - 1;
	check_set("huge near 2^63", v, 100000);
}

/* Merging two histograms gives the histogram of both data sets. */
static void test_merge(uint64_t *v)
{
	struct pl_hist a, b, all, m, empty;
	/* a + b, b + a, all + empty and empty + all must all equal all */
	const struct pl_hist *dst[] = { &a, &b, &all, &empty };
	const struct pl_hist *src[] = { &b, &a, &empty, &all };
	unsigned i, bad = 0;

	fill_latency(v, BIG_N);
	/* some exact-bucket values too, 0 included */
	for (i = 0; i < BIG_N; i += 1000)
		v[i] = rng_range(0, 127);
	/* split by value, so that min comes from one side and max the other */
	pl_hist_init(&a);
	pl_hist_init(&b);
	pl_hist_init(&all);
	pl_hist_init(&empty);
	for (i = 0; i < BIG_N; i++) {
		pl_hist_record(v[i] < 20000 ? &a : &b, v[i]);
		pl_hist_record(&all, v[i]);
	}
	CHECK(a.count > 0 && b.count > 0);

	for (i = 0; i < 4; i++) {
		m = *dst[i];
		pl_hist_merge(&m, src[i]);
		CHECK_EQ_U(m.count, all.count);
		CHECK_EQ_U(m.min, all.min);
		CHECK_EQ_U(m.max, all.max);
		/* the sums are integers below 2^53, so exact either way */
		CHECK(m.sum == all.sum);
		if (memcmp(m.buckets, all.buckets, sizeof(m.buckets)) &&
		    bad++ < MAX_SHOWN)
			fprintf(stderr, "merge %u: buckets differ\n", i);
	}
	CHECK_EQ_U(bad, 0);
}

/* A fresh histogram is empty whatever the memory held before. */
static void test_empty(void)
{
	struct pl_hist h;
	unsigned i, nonzero = 0;

	memset(&h, 0xab, sizeof(h));
	pl_hist_init(&h);
	CHECK_EQ_U(h.count, 0);
	CHECK_EQ_U(h.min, UINT64_MAX);
	CHECK_EQ_U(h.max, 0);
	CHECK(h.sum == 0);
	for (i = 0; i < PL_HIST_BUCKETS; i++)
		nonzero += h.buckets[i] != 0;
	CHECK_EQ_U(nonzero, 0);
	CHECK_EQ_U(pl_hist_percentile(&h, 50), 0);
	CHECK_EQ_U(pl_hist_percentile(&h, 100), 0);
	CHECK(pl_hist_mean(&h) == 0);
}

int main(void)
{
	uint64_t *v = malloc(BIG_N * sizeof(*v));

	if (!v) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	test_empty();
	test_known_buckets();
	test_bucket_bounds();
	test_uniform(v);
	test_skewed(v);
	test_adversarial(v);
	test_tiny_counts();
	test_merge(v);
	printf("hist: worst relative error overall %.4f%% (limit %.1f%%)\n",
	       worst_overall * 100, MAX_ERR * 100);
	free(v);
	return CHECK_DONE();
}
