/* SPDX-License-Identifier: MIT */
/*
 * Exercise 1: the cycle budget. The functions you write, with the same
 * contract as their originals in common/budget.c and common/wire.c.
 */
#ifndef PATHLAB_EX_BUDGET_H
#define PATHLAB_EX_BUDGET_H

#include <stdbool.h>

#include "budget.h"

/* Fill *b for one rate, frame size (FCS included) and clock. */
void ex_budget_compute(uint64_t rate_bps, unsigned frame_bytes, double clock_hz,
		       struct pl_budget *b);

/* Frame size on the wire (FCS included) for a UDP payload over IPv4. */
unsigned ex_frame_for_payload(unsigned payload, bool vlan);

#endif
