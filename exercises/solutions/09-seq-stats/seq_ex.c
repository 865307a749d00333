/* SPDX-License-Identifier: MIT */
/*
 * Exercise 9: loss, reordering and duplicates from sequence numbers.
 * Reference solution: pl_seq_account() and pl_seq_missing() of
 * common/stats.c, the lines of its region seq-window with pl_seq_ named
 * ex_seq_ (copied by exercises/lib/regions.py --write). Its regions
 * seq-first, seq-ahead, seq-within and seq-missing are the exercise's
 * steps 9.1 to 9.4.
 */
#include "seq_ex.h"

#include <string.h>

/* 8< seq-window from common/stats.c pl_seq_=ex_seq_ */
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
bool ex_seq_account(struct pl_seq *q, uint32_t seq)
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
uint64_t ex_seq_missing(const struct pl_seq *q)
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
