/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 13: the AF_XDP rings. The rings live in memory
 * the grader shares with the worker (wk_xr.c), where the student's ring
 * functions run; the grader plays the kernel, the other side of each
 * ring, on the shared indices between the calls.
 */
#include "grade.h"
#include "xr_ex.h"
#include "xr_rpc.h"

#include <stdlib.h>
#include <string.h>

#define SLOTS  8
#define FRAMES 24

struct side {
	uint32_t prod, cons;
	uint64_t addrs[SLOTS];
	struct xr_ring r; /* the user side's view */
};

static struct side *sides; /* shared with the worker */
static struct side *side(int i);
#define fill (*side(0))
#define comp (*side(1))

/* An empty ring of SLOTS whose indices start at start. */
static void ring_init(struct side *s, uint32_t start)
{
	memset(s, 0, sizeof(*s));
	s->prod = s->cons = start;
	/* The pointers are the worker's: it is the user side. */
	s->r = (struct xr_ring){
		.producer = (uint32_t *)(uintptr_t)gr_waddr(&s->prod),
		.consumer = (uint32_t *)(uintptr_t)gr_waddr(&s->cons),
		.size = SLOTS,
		.mask = SLOTS - 1,
		.cached_prod = start,
		.cached_cons = start,
		.addrs = (uint64_t *)(uintptr_t)gr_waddr(s->addrs),
	};
}

/* Run ring function op in the worker on ring r (and f); its answer. */
static struct xr_ans call(unsigned op, struct xr_ring *r, struct xr_ring *f,
			  uint32_t n)
{
	struct xr_req q = { .ring = gr_waddr(r),
			    .other = f ? gr_waddr(f) : 0,
			    .n = n };
	struct xr_ans a;

	gr_call_exact(op, &q, sizeof(q), &a, sizeof(a));
	return a;
}

/* The student's functions (xr_ex.h), called in the worker. */
uint32_t xr_prod_reserve(struct xr_ring *r, uint32_t n, uint32_t *idx)
{
	struct xr_ans a = call(XR_RESERVE, r, NULL, n);

	*idx = a.idx;
	return a.ret;
}

void xr_prod_submit(struct xr_ring *r, uint32_t n)
{
	call(XR_SUBMIT, r, NULL, n);
}

uint32_t xr_cons_peek(struct xr_ring *r, uint32_t n, uint32_t *idx)
{
	struct xr_ans a = call(XR_PEEK, r, NULL, n);

	*idx = a.idx;
	return a.ret;
}

void xr_cons_release(struct xr_ring *r, uint32_t n)
{
	call(XR_RELEASE, r, NULL, n);
}

uint32_t xr_recycle(struct xr_ring *c, struct xr_ring *f, uint32_t max)
{
	return call(XR_RECYCLE, c, f, max).ret;
}

/* The kernel produces n addresses from a (as many as fit). */
static uint32_t k_produce(struct side *s, const uint64_t *a, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && s->prod - s->cons < SLOTS; i++)
		s->addrs[s->prod++ & (SLOTS - 1)] = a[i];
	return i;
}

/* The kernel consumes up to n addresses into a. */
static uint32_t k_consume(struct side *s, uint64_t *a, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && s->cons != s->prod; i++)
		a[i] = s->addrs[s->cons++ & (SLOTS - 1)];
	return i;
}

/* Ring i of the two in memory shared with the worker (once per case). */
static struct side *side(int i)
{
	if (!sides)
		sides = gr_share(2 * sizeof(struct side));
	return &sides[i];
}

/* rounds of reserve and submit, the kernel consuming at random. */
static void producer_run(uint32_t start, unsigned rounds)
{
	uint32_t idx, n, i, round, free, got;
	uint64_t next_in = 0, next_out = 0, out[SLOTS];

	ring_init(&fill, start);
	for (round = 0; round < rounds && !gr_failures; round++) {
		n = 1 + (uint32_t)gr_below(SLOTS);
		free = SLOTS - (fill.prod - fill.cons);
		got = xr_prod_reserve(&fill.r, n, &idx);
		GR_CHECK(got == (free >= n ? n : 0),
			 "round %u: %u slots free, reserving %u gave %u", round,
			 free, n, got);
		if (got == n) {
			GR_CHECK(idx == fill.prod,
				 "round %u: reserved at %u, "
				 "the producer index is %u",
				 round, idx, fill.prod);
			for (i = 0; i < n; i++)
				fill.addrs[(idx + i) & fill.r.mask] = next_in++;
			GR_CHECK(fill.prod == idx,
				 "round %u: visible before the submit", round);
			xr_prod_submit(&fill.r, n);
			GR_CHECK(fill.prod == idx + n,
				 "round %u: submitted %u at %u, the producer "
				 "index is %u",
				 round, n, idx, fill.prod);
		}
		GR_CHECK(fill.prod - fill.cons <= SLOTS,
			 "round %u: %u slots filled of %u", round,
			 fill.prod - fill.cons, SLOTS);
		n = k_consume(&fill, out, (uint32_t)gr_below(SLOTS + 1));
		for (i = 0; i < n; i++)
			GR_CHECK(out[i] == next_out++,
				 "round %u: the kernel read %llu, expected "
				 "%llu",
				 round, (unsigned long long)out[i],
				 (unsigned long long)next_out - 1);
	}
	GR_CHECK(next_in > rounds / 2, "only %llu addresses went through",
		 (unsigned long long)next_in);
}

/* rounds of peek and release, the kernel producing at random. */
static void consumer_run(uint32_t start, unsigned rounds)
{
	uint32_t idx, n, i, round, held = 0, avail, got, k;
	uint64_t next_in = 0, next_out = 0, a[SLOTS];

	ring_init(&comp, start);
	for (round = 0; round < rounds && !gr_failures; round++) {
		k = (uint32_t)gr_below(SLOTS + 1);
		for (i = 0; i < k; i++)
			a[i] = next_in + i;
		next_in += k_produce(&comp, a, k);
		n = 1 + (uint32_t)gr_below(SLOTS);
		avail = comp.prod - comp.cons - held;
		got = xr_cons_peek(&comp.r, n, &idx);
		GR_CHECK(got == (avail < n ? avail : n),
			 "round %u: %u filled, peeking %u gave %u", round,
			 avail, n, got);
		if (got)
			GR_CHECK(idx == comp.cons + held,
				 "round %u: peeked at %u, expected %u", round,
				 idx, comp.cons + held);
		held += got;
		GR_CHECK(comp.cons + held == comp.prod - avail + got,
			 "round %u: the consumer index moved before release",
			 round);
		if (gr_below(2)) {
			for (i = 0; i < held; i++)
				GR_CHECK(comp.addrs[(comp.cons + i) &
						    (SLOTS - 1)] ==
						 next_out + i,
					 "round %u: slot %u holds %llu", round,
					 i,
					 (unsigned long long)
						 comp.addrs[(comp.cons + i) &
							    (SLOTS - 1)]);
			xr_cons_release(&comp.r, held);
			GR_CHECK(comp.cons == idx + got || !got,
				 "round %u: released to %u, expected %u", round,
				 comp.cons, idx + got);
			next_out += held;
			held = 0;
		}
	}
}

/* The user side produces: reserve, write, submit; all or nothing. */
static int reserve_submit(void)
{
	uint32_t idx = 99, i;
	uint64_t got[SLOTS];

	ring_init(&fill, 0);
	GR_EQ_U(xr_prod_reserve(&fill.r, 5, &idx), 5);
	GR_EQ_U(idx, 0);
	GR_EQ_U(fill.prod, 0); /* not visible before submit */
	for (i = 0; i < 5; i++)
		fill.addrs[(idx + i) & fill.r.mask] = 100 + i;
	xr_prod_submit(&fill.r, 5);
	GR_EQ_U(fill.prod, 5);
	GR_EQ_U(xr_prod_reserve(&fill.r, 4, &idx), 0); /* 3 free: none */
	GR_EQ_U(k_consume(&fill, got, 3), 3);
	GR_EQ_U(got[2], 102);
	GR_EQ_U(xr_prod_reserve(&fill.r, 4, &idx), 4); /* now 6 free */
	GR_EQ_U(idx, 5);
	xr_prod_submit(&fill.r, 4);
	GR_EQ_U(fill.prod, 9);
	GR_EQ_U(xr_prod_reserve(&fill.r, 3, &idx), 0);
	producer_run((uint32_t)gr_rand(), 300);
	return gr_verdict();
}

/* The user side consumes: peek, read, release. */
static int peek_release(void)
{
	static const uint64_t a[6] = { 10, 11, 12, 13, 14, 15 };
	uint32_t idx = 99;

	ring_init(&comp, 0);
	GR_EQ_U(xr_cons_peek(&comp.r, 4, &idx), 0);
	k_produce(&comp, a, 6);
	GR_EQ_U(xr_cons_peek(&comp.r, 4, &idx), 4);
	GR_EQ_U(idx, 0);
	GR_EQ_U(comp.cons, 0); /* not handed back before release */
	GR_EQ_U(xr_cons_peek(&comp.r, 4, &idx), 2);
	GR_EQ_U(idx, 4);
	GR_EQ_U(comp.addrs[idx & comp.r.mask], 14);
	xr_cons_release(&comp.r, 6);
	GR_EQ_U(comp.cons, 6);
	GR_EQ_U(xr_cons_peek(&comp.r, 1, &idx), 0);
	consumer_run((uint32_t)gr_rand(), 300);
	return gr_verdict();
}

/* Indices near 2^32: full, empty and slots stay right through the wrap. */
static int wrap(void)
{
	uint32_t start = 0u - 257 - (uint32_t)gr_below(4096);

	producer_run(start, 2000);
	GR_CHECK(fill.prod - start < 0x80000000u && fill.prod < start,
		 "the producer index never wrapped");
	consumer_run(0u - 257 - (uint32_t)gr_below(4096), 2000);
	return gr_verdict();
}

/* Recycling: comp to fill, in order, never more than fill takes. */
static int recycle(void)
{
	static const uint64_t a[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	uint64_t got[SLOTS];
	uint32_t idx, i;

	ring_init(&comp, 0);
	ring_init(&fill, 0xfffffffeu);
	GR_EQ_U(xr_prod_reserve(&fill.r, 5, &idx), 5); /* fill: 3 free */
	xr_prod_submit(&fill.r, 5);
	k_produce(&comp, a, 8);
	GR_EQ_U(xr_recycle(&comp.r, &fill.r, 8), 3);
	GR_EQ_U(comp.cons, 3);
	GR_EQ_U(fill.prod, 0xfffffffeu + 8);
	GR_EQ_U(k_consume(&fill, got, 8), 8);
	GR_EQ_U(got[5], 0);
	GR_EQ_U(got[7], 2);
	GR_EQ_U(xr_recycle(&comp.r, &fill.r, 2), 2);
	GR_EQ_U(xr_recycle(&comp.r, &fill.r, 8), 3);
	GR_EQ_U(k_consume(&fill, got, 8), 5);
	for (i = 0; i < 5; i++)
		GR_EQ_U(got[i], 3 + i);
	GR_EQ_U(xr_recycle(&comp.r, &fill.r, 8), 0);
	/* Drawn: whatever is in comp, whatever room fill has. */
	for (i = 0; i < 200 && !gr_failures; i++) {
		uint64_t b[SLOTS];
		uint32_t nc = (uint32_t)gr_below(SLOTS + 1), room, max, want;
		uint32_t j, moved;

		ring_init(&comp, (uint32_t)gr_rand());
		ring_init(&fill, (uint32_t)gr_rand());
		for (j = 0; j < nc; j++)
			b[j] = gr_rand() & ~0xfffull;
		k_produce(&comp, b, nc);
		room = (uint32_t)gr_below(SLOTS + 1);
		if (SLOTS - room) {
			GR_EQ_U(xr_prod_reserve(&fill.r, SLOTS - room, &idx),
				SLOTS - room);
			xr_prod_submit(&fill.r, SLOTS - room);
			k_consume(&fill, got, 0);
		}
		max = (uint32_t)gr_below(SLOTS + 2);
		want = nc < room ? nc : room;
		want = want < max ? want : max;
		moved = xr_recycle(&comp.r, &fill.r, max);
		GR_CHECK(moved == want,
			 "%u completed, %u free on fill, max %u: %u moved, "
			 "expected %u",
			 nc, room, max, moved, want);
		GR_EQ_U(comp.cons, comp.prod - nc + want);
		for (j = 0; j < want && moved == want; j++)
			GR_CHECK(fill.addrs[(fill.prod - want + j) &
					    (SLOTS - 1)] == b[j],
				 "fill slot %u holds %#llx, expected %#llx", j,
				 (unsigned long long)
					 fill.addrs[(fill.prod - want + j) &
						    (SLOTS - 1)],
				 (unsigned long long)b[j]);
	}
	return gr_verdict();
}

/* A long run: every frame is in exactly one place, always. */
static int conserve(void)
{
	uint64_t where[FRAMES], got[SLOTS], held[FRAMES];
	uint32_t n, i, round, nheld = 0, k;
	uint64_t moved = 0;

	ring_init(&comp, 0xffffff00u - (uint32_t)gr_below(1000));
	ring_init(&fill, 0xfffffff9u - (uint32_t)gr_below(1000));
	for (i = 0; i < FRAMES; i++)
		held[nheld++] = i; /* the kernel holds them all, at first */
	for (round = 0; round < 5000 && !gr_failures; round++) {
		/* The kernel completes some frames it holds... */
		k = (uint32_t)gr_below(5);
		n = k_produce(&comp, held, k < nheld ? k : nheld);
		memmove(held, held + n, (nheld - n) * sizeof(held[0]));
		nheld -= n;
		/* ...we recycle... */
		moved +=
			xr_recycle(&comp.r, &fill.r, 1 + (uint32_t)gr_below(6));
		/* ...and it takes some back off the fill ring. */
		n = k_consume(&fill, got, (uint32_t)gr_below(5));
		for (i = 0; i < n; i++)
			held[nheld++] = got[i];
		memset(where, 0, sizeof(where));
		for (i = 0; i < nheld; i++)
			where[held[i] % FRAMES]++;
		for (i = comp.cons; i != comp.prod; i++)
			where[comp.addrs[i & (SLOTS - 1)] % FRAMES]++;
		for (i = fill.cons; i != fill.prod; i++)
			where[fill.addrs[i & (SLOTS - 1)] % FRAMES]++;
		for (i = 0; i < FRAMES; i++)
			GR_CHECK(where[i] == 1,
				 "round %u: frame %u is in %llu places", round,
				 i, (unsigned long long)where[i]);
	}
	GR_CHECK(moved > 1000 && comp.cons < 0xfff00000u,
		 "only %llu frames recycled in 5000 rounds",
		 (unsigned long long)moved);
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "reserve_submit", 3, "producer: all or nothing, visible on submit",
	  reserve_submit },
	{ "peek_release", 3, "consumer: peek what is there, release it",
	  peek_release },
	{ "wrap", 3, "free-running indices through 2^32", wrap },
	{ "recycle", 3, "completion to fill ring, no more than fits", recycle },
	{ "conserve", 3, "every frame in exactly one place, always", conserve },
	{ 0 }
};

int main(int argc, char **argv)
{
	gr_sandbox(&(struct gr_sandbox){ 0 });
	return gr_main(argc, argv, "13-xsk-ring", cases);
}
