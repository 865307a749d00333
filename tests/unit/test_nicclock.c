/* SPDX-License-Identifier: MIT */
/*
 * The NIC-clock arithmetic every path's --hw-stamps uses (common/
 * nicclock.h), with no device: ticks to CLOCK_MONOTONIC ns at a few real
 * clock rates (as the verbs path sets them from hca_core_clock), stamps
 * before and after the reference, across the wrap of a narrow clock, and
 * the best-of-three reading on a made-up clock that fails and is slow.
 */
#include <errno.h>
#include <stdint.h>

#include "check.h"
#include "clock.h"
#include "nicclock.h"

#define ALL ~0ull

/* Signed distances, within and across the wrap of a 48-bit clock. */
static void test_delta(void)
{
	const uint64_t m48 = (1ull << 48) - 1;

	CHECK(pl_tick_delta(1000, 400, ALL) == 600);
	CHECK(pl_tick_delta(400, 1000, ALL) == -600);
	CHECK(pl_tick_delta(5, m48 - 4, m48) == 10);  /* wrapped ahead */
	CHECK(pl_tick_delta(m48 - 4, 5, m48) == -10); /* and behind */
	CHECK(pl_tick_delta(0, ALL, ALL) == 1);
	CHECK(pl_tick_delta(ALL, 0, ALL) == -1);
	CHECK(pl_tick_delta(7, 7, m48) == 0);
}

/* The verbs path's conversion: ref_ticks read at ref_ns, khz kHz. */
static uint64_t hwstamp_ticks_ns(uint64_t t, uint64_t ref_ticks,
				 uint64_t ref_ns, uint64_t khz, uint64_t mask)
{
	struct pl_nicclock c = { .valid = true,
				 .mask = mask,
				 .ns_per_tick = 1e6 / (double)khz,
				 .base_raw = ref_ticks,
				 .base_mono = ref_ns };

	return pl_nicclock_ns(&c, t);
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

/* No base yet, or a stamp that would fall before time 0: 0, no stamp. */
static void test_invalid(void)
{
	struct pl_nicclock c = { .mask = ~0ull, .ns_per_tick = 1 };

	CHECK_EQ_U(pl_nicclock_ns(&c, 12345), 0);
	c.valid = true;
	c.base_raw = 1000000;
	c.base_mono = 10;
	CHECK_EQ_U(pl_nicclock_ns(&c, 1000000 + 5), 15);
	CHECK_EQ_U(pl_nicclock_ns(&c, 1000), 0);
}

/*
 * A made-up clock: reads fail while fails > 0; each read takes
 * delay_ns[i] (spun), and returns ticks at its middle.
 */
struct fake_clock {
	int fails, reads;
	uint64_t delay_ns[3];
	uint64_t mid[3]; /* when each read's middle was */
};

static int fake_read(void *ctx, uint64_t *raw)
{
	struct fake_clock *f = ctx;
	uint64_t t0 = pl_now_ns(), d;

	if (f->fails > 0) {
		f->fails--;
		return -EIO;
	}
	d = f->delay_ns[f->reads % 3];
	while (pl_now_ns() - t0 < d / 2)
		;
	f->mid[f->reads % 3] = pl_now_ns();
	*raw = 0xabc0000000000000ull | f->reads; /* which read, high bits */
	f->reads++;
	while (pl_now_ns() - t0 < d)
		;
	return 0;
}

/* The shortest of three reads is kept, masked; failures are skipped. */
static void test_sample(void)
{
	struct fake_clock f = { .delay_ns = { 50000000, 1000, 50000000 } };
	struct pl_nicclock c = { .mask = (1ull << 48) - 1, .ns_per_tick = 1 };
	uint64_t raw = 0, mono = 0, w = 0;

	CHECK(pl_clock_sample(fake_read, &f, ~0ull, &raw, &mono, &w) == 0);
	CHECK_EQ_U(raw, 0xabc0000000000001ull); /* the second, fastest */
	CHECK(w >= 1000 && w < 50000000);
	CHECK(mono + w >= f.mid[1] && mono <= f.mid[1] + w);
	/* Two of three fail: the third is the reading. */
	f = (struct fake_clock){ .fails = 2, .delay_ns = { 1000, 1000, 1000 } };
	CHECK(pl_nicclock_resync(&c, fake_read, &f) == 0);
	CHECK(c.valid);
	CHECK_EQ_U(c.base_raw, 0); /* read 0, its high bits masked off */
	/* All three fail: the error, and no stamp converts. */
	f = (struct fake_clock){ .fails = 3 };
	CHECK(pl_nicclock_resync(&c, fake_read, &f) == -EIO);
	CHECK(!c.valid);
	CHECK_EQ_U(pl_nicclock_ns(&c, 5), 0);
}

int main(void)
{
	test_delta();
	test_ticks_ns();
	test_invalid();
	test_sample();
	return CHECK_DONE();
}
