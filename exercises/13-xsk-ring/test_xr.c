/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 13: the AF_XDP rings. The test plays the
 * kernel, the other side of each ring, on the shared indices.
 */
#include "grade.h"
#include "xr_ex.h"

#include <stdlib.h>
#include <string.h>

#define SLOTS  8
#define FRAMES 24

struct side {
	uint32_t prod, cons;
	uint64_t addrs[SLOTS];
	struct xr_ring r; /* the user side's view */
};

static struct side fill, comp;

/* An empty ring of SLOTS whose indices start at start. */
static void ring_init(struct side *s, uint32_t start)
{
	memset(s, 0, sizeof(*s));
	s->prod = s->cons = start;
	s->r = (struct xr_ring){ &s->prod, &s->cons, SLOTS,   SLOTS - 1,
				 start,	   start,    s->addrs };
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
	return gr_verdict();
}

/* Indices near 2^32: full, empty and slots stay right through the wrap. */
static int wrap(void)
{
	uint32_t idx, n, i, round;
	uint64_t next_in = 0, next_out = 0, got[SLOTS];

	ring_init(&fill, 0xfffffff0u);
	srand(13);
	for (round = 0; round < 2000 && !gr_failures; round++) {
		n = 1 + (uint32_t)(rand() % SLOTS);
		if (xr_prod_reserve(&fill.r, n, &idx) == n) {
			GR_CHECK(idx == fill.prod,
				 "round %u: reserved at %u, "
				 "the producer index is %u",
				 round, idx, fill.prod);
			for (i = 0; i < n; i++)
				fill.addrs[(idx + i) & fill.r.mask] = next_in++;
			xr_prod_submit(&fill.r, n);
		}
		GR_CHECK(fill.prod - fill.cons <= SLOTS,
			 "round %u: %u slots filled of %u", round,
			 fill.prod - fill.cons, SLOTS);
		n = k_consume(&fill, got, (uint32_t)(rand() % (SLOTS + 1)));
		for (i = 0; i < n; i++)
			GR_CHECK(got[i] == next_out++,
				 "round %u: the kernel read %llu, expected "
				 "%llu",
				 round, (unsigned long long)got[i],
				 (unsigned long long)next_out - 1);
	}
	GR_CHECK(fill.prod < 0xfffffff0u, "the indices never wrapped");
	GR_CHECK(next_in > 3000, "only %llu addresses went through",
		 (unsigned long long)next_in);
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
	return gr_verdict();
}

/* A long run: every frame is in exactly one place, always. */
static int conserve(void)
{
	uint64_t where[FRAMES], got[SLOTS], held[FRAMES];
	uint32_t n, i, round, nheld = 0, k;
	uint64_t moved = 0;

	ring_init(&comp, 0xffffff00u);
	ring_init(&fill, 0xfffffff9u);
	for (i = 0; i < FRAMES; i++)
		held[nheld++] = i; /* the kernel holds them all, at first */
	srand(6);
	for (round = 0; round < 5000 && !gr_failures; round++) {
		/* The kernel completes some frames it holds... */
		k = (uint32_t)(rand() % 5);
		n = k_produce(&comp, held, k < nheld ? k : nheld);
		memmove(held, held + n, (nheld - n) * sizeof(held[0]));
		nheld -= n;
		/* ...we recycle... */
		moved += xr_recycle(&comp.r, &fill.r,
				    1 + (uint32_t)(rand() % 6));
		/* ...and it takes some back off the fill ring. */
		n = k_consume(&fill, got, (uint32_t)(rand() % 5));
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
	GR_CHECK(moved > 1000 && comp.cons < 0xffffff00u,
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
	return gr_main(argc, argv, "13-xsk-ring", cases);
}
