/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the wire format. Each input is parsed as a frame
 * (any port and port 9000) and as a bare payload, then again with its
 * checksums repaired so the fuzzer gets past them. It is also the recipe
 * for a frame to build and parse back, and a mask laid over a good frame.
 * Any broken invariant aborts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: invariant failed: %s\n",       \
				__FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

/* Read a big-endian 16-bit field. */
static uint16_t get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

/* Store a checksum (computed 0 as 0xffff) in a big-endian field. */
static void put_csum(uint8_t *b, uint16_t c, bool zero_is_ffff)
{
	if (!c && zero_is_ffff)
		c = 0xffff;
	b[0] = (uint8_t)(c >> 8);
	b[1] = (uint8_t)c;
}

/* Rebuild a payload from what was parsed and check it parses the same. */
static void check_rebuild(const uint8_t *b, const struct pl_pkt *p)
{
	uint8_t *r = malloc(p->payload_len);
	struct pl_pkt q;

	FUZZ_CHECK(r != NULL);
	pl_build_payload(r, p->payload_len, p->flow, p->seq, p->tx_ns);
	FUZZ_CHECK(pl_parse_payload(r, p->payload_len, &q) == PL_OK);
	FUZZ_CHECK(q.seq == p->seq && q.tx_ns == p->tx_ns);
	FUZZ_CHECK(q.flow == p->flow && q.flags == 0);
	FUZZ_CHECK(q.payload_len == p->payload_len);
	/* Same header bytes but ver/flags and check; pattern may differ. */
	FUZZ_CHECK(!memcmp(r, b, 2) && !memcmp(r + 3, b + 3, 13));
	free(r);
}

/* Parse b as a payload and check what the parser claims. */
static void check_payload(const uint8_t *b, size_t size)
{
	struct pl_pkt p;
	enum pl_reason r = pl_parse_payload(b, size, &p);

	FUZZ_CHECK((unsigned)r < PL_REASON_MAX);
	if (r != PL_OK)
		return;
	FUZZ_CHECK(size >= PL_HDR_LEN && p.payload_len == size);
	FUZZ_CHECK(p.payload_off == 0 && p.flags == (b[2] & 0xf0));
	check_rebuild(b, &p);
}

/* Parse b as a frame with both port filters and check what it claims. */
static void check_frame(const uint8_t *b, size_t size)
{
	struct pl_pkt p, q;
	enum pl_reason any = pl_parse_frame(b, size, 0, &p);
	enum pl_reason r = pl_parse_frame(b, size, PL_UDP_PORT, &q);

	FUZZ_CHECK((unsigned)any < PL_REASON_MAX && any != PL_OTHER_PORT);
	/* The port filter comes after UDP and before the payload checks. */
	if (any == PL_OK || any >= PL_BAD_HDR_TRUNC)
		FUZZ_CHECK(r == any || r == PL_OTHER_PORT);
	else
		FUZZ_CHECK(r == any);
	if (any != PL_OK)
		return;
	FUZZ_CHECK(p.l3_off == (p.vlan ? 18 : 14));
	FUZZ_CHECK(p.l4_off >= p.l3_off + PL_IP4_LEN);
	FUZZ_CHECK(p.payload_off == p.l4_off + PL_UDP_LEN);
	FUZZ_CHECK(p.payload_len >= PL_HDR_LEN);
	FUZZ_CHECK((size_t)p.payload_off + p.payload_len <= size);
	FUZZ_CHECK(r == PL_OTHER_PORT || p.dst_port == PL_UDP_PORT);
	if (r == PL_OK)
		FUZZ_CHECK(q.seq == p.seq && q.payload_off == p.payload_off &&
			   q.payload_len == p.payload_len);
	/* The payload parser agrees on the same bytes. */
	FUZZ_CHECK(pl_parse_payload(b + p.payload_off, p.payload_len, &q) ==
		   PL_OK);
	FUZZ_CHECK(q.seq == p.seq && q.tx_ns == p.tx_ns && q.flow == p.flow);
	check_rebuild(b + p.payload_off, &p);
}

/*
 * Repair the IPv4 header checksum and the pathlab check of a frame, where
 * its layout allows, so that mutations reach the deeper checks.
 */
static void fix_sums(uint8_t *b, size_t size)
{
	size_t l3 = 14, ihl, l4, ulen;

	if (size >= 18 && (get16(b + 12) == 0x8100 || get16(b + 12) == 0x88a8))
		l3 = 18;
	if (size < l3 + PL_IP4_LEN)
		return;
	ihl = (b[l3] & 0x0fu) * 4;
	if (ihl < PL_IP4_LEN || l3 + ihl > size)
		return;
	put_csum(b + l3 + 10, 0, false);
	put_csum(b + l3 + 10, pl_csum(b + l3, ihl), false);
	l4 = l3 + ihl;
	if (size < l4 + PL_UDP_LEN)
		return;
	ulen = get16(b + l4 + 4);
	if (ulen < PL_UDP_LEN + PL_HDR_LEN || l4 + ulen > size)
		return;
	put_csum(b + l4 + 24, 0, false);
	put_csum(b + l4 + 24, pl_csum(b + l4 + 8, ulen - 8), true);
}

/* Build a frame from a recipe in the input and check it parses back. */
static void check_build(const uint8_t *d)
{
	struct pl_frame_spec s = { .ttl = d[0] };
	size_t n = PL_HDR_LEN + get16(d + 1) % 1500, len;
	uint8_t big[1600], *f;
	struct pl_pkt p;

	memcpy(s.src_mac, d + 3, 6);
	memcpy(s.dst_mac, d + 9, 6);
	memcpy(&s.src_ip, d + 15, 4);
	s.dst_port = get16(d + 19);
	s.vlan = d[21] & 1;
	s.vlan_tci = get16(d + 22);
	len = pl_build_frame(big, sizeof(big), &s, n, d[2], 0xfffffff0u + d[1],
			     (uint64_t)d[0] << 56);
	FUZZ_CHECK(len == pl_frame_for_payload((unsigned)n, s.vlan) - 4);
	f = malloc(len);
	FUZZ_CHECK(f != NULL);
	memcpy(f, big, len);
	FUZZ_CHECK(pl_parse_frame(f, len, s.dst_port, &p) == PL_OK);
	FUZZ_CHECK(p.payload_len == n && p.flow == d[2]);
	FUZZ_CHECK(p.seq == 0xfffffff0u + d[1]);
	FUZZ_CHECK(p.vlan == s.vlan && p.vlan_tci == (s.vlan ? s.vlan_tci : 0));
	FUZZ_CHECK(p.dst_port == s.dst_port);
	/* The IPs come back in network order: the bytes of the frame. */
	FUZZ_CHECK(!memcmp(&p.src_ip, f + p.l3_off + 12, 4));
	FUZZ_CHECK(get16(f + p.l3_off + 12) == s.src_ip >> 16);
	free(f);
}

/* Check len bytes at src, copied to an exact-size buffer for ASan's sake. */
static void check_bytes(const uint8_t *src, size_t len, bool fix)
{
	uint8_t *b = malloc(len);

	FUZZ_CHECK(b != NULL || len == 0);
	if (len)
		memcpy(b, src, len);
	if (fix)
		fix_sums(b, len);
	check_frame(b, len);
	check_payload(b, len);
	free(b);
}

/*
 * Lay the input over a good frame (XOR from offset d[1]) and cut or extend
 * it to d[3] bytes (0: as built), so that mutations start from valid frames.
 */
static void check_overlay(const uint8_t *d, size_t size)
{
	struct pl_frame_spec s = { .dst_port = PL_UDP_PORT, .vlan = d[0] & 1 };
	uint8_t f[256] = { 0 };
	size_t len, i, at = d[1];

	len = pl_build_frame(f, sizeof(f), &s, PL_HDR_LEN + d[2] % 64, 1, 2, 3);
	for (i = 4; i < size && at < sizeof(f); i++, at++)
		f[at] ^= d[i];
	check_bytes(f, d[3] ? d[3] : len, d[0] & 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_bytes(data, size, false);
	check_bytes(data, size, true);
	if (size >= 24)
		check_build(data);
	if (size >= 4)
		check_overlay(data, size);
	return 0;
}
