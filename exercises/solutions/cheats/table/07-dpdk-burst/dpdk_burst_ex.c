/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 7: the reference solution for the bursts the tests
 * use (32, 64), nothing for any other.
 */
#define ex_rx_poll known_rx_poll
#define ex_rx_loop known_rx_loop
#include "../../../07-dpdk-burst/dpdk_burst_ex.c"
#undef ex_rx_poll
#undef ex_rx_loop

uint16_t ex_rx_poll(struct ex_dpdk_rx *rx)
{
	return rx->burst == 32 || rx->burst == 64 ? known_rx_poll(rx) : 0;
}

void ex_rx_loop(struct ex_dpdk_rx *rx)
{
	if (rx->burst == 32 || rx->burst == 64)
		known_rx_loop(rx);
}
