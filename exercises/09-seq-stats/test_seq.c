/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 9: sequence accounting. The student's flow
 * lives in the worker (wk_seq.c): the grader sends it sequence numbers,
 * fixed and drawn, and compares what it counted with common/stats.c.
 */
#include "grade.h"
#include "seq_rpc.h"
#include "stats.h"

#include <stdlib.h>
#include <string.h>

static struct sx_in req;
static struct sx_state q; /* the student's flow, after the last call */

/* The student's flow (fresh, or the same) fed s[0..n). */
static void send_seqs(bool fresh, const uint32_t *s, unsigned n)
{
	req.reset = fresh;
	req.n = n;
	memcpy(req.seq, s, n * sizeof(*s));
	gr_call_exact(SX_ACCOUNT, &req,
		      offsetof(struct sx_in, seq) + n * sizeof(*s), &q,
		      offsetof(struct sx_state, fresh) + n);
}

/* A fresh flow, then the sequence numbers s[0..n). */
static void feed(const uint32_t *s, unsigned n)
{
	send_seqs(true, s, n);
}

/* One more number of the same flow: what ex_seq_account() said. */
static bool account(uint32_t s)
{
	send_seqs(false, &s, 1);
	return q.fresh[0];
}

/* Check the counters of the flow. */
static void expect(uint64_t unique, uint64_t missing, uint64_t reordered,
		   uint64_t dups, uint64_t too_late)
{
	GR_CHECK(q.started, "the flow is not marked started");
	GR_EQ_U(q.unique, unique);
	GR_EQ_U(q.missing, missing);
	GR_EQ_U(q.reordered, reordered);
	GR_EQ_U(q.dups, dups);
	GR_EQ_U(q.too_late, too_late);
}

/* The student's flow against common/'s on s[0..n) (what: the kind). */
static void vs_common(const uint32_t *s, unsigned n, const char *what)
{
	static struct pl_seq ref;
	unsigned i;

	memset(&ref, 0, sizeof(ref));
	feed(s, n);
	for (i = 0; i < n; i++)
		if (q.fresh[i] != pl_seq_account(&ref, s[i]) && !gr_failures)
			gr_fail_at(__FILE__, __LINE__,
				   "%s, %u numbers from %u: number %u (%u) "
				   "%s a duplicate",
				   what, n, s[0], i, s[i],
				   q.fresh[i] ? "is not called" : "is called");
	GR_CHECK(q.unique == ref.unique && q.reordered == ref.reordered &&
			 q.dups == ref.dups && q.too_late == ref.too_late &&
			 q.first == ref.first && q.highest == ref.highest &&
			 q.missing == pl_seq_missing(&ref) &&
			 q.started == ref.started,
		 "%s, %u numbers from %u: unique %llu reordered %llu dups "
		 "%llu late %llu missing %llu first %llu highest %llu; "
		 "common/ %llu %llu %llu %llu %llu %llu %llu",
		 what, n, s[0], (unsigned long long)q.unique,
		 (unsigned long long)q.reordered, (unsigned long long)q.dups,
		 (unsigned long long)q.too_late, (unsigned long long)q.missing,
		 (unsigned long long)q.first, (unsigned long long)q.highest,
		 (unsigned long long)ref.unique,
		 (unsigned long long)ref.reordered,
		 (unsigned long long)ref.dups, (unsigned long long)ref.too_late,
		 (unsigned long long)pl_seq_missing(&ref),
		 (unsigned long long)ref.first,
		 (unsigned long long)ref.highest);
}

static uint32_t s[SX_MAX];

/* n drawn numbers from a drawn start, each shaped by kind; how many. */
static unsigned drawn(unsigned n, char kind, uint32_t base)
{
	unsigned i, k = 0;
	uint32_t v;

	for (i = 0; i < n; i++) {
		v = base + i;
		switch (kind) {
		case 'l': /* lost */
			if (gr_below(5) == 0)
				continue;
			break;
		case 'r': /* a neighbour swapped */
			if (k && gr_below(4) == 0) {
				s[k] = s[k - 1];
				s[k - 1] = v;
				k++;
				continue;
			}
			break;
		case 'd': /* doubled */
			if (k && gr_below(4) == 0) {
				v = s[gr_below(k)];
				s[k++] = v;
				v = base + i;
			}
			break;
		case 'f': /* below the first */
			v = base - i;
			break;
		case 'w': /* far back, beyond the window */
			if (gr_below(50) == 0)
				v -= PL_SEQ_WINDOW + (uint32_t)gr_below(100000);
			break;
		case 'm':		       /* everything at once */
			if (gr_below(10) == 0) /* late by up to 50 */
				v -= (uint32_t)gr_below(50);
			if (gr_below(50) == 0) /* or very late */
				v -= (uint32_t)gr_below(9000);
			if (gr_below(20) == 0) /* lost */
				continue;
			break;
		}
		s[k++] = v;
	}
	return k;
}

/* Drawn traffic of one kind against common/: rounds of it. */
static void drawn_vs_common(unsigned rounds, char kind, const char *what)
{
	unsigned r, n;

	for (r = 0; r < rounds && !gr_failures; r++) {
		n = drawn(1 + (unsigned)gr_below(3000), kind,
			  (uint32_t)gr_rand());
		vs_common(s, n, what);
	}
}

/* 0..999 in order: nothing lost, late or doubled. */
static int in_order(void)
{
	unsigned i;

	for (i = 0; i < 1000; i++)
		s[i] = i;
	feed(s, 1000);
	for (i = 0; i < 1000; i++)
		GR_CHECK(q.fresh[i], "seq %u called a duplicate", i);
	expect(1000, 0, 0, 0, 0);
	GR_EQ_U(q.first, 0);
	GR_EQ_U(q.highest, 999);
	drawn_vs_common(5, 'i', "in order");
	return gr_verdict();
}

/* Every 10th of 0..999 lost: 100 missing. */
static int loss(void)
{
	unsigned i, n = 0;

	for (i = 0; i < 1000; i++)
		if (i % 10 != 5)
			s[n++] = i;
	feed(s, n);
	expect(900, 100, 0, 0, 0);
	/* A flow that never started misses nothing. */
	feed(s, 0);
	GR_EQ_U(q.missing, 0);
	drawn_vs_common(5, 'l', "with losses");
	return gr_verdict();
}

/* Late packets fill gaps: reordered, and not missing in the end. */
static int reorder(void)
{
	static const uint32_t r[] = { 0, 1, 3, 2, 4, 6, 5, 7 };

	feed(r, 8);
	expect(8, 0, 2, 0, 0);
	GR_EQ_U(q.highest, 7);
	drawn_vs_common(5, 'r', "reordered");
	return gr_verdict();
}

/* A number seen before is a duplicate: counted, and said so. */
static int duplicates(void)
{
	static const uint32_t d[] = { 0, 1, 2 };

	feed(d, 3);
	GR_CHECK(!account(1), "a second 1 was not a duplicate");
	GR_CHECK(!account(2), "a second 2 was not a duplicate");
	GR_CHECK(!account(2), "a third 2 was not a duplicate");
	GR_CHECK(account(3), "3 called a duplicate");
	expect(4, 0, 0, 3, 0);
	drawn_vs_common(5, 'd', "with duplicates");
	return gr_verdict();
}

/* Late packets below the first one seen move first down. */
static int first_late(void)
{
	static const uint32_t f[] = { 100, 101, 99, 98, 102 };

	feed(f, 5);
	expect(5, 0, 2, 0, 0);
	GR_EQ_U(q.first, 98);
	drawn_vs_common(5, 'f', "counting down");
	return gr_verdict();
}

/* The 32-bit wire number wraps; the extended one goes on. */
static int wrap(void)
{
	unsigned i, n;

	for (i = 0; i < 33; i++)
		s[i] = 0xfffffff0u + i;
	feed(s, 33);
	expect(33, 0, 0, 0, 0);
	GR_EQ_U(q.highest, 0x100000010ull);
	GR_CHECK(!account(0xfffffff5u),
		 "0xfffffff5 after the wrap is a duplicate");
	for (i = 0; i < 5 && !gr_failures; i++) {
		n = drawn(1 + (unsigned)gr_below(3000), 'm',
			  (uint32_t)(0u - 1 - gr_below(2000)));
		vs_common(s, n, "across the wrap");
	}
	return gr_verdict();
}

/* A jump past the window forgets what came before it. */
static int window(void)
{
	static const uint32_t w[] = { 0, 10000, 9999, 5 };

	feed(w, 4); /* 5 is 9995 behind: older than the window */
	GR_CHECK(!account(10000), "a second 10000 is a duplicate");
	expect(4, 10001 - 4, 1, 1, 1);
	drawn_vs_common(5, 'w', "far behind the window");
	return gr_verdict();
}

/* Drawn traffic with loss, reordering and duplicates: as common/. */
static int matches_common(void)
{
	drawn_vs_common(300, 'm', "mixed");
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
	{ "matches_common", 2, "same as common/ on drawn traffic",
	  matches_common },
	{ 0 }
};

int main(int argc, char **argv)
{
	gr_sandbox(&(struct gr_sandbox){ 0 });
	return gr_main(argc, argv, "09-seq-stats", cases);
}
