/* SPDX-License-Identifier: MIT */
/* Exercise 9: what the grader asks the worker, and what it answers. */
#ifndef PATHLAB_EX_SEQ_RPC_H
#define PATHLAB_EX_SEQ_RPC_H

#include <stdint.h>

#include "proto.h"

enum { SX_ACCOUNT = WK_OP_FIRST };

#define SX_MAX 50000 /* sequence numbers in one request */

/* SX_ACCOUNT: a fresh flow (reset 1) or the same one, then each seq. */
struct sx_in {
	uint32_t reset;
	uint32_t n;
	uint32_t seq[SX_MAX];
};

/* The flow's counters after them, and what each call returned. */
struct sx_state {
	uint64_t first, highest, unique, reordered, dups, too_late, missing;
	uint32_t started, n;
	uint8_t fresh[SX_MAX]; /* ex_seq_account(): 1, or 0 (a duplicate) */
};

#endif
