/* SPDX-License-Identifier: MIT */
/* Exercise 3: a percentile from the latency histogram. */
#ifndef PATHLAB_EX_HIST_H
#define PATHLAB_EX_HIST_H

#include "hist.h"

/*
 * The contract of pl_hist_percentile() in common/hist.h: the value at
 * percentile p (0 < p <= 100), the smallest recorded value v such that at
 * least p% of values are <= v, within 1%. Clamped to [min, max]; 0 for an
 * empty histogram; p <= 0 gives the minimum, p >= 100 the maximum.
 */
uint64_t ex_hist_percentile(const struct pl_hist *h, double p);

#endif
