/* SPDX-License-Identifier: MIT */
/* A cheat for the meta-test: exercise 7 ends the process "successfully". */
#include "dpdk_burst_ex.h"

#include <stdlib.h>

uint16_t ex_rx_poll(struct ex_dpdk_rx *rx)
{
	exit(0);
}

void ex_rx_loop(struct ex_dpdk_rx *rx)
{
	exit(0);
}
