/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 4: the reference solution for the batch sizes the
 * tests use (64, 32, 16), nothing for any other.
 */
#define ex_init_msgs  known_init_msgs
#define ex_recv_batch known_recv_batch
#include "../../../04-recvmmsg/recvmmsg_ex.c"
#undef ex_init_msgs
#undef ex_recv_batch

/* A batch size test_recvmmsg.c shows. */
static bool seen(unsigned batch)
{
	return batch == 64 || batch == 32 || batch == 16;
}

void ex_init_msgs(struct sock_rx *rx)
{
	if (seen(rx->batch))
		known_init_msgs(rx);
}

int ex_recv_batch(struct sock_rx *rx)
{
	return seen(rx->batch) ? known_recv_batch(rx) : 0;
}
