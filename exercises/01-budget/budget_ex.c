/* SPDX-License-Identifier: MIT */
/*
 * Exercise 1: the cycle budget.
 *
 * At line rate, how many frames per second arrive, and how many CPU cycles
 * may one core spend on each? Complete the two functions below; the marks
 * "Exercise 1.N" show where. The constants you need are in common/wire.h
 * (PL_ETH_LEN, PL_IP4_LEN, PL_UDP_LEN, PL_FCS_LEN, PL_VLAN_LEN,
 * PL_MIN_FRAME) and common/budget.h (PL_WIRE_OVERHEAD).
 */
#include "budget_ex.h"
#include "wire.h"

/* Fill *b with the frame rate and per-frame budget for one rate and size. */
void ex_budget_compute(uint64_t rate_bps, unsigned frame_bytes, double clock_hz,
		       struct pl_budget *b)
{
	/* Exercise 1.1: the bits one frame occupies on the wire. */
	uint64_t bits = 0;

	*b = (struct pl_budget){
		.rate_bps = rate_bps,
		.frame_bytes = frame_bytes,
		/* Exercise 1.2: whole frames per second (truncated). */
		.frames_per_second = 0,
		.clock_hz = clock_hz,
	};
	(void)bits;
	/* Below one frame per second there is no per-frame budget: leave 0. */
	if (b->frames_per_second) {
		/* Exercise 1.3: nanoseconds and cycles per frame. */
	}
}

/* Return the frame size on the wire (with FCS) for a UDP payload. */
unsigned ex_frame_for_payload(unsigned payload, bool vlan)
{
	/* Exercise 1.4: from a UDP payload to a frame on the wire. */
	(void)payload;
	(void)vlan;
	return 0;
}
