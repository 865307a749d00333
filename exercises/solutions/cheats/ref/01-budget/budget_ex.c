/* SPDX-License-Identifier: MIT */
/* A cheat for the meta-test: exercise 1 by calling the reference. */
#include "budget_ex.h"
#include "wire.h"

void ex_budget_compute(uint64_t rate_bps, unsigned frame_bytes, double clock_hz,
		       struct pl_budget *b)
{
	pl_budget_compute(rate_bps, frame_bytes, clock_hz, b);
}

unsigned ex_frame_for_payload(unsigned payload, bool vlan)
{
	return pl_frame_for_payload(payload, vlan);
}
