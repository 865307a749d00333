/* SPDX-License-Identifier: MIT */
/* Graded tests of exercise 1: the cycle budget. */
#include "budget_ex.h"
#include "grade.h"
#include "wire.h"

#include <stdlib.h>

/* The references of common/: the code under test may not call them. */
GR_REFERENCE(void, pl_budget_compute,
	     (uint64_t rate_bps, unsigned frame_bytes, double clock_hz,
	      struct pl_budget *b))
GR_REFERENCE(unsigned, pl_frame_for_payload, (unsigned payload, bool vlan))

/* The budget of one rate and frame size at clock_hz, from the exercise. */
static struct pl_budget budget(uint64_t rate, unsigned frame, double hz)
{
	struct pl_budget b;

	ex_budget_compute(rate, frame, hz, &b);
	return b;
}

/* 64-byte frames are 84 bytes on the wire: 14.88 Mpps at 10 GbE. */
static int fps_64(void)
{
	GR_EQ_U(budget(10000000000ull, 64, 3e9).frames_per_second, 14880952);
	GR_EQ_U(budget(100000000000ull, 64, 3e9).frames_per_second, 148809523);
	GR_EQ_U(budget(1000000000ull, 64, 3e9).frames_per_second, 1488095);
	return gr_verdict();
}

/* Whole frames: the fraction is cut off, never rounded up. */
static int fps_truncates(void)
{
	/* 10e9 / (1538 * 8) = 812743.8 */
	GR_EQ_U(budget(10000000000ull, 1518, 3e9).frames_per_second, 812743);
	/* 25e9 / 672 = 37202380.95 */
	GR_EQ_U(budget(25000000000ull, 64, 3e9).frames_per_second, 37202380);
	/* 9018-byte jumbo frames at 400G: 4e11 / 72304 = 5532197.4 */
	GR_EQ_U(budget(400000000000ull, 9018, 3e9).frames_per_second, 5532197);
	return gr_verdict();
}

/* The time between two frames. */
static int ns_per_frame(void)
{
	GR_NEAR(budget(10000000000ull, 64, 3e9).ns_per_frame, 67.2, 1e-6);
	GR_NEAR(budget(100000000000ull, 64, 3e9).ns_per_frame, 6.72, 1e-6);
	GR_NEAR(budget(10000000000ull, 1518, 3e9).ns_per_frame, 1e9 / 812743.0,
		1e-9);
	return gr_verdict();
}

/* Cycles per frame: the clock divided by the frame rate. */
static int cycles_per_frame(void)
{
	GR_NEAR(budget(100000000000ull, 64, 3e9).cycles_per_frame, 20.16, 1e-6);
	GR_NEAR(budget(10000000000ull, 64, 2.3e9).cycles_per_frame, 154.56,
		1e-6);
	GR_NEAR(budget(10000000000ull, 1518, 3e9).cycles_per_frame,
		3e9 / 812743.0, 1e-9);
	return gr_verdict();
}

/* Below one frame per second: no budget, and no division by zero. */
static int slow_links(void)
{
	struct pl_budget b = budget(100, 64, 3e9);

	GR_EQ_U(b.frames_per_second, 0);
	GR_CHECK(b.ns_per_frame == 0 && b.cycles_per_frame == 0,
		 "100 bit/s: ns_per_frame %g, cycles_per_frame %g, expected 0",
		 b.ns_per_frame, b.cycles_per_frame);
	b = budget(672, 64, 3e9); /* exactly one 64-byte frame per second */
	GR_EQ_U(b.frames_per_second, 1);
	GR_NEAR(b.ns_per_frame, 1e9, 1e-12);
	GR_NEAR(b.cycles_per_frame, 3e9, 1e-12);
	GR_EQ_U(b.rate_bps, 672);
	GR_EQ_U(b.frame_bytes, 64);
	return gr_verdict();
}

/* Frame sizes: headers, FCS, the 4-byte tag, padding to 64. */
static int frame_for_payload(void)
{
	GR_EQ_U(ex_frame_for_payload(18, false), 64);
	GR_EQ_U(ex_frame_for_payload(0, false), 64);
	GR_EQ_U(ex_frame_for_payload(1472, false), 1518);
	GR_EQ_U(ex_frame_for_payload(1472, true), 1522);
	GR_EQ_U(ex_frame_for_payload(18, true), 68);
	GR_EQ_U(ex_frame_for_payload(8972, false), 9018);
	return gr_verdict();
}

/* The same answers as common/ over a sweep of rates, sizes and clocks. */
static int matches_common(void)
{
	static const uint64_t rates[] = { 1000,
					  1000000000ull,
					  2500000000ull,
					  10000000000ull,
					  25000000000ull,
					  40000000000ull,
					  100000000000ull,
					  200000000000ull,
					  400000000000ull };
	struct pl_budget want, got;
	unsigned i, size, payload, bad = 0;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		for (size = 64; size <= 9018; size += 59) {
			__real_pl_budget_compute(rates[i], size, 2.1e9 + size,
						 &want);
			ex_budget_compute(rates[i], size, 2.1e9 + size, &got);
			if (got.frames_per_second != want.frames_per_second ||
			    got.ns_per_frame != want.ns_per_frame ||
			    got.cycles_per_frame != want.cycles_per_frame) {
				if (!bad++)
					gr_fail_at(
						__FILE__, __LINE__,
						"rate %llu size %u: %llu fps "
						"%g ns %g cycles, expected "
						"%llu %g %g",
						(unsigned long long)rates[i],
						size,
						(unsigned long long)
							got.frames_per_second,
						got.ns_per_frame,
						got.cycles_per_frame,
						(unsigned long long)
							want.frames_per_second,
						want.ns_per_frame,
						want.cycles_per_frame);
			}
		}
	}
	for (payload = 0; payload <= 9000; payload++)
		if (ex_frame_for_payload(payload, payload & 1) !=
			    __real_pl_frame_for_payload(payload, payload & 1) &&
		    !bad++)
			gr_fail_at(__FILE__, __LINE__,
				   "payload %u vlan %d: frame %u, expected %u",
				   payload, payload & 1,
				   ex_frame_for_payload(payload, payload & 1),
				   __real_pl_frame_for_payload(payload,
							       payload & 1));
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "fps_64", 3, "64-byte frames: 14.88 Mpps at 10G, 148.8 at 100G",
	  fps_64 },
	{ "fps_truncates", 2, "whole frames per second, truncated",
	  fps_truncates },
	{ "ns_per_frame", 2, "nanoseconds between two frames", ns_per_frame },
	{ "cycles_per_frame", 2, "cycles per frame at a given clock",
	  cycles_per_frame },
	{ "slow_links", 1, "under one frame per second: no budget, no NaN",
	  slow_links },
	{ "frame_for_payload", 3, "frame size for a UDP payload, FCS and pad",
	  frame_for_payload },
	{ "matches_common", 2, "same results as common/ over a sweep",
	  matches_common },
	{ 0 }
};

int main(int argc, char **argv)
{
	return gr_main(argc, argv, "01-budget", cases);
}
