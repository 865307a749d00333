/* SPDX-License-Identifier: MIT */
/*
 * Exercise 6: the AF_XDP fill ring and frame recycling.
 *
 * The UMEM is one area of equal frames that we own. The kernel writes a
 * received frame only into a frame we handed it on the fill ring, and
 * tells us where on the RX ring (a descriptor: address and length). Until
 * we put that frame on the fill ring again it is ours, and the kernel
 * cannot use it: forget to give frames back and reception stops once the
 * UMEM runs dry; give one back twice and two packets land in it.
 *
 * The rings are single-producer, single-consumer rings in shared memory
 * (<xdp/xsk.h>): reserve slots, write them, submit (producer side); peek,
 * read, release (consumer side), with <xdp/xsk.h> (exercise 13 writes
 * them). Fill in the "Exercise 6.N" marks.
 */
#include "xsk_fill_ex.h"
#include "clock.h"

#include <errno.h>

/* Hand every frame of the UMEM to the kernel through the fill ring. */
int ex_fill_all(struct xsk_rx *rx, unsigned frames, unsigned frame_size)
{
	/*
	 * Exercise 6.1: every frame of the UMEM onto the fill ring, or
	 * -ENOSPC when the ring cannot take them all. A frame is named by
	 * its offset in the UMEM.
	 */
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
	/*
	 * Exercise 6.2: the n frames are ours until they are on the fill
	 * ring again: give each back (the frame, not the packet's address in
	 * it: rx->frame_mask). A ring with no room yet counts in
	 * rx->fill_short; never drop a frame.
	 */
	(void)idx_fq;

	/* Exercise 6.3: and the RX ring's slots? */
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
