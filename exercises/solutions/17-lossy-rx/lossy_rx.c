/* SPDX-License-Identifier: MIT */
/*
 * Exercise 17: a receiver that loses packets. Reference solution: every
 * frame of a burst goes back to the fill ring; the lines of 8 were a
 * leak of n % 8 frames a burst, until the UMEM ran dry.
 */
#include "xsk_fill_ex.h"
#include "clock.h"

#include <errno.h>

/* Parse and account one frame handed to us at now (given). */
static inline void rx_one(struct xsk_rx *rx, const void *frame, uint32_t len,
			  uint64_t now)
{
	struct pl_pkt p;
	enum pl_reason r = pl_parse_frame(frame, len, rx->port, &p);

	if (r == PL_OK)
		pl_stats_good(&rx->stats, &p, now);
	else
		pl_stats_reject(&rx->stats, r);
}

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

/* Take a batch off the RX ring and give the frames back to the fill ring. */
unsigned ex_rx_burst(struct xsk_rx *rx)
{
	uint32_t idx_rx, idx_fq = 0, i, n;
	uint64_t now;

	n = xsk_ring_cons__peek(&rx->rx, rx->batch, &idx_rx);
	if (!n)
		return 0;
	now = pl_now_ns();
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i);

		rx_one(rx, xsk_umem__get_data(rx->area, d->addr), d->len, now);
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
	return n;
}
