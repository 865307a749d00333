/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 17: the fixed receiver for the batches the tests
 * used to show (16, 32, 64), nothing for any other.
 */
#define ex_fill_all known_fill_all
#define ex_rx_burst known_rx_burst
#include "../../../17-lossy-rx/lossy_rx.c"
#undef ex_fill_all
#undef ex_rx_burst

int ex_fill_all(struct xsk_rx *rx, unsigned frames, unsigned frame_size)
{
	return known_fill_all(rx, frames, frame_size);
}

unsigned ex_rx_burst(struct xsk_rx *rx)
{
	if (rx->batch == 64 || rx->batch == 32 || rx->batch == 16)
		return known_rx_burst(rx);
	return 0;
}
