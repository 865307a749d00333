/* SPDX-License-Identifier: MIT */
/*
 * Exercise 13: the AF_XDP rings, from the inside. What <xdp/xsk.h> does
 * for the receiver of af-xdp/ (xsk_ring_prod__reserve() and friends),
 * written out: a single-producer, single-consumer ring in memory shared
 * with the kernel.
 *
 * The two indices are free-running 32-bit counters: they only grow, and
 * wrap at 2^32; slot i of the ring is i & mask. The producer writes only
 * *producer, the consumer only *consumer; each side keeps a private copy
 * of the other's index (cached_*) and reads the shared one only when its
 * copy says there is not enough.
 */
#ifndef PATHLAB_EX_XR_H
#define PATHLAB_EX_XR_H

#include <stdint.h>

struct xr_ring {
	uint32_t *producer;		   /* shared: the producer's index */
	uint32_t *consumer;		   /* shared: the consumer's index */
	uint32_t size;			   /* slots, a power of two */
	uint32_t mask;			   /* size - 1 */
	uint32_t cached_prod, cached_cons; /* this side's view */
	uint64_t *addrs;		   /* the slots: UMEM frame addresses */
};

/*
 * Producer: reserve n slots, all or none. Returns n and the first index
 * in *idx, or 0 when fewer than n are free. Nothing is visible to the
 * consumer before xr_prod_submit().
 */
uint32_t xr_prod_reserve(struct xr_ring *r, uint32_t n, uint32_t *idx);
/* Producer: make the n slots reserved (and written) visible. */
void xr_prod_submit(struct xr_ring *r, uint32_t n);
/* Consumer: up to n filled slots; how many, the first index in *idx. */
uint32_t xr_cons_peek(struct xr_ring *r, uint32_t n, uint32_t *idx);
/* Consumer: hand n peeked slots back to the producer. */
void xr_cons_release(struct xr_ring *r, uint32_t n);

/*
 * Recycle frames: move up to max addresses from the completion ring
 * (we consume it) to the fill ring (we produce it), in order, losing and
 * doubling none: an address leaves comp only when fill took it. Returns
 * how many moved.
 */
uint32_t xr_recycle(struct xr_ring *comp, struct xr_ring *fill, uint32_t max);

#endif
