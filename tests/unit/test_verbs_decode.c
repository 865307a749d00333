/* SPDX-License-Identifier: MIT */
/*
 * The verbs receiver's completion decode (verbs_decode() in
 * rdma/rx_verbs.h), with no device: every loop of the path finds a
 * message through it, so every check a peer could defeat is here. A
 * WRITE with immediate whose byte_len runs past its slot, or a slot past
 * the ring, must never yield a place to read; nor a UD message shorter
 * than its GRH.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "rx_verbs.h"

static struct verbs_rx rx;

/* Decode one completion; the message's place when it may be read. */
static bool decode(bool imm, uint64_t wr_id, uint32_t byte_len,
		   uint32_t slot_imm, size_t *off, uint32_t *len)
{
	return verbs_decode(&rx, imm, wr_id, byte_len, htonl(slot_imm), off,
			    len);
}

/* RC WRITE with immediate: the immediate names the slot. */
static void test_write_imm(void)
{
	size_t off = 0;
	uint32_t len = 0;

	memset(&rx, 0, sizeof(rx));
	rx.ep.slots = 8;
	pl_stats_init(&rx.stats);
	CHECK(decode(true, 3, 64, 5, &off, &len));
	CHECK_EQ_U(off, 5 * VERBS_SLOT);
	CHECK_EQ_U(len, 64);
	CHECK_EQ_U(rx.imm_last, 5);
	/* A whole slot is still fine; one byte more is not. */
	CHECK(decode(true, 3, VERBS_SLOT, 7, &off, &len));
	CHECK_EQ_U(len, VERBS_SLOT);
	CHECK(!decode(true, 3, VERBS_SLOT + 1, 7, &off, &len));
	CHECK_EQ_U(rx.stats.bad[PL_BAD_TOO_LONG], 1);
	CHECK(!decode(true, 3, UINT32_MAX, 0, &off, &len));
	CHECK_EQ_U(rx.stats.bad[PL_BAD_TOO_LONG], 2);
	CHECK_EQ_U(rx.stats.bad_total, 2);
	/* A slot past the ring: counted apart, never read. */
	CHECK(!decode(true, 3, 64, 8, &off, &len));
	CHECK(!decode(true, 3, 64, UINT32_MAX, &off, &len));
	CHECK_EQ_U(rx.imm_bad_slot, 2);
	CHECK_EQ_U(rx.imm_completions, 6);
	CHECK_EQ_U(rx.stats.bad_total, 2);
	pl_stats_free(&rx.stats);
}

/* UD SEND: the posted slot (wr_id), the 40-byte GRH first. */
static void test_ud(void)
{
	size_t off = 0;
	uint32_t len = 0;

	memset(&rx, 0, sizeof(rx));
	rx.ep.slots = 8;
	rx.grh = VERBS_GRH;
	pl_stats_init(&rx.stats);
	CHECK(decode(false, 2, VERBS_GRH + 18, 0, &off, &len));
	CHECK_EQ_U(off, 2 * VERBS_SLOT + VERBS_GRH);
	CHECK_EQ_U(len, 18);
	CHECK(decode(false, 2, VERBS_GRH, 0, &off, &len));
	CHECK_EQ_U(len, 0); /* the parser then says hdr_trunc */
	CHECK(!decode(false, 2, VERBS_GRH - 1, 0, &off, &len));
	CHECK_EQ_U(rx.stats.bad[PL_BAD_IP_TRUNC], 1);
	CHECK(!decode(false, 2, VERBS_SLOT + 1, 0, &off, &len));
	CHECK_EQ_U(rx.stats.bad[PL_BAD_TOO_LONG], 1);
	CHECK_EQ_U(rx.imm_completions, 0);
	pl_stats_free(&rx.stats);
}

int main(void)
{
	test_write_imm();
	test_ud();
	return CHECK_DONE();
}
