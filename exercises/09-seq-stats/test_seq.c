/* SPDX-License-Identifier: MIT */
/* Graded tests of exercise 9: sequence accounting. */
#include "grade.h"
#include "seq_ex.h"

#include <stdlib.h>
#include <string.h>

/* The references of common/: the code under test may not call them. */
GR_REFERENCE(bool, pl_seq_account, (struct pl_seq * q, uint32_t seq))
GR_REFERENCE(uint64_t, pl_seq_missing, (const struct pl_seq *q))

static struct pl_seq q;

/* A fresh flow, then the sequence numbers s[0..n). */
static void feed(const uint32_t *s, unsigned n)
{
	unsigned i;

	memset(&q, 0, sizeof(q));
	for (i = 0; i < n; i++)
		ex_seq_account(&q, s[i]);
}

/* Check the counters of the flow. */
static void expect(uint64_t unique, uint64_t missing, uint64_t reordered,
		   uint64_t dups, uint64_t too_late)
{
	GR_CHECK(q.started, "the flow is not marked started");
	GR_EQ_U(q.unique, unique);
	GR_EQ_U(ex_seq_missing(&q), missing);
	GR_EQ_U(q.reordered, reordered);
	GR_EQ_U(q.dups, dups);
	GR_EQ_U(q.too_late, too_late);
}

/* 0..999 in order: nothing lost, late or doubled. */
static int in_order(void)
{
	unsigned i;

	memset(&q, 0, sizeof(q));
	for (i = 0; i < 1000; i++)
		GR_CHECK(ex_seq_account(&q, i), "seq %u called a duplicate", i);
	expect(1000, 0, 0, 0, 0);
	GR_EQ_U(q.first, 0);
	GR_EQ_U(q.highest, 999);
	return gr_verdict();
}

/* Every 10th of 0..999 lost: 100 missing. */
static int loss(void)
{
	unsigned i;

	memset(&q, 0, sizeof(q));
	for (i = 0; i < 1000; i++)
		if (i % 10 != 5)
			ex_seq_account(&q, i);
	expect(900, 100, 0, 0, 0);
	/* A flow that never started misses nothing. */
	memset(&q, 0, sizeof(q));
	GR_EQ_U(ex_seq_missing(&q), 0);
	return gr_verdict();
}

/* Late packets fill gaps: reordered, and not missing in the end. */
static int reorder(void)
{
	static const uint32_t s[] = { 0, 1, 3, 2, 4, 6, 5, 7 };

	feed(s, 8);
	expect(8, 0, 2, 0, 0);
	GR_EQ_U(q.highest, 7);
	return gr_verdict();
}

/* A number seen before is a duplicate: counted, and said so. */
static int duplicates(void)
{
	static const uint32_t s[] = { 0, 1, 2 };

	feed(s, 3);
	GR_CHECK(!ex_seq_account(&q, 1), "a second 1 was not a duplicate");
	GR_CHECK(!ex_seq_account(&q, 2), "a second 2 was not a duplicate");
	GR_CHECK(!ex_seq_account(&q, 2), "a third 2 was not a duplicate");
	GR_CHECK(ex_seq_account(&q, 3), "3 called a duplicate");
	expect(4, 0, 0, 3, 0);
	return gr_verdict();
}

/* Late packets below the first one seen move first down. */
static int first_late(void)
{
	static const uint32_t s[] = { 100, 101, 99, 98, 102 };

	feed(s, 5);
	expect(5, 0, 2, 0, 0);
	GR_EQ_U(q.first, 98);
	return gr_verdict();
}

/* The 32-bit wire number wraps; the extended one goes on. */
static int wrap(void)
{
	uint32_t s = 0xfffffff0u;
	unsigned i;

	memset(&q, 0, sizeof(q));
	for (i = 0; i < 33; i++)
		ex_seq_account(&q, s++);
	expect(33, 0, 0, 0, 0);
	GR_EQ_U(q.highest, 0x100000010ull);
	GR_CHECK(!ex_seq_account(&q, 0xfffffff5u),
		 "0xfffffff5 after the wrap is a duplicate");
	return gr_verdict();
}

/* A jump past the window forgets what came before it. */
static int window(void)
{
	memset(&q, 0, sizeof(q));
	ex_seq_account(&q, 0);
	ex_seq_account(&q, 10000);
	ex_seq_account(&q, 9999);
	ex_seq_account(&q, 5); /* 9995 behind: older than the window */
	GR_CHECK(!ex_seq_account(&q, 10000), "a second 10000 is a duplicate");
	expect(4, 10001 - 4, 1, 1, 1);
	return gr_verdict();
}

/* Random traffic with loss, reordering and duplicates: as common/. */
static int matches_common(void)
{
	static struct pl_seq ref;
	unsigned round, i, n;
	uint32_t s, base;
	bool a, b;

	srand(9);
	for (round = 0; round < 300 && !gr_failures; round++) {
		memset(&q, 0, sizeof(q));
		memset(&ref, 0, sizeof(ref));
		base = (uint32_t)rand() * 7919u;
		n = 1 + (unsigned)(rand() % 3000);
		for (i = 0; i < n; i++) {
			s = base + i;
			if (rand() % 10 == 0) /* late by up to 50 */
				s -= (uint32_t)(rand() % 50);
			if (rand() % 50 == 0) /* or very late */
				s -= (uint32_t)(rand() % 9000);
			if (rand() % 20 == 0) /* lost */
				continue;
			a = ex_seq_account(&q, s);
			b = __real_pl_seq_account(&ref, s);
			GR_CHECK(a == b,
				 "round %u seq %u: returned %d, "
				 "common/ %d",
				 round, s, a, b);
		}
		GR_CHECK(q.unique == ref.unique &&
				 q.reordered == ref.reordered &&
				 q.dups == ref.dups &&
				 q.too_late == ref.too_late &&
				 q.first == ref.first &&
				 q.highest == ref.highest &&
				 ex_seq_missing(&q) ==
					 __real_pl_seq_missing(&ref),
			 "round %u: unique %llu reordered %llu dups %llu late "
			 "%llu missing %llu; common/ %llu %llu %llu %llu %llu",
			 round, (unsigned long long)q.unique,
			 (unsigned long long)q.reordered,
			 (unsigned long long)q.dups,
			 (unsigned long long)q.too_late,
			 (unsigned long long)ex_seq_missing(&q),
			 (unsigned long long)ref.unique,
			 (unsigned long long)ref.reordered,
			 (unsigned long long)ref.dups,
			 (unsigned long long)ref.too_late,
			 (unsigned long long)__real_pl_seq_missing(&ref));
	}
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "in_order", 2, "in order: nothing lost, late or doubled", in_order },
	{ "loss", 3, "gaps counted as missing", loss },
	{ "reorder", 3, "late packets fill gaps: reordered", reorder },
	{ "duplicates", 3, "a number seen before is a duplicate", duplicates },
	{ "first_late", 1, "late packets below the first one", first_late },
	{ "wrap", 2, "the 32-bit number wraps, the count goes on", wrap },
	{ "window", 1, "older than the window: too late to tell", window },
	{ "matches_common", 2, "same as common/ on random traffic",
	  matches_common },
	{ 0 }
};

int main(int argc, char **argv)
{
	return gr_main(argc, argv, "09-seq-stats", cases);
}
