/* SPDX-License-Identifier: MIT */
/* Sequence accounting: loss, reordering, duplicates, wrap-around. */
#include "check.h"
#include "stats.h"

#include <stdlib.h>
#include <string.h>

/* Feed a list of sequence numbers to a fresh flow. */
static void feed(struct pl_seq *q, const uint32_t *seq, unsigned n)
{
	memset(q, 0, sizeof(*q));
	for (unsigned i = 0; i < n; i++)
		pl_seq_account(q, seq[i]);
}

static void test_in_order(void)
{
	struct pl_seq q;
	uint32_t s[100];

	for (unsigned i = 0; i < 100; i++)
		s[i] = i;
	feed(&q, s, 100);
	CHECK_EQ_U(q.unique, 100);
	CHECK_EQ_U(pl_seq_missing(&q), 0);
	CHECK_EQ_U(q.reordered, 0);
	CHECK_EQ_U(q.dups, 0);
}

static void test_gaps_reorder_dups(void)
{
	/* 0 1 3 2 2 5 9 4 : missing 6 7 8; 2 and 4 late; one duplicate 2 */
	const uint32_t s[] = { 0, 1, 3, 2, 2, 5, 9, 4 };
	struct pl_seq q;

	feed(&q, s, sizeof(s) / sizeof(s[0]));
	CHECK_EQ_U(q.unique, 7);
	CHECK_EQ_U(q.dups, 1);
	CHECK_EQ_U(q.reordered, 2);
	CHECK_EQ_U(pl_seq_missing(&q), 3);
	CHECK_EQ_U(q.highest, 9);
}

static void test_wrap(void)
{
	/* across 2^32: ..., 0xfffffffe, 0xffffffff, 0, 1 (no loss) */
	const uint32_t s[] = {
		0xfffffffcu, 0xfffffffdu, 0xfffffffeu, 0xffffffffu, 0, 1, 2
	};
	struct pl_seq q;

	feed(&q, s, sizeof(s) / sizeof(s[0]));
	CHECK_EQ_U(q.unique, 7);
	CHECK_EQ_U(pl_seq_missing(&q), 0);
	CHECK_EQ_U(q.highest, 0x100000002ull);
	CHECK_EQ_U(q.reordered + q.dups, 0);
	/* a duplicate from before the wrap is still recognised */
	pl_seq_account(&q, 0xffffffffu);
	CHECK_EQ_U(q.dups, 1);
}

static void test_window(void)
{
	struct pl_seq q = { 0 };

	pl_seq_account(&q, 0);
	pl_seq_account(&q, 10000); /* a jump larger than the window */
	CHECK_EQ_U(pl_seq_missing(&q), 9999);
	pl_seq_account(&q, 9000); /* late but inside the window */
	CHECK_EQ_U(q.reordered, 1);
	pl_seq_account(&q, 9000);
	CHECK_EQ_U(q.dups, 1);
	pl_seq_account(&q, 5); /* older than the window */
	CHECK_EQ_U(q.too_late, 1);
	CHECK_EQ_U(pl_seq_missing(&q), 9997);
}

/* Random loss, duplication and local reordering against a ground truth. */
static void test_random(void)
{
	enum { N = 200000 };
	uint32_t *s = malloc(sizeof(*s) * N * 2);
	uint64_t x = 42, sent = 0, unique = 0, dups = 0;
	bool *seen = calloc(N, sizeof(*seen));
	struct pl_seq q;
	unsigned n = 0;

	for (uint32_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		sent++;
		if (x % 100 < 3)
			continue; /* lost */
		s[n++] = i;
		if (x % 1000 < 5)
			s[n++] = i; /* duplicated */
	}
	for (unsigned i = 0; i + 1 < n; i += 7) { /* swap neighbours */
		uint32_t t = s[i];

		s[i] = s[i + 1];
		s[i + 1] = t;
	}
	for (unsigned i = 0; i < n; i++) {
		if (seen[s[i]])
			dups++;
		else
			unique++;
		seen[s[i]] = true;
	}
	feed(&q, s, n);
	CHECK_EQ_U(q.unique, unique);
	CHECK_EQ_U(q.dups, dups);
	/* the last number may itself be lost: missing counts to highest */
	CHECK_EQ_U(q.unique + pl_seq_missing(&q), q.highest - q.first + 1);
	CHECK(q.reordered > 0);
	free(s);
	free(seen);
	(void)sent;
}

/* The whole stats: good, bad by reason, other, end markers, totals. */
static void test_rx_stats(void)
{
	struct pl_rx_stats *s = malloc(sizeof(*s));
	struct pl_seq_totals t;
	struct pl_pkt p = { .payload_len = 18, .tx_ns = 1000 };

	pl_stats_init(s);
	for (uint32_t i = 0; i < 10; i++) {
		if (i == 4)
			continue;
		p.seq = i;
		pl_stats_good(s, &p, 1000 + 500 * (i + 1));
	}
	pl_stats_reject(s, PL_BAD_MAGIC);
	pl_stats_reject(s, PL_BAD_MAGIC);
	pl_stats_reject(s, PL_OTHER_L2);
	p.flags = PL_FLAG_END;
	p.seq = 12; /* the sender says it sent 12: 10 and 11 lost too */
	pl_stats_good(s, &p, 99999);
	pl_stats_totals(s, &t);
	CHECK_EQ_U(s->packets, 9);
	CHECK_EQ_U(s->bad_total, 2);
	CHECK_EQ_U(s->bad[PL_BAD_MAGIC], 2);
	CHECK_EQ_U(s->other, 1);
	CHECK_EQ_U(s->end_markers, 1);
	CHECK_EQ_U(t.unique, 9);
	CHECK_EQ_U(t.missing, 1);
	CHECK_EQ_U(t.end_count, 12);
	CHECK_EQ_U(t.flows_with_end, 1);
	CHECK_EQ_U(t.end_lost, 0);
	/* a later round of the marker changes nothing once one was seen */
	p.flags = PL_FLAG_END | (1 << 6);
	pl_stats_good(s, &p, 100000);
	pl_stats_totals(s, &t);
	CHECK_EQ_U(t.end_lost, 0);
	CHECK_EQ_U(s->end_markers, 2);
	CHECK_EQ_U(s->lat.count, 9);
	CHECK_EQ_U(s->lat.min, 500);
	CHECK_EQ_U(s->lat.max, 5000);
	CHECK_EQ_U(s->first_ns, 1500);
	CHECK_EQ_U(s->last_ns, 6000);
	pl_stats_free(s);
	/* the first marker seen is round 2: two were lost before it */
	pl_stats_init(s);
	p = (struct pl_pkt){ .flow = 3,
			     .seq = 7,
			     .flags = PL_FLAG_END | (2 << 6) };
	pl_stats_good(s, &p, 1);
	pl_stats_totals(s, &t);
	CHECK_EQ_U(t.end_lost, 2);
	CHECK_EQ_U(t.end_count, 7);
	pl_stats_free(s);
	free(s);
}

int main(void)
{
	test_in_order();
	test_gaps_reorder_dups();
	test_wrap();
	test_window();
	test_random();
	test_rx_stats();
	return CHECK_DONE();
}
