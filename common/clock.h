/* SPDX-License-Identifier: MIT */
/*
 * One time domain for every stamp that crosses a process boundary:
 * CLOCK_MONOTONIC nanoseconds. The TSC is used only for cycle counts and
 * cheap intervals inside one process, after calibration against it.
 */
#ifndef PATHLAB_CLOCK_H
#define PATHLAB_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t pl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t pl_timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

#if defined(__x86_64__) || defined(__i386__)
/* Read the TSC; not ordered against surrounding loads and stores. */
static inline uint64_t pl_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Read the TSC after all earlier instructions have completed. */
static inline uint64_t pl_rdtscp(void)
{
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	return ((uint64_t)hi << 32) | lo;
}
#else
/* Simplification: without a TSC, "cycles" are monotonic nanoseconds. */
static inline uint64_t pl_rdtsc(void)
{
	return pl_now_ns();
}

static inline uint64_t pl_rdtscp(void)
{
	return pl_now_ns();
}
#endif

struct pl_tsc {
	double hz;	/* measured TSC rate */
	double err_ppm; /* spread between calibration rounds, in ppm */
	bool invariant; /* CPUID says constant and nonstop */
	bool is_tsc;	/* false: the ns fallback on other CPUs */
};

/*
 * Calibrate the TSC against CLOCK_MONOTONIC over about ms milliseconds
 * (split in rounds; the spread between rounds is the stated error).
 * Returns 0 or -errno.
 */
int pl_tsc_calibrate(struct pl_tsc *t, unsigned ms);

/* Calibrate once per process (50 ms) and return the result. */
const struct pl_tsc *pl_tsc(void);

/*
 * Wait until deadline (CLOCK_MONOTONIC ns) with low jitter: sleep most of
 * the way, then spin the last spin_ns. Used to pace senders.
 */
void pl_wait_until(uint64_t deadline, uint64_t spin_ns);

/*
 * CLOCK_REALTIME minus CLOCK_MONOTONIC in ns, sampled tightly; subtract it
 * from a CLOCK_REALTIME stamp (SO_TIMESTAMPING) to bring it into the
 * monotonic domain.
 */
int64_t pl_realtime_offset_ns(void);

#endif
