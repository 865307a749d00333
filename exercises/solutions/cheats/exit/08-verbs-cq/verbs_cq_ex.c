/* SPDX-License-Identifier: MIT */
/* A cheat for the meta-test: exercise 8 ends the process "successfully". */
#include "verbs_cq_ex.h"

#include <stdlib.h>

int ex_post_slots(struct ex_verbs_rx *rx, const uint32_t *slot, int n)
{
	exit(0);
}

int ex_poll_once(struct ex_verbs_rx *rx)
{
	exit(0);
}
