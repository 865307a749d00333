/* SPDX-License-Identifier: MIT */
/* Exercise 6's worker: the student's fill and burst on the shared rings. */
#include "worker.h"
#include "xf_rpc.h"
#include "xsk_fill_ex.h"

#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

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
	c->end_markers = rx.stats.end_markers;
	for (unsigned i = 0; i < PL_MAX_FLOWS; i++)
		c->unique_all +=
			rx.stats.flows[i] ? rx.stats.flows[i]->unique : 0;
	return sizeof(*c);
}

/* Map ring pgoff of socket fd (entries of entry bytes, offsets o). */
static void *ring_map(int fd, uint32_t n, size_t entry,
		      const struct xdp_ring_offset *o, off_t pgoff)
{
	void *m = mmap(NULL, o->desc + n * entry, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, pgoff);

	return m == MAP_FAILED ? NULL : m;
}

/* The receiver on the grader's AF_XDP socket, as libxdp would map it. */
static long live(const void *in, size_t len, void *out, size_t cap)
{
	const struct xf_live *q = WK_IN(struct xf_live, in, len);
	struct xdp_mmap_offsets off;
	socklen_t olen = sizeof(off);
	uint8_t *fq, *r;

	if (!q || cap < sizeof(int32_t) || q->frames > (1u << 16) ||
	    getsockopt((int)q->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &olen))
		return -1;
	fq = ring_map((int)q->fd, q->frames, sizeof(uint64_t), &off.fr,
		      XDP_UMEM_PGOFF_FILL_RING);
	r = ring_map((int)q->fd, q->frames, sizeof(struct xdp_desc), &off.rx,
		     XDP_PGOFF_RX_RING);
	if (!fq || !r)
		return -1;
	memset(&rx, 0, sizeof(rx));
	rx.fq = (struct xsk_ring_prod){
		.cached_cons = q->frames,
		.mask = q->frames - 1,
		.size = q->frames,
		.producer = (uint32_t *)(fq + off.fr.producer),
		.consumer = (uint32_t *)(fq + off.fr.consumer),
		.ring = fq + off.fr.desc,
		.flags = (uint32_t *)(fq + off.fr.flags),
	};
	rx.rx = (struct xsk_ring_cons){
		.mask = q->frames - 1,
		.size = q->frames,
		.producer = (uint32_t *)(r + off.rx.producer),
		.consumer = (uint32_t *)(r + off.rx.consumer),
		.ring = r + off.rx.desc,
		.flags = (uint32_t *)(r + off.rx.flags),
	};
	rx.fd = (int)q->fd;
	rx.area = ptr(q->area);
	rx.area_len = (size_t)q->frames * q->frame_size;
	rx.frame_mask = ~((uint64_t)q->frame_size - 1);
	rx.batch = q->batch;
	rx.port = PL_UDP_PORT;
	pl_stats_init(&rx.stats);
	*(int32_t *)out = ex_fill_all(&rx, q->frames, q->frame_size);
	return sizeof(int32_t);
}

/* Bursts until want packets are in, or idle_ms without any. */
static long drain(const void *in, size_t len, void *out, size_t cap)
{
	const struct xf_drain *q = WK_IN(struct xf_drain, in, len);
	uint64_t last = pl_now_ns();
	struct pollfd p = { .fd = rx.fd, .events = POLLIN };

	if (!q || cap < sizeof(struct xf_counts))
		return -1;
	while (rx.stats.packets + rx.stats.end_markers < q->want &&
	       pl_now_ns() - last < q->idle_ms * 1000000ull) {
		if (xsk_ring_prod__needs_wakeup(&rx.fq))
			poll(&p, 1, 1);
		if (ex_rx_burst(&rx))
			last = pl_now_ns();
	}
	return burst(NULL, 0, out, cap);
}

const struct wk_op wk_ops[] = {
	{ "setup", setup }, { "fill_all", fill_all }, { "burst", burst },
	{ "live", live },   { "drain", drain },	      { 0 },
};
