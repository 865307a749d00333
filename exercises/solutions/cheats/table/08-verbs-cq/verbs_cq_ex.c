/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 8: the reference solution for the receivers the
 * tests make (16, 32 or 64 slots, batches of 16), nothing for others.
 */
#define ex_post_slots known_post_slots
#define ex_poll_once  known_poll_once
#include "../../../08-verbs-cq/verbs_cq_ex.c"
#undef ex_post_slots
#undef ex_poll_once

/* A receiver test_verbs_cq.c shows. */
static int seen(const struct ex_verbs_rx *rx)
{
	return rx->batch == 16 &&
	       (rx->slots == 16 || rx->slots == 32 || rx->slots == 64);
}

int ex_post_slots(struct ex_verbs_rx *rx, const uint32_t *slot, int n)
{
	return seen(rx) ? known_post_slots(rx, slot, n) : 0;
}

int ex_poll_once(struct ex_verbs_rx *rx)
{
	return seen(rx) ? known_poll_once(rx) : 0;
}
