/* SPDX-License-Identifier: MIT */
/* A cheat for the meta-test: exercise 3 ends the process "successfully". */
#include "hist_ex.h"

#include <stdlib.h>

uint64_t ex_hist_percentile(const struct pl_hist *h, double p)
{
	exit(0);
}
