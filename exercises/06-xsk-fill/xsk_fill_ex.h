/* SPDX-License-Identifier: MIT */
/*
 * Exercise 6: the AF_XDP fill ring. The functions you write work on the
 * AF_XDP receiver's own state, struct xsk_rx of af-xdp/rx_xsk.h.
 */
#ifndef PATHLAB_EX_XSK_FILL_H
#define PATHLAB_EX_XSK_FILL_H

#include "rx_xsk.h"

/* Hand every frame of the UMEM to the kernel: 0, or -ENOSPC. */
int ex_fill_all(struct xsk_rx *rx, unsigned frames, unsigned frame_size);

/*
 * Take up to rx->batch descriptors off the RX ring, account their frames,
 * and give the frames back on the fill ring; returns how many there were.
 */
unsigned ex_rx_burst(struct xsk_rx *rx);

#endif
