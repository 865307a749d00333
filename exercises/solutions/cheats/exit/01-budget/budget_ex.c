/* SPDX-License-Identifier: MIT */
/* A cheat for the meta-test: exercise 1 ends the process "successfully". */
#include "budget_ex.h"

#include <stdlib.h>

void ex_budget_compute(uint64_t rate_bps, unsigned frame_bytes, double clock_hz,
		       struct pl_budget *b)
{
	exit(0);
}

unsigned ex_frame_for_payload(unsigned payload, bool vlan)
{
	exit(0);
}
