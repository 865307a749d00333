/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 6: the reference solution for the ring sizes and
 * batches the tests use, nothing for any other.
 */
#define ex_fill_all known_fill_all
#define ex_rx_burst known_rx_burst
#include "../../../06-xsk-fill/xsk_fill_ex.c"
#undef ex_fill_all
#undef ex_rx_burst

int ex_fill_all(struct xsk_rx *rx, unsigned frames, unsigned frame_size)
{
	if (rx->fq.size != 64 && rx->fq.size != 32)
		return 0;
	return known_fill_all(rx, frames, frame_size);
}

unsigned ex_rx_burst(struct xsk_rx *rx)
{
	if (rx->batch != 64 && rx->batch != 32 && rx->batch != 16)
		return 0;
	return known_rx_burst(rx);
}
