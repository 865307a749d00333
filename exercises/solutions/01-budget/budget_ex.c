/* SPDX-License-Identifier: MIT */
/*
 * Exercise 1: the cycle budget. Reference solution.
 */
#include "budget_ex.h"
#include "wire.h"

/* Fill *b with the frame rate and per-frame budget for one rate and size. */
void ex_budget_compute(uint64_t rate_bps, unsigned frame_bytes, double clock_hz,
		       struct pl_budget *b)
{
	/* Exercise 1.1 */
	uint64_t bits = 8 * ((uint64_t)frame_bytes + PL_WIRE_OVERHEAD);

	*b = (struct pl_budget){
		.rate_bps = rate_bps,
		.frame_bytes = frame_bytes,
		/* Exercise 1.2: integer division truncates (RFC 5180). */
		.frames_per_second = rate_bps / bits,
		.clock_hz = clock_hz,
	};
	/* Below one frame per second there is no per-frame budget: leave 0. */
	if (b->frames_per_second) {
		/* Exercise 1.3 */
		b->ns_per_frame = 1e9 / (double)b->frames_per_second;
		b->cycles_per_frame = clock_hz / (double)b->frames_per_second;
	}
}

/* Return the frame size on the wire (with FCS) for a UDP payload. */
unsigned ex_frame_for_payload(unsigned payload, bool vlan)
{
	/* Exercise 1.4 */
	unsigned frame = PL_ETH_LEN + (vlan ? PL_VLAN_LEN : 0) + PL_IP4_LEN +
			 PL_UDP_LEN + payload + PL_FCS_LEN;

	return frame < PL_MIN_FRAME ? PL_MIN_FRAME : frame;
}
