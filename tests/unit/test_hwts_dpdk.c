/* SPDX-License-Identifier: MIT */
/*
 * The DPDK receiver's --hw-stamps conversion (dpdk/hwstamp_dpdk.h): NIC
 * clock samples against CLOCK_MONOTONIC give the rate and the offset, and
 * raw stamps become monotonic nanoseconds. No NIC here offers the
 * timestamp offload, so the clocks are made up: a 156.25 MHz counter, a
 * nanosecond PTP clock running 50 ppm fast, reads with 1 us of jitter, a
 * clock stepped back. Each stamp's true time is known and compared.
 */
#include "check.h"
#include "hwstamp_dpdk.h"

#include <math.h>
#include <string.h>

/* A made-up NIC clock: raw = off + (mono - t0) * ticks_per_ns. */
struct nic_clock {
	double ticks_per_ns;
	uint64_t t0, off;
};

/* The NIC clock's reading at a CLOCK_MONOTONIC time. */
static uint64_t nic_raw(const struct nic_clock *c, uint64_t mono)
{
	return c->off +
	       (uint64_t)llround((double)(mono - c->t0) * c->ticks_per_ns);
}

/* |a - b| in ns. */
static uint64_t diff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* A deterministic jitter in [-amp, amp] ns for sample i. */
static int64_t jitter(unsigned i, int64_t amp)
{
	uint32_t x = i * 2654435761u;

	x ^= x >> 15;
	return (int64_t)(x % (uint32_t)(2 * amp + 1)) - amp;
}

/* Nothing converts before two samples; then a 156.25 MHz counter. */
static void test_ticks(void)
{
	const struct nic_clock c = { 0.15625, 5000000000ull, 123456789ull };
	struct dpdk_hwts h;
	uint64_t m0 = c.t0 + 1000, m1 = m0 + HWTS_CALIBRATE_MS * 1000000ull;
	uint64_t t;

	memset(&h, 0, sizeof(h));
	CHECK_EQ_U(hwts_ns(&h, nic_raw(&c, m0)), 0);
	hwts_anchor(&h, nic_raw(&c, m0), m0);
	CHECK(!h.clk.valid);
	CHECK_EQ_U(hwts_ns(&h, nic_raw(&c, m0)), 0);
	CHECK(hwts_fit(&h, nic_raw(&c, m1), m1));
	CHECK(h.clk.valid);
	CHECK(fabs(hwts_hz(&h) - 156.25e6) < 156.25e6 * 1e-6);
	CHECK(!hwts_in_ns(&h));
	/* Within a tick (6.4 ns) either side of the latest sample. */
	for (t = m1 - 8000000; t < m1 + 12000000; t += 999983)
		CHECK(diff(hwts_ns(&h, nic_raw(&c, t)), t) <= 7);
}

/*
 * A PTP clock in ns running 50 ppm fast, sampled every 10 ms for a second
 * with 1 us of read jitter: the rate is measured to a few ppm and each
 * stamp (up to 10 ms after the latest sample) lands within 2 us.
 */
static void test_drift_and_jitter(void)
{
	const struct nic_clock c = { 1.00005, 1000000000ull, 7000000000ull };
	struct dpdk_hwts h;
	uint64_t m = c.t0, worst = 0, t, got;
	unsigned i;

	memset(&h, 0, sizeof(h));
	hwts_anchor(&h, nic_raw(&c, m), m);
	for (i = 1; i <= 100; i++) {
		m += HWTS_RESYNC_NS;
		CHECK(hwts_fit(
			&h,
			nic_raw(&c, (uint64_t)((int64_t)m + jitter(i, 1000))),
			m));
		for (t = m; t < m + HWTS_RESYNC_NS; t += 1000003) {
			got = hwts_ns(&h, nic_raw(&c, t));
			if (diff(got, t) > worst)
				worst = diff(got, t);
		}
	}
	CHECK(hwts_in_ns(&h));
	CHECK(fabs(hwts_hz(&h) / 1.00005e9 - 1) < 5e-6);
	CHECK(worst <= 2000);
	if (worst > 2000)
		fprintf(stderr, "worst error %llu ns\n",
			(unsigned long long)worst);
}

/* A stamp taken before the latest sample converts to before it too. */
static void test_before_sample(void)
{
	const struct nic_clock c = { 1.0, 0, 1ull << 40 };
	struct dpdk_hwts h;
	uint64_t m0 = 3000000000ull, m1 = m0 + 20000000;

	memset(&h, 0, sizeof(h));
	hwts_anchor(&h, nic_raw(&c, m0), m0);
	CHECK(hwts_fit(&h, nic_raw(&c, m1), m1));
	CHECK_EQ_U(hwts_ns(&h, nic_raw(&c, m1 - 5000000)), m1 - 5000000);
}

/*
 * A clock stepped back (a reset, or PTP): the sample starts a new span,
 * the rate already measured is kept, and stamps of the new clock convert.
 */
static void test_step_back(void)
{
	struct nic_clock c = { 1.0, 0, 9000000000ull };
	struct dpdk_hwts h;
	uint64_t m0 = 2000000000ull, m1 = m0 + 20000000, m2 = m1 + 10000000;

	memset(&h, 0, sizeof(h));
	hwts_anchor(&h, nic_raw(&c, m0), m0);
	CHECK(hwts_fit(&h, nic_raw(&c, m1), m1));
	c.off -= 5000000000ull; /* 5 s back */
	CHECK(!hwts_fit(&h, nic_raw(&c, m2), m2));
	CHECK(h.clk.valid);
	CHECK_EQ_U(h.anchor_mono, m2);
	CHECK(diff(hwts_ns(&h, nic_raw(&c, m2 + 4000000)), m2 + 4000000) <= 1);
	CHECK(hwts_fit(&h, nic_raw(&c, m2 + 10000000), m2 + 10000000));
}

/*
 * Per frame: an unstamped one gives 0 (the split skips it) and is counted;
 * a stamped one converts; one stamped after we had it is counted (the
 * clocks disagree); before any conversion a stamp gives 0, never a guess.
 */
static void test_frames(void)
{
	const struct nic_clock c = { 0.15625, 0, 1000 };
	struct dpdk_hwts h;
	uint64_t m0 = 4000000000ull, m1 = m0 + 20000000, now = m1 + 50000;

	memset(&h, 0, sizeof(h));
	CHECK_EQ_U(hwts_frame(&h, true, nic_raw(&c, m0), now), 0);
	hwts_anchor(&h, nic_raw(&c, m0), m0);
	CHECK(hwts_fit(&h, nic_raw(&c, m1), m1));
	CHECK_EQ_U(hwts_frame(&h, false, 0, now), 0);
	CHECK(diff(hwts_frame(&h, true, nic_raw(&c, now - 20000), now),
		   now - 20000) <= 7);
	CHECK(hwts_frame(&h, true, nic_raw(&c, now + 30000), now) > now);
	CHECK_EQ_U(h.stamped, 3);
	CHECK_EQ_U(h.unstamped, 1);
	CHECK_EQ_U(h.after_receipt, 1);
}

int main(void)
{
	test_ticks();
	test_drift_and_jitter();
	test_before_sample();
	test_step_back();
	test_frames();
	return CHECK_DONE();
}
