/* SPDX-License-Identifier: MIT */
/*
 * The consumer on a real GPU against the emulated GPU's answers: one mixed
 * batch (good payloads and frames, frames malformed every way wire.h
 * names, bits flipped at random, lengths cut short) in host memory both
 * backends read in place, checked by each; every verdict and every field
 * must agree. Part of test-gpu-consumer cuda.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu_test.h"

#define NMIX  2048
#define MSLOT 2048

/* Packet i of the mixed batch into slot s; its descriptor (addr later). */
static void mixed(uint8_t *s, struct pl_gpu_desc *d, unsigned i)
{
	struct pl_frame_spec f = gpu_test_spec;
	size_t len = 0;
	unsigned k;

	f.vlan = i & 8;
	*d = (struct pl_gpu_desc){ .port = PL_UDP_PORT, .frame = 1 };
	switch (i % 4) {
	case 0: /* a payload of any length, some too short */
		len = (size_t)(rand() % 1500);
		pl_build_payload(s, len < 18 ? 18 : len, 1, i, i);
		d->frame = 0;
		d->port = 0;
		break;
	case 1: /* a good frame */
		len = pl_build_frame(s, MSLOT, &f, 18 + rand() % 1400, 2, i, i);
		break;
	case 2: /* malformed in one named way */
		len = pl_build_bad_frame(s, MSLOT, &f,
					 PL_BAD_ETH_TRUNC +
						 i / 4 %
							 (PL_REASON_FRAME_MAX -
							  PL_BAD_ETH_TRUNC),
					 i, i);
		break;
	default: /* good, then hit by a few flipped bits */
		len = pl_build_frame(s, MSLOT, &f, 18 + rand() % 600, 3, i, i);
		for (k = 0; k < 1 + (unsigned)rand() % 3; k++)
			s[rand() % len] ^= (uint8_t)(1 << (rand() % 8));
		break;
	}
	d->len = (uint32_t)len;
}

/* The same n results, field for field: the number that differ. */
static unsigned differ(const struct pl_gpu_res *a, const struct pl_gpu_res *b,
		       unsigned n)
{
	unsigned i, bad = 0;

	for (i = 0; i < n; i++)
		bad += a[i].reason != b[i].reason || a[i].seq != b[i].seq ||
		       a[i].tx_ns != b[i].tx_ns || a[i].flow != b[i].flow ||
		       a[i].flags != b[i].flags ||
		       a[i].payload_len != b[i].payload_len;
	return bad;
}

void gpu_test_against_sim(struct pl_gpu *g)
{
	struct pl_gpu_batch bg, bs;
	uint64_t at_g = 0, at_s = 0;
	struct pl_gpu *s = NULL;
	size_t len = (size_t)NMIX * MSLOT;
	uint8_t *h = aligned_alloc(4096, len);
	char why[256];
	unsigned i, ok = 0;

	CHECK(h != NULL);
	CHECK_EQ_U(pl_gpu_open(&s, PL_GPU_SIM, NULL, why, sizeof(why)), 0);
	if (!h || !s)
		goto out;
	memset(h, 0, len);
	CHECK_EQ_U(pl_gpu_host_register(g, h, len, 0, &at_g), 0);
	CHECK_EQ_U(pl_gpu_host_register(s, h, len, 0, &at_s), 0);
	CHECK_EQ_U(pl_gpu_batch_init(g, &bg, NMIX), 0);
	CHECK_EQ_U(pl_gpu_batch_init(s, &bs, NMIX), 0);
	srand(29);
	for (i = 0; i < NMIX; i++) {
		mixed(h + (size_t)i * MSLOT, &bg.desc[i], i);
		bs.desc[i] = bg.desc[i];
		bg.desc[i].addr = at_g + (uint64_t)i * MSLOT;
		bs.desc[i].addr = at_s + (uint64_t)i * MSLOT;
	}
	CHECK_EQ_U(pl_gpu_consume(g, &bg, NMIX), 0);
	CHECK_EQ_U(pl_gpu_consume(s, &bs, NMIX), 0);
	CHECK_EQ_U(differ(bg.res, bs.res, NMIX), 0);
	for (i = 0; i < NMIX; i++)
		ok += bs.res[i].reason == PL_OK;
	CHECK(ok > NMIX / 4 && ok < NMIX); /* both kinds were there */
	printf("consumer on %s: %u verdicts as the emulated GPU's "
	       "(%u good), %u differ\n",
	       g->device, NMIX - differ(bg.res, bs.res, NMIX), ok,
	       differ(bg.res, bs.res, NMIX));
	pl_gpu_batch_free(s, &bs);
	pl_gpu_batch_free(g, &bg);
	pl_gpu_host_unregister(s, h);
	pl_gpu_host_unregister(g, h);
out:
	pl_gpu_close(s);
	free(h);
}
