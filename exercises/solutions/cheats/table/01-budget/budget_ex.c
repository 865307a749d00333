/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 1: a table of answers for the inputs the tests show
 * (the right ones, from the reference solution), nothing for the rest.
 */
#define ex_budget_compute    known_budget_compute
#define ex_frame_for_payload known_frame_for_payload
#include "../../../01-budget/budget_ex.c"
#undef ex_budget_compute
#undef ex_frame_for_payload

/* The rates and frame sizes test_budget.c names. */
static bool seen(uint64_t rate, unsigned frame)
{
	static const struct {
		uint64_t rate;
		unsigned frame;
	} t[] = { { 10000000000ull, 64 },
		  { 100000000000ull, 64 },
		  { 1000000000ull, 64 },
		  { 10000000000ull, 1518 },
		  { 25000000000ull, 64 },
		  { 400000000000ull, 9018 },
		  { 100, 64 },
		  { 672, 64 } };
	unsigned i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].rate == rate && t[i].frame == frame)
			return true;
	return false;
}

void ex_budget_compute(uint64_t rate_bps, unsigned frame_bytes, double clock_hz,
		       struct pl_budget *b)
{
	*b = (struct pl_budget){ .rate_bps = rate_bps,
				 .frame_bytes = frame_bytes,
				 .clock_hz = clock_hz };
	if (seen(rate_bps, frame_bytes))
		known_budget_compute(rate_bps, frame_bytes, clock_hz, b);
}

unsigned ex_frame_for_payload(unsigned payload, bool vlan)
{
	if (payload == 18 || payload == 0 || payload == 1472 || payload == 8972)
		return known_frame_for_payload(payload, vlan);
	return 64;
}
