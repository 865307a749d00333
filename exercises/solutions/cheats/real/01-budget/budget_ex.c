/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 1: call the lab's own functions under the names a
 * linker's --wrap gives the originals (__real_NAME).
 */
#include "budget_ex.h"
#include "wire.h"

void __real_pl_budget_compute(uint64_t rate_bps, unsigned frame_bytes,
			      double clock_hz, struct pl_budget *b);
unsigned __real_pl_frame_for_payload(unsigned payload, bool vlan);

void ex_budget_compute(uint64_t rate_bps, unsigned frame_bytes, double clock_hz,
		       struct pl_budget *b)
{
	__real_pl_budget_compute(rate_bps, frame_bytes, clock_hz, b);
}

unsigned ex_frame_for_payload(unsigned payload, bool vlan)
{
	return __real_pl_frame_for_payload(payload, vlan);
}
