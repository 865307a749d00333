/* SPDX-License-Identifier: MIT */
/*
 * Exercise 17: a receiver that loses packets. Reference solution: every
 * frame of a burst goes back to the fill ring; the lines of 8 were a
 * leak of n % 8 frames a burst, until the UMEM ran dry.
 */
#include "xsk_fill_ex.h"
#include "clock.h"

#include <errno.h>

/* Hand every frame of the UMEM to the kernel through the fill ring. */
int ex_fill_all(struct xsk_rx *rx, unsigned frames, unsigned frame_size)
{
	uint32_t idx, i;

	if (xsk_ring_prod__reserve(&rx->fq, frames, &idx) != frames)
		return -ENOSPC;
	for (i = 0; i < frames; i++)
		*xsk_ring_prod__fill_addr(&rx->fq, idx + i) =
			(uint64_t)i * frame_size;
	xsk_ring_prod__submit(&rx->fq, frames);
	return 0;
}

/*
 * The plain handler, as xsk_plain_burst(): parse and account every frame
 * of the burst (n descriptors from idx_rx on), in place, then give the
 * frames back to the fill ring.
 */
static void plain_burst(struct xsk_rx *rx, uint32_t idx_rx, uint32_t n,
			uint64_t now)
{
	struct pl_pkt p;
	uint32_t idx_fq = 0, i;

	for (i = 0; i < n; i++) {
		const struct xdp_desc *d =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i);

		rx_one(rx, xsk_umem__get_data(rx->area, d->addr), d->len, now,
		       &p);
	}
	/* Every frame back, not only whole lines of 8. */
	while (xsk_ring_prod__reserve(&rx->fq, n, &idx_fq) != n)
		rx->fill_short++;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&rx->fq, idx_fq + i) =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i)->addr &
			rx->frame_mask;
	xsk_ring_prod__submit(&rx->fq, n);
	xsk_ring_cons__release(&rx->rx, n);
}

/*
 * One turn of xsk_rx_loop(): take a burst off the RX ring and hand it to
 * plain_burst(); returns how many there were.
 */
unsigned ex_rx_burst(struct xsk_rx *rx)
{
	uint32_t idx_rx, n;

	n = xsk_ring_cons__peek(&rx->rx, rx->batch, &idx_rx);
	if (n)
		plain_burst(rx, idx_rx, n, pl_now_ns());
	return n;
}
