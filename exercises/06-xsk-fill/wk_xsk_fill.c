/* SPDX-License-Identifier: MIT */
/* Exercise 6's worker: the student's fill and burst on the shared rings. */
#include "worker.h"
#include "xf_rpc.h"
#include "xsk_fill_ex.h"

#include <string.h>

static struct xsk_rx rx;

/* A worker address as a pointer. */
static void *ptr(uint64_t a)
{
	return (void *)(uintptr_t)a;
}

/* The receiver on the grader's rings, as libxdp would leave it. */
static long setup(const void *in, size_t len, void *out, size_t cap)
{
	const struct xf_setup *q = WK_IN(struct xf_setup, in, len);

	(void)out;
	(void)cap;
	if (!q)
		return -1;
	memset(&rx, 0, sizeof(rx));
	rx.fq = (struct xsk_ring_prod){
		.cached_prod = q->fq_cached_prod,
		.cached_cons = q->fq_size, /* libxdp keeps it size ahead */
		.mask = q->fq_size - 1,
		.size = q->fq_size,
		.producer = ptr(q->fq_prod),
		.consumer = ptr(q->fq_cons),
		.ring = ptr(q->fq_ring),
		.flags = ptr(q->fq_flags),
	};
	rx.rx = (struct xsk_ring_cons){
		.mask = q->rx_size - 1,
		.size = q->rx_size,
		.producer = ptr(q->rx_prod),
		.consumer = ptr(q->rx_cons),
		.ring = ptr(q->rx_ring),
		.flags = ptr(q->rx_flags),
	};
	rx.area = ptr(q->area);
	rx.area_len = q->area_len;
	rx.frame_mask = q->frame_mask;
	rx.batch = q->batch;
	rx.port = (uint16_t)q->port;
	pl_stats_init(&rx.stats);
	return 0;
}

/* ex_fill_all(); what it returned. */
static long fill_all(const void *in, size_t len, void *out, size_t cap)
{
	const struct xf_fill_in *q = WK_IN(struct xf_fill_in, in, len);

	if (!q || cap < sizeof(int32_t))
		return -1;
	*(int32_t *)out = ex_fill_all(&rx, q->frames, q->frame_size);
	return sizeof(int32_t);
}

/* ex_rx_burst() once; the counters. */
static long burst(const void *in, size_t len, void *out, size_t cap)
{
	struct xf_counts *c = out;

	(void)in;
	if (len || cap < sizeof(*c))
		return -1;
	memset(c, 0, sizeof(*c));
	c->ret = ex_rx_burst(&rx);
	c->packets = rx.stats.packets;
	c->bytes = rx.stats.bytes;
	c->bad_total = rx.stats.bad_total;
	c->unique = rx.stats.flows[3] ? rx.stats.flows[3]->unique : 0;
	c->fill_short = rx.fill_short;
	return sizeof(*c);
}

const struct wk_op wk_ops[] = {
	{ "setup", setup },
	{ "fill_all", fill_all },
	{ "burst", burst },
	{ 0 },
};
