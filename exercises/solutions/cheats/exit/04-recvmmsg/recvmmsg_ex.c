/* SPDX-License-Identifier: MIT */
/* A cheat for the meta-test: exercise 4 ends the process "successfully". */
#include "recvmmsg_ex.h"

#include <stdlib.h>

void ex_init_msgs(struct sock_rx *rx)
{
	exit(0);
}

int ex_recv_batch(struct sock_rx *rx)
{
	exit(0);
}
