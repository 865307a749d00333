/* SPDX-License-Identifier: MIT */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

/* 8< seq-window */
#define WORDS (PL_SEQ_WINDOW / 64)

/*
 * Extend a 32-bit wire sequence number against the highest seen so far
 * (serial number arithmetic, RFC 1982): the nearer of the candidates.
 * Returns false for a number that would lie before zero.
 */
static bool seq_extend(const struct pl_seq *q, uint32_t seq, uint64_t *n)
{
	int32_t diff = (int32_t)(seq - (uint32_t)q->highest);

	if (diff < 0 && (uint64_t)(-(int64_t)diff) > q->highest)
		return false;
	*n = q->highest + (int64_t)diff;
	return true;
}

/* Is n marked seen in the window? */
static bool bit_test(const struct pl_seq *q, uint64_t n)
{
	return q->bits[(n / 64) % WORDS] & (1ull << (n % 64));
}

/* Mark n seen. */
static void bit_set(struct pl_seq *q, uint64_t n)
{
	q->bits[(n / 64) % WORDS] |= 1ull << (n % 64);
}

/* Mark n unseen. */
static void bit_clear(struct pl_seq *q, uint64_t n)
{
	q->bits[(n / 64) % WORDS] &= ~(1ull << (n % 64));
}

/* Forget the numbers (old highest, new highest] so they read as unseen. */
static void window_advance(struct pl_seq *q, uint64_t to)
{
	uint64_t n;

	if (to - q->highest >= PL_SEQ_WINDOW) {
		memset(q->bits, 0, sizeof(q->bits));
		return;
	}
	for (n = q->highest + 1; n <= to; n++)
		bit_clear(q, n);
}

/* Account one sequence number; returns false for a duplicate. */
bool pl_seq_account(struct pl_seq *q, uint32_t seq)
{
	uint64_t n;

	/* 8< seq-first */
	if (!q->started) {
		q->started = true;
		q->first = q->highest = seq;
		bit_set(q, seq);
		q->unique = 1;
		return true;
	}
	/* >8 seq-first */
	if (!seq_extend(q, seq, &n)) {
		/* Before zero: too old to tell, counted as a unique late. */
		q->too_late++;
		q->unique++;
		return true;
	}
	/* 8< seq-ahead */
	if (n > q->highest) {
		window_advance(q, n);
		q->highest = n;
		bit_set(q, n);
		q->unique++;
		return true;
	}
	/* >8 seq-ahead */
	if (q->highest - n >= PL_SEQ_WINDOW) {
		/* Simplification: too old to tell late from duplicate. */
		q->too_late++;
		q->unique++;
		if (n < q->first)
			q->first = n;
		return true;
	}
	/* 8< seq-within */
	if (n >= q->first && bit_test(q, n)) {
		q->dups++;
		return false;
	}
	bit_set(q, n);
	q->reordered++;
	q->unique++;
	if (n < q->first)
		q->first = n;
	/* >8 seq-within */
	return true;
}

/* Sequence numbers in [first, highest] never seen. */
uint64_t pl_seq_missing(const struct pl_seq *q)
{
	/* 8< seq-missing */
	uint64_t span;

	if (!q->started)
		return 0;
	span = q->highest - q->first + 1;
	return span > q->unique ? span - q->unique : 0;
	/* >8 seq-missing */
}
/* >8 seq-window */

void pl_stats_init(struct pl_rx_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->loop_cpu = -1;
	pl_hist_init(&s->lat);
	pl_hist_init(&s->lat_stack);
	pl_hist_init(&s->lat_user);
}

void pl_stats_free(struct pl_rx_stats *s)
{
	unsigned i;

	for (i = 0; i < PL_MAX_FLOWS; i++) {
		free(s->flows[i]);
		s->flows[i] = NULL;
	}
}

/* The flow's sequence state, allocated on its first packet. */
static struct pl_seq *flow_get(struct pl_rx_stats *s, uint8_t flow)
{
	struct pl_seq *q = s->flows[flow];

	/* Published with release: other queues' threads read it (rx.c). */
	if (!q && (q = calloc(1, sizeof(*q)))) {
		s->flows_seen++;
		__atomic_store_n(&s->flows[flow], q, __ATOMIC_RELEASE);
	}
	return q;
}

/* --extra-work-cycles, for every receive loop of the process. */
static uint64_t extra_work_cycles;

void pl_stats_extra_work(uint64_t cycles)
{
	extra_work_cycles = cycles;
}

uint64_t pl_stats_extra_work_cycles(void)
{
	return extra_work_cycles;
}

/* Spin until the TSC has moved on by cycles. */
static void spin_cycles(uint64_t cycles)
{
	uint64_t start = pl_rdtsc();

	while (pl_rdtsc() - start < cycles)
		__asm__ volatile("" ::: "memory");
}

void pl_stats_good(struct pl_rx_stats *s, const struct pl_pkt *p,
		   uint64_t rx_ns)
{
	struct pl_seq *q = flow_get(s, p->flow);

	if (p->flags & PL_FLAG_END) {
		if (!s->end_markers++)
			s->end_ns = rx_ns;
		if (q && !q->end_seen) {
			q->end_count = p->seq;
			q->end_lost = PL_END_ROUND(p->flags);
			__atomic_store_n(&q->end_seen, true, __ATOMIC_RELEASE);
			s->flows_ended++;
		}
		return;
	}
	if (!s->packets) {
		s->first_ns = rx_ns;
		s->payload_len = p->payload_len;
	}
	s->last_ns = rx_ns;
	s->packets++;
	s->bytes += p->payload_len;
	if (q)
		pl_seq_account(q, p->seq);
	if (rx_ns >= p->tx_ns)
		pl_hist_record(&s->lat, rx_ns - p->tx_ns);
	else
		s->lat_skipped++;
	if (extra_work_cycles)
		spin_cycles(extra_work_cycles);
}

void pl_stats_split(struct pl_rx_stats *s, uint64_t tx_ns, uint64_t stack_ns,
		    uint64_t user_ns)
{
	if (stack_ns < tx_ns || user_ns < stack_ns)
		return;
	pl_hist_record(&s->lat_stack, stack_ns - tx_ns);
	pl_hist_record(&s->lat_user, user_ns - stack_ns);
}

void pl_stats_totals(const struct pl_rx_stats *s, struct pl_seq_totals *t)
{
	const struct pl_seq *q;
	unsigned i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < PL_MAX_FLOWS; i++) {
		q = s->flows[i];
		if (!q)
			continue;
		if (q->started)
			t->flows++;
		t->unique += q->unique;
		t->missing += pl_seq_missing(q);
		t->reordered += q->reordered;
		t->dups += q->dups;
		t->too_late += q->too_late;
		if (q->end_seen) {
			t->end_count += q->end_count;
			t->end_lost += q->end_lost;
			t->flows_with_end++;
		}
	}
}

/*
 * Merge one flow's accounting into dst's. Queues see disjoint flows (the
 * flow hash picks one queue), so this is mostly a copy; when a flow did
 * show up on two queues, the counts add and the range widens, and a
 * number seen on both counts twice in unique (not as a duplicate): the
 * bitmaps are per queue.
 */
static void seq_merge(struct pl_rx_stats *dst, unsigned flow,
		      const struct pl_seq *src)
{
	struct pl_seq *d = dst->flows[flow];

	if (!d) {
		d = malloc(sizeof(*d));
		if (!d)
			return;
		*d = *src;
		dst->flows[flow] = d;
		return;
	}
	if (!src->started)
		return;
	if (!d->started || src->first < d->first)
		d->first = src->first;
	if (!d->started || src->highest > d->highest)
		d->highest = src->highest;
	d->started = true;
	d->unique += src->unique;
	d->reordered += src->reordered;
	d->dups += src->dups;
	d->too_late += src->too_late;
	if (src->end_seen && !d->end_seen) {
		d->end_seen = true;
		d->end_count = src->end_count;
		d->end_lost = src->end_lost;
	}
}

void pl_stats_merge(struct pl_rx_stats *dst, const struct pl_rx_stats *src)
{
	unsigned i;

	dst->packets += src->packets;
	dst->bytes += src->bytes;
	dst->other += src->other;
	dst->bad_total += src->bad_total;
	for (i = 0; i < PL_REASON_MAX; i++)
		dst->bad[i] += src->bad[i];
	dst->end_markers += src->end_markers;
	if (src->packets && (!dst->first_ns || src->first_ns < dst->first_ns))
		dst->first_ns = src->first_ns;
	if (src->last_ns > dst->last_ns)
		dst->last_ns = src->last_ns;
	if (src->end_ns > dst->end_ns)
		dst->end_ns = src->end_ns;
	if (!dst->payload_len)
		dst->payload_len = src->payload_len;
	dst->lat_skipped += src->lat_skipped;
	dst->loop_run_ns += src->loop_run_ns;
	dst->loop_threads += src->loop_threads;
	dst->loop_wait_ns += src->loop_wait_ns;
	if (dst->loop_cpu < 0)
		dst->loop_cpu = src->loop_cpu;
	dst->busy_tsc += src->busy_tsc;
	dst->idle_tsc += src->idle_tsc;
	pl_hist_merge(&dst->lat, &src->lat);
	pl_hist_merge(&dst->lat_stack, &src->lat_stack);
	pl_hist_merge(&dst->lat_user, &src->lat_user);
	for (i = 0; i < PL_MAX_FLOWS; i++)
		if (src->flows[i])
			seq_merge(dst, i, src->flows[i]);
}
