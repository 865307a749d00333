/* SPDX-License-Identifier: MIT */
/*
 * Exercise 9: loss, reordering and duplicates from sequence numbers.
 *
 * Every pathlab datagram carries its flow's sequence number. From those
 * alone a receiver tells what the network did: a gap is a loss (or a
 * packet still to come), a number below the highest seen is late
 * (reordered) if it fills a gap and a duplicate if it was seen already.
 * Numbers are 32 bits on the wire and wrap; they are extended to 64 bits
 * against the highest seen. A bitmap remembers the last PL_SEQ_WINDOW
 * numbers. The helpers are given. Fill in the "Exercise 9.N" marks.
 *
 * The lines between the 8< markers are the lab's own (common/stats.c,
 * its pl_seq_ functions named ex_seq_ here), copied by
 * exercises/lib/regions.py --write; the ones between the "hole" markers
 * are this exercise's own.
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

	/* 8< hole seq-first */
	/* Exercise 9.1: the flow's first packet. */

	/* >8 hole seq-first */
	if (!seq_extend(q, seq, &n)) {
		/* Before zero: too old to tell, counted as a unique late. */
		q->too_late++;
		q->unique++;
		return true;
	}
	/* 8< hole seq-ahead */
	/*
	 * Exercise 9.2: a number above the highest. What must the window
	 * forget first? (The numbers skipped are the gaps: 9.4 counts them.)
	 */

	/* >8 hole seq-ahead */
	if (q->highest - n >= PL_SEQ_WINDOW) {
		/* Simplification: too old to tell late from duplicate. */
		q->too_late++;
		q->unique++;
		if (n < q->first)
			q->first = n;
		return true;
	}
	/* 8< hole seq-within */
	/*
	 * Exercise 9.3: within the window, at or below the highest: a
	 * duplicate (returns false) or a late packet filling a gap.
	 */
	/* >8 hole seq-within */
	return true;
}

/* Sequence numbers in [first, highest] never seen. */
uint64_t ex_seq_missing(const struct pl_seq *q)
{
	/* 8< hole seq-missing */
	/* Exercise 9.4: the gaps, never below 0. */
	return 0;
	/* >8 hole seq-missing */
}
/* >8 seq-window */
