/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic of --hw-stamps on the verbs path, apart from any device
 * so that it can be tested: a completion stamp counts ticks of the NIC's
 * free-running clock, completion_timestamp_mask bits wide (it wraps), at
 * hca_core_clock kHz. A reference pair (the clock's reading, and the
 * CLOCK_MONOTONIC time it was taken at) turns a stamp into monotonic ns.
 */
#ifndef PATHLAB_HWSTAMP_VERBS_H
#define PATHLAB_HWSTAMP_VERBS_H

#include <stdint.h>

/*
 * Ticks from b to a on a clock of mask's bits (a mask of low bits, all
 * ones), across a wrap; negative when a is before b (the nearer way).
 */
static inline int64_t hwstamp_tick_delta(uint64_t a, uint64_t b, uint64_t mask)
{
	uint64_t d = (a - b) & mask;

	return d > mask >> 1 ? -(int64_t)(mask - d) - 1 : (int64_t)d;
}

/*
 * The stamp t in CLOCK_MONOTONIC ns: ref_ns plus the ticks from ref_ticks
 * to t at khz ticks per ms (khz > 0).
 */
static inline uint64_t hwstamp_ticks_ns(uint64_t t, uint64_t ref_ticks,
					uint64_t ref_ns, uint64_t khz,
					uint64_t mask)
{
	int64_t d = hwstamp_tick_delta(t & mask, ref_ticks & mask, mask);

	return ref_ns +
	       (uint64_t)(int64_t)((__int128)d * 1000000 / (int64_t)khz);
}

#endif
