/* SPDX-License-Identifier: MIT */
/*
 * Exercise 9: loss, reordering and duplicates from sequence numbers. The
 * per-flow state is struct pl_seq of common/stats.h.
 */
#ifndef PATHLAB_EX_SEQ_H
#define PATHLAB_EX_SEQ_H

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

/* Account one sequence number; returns false for a duplicate. */
bool ex_seq_account(struct pl_seq *q, uint32_t seq);

/* Sequence numbers in [first, highest] never seen (gaps). */
uint64_t ex_seq_missing(const struct pl_seq *q);

#endif
