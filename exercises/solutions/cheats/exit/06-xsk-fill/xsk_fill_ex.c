/* SPDX-License-Identifier: MIT */
/* A cheat for the meta-test: exercise 6 ends the process "successfully". */
#include "xsk_fill_ex.h"

#include <stdlib.h>

int ex_fill_all(struct xsk_rx *rx, unsigned frames, unsigned frame_size)
{
	exit(0);
}

unsigned ex_rx_burst(struct xsk_rx *rx)
{
	exit(0);
}
