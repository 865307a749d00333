/* SPDX-License-Identifier: MIT */
/*
 * The verbs path's --hw-stamps arithmetic (rdma/hwstamp_verbs.h), with no
 * device: ticks to CLOCK_MONOTONIC ns at a few real clock rates, stamps
 * before and after the reference, and across the wrap of a narrow clock.
 */
#include <stdint.h>

#include "check.h"
#include "hwstamp_verbs.h"

#define ALL ~0ull

/* Signed distances, within and across the wrap of a 48-bit clock. */
static void test_delta(void)
{
	const uint64_t m48 = (1ull << 48) - 1;

	CHECK(hwstamp_tick_delta(1000, 400, ALL) == 600);
	CHECK(hwstamp_tick_delta(400, 1000, ALL) == -600);
	CHECK(hwstamp_tick_delta(5, m48 - 4, m48) == 10);  /* wrapped ahead */
	CHECK(hwstamp_tick_delta(m48 - 4, 5, m48) == -10); /* and behind */
	CHECK(hwstamp_tick_delta(0, ALL, ALL) == 1);
	CHECK(hwstamp_tick_delta(ALL, 0, ALL) == -1);
	CHECK(hwstamp_tick_delta(7, 7, m48) == 0);
}

/* Ticks to ns at 1 GHz, 156.25 MHz (ConnectX-4) and 78.125 MHz. */
static void test_ticks_ns(void)
{
	const uint64_t ref_ns = 5000000000ull, m48 = (1ull << 48) - 1;

	/* 1 GHz: a tick is a nanosecond. */
	CHECK_EQ_U(hwstamp_ticks_ns(1000 + 2500, 1000, ref_ns, 1000000, ALL),
		   ref_ns + 2500);
	CHECK_EQ_U(hwstamp_ticks_ns(1000 - 700, 1000, ref_ns, 1000000, ALL),
		   ref_ns - 700);
	/* 156250 kHz: 6.4 ns a tick; 10 ms is 1,562,500 ticks. */
	CHECK_EQ_U(hwstamp_ticks_ns(1562500, 0, ref_ns, 156250, ALL),
		   ref_ns + 10000000);
	CHECK_EQ_U(hwstamp_ticks_ns(5, 0, ref_ns, 156250, ALL), ref_ns + 32);
	/* 78125 kHz, before the reference: -12.8 ns truncates to -12. */
	CHECK_EQ_U(hwstamp_ticks_ns(99, 100, ref_ns, 78125, ALL), ref_ns - 12);
	/* Across the wrap of a 48-bit clock, with stray high bits. */
	CHECK_EQ_U(hwstamp_ticks_ns(3, m48 - 1, ref_ns, 156250, m48),
		   ref_ns + 32);
	CHECK_EQ_U(hwstamp_ticks_ns((1ull << 60) | 3, m48 - 1, ref_ns, 156250,
				    m48),
		   ref_ns + 32);
	/* An hour from the reference at 1 GHz: no overflow. */
	CHECK_EQ_U(hwstamp_ticks_ns(3600000000000ull, 0, ref_ns, 1000000, ALL),
		   ref_ns + 3600000000000ull);
}

int main(void)
{
	test_delta();
	test_ticks_ns();
	return CHECK_DONE();
}
