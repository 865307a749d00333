/* SPDX-License-Identifier: MIT */
/*
 * TSC calibration against CLOCK_MONOTONIC, and the REALTIME-to-MONOTONIC
 * offset used to bring kernel timestamps into the one time domain.
 */
#include "clock.h"

#include <errno.h>
#include <pthread.h>

/* Everything up to the #else measures a real TSC, so it is x86 only. */
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

#define CAL_ROUNDS 7 /* odd, so the median is one round */
#define CAL_TRIES  5 /* reads per stamp; the tightest one wins */

/* One stamp on both clocks: the TSC in the middle of a monotonic read. */
struct cal_stamp {
	uint64_t tsc;
	uint64_t ns;
};

/*
 * Read the TSC, then CLOCK_MONOTONIC, then the TSC again, a few times, and
 * keep the pair whose two TSC reads are closest: an interrupt or a
 * preemption between the reads would otherwise skew the round.
 */
static void cal_stamp(struct cal_stamp *s)
{
	uint64_t a, b, ns, best = UINT64_MAX;
	int i;

	for (i = 0; i < CAL_TRIES; i++) {
		a = pl_rdtscp();
		ns = pl_now_ns();
		b = pl_rdtscp();
		if (b - a < best) {
			best = b - a;
			s->tsc = a + (b - a) / 2;
			s->ns = ns;
		}
	}
}

/* Sleep for ns nanoseconds of CLOCK_MONOTONIC; 0 or -errno. */
static int cal_sleep(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000u),
		.tv_nsec = (long)(ns % 1000000000u),
	};
	int err;

	do {
		err = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts);
	} while (err == EINTR);
	return -err;
}

/* Sort a few doubles in place (insertion sort; n is CAL_ROUNDS). */
static void sort_doubles(double *v, int n)
{
	double x;
	int i, j;

	for (i = 1; i < n; i++) {
		x = v[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* CPUID leaf 0x80000007, EDX bit 8: the TSC is invariant. */
static bool tsc_invariant(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000007, &a, &b, &c, &d))
		return false;
	return d & (1u << 8);
}

/*
 * Measure the TSC rate against CLOCK_MONOTONIC in rounds of ms / 7 each.
 * Simplification: every x86-64 CPU since about 2008 has RDTSCP, so it is
 * used without checking CPUID 0x80000001 EDX bit 27 first.
 */
int pl_tsc_calibrate(struct pl_tsc *t, unsigned ms)
{
	uint64_t round_ns = (uint64_t)ms * 1000000u / CAL_ROUNDS;
	double hz[CAL_ROUNDS];
	struct cal_stamp s0, s1;
	int i, err;

	if (!ms)
		return -EINVAL;
	for (i = 0; i < CAL_ROUNDS; i++) {
		cal_stamp(&s0);
		err = cal_sleep(round_ns);
		if (err)
			return err;
		cal_stamp(&s1);
		if (s1.ns <= s0.ns || s1.tsc <= s0.tsc)
			return -EIO;
		hz[i] = (double)(s1.tsc - s0.tsc) * 1e9 /
			(double)(s1.ns - s0.ns);
	}
	sort_doubles(hz, CAL_ROUNDS);
	*t = (struct pl_tsc){
		.hz = hz[CAL_ROUNDS / 2],
		.err_ppm =
			(hz[CAL_ROUNDS - 1] - hz[0]) / hz[CAL_ROUNDS / 2] * 1e6,
		.invariant = tsc_invariant(),
		.is_tsc = true,
	};
	return 0;
}
#else
/*
 * Report the nanosecond counter that stands in for the TSC.
 * Without a TSC the "cycles" of clock.h are CLOCK_MONOTONIC nanoseconds,
 * so the rate is 1 GHz by definition and there is nothing to measure. That
 * counter runs at a constant rate and never stops, hence "invariant".
 */
int pl_tsc_calibrate(struct pl_tsc *t, unsigned ms)
{
	if (!ms)
		return -EINVAL;
	*t = (struct pl_tsc){
		.hz = 1e9,
		.err_ppm = 0,
		.invariant = true,
		.is_tsc = false,
	};
	return 0;
}
#endif

static struct pl_tsc tsc_once;

/* Run the one-time calibration for pl_tsc(). */
static void tsc_init(void)
{
	/*
	 * Only a broken clock makes calibration fail; then say so with a
	 * placeholder rate and a 100 % error rather than return nothing.
	 */
	if (pl_tsc_calibrate(&tsc_once, 50))
		tsc_once = (struct pl_tsc){ .hz = 1e9, .err_ppm = 1e6 };
}

/* Calibrate the TSC once per process (50 ms) and return the result. */
const struct pl_tsc *pl_tsc(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, tsc_init);
	return &tsc_once;
}

/*
 * Read REALTIME between two MONOTONIC reads a few times and keep the
 * tightest bracket, whose midpoint is the best guess of the same instant.
 */
int64_t pl_realtime_offset_ns(void)
{
	struct timespec rt;
	uint64_t m0, m1, best = UINT64_MAX;
	int64_t off = 0;
	int i;

	for (i = 0; i < 8; i++) {
		m0 = pl_now_ns();
		clock_gettime(CLOCK_REALTIME, &rt);
		m1 = pl_now_ns();
		if (m1 - m0 < best) {
			best = m1 - m0;
			off = (int64_t)pl_timespec_ns(&rt) -
			      (int64_t)(m0 + (m1 - m0) / 2);
		}
	}
	return off;
}

void pl_wait_until(uint64_t deadline, uint64_t spin_ns)
{
	uint64_t now = pl_now_ns(), wake;
	struct timespec ts;

	if (deadline > now + spin_ns) {
		wake = deadline - spin_ns;
		ts.tv_sec = (time_t)(wake / 1000000000ull);
		ts.tv_nsec = (long)(wake % 1000000000ull);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	while (pl_now_ns() < deadline)
		;
}
