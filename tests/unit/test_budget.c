/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the cycle budget (against the RFC 5180 Appendix A figures),
 * the rate, clock and count parsers, and the clock module.
 */
#include "budget.h"
#include "check.h"
#include "clock.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define G	      1000000000ull

/* Check frames/s and the rounded ns/frame for one rate and frame size. */
static void check_frames(uint64_t rate, unsigned frame, uint64_t fps,
			 const char *ns)
{
	struct pl_budget b;
	char buf[32];

	pl_budget_compute(rate, frame, 3e9, &b);
	CHECK_EQ_U(b.frames_per_second, fps);
	CHECK_EQ_U(b.rate_bps, rate);
	CHECK_EQ_U(b.frame_bytes, frame);
	snprintf(buf, sizeof(buf), "%.1f", b.ns_per_frame);
	if (strcmp(buf, ns)) {
		fprintf(stderr, "%llu b/s, %u B: %s ns, expected %s\n",
			(unsigned long long)rate, frame, buf, ns);
		check_failures++;
	}
}

/* The frame rates of RFC 5180 Appendix A and a few more by hand. */
static void test_frames(void)
{
	check_frames(10 * G, 64, 14880952, "67.2");
	check_frames(10 * G, 1518, 812743, "1230.4");
	check_frames(100 * G, 64, 148809523, "6.7");
	check_frames(1 * G, 1518, 81274, "12304.1");
	check_frames(1 * G, 64, 1488095, "672.0");
	check_frames(1 * G, 128, 844594, "1184.0");
	check_frames(25 * G, 64, 37202380, "26.9");
	check_frames(40 * G, 64, 59523809, "16.8");
	check_frames(400 * G, 64, 595238095, "1.7");
	check_frames(10 * G, 9000, 138580, "7216.0");
	/* 671 bit/s is less than one 64 B frame: no budget, not a crash. */
	check_frames(671, 64, 0, "0.0");
}

/* Cycles per frame are the clock divided by the frame rate. */
static void test_cycles(void)
{
	struct pl_budget b;
	char buf[32];

	pl_budget_compute(10 * G, 64, 3e9, &b);
	snprintf(buf, sizeof(buf), "%.1f", b.cycles_per_frame);
	CHECK(!strcmp(buf, "201.6"));
	CHECK(b.clock_hz == 3e9);
	CHECK(fabs(b.cycles_per_frame - 3e9 / 14880952.0) < 1e-9);

	pl_budget_compute(10 * G, 64, 2.3e9, &b);
	snprintf(buf, sizeof(buf), "%.1f", b.cycles_per_frame);
	CHECK(!strcmp(buf, "154.6"));

	pl_budget_compute(100 * G, 1518, 2e9, &b);
	CHECK_EQ_U(b.frames_per_second, 8127438);
	CHECK(fabs(b.cycles_per_frame - 2e9 / 8127438.0) < 1e-9);
}

struct rate_case {
	const char *s;
	uint64_t bps; /* 0: must be rejected */
};

/* pl_parse_rate() on good and bad inputs. */
static void test_parse_rate(void)
{
	static const struct rate_case cases[] = {
		{ "10G", 10 * G },
		{ "25Gbit", 25 * G },
		{ "400g", 400 * G },
		{ "100M", 100000000 },
		{ "2.5G", 2500000000 },
		{ "1000000000", 1 * G },
		{ "10Gbps", 10 * G },
		{ "10Gb", 10 * G },
		{ "10gBIT", 10 * G },
		{ "1k", 1000 },
		{ "1T", 1000 * G },
		{ "1.6t", 1600 * G },
		{ "2.5e9", 2500000000 },
		{ "100bps", 100 },
		{ "0.1G", 100000000 },
		{ "010G", 10 * G },
		{ "-5G", 0 },
		{ "0", 0 },
		{ "0G", 0 },
		{ "0.0001", 0 },
		{ "abc", 0 },
		{ "", 0 },
		{ "G", 0 },
		{ ".", 0 },
		{ "10Q", 0 },
		{ "10G ", 0 },
		{ " 10G", 0 },
		{ "10 G", 0 },
		{ "+10G", 0 },
		{ "10Gx", 0 },
		{ "10Gbits", 0 },
		{ "10GB", 0 },
		{ "10GHz", 0 },
		{ "1.5", 0 },
		{ "0x10", 0 },
		{ "nan", 0 },
		{ "inf", 0 },
		{ "1e", 0 },
		{ "1e400", 0 },
		{ "20000000T", 0 },
		{ "18446744073709551615", UINT64_MAX },
		{ "18446744073709551616", 0 },
	};
	uint64_t v;
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		v = 7;
		err = pl_parse_rate(cases[i].s, &v);
		if (cases[i].bps ? err || v != cases[i].bps : err != -EINVAL) {
			fprintf(stderr, "pl_parse_rate(\"%s\") = %d, %llu\n",
				cases[i].s, err, (unsigned long long)v);
			check_failures++;
		}
	}
}

struct hz_case {
	const char *s;
	double hz; /* 0: must be rejected */
};

/* pl_parse_hz() on good and bad inputs. */
static void test_parse_hz(void)
{
	static const struct hz_case cases[] = {
		{ "3.0GHz", 3e9 },     { "2400MHz", 2.4e9 },
		{ "2.3e9", 2.3e9 },    { "1500kHz", 1.5e6 },
		{ "3ghz", 3e9 },       { "3G", 3e9 },
		{ "1000000", 1e6 },    { "1.5", 1.5 },
		{ "50Hz", 50 },	       { "2.3E+9", 2.3e9 },
		{ "23e-1GHz", 2.3e9 }, { "0", 0 },
		{ "0GHz", 0 },	       { "-3GHz", 0 },
		{ "abc", 0 },	       { "", 0 },
		{ "GHz", 0 },	       { "3GHzz", 0 },
		{ "3THz", 0 },	       { "3 GHz", 0 },
		{ " 3GHz", 0 },	       { "nan", 0 },
		{ "inf", 0 },	       { "3e", 0 },
		{ "3e+", 0 },	       { "1e999", 0 },
		{ "1e-999", 0 },       { "1e25", 0 },
		{ "0x10", 0 },	       { "3GHz,", 0 },
	};
	double v;
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		v = 7;
		err = pl_parse_hz(cases[i].s, &v);
		if (cases[i].hz ? err || v != cases[i].hz : err != -EINVAL) {
			fprintf(stderr, "pl_parse_hz(\"%s\") = %d, %g\n",
				cases[i].s, err, v);
			check_failures++;
		}
	}
}

struct count_case {
	const char *s;
	int err;
	uint64_t v;
};

/* pl_parse_count() on good and bad inputs. */
static void test_parse_count(void)
{
	static const struct count_case cases[] = {
		{ "0", 0, 0 },
		{ "10", 0, 10 },
		{ "10k", 0, 10000 },
		{ "10K", 0, 10000 },
		{ "1.5M", 0, 1500000 },
		{ "2G", 0, 2000000000 },
		{ "1.0", 0, 1 },
		{ "007", 0, 7 },
		{ "0.001k", 0, 1 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "-1", -EINVAL, 0 },
		{ "1.5", -EINVAL, 0 },
		{ "1.0001k", -EINVAL, 0 },
		{ "abc", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "k", -EINVAL, 0 },
		{ "10x", -EINVAL, 0 },
		{ "10T", -EINVAL, 0 },
		{ "1e6", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "1 ", -EINVAL, 0 },
		{ "18446744073709551616", -EINVAL, 0 },
		{ "20000000000G", -EINVAL, 0 },
	};
	uint64_t v;
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		v = 7;
		err = pl_parse_count(cases[i].s, &v);
		if (err != cases[i].err || (!err && v != cases[i].v)) {
			fprintf(stderr, "pl_parse_count(\"%s\") = %d, %llu\n",
				cases[i].s, err, (unsigned long long)v);
			check_failures++;
		}
	}
}

/* The calibrated rate must turn TSC ticks back into monotonic time. */
static void test_tsc(void)
{
	const struct pl_tsc *t = pl_tsc();
	struct timespec nap = { .tv_nsec = 20000000 };
	struct pl_tsc c;
	uint64_t c0, c1, n0, n1;
	double ratio;

	CHECK(pl_tsc_calibrate(&c, 0) == -EINVAL);
	CHECK_EQ_U(pl_tsc_calibrate(&c, 20), 0);
	CHECK(c.hz > 1e8);
	CHECK(isfinite(c.err_ppm) && c.err_ppm >= 0);
	CHECK(t == pl_tsc());
	CHECK(t->hz > 1e8 && isfinite(t->err_ppm));
	CHECK(fabs(c.hz / t->hz - 1) < 0.01);
#if defined(__x86_64__) || defined(__i386__)
	CHECK(c.is_tsc && t->is_tsc);
#else
	CHECK(!c.is_tsc && c.hz == 1e9);
#endif
	printf("TSC %.6f GHz, +-%.1f ppm, %sinvariant\n", t->hz / 1e9,
	       t->err_ppm, t->invariant ? "" : "not ");

	n0 = pl_now_ns();
	c0 = pl_rdtscp();
	nanosleep(&nap, NULL);
	c1 = pl_rdtscp();
	n1 = pl_now_ns();
	ratio = (double)(c1 - c0) / t->hz * 1e9 / (double)(n1 - n0);
	CHECK(ratio > 0.95 && ratio < 1.05);
}

/* The offset must match a plain REALTIME - MONOTONIC pair closely. */
static void test_realtime_offset(void)
{
	struct timespec rt, mt;
	int64_t off = pl_realtime_offset_ns(), naive;

	clock_gettime(CLOCK_MONOTONIC, &mt);
	clock_gettime(CLOCK_REALTIME, &rt);
	naive = (int64_t)pl_timespec_ns(&rt) - (int64_t)pl_timespec_ns(&mt);
	/* Two reads in a row agree to far better than a millisecond. */
	CHECK(llabs(naive - off) < 1000000);
	CHECK(llabs(pl_realtime_offset_ns() - off) < 1000000);
	/* REALTIME is after 2020 on any machine that runs this test. */
	CHECK(off > 1577836800ll * 1000000000ll - (int64_t)pl_now_ns());
}

int main(void)
{
	test_frames();
	test_cycles();
	test_parse_rate();
	test_parse_hz();
	test_parse_count();
	test_tsc();
	test_realtime_offset();
	return CHECK_DONE();
}
