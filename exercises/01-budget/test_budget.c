/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 1: the cycle budget. The student's functions
 * run in the worker (wk_budget.c); this grader sends them rates, sizes
 * and clocks, fixed ones and some drawn from the run's seed, and compares
 * what comes back with common/budget.c and common/wire.c.
 */
#include "budget_rpc.h"
#include "grade.h"
#include "wire.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NRAND 64 /* drawn inputs per case */

/* The student's budgets of n inputs. */
static void budgets(const struct bx_budget_in *q, size_t n,
		    struct pl_budget *out)
{
	gr_call_exact(BX_BUDGET, q, n * sizeof(*q), out, n * sizeof(*out));
}

/* The student's budget of one rate and frame size at clock hz. */
static struct pl_budget budget(uint64_t rate, unsigned frame, double hz)
{
	struct bx_budget_in q = { rate, hz, frame, 0 };
	struct pl_budget b;

	budgets(&q, 1, &b);
	return b;
}

/* The student's frame sizes of n payloads. */
static void frames(const struct bx_frame_in *q, size_t n, uint32_t *out)
{
	gr_call_exact(BX_FRAME, q, n * sizeof(*q), out, n * sizeof(*out));
}

/* The student's frame size of one payload. */
static unsigned frame_for(unsigned payload, bool vlan)
{
	struct bx_frame_in q = { payload, vlan };
	uint32_t f;

	frames(&q, 1, &f);
	return f;
}

/* A drawn link rate: 1 kbit/s to 400 Gbit/s, evenly on a log scale. */
static uint64_t any_rate(void)
{
	return (uint64_t)pow(10, 3 + 8.6 * (double)gr_below(1000000) / 1e6);
}

/* n drawn inputs; frame sizes from lo to hi, clocks 1 to 5 GHz. */
static void draw(struct bx_budget_in *q, size_t n, unsigned lo, unsigned hi)
{
	size_t i;

	for (i = 0; i < n; i++)
		q[i] = (struct bx_budget_in){
			.rate_bps = any_rate(),
			.frame_bytes = lo + (unsigned)gr_below(hi - lo + 1),
			.clock_hz = 1e9 + (double)gr_below(4000) * 1e6,
		};
}

/* The drawn inputs against common/: which of fps, ns, cycles (1, 2, 4). */
static void against_common(const struct bx_budget_in *q, size_t n,
			   unsigned what, double rel)
{
	struct pl_budget got[NRAND], want;
	size_t i;

	budgets(q, n, got);
	for (i = 0; i < n && gr_failures < 3; i++) {
		pl_budget_compute(q[i].rate_bps, q[i].frame_bytes,
				  q[i].clock_hz, &want);
		gr_context("rate %llu, %u-byte frames, clock %.0f",
			   (unsigned long long)q[i].rate_bps, q[i].frame_bytes,
			   q[i].clock_hz);
		if (what & 1)
			GR_EQ_U(got[i].frames_per_second,
				want.frames_per_second);
		if (what & 2)
			GR_NEAR(got[i].ns_per_frame, want.ns_per_frame, rel);
		if (what & 4)
			GR_NEAR(got[i].cycles_per_frame, want.cycles_per_frame,
				rel);
	}
}

/* 64-byte frames are 84 bytes on the wire: 14.88 Mpps at 10 GbE. */
static int fps_64(void)
{
	struct bx_budget_in q[NRAND];

	GR_EQ_U(budget(10000000000ull, 64, 3e9).frames_per_second, 14880952);
	GR_EQ_U(budget(100000000000ull, 64, 3e9).frames_per_second, 148809523);
	GR_EQ_U(budget(1000000000ull, 64, 3e9).frames_per_second, 1488095);
	draw(q, NRAND, 64, 64);
	against_common(q, NRAND, 1, 0);
	return gr_verdict();
}

/* Whole frames: the fraction is cut off, never rounded up. */
static int fps_truncates(void)
{
	struct bx_budget_in q[NRAND];

	/* 10e9 / (1538 * 8) = 812743.8 */
	GR_EQ_U(budget(10000000000ull, 1518, 3e9).frames_per_second, 812743);
	/* 25e9 / 672 = 37202380.95 */
	GR_EQ_U(budget(25000000000ull, 64, 3e9).frames_per_second, 37202380);
	/* 9018-byte jumbo frames at 400G: 4e11 / 72304 = 5532197.4 */
	GR_EQ_U(budget(400000000000ull, 9018, 3e9).frames_per_second, 5532197);
	draw(q, NRAND, 64, 9018);
	against_common(q, NRAND, 1, 0);
	return gr_verdict();
}

/* The time between two frames. */
static int ns_per_frame(void)
{
	struct bx_budget_in q[NRAND];

	GR_NEAR(budget(10000000000ull, 64, 3e9).ns_per_frame, 67.2, 1e-6);
	GR_NEAR(budget(100000000000ull, 64, 3e9).ns_per_frame, 6.72, 1e-6);
	GR_NEAR(budget(10000000000ull, 1518, 3e9).ns_per_frame, 1e9 / 812743.0,
		1e-9);
	draw(q, NRAND, 64, 9018);
	against_common(q, NRAND, 2, 1e-9);
	return gr_verdict();
}

/* Cycles per frame: the clock divided by the frame rate. */
static int cycles_per_frame(void)
{
	struct bx_budget_in q[NRAND];

	GR_NEAR(budget(100000000000ull, 64, 3e9).cycles_per_frame, 20.16, 1e-6);
	GR_NEAR(budget(10000000000ull, 64, 2.3e9).cycles_per_frame, 154.56,
		1e-6);
	GR_NEAR(budget(10000000000ull, 1518, 3e9).cycles_per_frame,
		3e9 / 812743.0, 1e-9);
	draw(q, NRAND, 64, 9018);
	against_common(q, NRAND, 4, 1e-9);
	return gr_verdict();
}

/* Below one frame per second: no budget, and no division by zero. */
static int slow_links(void)
{
	struct bx_budget_in q[NRAND];
	struct pl_budget b = budget(100, 64, 3e9), got[NRAND];
	size_t i;

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
	/* Drawn: a rate just short of k frames, k = 0 or 1. */
	draw(q, NRAND, 64, 9018);
	for (i = 0; i < NRAND; i++)
		q[i].rate_bps =
			8ull * (q[i].frame_bytes + PL_WIRE_OVERHEAD) * (i & 1) +
			gr_below(8ull * (q[i].frame_bytes + 20));
	budgets(q, NRAND, got);
	for (i = 0; i < NRAND && gr_failures < 3; i++) {
		gr_context("rate %llu, %u-byte frames",
			   (unsigned long long)q[i].rate_bps, q[i].frame_bytes);
		GR_EQ_U(got[i].frames_per_second, i & 1);
		GR_CHECK((i & 1) || (got[i].ns_per_frame == 0 &&
				     got[i].cycles_per_frame == 0),
			 "%llu bit/s, %u-byte frames: ns %g, cycles %g, "
			 "expected 0",
			 (unsigned long long)q[i].rate_bps, q[i].frame_bytes,
			 got[i].ns_per_frame, got[i].cycles_per_frame);
		GR_EQ_U(got[i].rate_bps, q[i].rate_bps);
		GR_EQ_U(got[i].frame_bytes, q[i].frame_bytes);
	}
	return gr_verdict();
}

/* n drawn payloads (0 to 9000), tagged or not, against common/. */
static void payloads_against_common(size_t n)
{
	static struct bx_frame_in q[BX_MAX];
	static uint32_t got[BX_MAX];
	size_t i;

	for (i = 0; i < n; i++)
		q[i] = (struct bx_frame_in){ (uint32_t)gr_below(9001),
					     (uint32_t)gr_below(2) };
	frames(q, n, got);
	for (i = 0; i < n && gr_failures < 3; i++)
		GR_CHECK(got[i] ==
				 pl_frame_for_payload(q[i].payload, q[i].vlan),
			 "payload %u vlan %u: frame %u, expected %u",
			 q[i].payload, q[i].vlan, got[i],
			 pl_frame_for_payload(q[i].payload, q[i].vlan));
}

/* Frame sizes: headers, FCS, the 4-byte tag, padding to 64. */
static int frame_for_payload(void)
{
	GR_EQ_U(frame_for(18, false), 64);
	GR_EQ_U(frame_for(0, false), 64);
	GR_EQ_U(frame_for(1472, false), 1518);
	GR_EQ_U(frame_for(1472, true), 1522);
	GR_EQ_U(frame_for(18, true), 68);
	GR_EQ_U(frame_for(8972, false), 9018);
	payloads_against_common(NRAND);
	return gr_verdict();
}

/* The same answers as common/ over a drawn sweep of inputs. */
static int matches_common(void)
{
	static struct bx_budget_in q[2000];
	static struct pl_budget got[2000];
	struct pl_budget want;
	size_t i;

	draw(q, 2000, 64, 9018);
	budgets(q, 2000, got);
	for (i = 0; i < 2000 && !gr_failures; i++) {
		pl_budget_compute(q[i].rate_bps, q[i].frame_bytes,
				  q[i].clock_hz, &want);
		GR_CHECK(got[i].frames_per_second == want.frames_per_second &&
				 got[i].ns_per_frame == want.ns_per_frame &&
				 got[i].cycles_per_frame ==
					 want.cycles_per_frame,
			 "rate %llu size %u clock %.0f: %llu fps %g ns %g "
			 "cycles, expected %llu %g %g",
			 (unsigned long long)q[i].rate_bps, q[i].frame_bytes,
			 q[i].clock_hz,
			 (unsigned long long)got[i].frames_per_second,
			 got[i].ns_per_frame, got[i].cycles_per_frame,
			 (unsigned long long)want.frames_per_second,
			 want.ns_per_frame, want.cycles_per_frame);
	}
	payloads_against_common(BX_MAX);
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
	{ "matches_common", 2, "same results as common/ over a drawn sweep",
	  matches_common },
	{ 0 }
};

int main(int argc, char **argv)
{
	gr_sandbox(&(struct gr_sandbox){ 0 });
	return gr_main(argc, argv, "01-budget", cases);
}
