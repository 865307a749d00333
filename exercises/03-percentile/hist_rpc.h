/* SPDX-License-Identifier: MIT */
/* Exercise 3: what the grader asks the worker, and what it answers. */
#ifndef PATHLAB_EX_HIST_RPC_H
#define PATHLAB_EX_HIST_RPC_H

#include <stdint.h>

#include "hist.h"
#include "proto.h"

enum { HX_PERCENTILES = WK_OP_FIRST };

#define HX_MAXP 64

/* HX_PERCENTILES: percentiles of one histogram; a uint64_t each. */
struct hx_in {
	struct pl_hist h;
	uint32_t n;
	uint32_t pad;
	double p[HX_MAXP];
};

#endif
