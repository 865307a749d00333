/* SPDX-License-Identifier: MIT */
/* A cheat for the meta-test: exercise 9 ends the process "successfully". */
#include "seq_ex.h"

#include <stdlib.h>

bool ex_seq_account(struct pl_seq *q, uint32_t seq)
{
	exit(0);
}

uint64_t ex_seq_missing(const struct pl_seq *q)
{
	exit(0);
}
