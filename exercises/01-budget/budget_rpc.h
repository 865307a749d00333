/* SPDX-License-Identifier: MIT */
/* Exercise 1: what the grader asks the worker, and what it answers. */
#ifndef PATHLAB_EX_BUDGET_RPC_H
#define PATHLAB_EX_BUDGET_RPC_H

#include <stdbool.h>
#include <stdint.h>

#include "budget.h"
#include "proto.h"

enum { BX_BUDGET = WK_OP_FIRST, BX_FRAME };

#define BX_MAX 20000 /* inputs in one request */

/* BX_BUDGET: ex_budget_compute() on each; a struct pl_budget each. */
struct bx_budget_in {
	uint64_t rate_bps;
	double clock_hz;
	uint32_t frame_bytes;
	uint32_t pad;
};

/* BX_FRAME: ex_frame_for_payload() on each; a uint32_t each. */
struct bx_frame_in {
	uint32_t payload;
	uint32_t vlan;
};

#endif
