/* SPDX-License-Identifier: MIT */
/* Exercise 4's worker: the student's batch receive on the given socket. */
#include "recvmmsg_ex.h"
#include "recvmmsg_rpc.h"
#include "worker.h"

#include <stdlib.h>
#include <string.h>

static struct sock_rx rx;

/* Where p points in [base, base + n * size): its index, or -1. */
static int32_t index_in(const void *p, const void *base, size_t size, size_t n)
{
	const char *c = p, *b = base;

	if (!b || c < b || c >= b + n * size || (size_t)(c - b) % size)
		return -1;
	return (int32_t)((size_t)(c - b) / size);
}

/* A receiver on the given socket; ex_init_msgs(); what it left. */
static long setup(const void *in, size_t len, void *out, size_t cap)
{
	const struct rx_setup_in *q = WK_IN(struct rx_setup_in, in, len);
	struct rx_msg_view *v = out;
	unsigned i;

	if (!q || q->batch == 0 || q->batch > MAX_BATCH ||
	    q->batch * sizeof(*v) > cap)
		return -1;
	pl_stats_init(&rx.stats);
	rx.fd = WK_FD_GIVEN;
	rx.batch = q->batch;
	rx.flags = q->flags;
	rx.bufs = calloc(q->batch, BUF_LEN);
	if (!rx.bufs)
		return -1;
	/* What a careless init leaves behind must not look right. */
	memset(rx.msgs, 0xa5, sizeof(rx.msgs));
	memset(rx.iov, 0xa5, sizeof(rx.iov));
	ex_init_msgs(&rx);
	for (i = 0; i < q->batch; i++) {
		const struct msghdr *m = &rx.msgs[i].msg_hdr;

		v[i] = (struct rx_msg_view){
			.iov = index_in(m->msg_iov, rx.iov, sizeof(rx.iov[0]),
					MAX_BATCH),
			.iovlen = (uint32_t)m->msg_iovlen,
			.buf = index_in(rx.iov[i].iov_base, rx.bufs, BUF_LEN,
					q->batch),
			.iov_len = (uint32_t)rx.iov[i].iov_len,
			.extras = (m->msg_name || m->msg_namelen ||
				   m->msg_control || m->msg_controllen),
		};
	}
	return (long)(q->batch * sizeof(*v));
}

/* The counters after ret. */
static long counts(struct rx_counts *c, int ret)
{
	unsigned i;

	memset(c, 0, sizeof(*c));
	c->ret = ret;
	c->syscalls = rx.syscalls;
	c->empty = rx.empty;
	c->packets = rx.stats.packets;
	c->bytes = rx.stats.bytes;
	c->bad_total = rx.stats.bad_total;
	for (i = 0; i < PL_MAX_FLOWS; i++)
		c->unique += rx.stats.flows[i] ? rx.stats.flows[i]->unique : 0;
	c->end_markers = rx.stats.end_markers;
	memcpy(c->bad, rx.stats.bad, sizeof(c->bad));
	return sizeof(*c);
}

/* ex_recv_batch() once; the counters. */
static long batch(const void *in, size_t len, void *out, size_t cap)
{
	(void)in;
	if (len || cap < sizeof(struct rx_counts) || !rx.bufs)
		return -1;
	return counts(out, ex_recv_batch(&rx));
}

/* ex_recv_batch() until idle_ms go by with nothing: the loop of a
 * receiver on the generator's stream. */
static long loop(const void *in, size_t len, void *out, size_t cap)
{
	const uint32_t *idle_ms = WK_IN(uint32_t, in, len);
	uint64_t last = pl_now_ns();
	int calls = 0;

	if (!idle_ms || cap < sizeof(struct rx_counts) || !rx.bufs)
		return -1;
	while (pl_now_ns() - last < *idle_ms * 1000000ull) {
		calls++;
		if (ex_recv_batch(&rx) > 0)
			last = pl_now_ns();
	}
	return counts(out, calls);
}

const struct wk_op wk_ops[] = {
	{ "setup", setup },
	{ "batch", batch },
	{ "loop", loop },
	{ 0 },
};
