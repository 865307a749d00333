/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the wire format: checksum, builders, the frame parser and
 * every reason it can give, truncation and bit flips, and a quick timing.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "wire.h"

static const struct pl_frame_spec spec0 = {
	.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
	.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
	.src_ip = 0x0a000001, /* 10.0.0.1 */
	.dst_ip = 0x0a000002,
	.src_port = 40000,
	.dst_port = PL_UDP_PORT,
	.vlan_tci = 0x2064, /* PCP 1, VID 100 */
};

/* A plain reference sum of big-endian byte pairs, added to sum. */
static uint32_t ref_sum(uint32_t sum, const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	return sum;
}

/* Fold a reference sum to 16 bits. */
static uint16_t ref_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Sum pseudo-header and UDP datagram after the IPv4 header at ip. */
static uint16_t udp_sum(const uint8_t *ip)
{
	uint8_t pseudo[12] = { 0 };
	size_t ulen = (size_t)(ip[24] << 8 | ip[25]);

	memcpy(pseudo, ip + 12, 8);
	pseudo[9] = 17;
	memcpy(pseudo + 10, ip + 24, 2);
	return ref_fold(ref_sum(ref_sum(0, pseudo, 12), ip + 20, ulen));
}

/* The reference checksum: the complement of the folded sum. */
static uint16_t ref_csum(const uint8_t *b, size_t len)
{
	return (uint16_t)~ref_fold(ref_sum(0, b, len));
}

/* Return a spec, tagged or not. */
static struct pl_frame_spec spec_vlan(bool vlan)
{
	struct pl_frame_spec s = spec0;

	s.vlan = vlan;
	return s;
}

/* Recompute the IPv4 header checksum of a frame after editing it. */
static void reseal_ip(uint8_t *ip)
{
	uint16_t c;

	ip[10] = ip[11] = 0;
	c = pl_csum(ip, 20);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
}

/* pl_csum against RFC 1071's example, odd lengths and a reference sum. */
static void test_csum(void)
{
	static const uint8_t rfc[] = { 0x00, 0x01, 0xf2, 0x03,
				       0xf4, 0xf5, 0xf6, 0xf7 };
	static const uint8_t odd[] = { 0x00, 0x01, 0xf2 };
	static const uint8_t one[] = { 0x01 };
	uint8_t buf[600], *big;
	size_t len, off, i;

	CHECK_EQ_U(pl_csum(rfc, sizeof(rfc)), 0x220d); /* sum 0xddf2 */
	CHECK_EQ_U(pl_csum(odd, sizeof(odd)), 0x0dfe); /* sum 0xf201 */
	CHECK_EQ_U(pl_csum(one, 1), 0xfeff);
	CHECK_EQ_U(pl_csum(rfc, 0), 0xffff);

	srand(1);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand();
	for (off = 0; off < 8; off++)
		for (len = 0; len + off <= sizeof(buf); len += 1 + len / 16)
			CHECK_EQ_U(pl_csum(buf + off, len),
				   ref_csum(buf + off, len));

	/* Many carries: 64 KiB of 0xff sums to 0xffff, checksum 0. */
	big = malloc(65536 + 1);
	CHECK(big != NULL);
	if (!big)
		return;
	memset(big, 0xff, 65537);
	CHECK_EQ_U(pl_csum(big, 65536), 0);
	CHECK_EQ_U(pl_csum(big, 65537), 0x00ff); /* + 0xff00 */
	free(big);
}

/* Names: the stable JSON keys, distinct, "unknown" out of range. */
static void test_names(void)
{
	int i, j;

	CHECK(!strcmp(pl_reason_name(PL_OK), "ok"));
	CHECK(!strcmp(pl_reason_name(PL_OTHER_PORT), "other_port"));
	CHECK(!strcmp(pl_reason_name(PL_BAD_IP_IHL), "ip_ihl"));
	CHECK(!strcmp(pl_reason_name(PL_BAD_CHECK), "check"));
	CHECK(!strcmp(pl_reason_name(PL_REASON_MAX), "unknown"));
	CHECK(!strcmp(pl_reason_name((enum pl_reason)(-1)), "unknown"));
	for (i = 0; i < PL_REASON_MAX; i++) {
		CHECK(strcmp(pl_reason_name(i), "unknown") != 0);
		for (j = 0; j < i; j++)
			CHECK(strcmp(pl_reason_name(i), pl_reason_name(j)));
	}
	CHECK(!pl_reason_is_bad(PL_OTHER_PORT));
	CHECK(pl_reason_is_bad(PL_BAD_ETH_TRUNC));
	CHECK(!pl_reason_is_bad(PL_REASON_MAX));
}

/* Check one good frame of payload n: fields, checksums, pattern. */
static void check_good(const uint8_t *f, size_t len, size_t n, bool vlan,
		       uint32_t seq, uint64_t tx_ns)
{
	size_t l3 = vlan ? 18 : 14, i;
	const uint8_t *pl = f + l3 + 28;
	struct pl_pkt p;

	CHECK_EQ_U(len, pl_frame_for_payload((unsigned)n, vlan) - 4);
	CHECK_EQ_U(pl_parse_frame(f, len, PL_UDP_PORT, &p), PL_OK);
	CHECK_EQ_U(p.seq, seq);
	CHECK_EQ_U(p.tx_ns, tx_ns);
	CHECK_EQ_U(p.flow, 7);
	CHECK_EQ_U(p.flags, 0);
	CHECK_EQ_U(p.vlan, vlan);
	CHECK_EQ_U(p.vlan_tci, vlan ? 0x2064 : 0);
	CHECK_EQ_U(p.l3_off, l3);
	CHECK_EQ_U(p.l4_off, l3 + 20);
	CHECK_EQ_U(p.payload_off, l3 + 28);
	CHECK_EQ_U(p.payload_len, n);
	CHECK_EQ_U(p.src_ip, htonl(0x0a000001));
	CHECK_EQ_U(p.dst_ip, htonl(0x0a000002));
	CHECK_EQ_U(p.src_port, 40000);
	CHECK_EQ_U(p.dst_port, PL_UDP_PORT);
	for (i = PL_HDR_LEN; i < n; i++)
		CHECK_EQ_U(pl[i], (uint8_t)(seq + i));
	/* IPv4 header: checksum, DF, TTL 64, UDP. */
	CHECK_EQ_U(ref_fold(ref_sum(0, f + l3, 20)), 0xffff);
	CHECK_EQ_U(f[l3 + 6], 0x40);
	CHECK_EQ_U(f[l3 + 8], 64);
	/* UDP checksum with the pseudo-header, present and right. */
	CHECK(f[l3 + 26] | f[l3 + 27]);
	CHECK_EQ_U(udp_sum(f + l3), 0xffff);
	for (i = l3 + 28 + n; i < len; i++)
		CHECK_EQ_U(f[i], 0);
}

/* Build and parse every payload size from 18 to 1472, with and without VLAN. */
static void test_roundtrip(void)
{
	static uint8_t f[1600];
	struct pl_frame_spec s;
	uint32_t seq, port;
	size_t n, len;
	int v;

	for (v = 0; v < 2; v++) {
		s = spec_vlan(v);
		for (n = PL_HDR_LEN; n <= 1472; n++) {
			seq = (uint32_t)(n * 2654435761u);
			len = pl_build_frame(f, sizeof(f), &s, n, 7, seq,
					     n * 1000003ull);
			check_good(f, len, n, v, seq, n * 1000003ull);
		}
	}
	/* Sequence and time stamp wrap values; TTL; unaligned frames. */
	s = spec_vlan(false);
	s.ttl = 3;
	len = pl_build_frame(f + 1, sizeof(f) - 1, &s, 100, 7, 0xffffffff,
			     UINT64_MAX);
	CHECK_EQ_U(f[1 + 14 + 8], 3);
	s.ttl = 0;
	len = pl_build_frame(f + 1, sizeof(f) - 1, &s, 100, 7, 0xffffffff,
			     UINT64_MAX);
	check_good(f + 1, len, 100, false, 0xffffffff, UINT64_MAX);
	CHECK_EQ_U(f[1 + 14 + 28 + 18], 0x11); /* pattern wraps: seq + 18 */
	len = pl_build_frame(f, sizeof(f), &s, 18, 7, 0, 0);
	check_good(f, len, 18, false, 0, 0);
	/* Too small a buffer, too short a payload, too long a datagram. */
	CHECK_EQ_U(pl_build_frame(f, 59, &s, 18, 0, 0, 0), 0);
	CHECK_EQ_U(pl_build_frame(f, 141, &s, 100, 0, 0, 0), 0);
	CHECK_EQ_U(pl_build_frame(f, 142, &s, 100, 0, 0, 0), 142);
	CHECK_EQ_U(pl_build_frame(f, sizeof(f), &s, 17, 0, 0, 0), 0);
	CHECK_EQ_U(pl_build_frame(f, SIZE_MAX, &s, 65536 - 28, 0, 0, 0), 0);

	/*
	 * A UDP checksum that computes to 0 is sent as 0xffff, still right.
	 * A payload always sums to 0xffff, ones' complement zero, so only the
	 * addresses, ports and length decide it: search the source port.
	 */
	for (port = 0; port < 65535; port++) {
		s.src_port = (uint16_t)port;
		len = pl_build_frame(f, sizeof(f), &s, 18, 7, 1, 0);
		if (f[40] == 0xff && f[41] == 0xff)
			break;
	}
	CHECK(port < 65535);
	CHECK_EQ_U(udp_sum(f + 14), 0xffff);
}

/* Payload parse: fields, short payloads, flags, a computed check of 0. */
static void test_payload(void)
{
	uint8_t b[2000];
	struct pl_pkt p;
	uint32_t seq;
	size_t n;
	uint16_t c;

	for (n = PL_HDR_LEN; n <= sizeof(b); n += 37) {
		pl_build_payload(b, n, 9, 0x12345678, 42);
		CHECK_EQ_U(pl_parse_payload(b, n, &p), PL_OK);
		CHECK_EQ_U(p.seq, 0x12345678);
		CHECK_EQ_U(p.tx_ns, 42);
		CHECK_EQ_U(p.flow, 9);
		CHECK_EQ_U(p.payload_off, 0);
		CHECK_EQ_U(p.payload_len, n);
		/* The check is the complement of the sum with check = 0. */
		c = (uint16_t)(b[16] << 8 | b[17]);
		b[16] = b[17] = 0;
		CHECK_EQ_U(c, ref_csum(b, n));
	}
	for (n = 0; n < PL_HDR_LEN; n++)
		CHECK_EQ_U(pl_parse_payload(b, n, &p), PL_BAD_HDR_TRUNC);
	/* Too short to build: nothing is written. */
	memset(b, 0xaa, PL_HDR_LEN);
	pl_build_payload(b, PL_HDR_LEN - 1, 1, 2, 3);
	CHECK_EQ_U(b[0], 0xaa);

	/* Flags ride in the high nibble and are covered by the check. */
	pl_build_payload(b, 64, 1, 2, 3);
	b[2] |= PL_FLAG_PING;
	CHECK_EQ_U(pl_parse_payload(b, 64, &p), PL_BAD_CHECK);
	b[16] = b[17] = 0;
	c = pl_csum(b, 64);
	b[16] = (uint8_t)(c >> 8);
	b[17] = (uint8_t)c;
	CHECK_EQ_U(pl_parse_payload(b, 64, &p), PL_OK);
	CHECK_EQ_U(p.flags, PL_FLAG_PING);

	/* Find a payload whose computed check is 0: it goes out as 0xffff. */
	for (seq = 0; seq < (1u << 22); seq++) {
		pl_build_payload(b, PL_HDR_LEN, 0, seq, 0);
		if (b[16] == 0xff && b[17] == 0xff)
			break;
	}
	CHECK(seq < (1u << 22));
	CHECK_EQ_U(pl_parse_payload(b, PL_HDR_LEN, &p), PL_OK);
	CHECK_EQ_U(p.seq, seq);
}

/* pl_build_bad_frame gives exactly the reason asked for, and only those. */
static void test_bad_frames(void)
{
	uint8_t f[128];
	struct pl_frame_spec s;
	struct pl_pkt p;
	size_t len, l3, i;
	int v, r;

	for (v = 0; v < 2; v++) {
		s = spec_vlan(v);
		l3 = v ? 18 : 14;
		for (r = 0; r < PL_REASON_MAX; r++) {
			len = pl_build_bad_frame(f, sizeof(f), &s, r, 5, 6);
			if (!pl_reason_is_bad(r) || r >= PL_REASON_FRAME_MAX) {
				CHECK_EQ_U(len, 0);
				continue;
			}
			CHECK(len > 0);
			CHECK_EQ_U(pl_parse_frame(f, len, PL_UDP_PORT, &p), r);
			CHECK_EQ_U(pl_parse_frame(f, len, 0, &p), r);
			/* IP checksum right unless broken or cut off. */
			if (r >= PL_BAD_IP_VERSION && r != PL_BAD_IP_CSUM)
				CHECK_EQ_U(pl_csum(f + l3, 20), 0);
			/* A full IPv4 header means a frame NICs would send. */
			if (r >= PL_BAD_IP_VERSION)
				CHECK(len >= 60);
			if (r >= PL_BAD_HDR_TRUNC)
				CHECK_EQ_U(p.payload_len,
					   r == PL_BAD_HDR_TRUNC ? 10 : 18);
			/* A socket would get these: UDP checksum right. */
			if (r >= PL_BAD_HDR_TRUNC)
				CHECK_EQ_U(udp_sum(f + l3), 0xffff);
		}
		/* The 10-byte payload is padded with zeros to 60 bytes. */
		len = pl_build_bad_frame(f, sizeof(f), &s, PL_BAD_HDR_TRUNC, 0,
					 0);
		CHECK_EQ_U(len, 60);
		for (i = l3 + 38; i < 60; i++)
			CHECK_EQ_U(f[i], 0);
		CHECK_EQ_U(
			pl_build_bad_frame(f, 10, &s, PL_BAD_ETH_TRUNC, 0, 0),
			10);
		CHECK_EQ_U(pl_build_bad_frame(f, 59, &s, PL_BAD_CHECK, 0, 0),
			   0);
	}
	CHECK_EQ_U(pl_build_bad_frame(f, sizeof(f), &s, PL_REASON_MAX, 0, 0),
		   0);
}

/* The reason a good frame (which has no padding) cut to len bytes gives. */
static enum pl_reason cut_reason(size_t len, bool vlan)
{
	size_t l3 = vlan ? 18 : 14;

	if (len < 14)
		return PL_BAD_ETH_TRUNC;
	if (len < l3)
		return PL_BAD_VLAN_TRUNC;
	if (len < l3 + 20)
		return PL_BAD_IP_TRUNC;
	return PL_BAD_IP_TOTLEN;
}

/* Every truncation of a good frame is bad and is parsed within bounds. */
static void test_truncation(void)
{
	static const size_t sizes[] = { 18, 19, 100, 1472 };
	uint8_t f[1600], *copy;
	struct pl_frame_spec s;
	struct pl_pkt p;
	enum pl_reason r;
	size_t i, len, cut;
	int v;

	for (v = 0; v < 2; v++) {
		s = spec_vlan(v);
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			len = pl_build_frame(f, sizeof(f), &s, sizes[i], 1, 2,
					     3);
			for (cut = 0; cut < len; cut++) {
				/* Exact size, so ASan sees any overread. */
				copy = malloc(cut);
				CHECK(copy != NULL || cut == 0);
				if (cut)
					memcpy(copy, f, cut);
				r = pl_parse_frame(copy, cut, 0, &p);
				CHECK_EQ_U(r, cut_reason(cut, v));
				free(copy);
			}
		}
	}
}

/* Flip each bit of a frame's IPv4 header and payload: never OK. */
static void test_bit_flips(void)
{
	uint8_t f[200];
	struct pl_frame_spec s = spec_vlan(false);
	struct pl_pkt p;
	size_t len, i, po = 14 + 28;
	enum pl_reason r, want;
	int bit;

	len = pl_build_frame(f, sizeof(f), &s, 64, 1, 2, 3);
	for (i = 14; i < po + 64; i++) {
		for (bit = 0; bit < 8; bit++) {
			f[i] ^= (uint8_t)(1 << bit);
			r = pl_parse_frame(f, len, PL_UDP_PORT, &p);
			if (i < 14 + 20) {
				CHECK(r != PL_OK);
			} else if (i >= po) {
				want = PL_BAD_CHECK;
				if (i - po < 2)
					want = PL_BAD_MAGIC;
				else if (i - po == 2 && bit < 4)
					want = PL_BAD_VERSION;
				CHECK_EQ_U(r, want);
				CHECK_EQ_U(pl_parse_payload(f + po, 64, &p),
					   want);
			}
			f[i] ^= (uint8_t)(1 << bit);
		}
	}
	CHECK_EQ_U(pl_parse_frame(f, len, PL_UDP_PORT, &p), PL_OK);
}

/* Frames that are fine but not ours, tags, ports, padding. */
static void test_other(void)
{
	uint8_t f[200];
	struct pl_frame_spec s = spec_vlan(false);
	struct pl_pkt p;
	size_t len;

	len = pl_build_frame(f, sizeof(f), &s, 18, 1, 2, 3);
	f[12] = 0x86, f[13] = 0xdd;
	CHECK_EQ_U(pl_parse_frame(f, len, 0, &p), PL_OTHER_IPV6);
	f[12] = 0x08, f[13] = 0x06; /* ARP */
	CHECK_EQ_U(pl_parse_frame(f, len, 0, &p), PL_OTHER_L2);
	f[13] = 0x00;
	f[14 + 9] = 6; /* TCP */
	reseal_ip(f + 14);
	CHECK_EQ_U(pl_parse_frame(f, len, 0, &p), PL_OTHER_L4);
	CHECK_EQ_U(p.src_ip, htonl(0x0a000001));

	/* Ports: 0 accepts any, another port is "other" with ports filled. */
	len = pl_build_frame(f, sizeof(f), &s, 18, 1, 2, 3);
	CHECK_EQ_U(pl_parse_frame(f, len, 9001, &p), PL_OTHER_PORT);
	CHECK_EQ_U(p.dst_port, PL_UDP_PORT);
	CHECK_EQ_U(pl_parse_frame(f, len, 0, &p), PL_OK);
	s.dst_port = 12345;
	len = pl_build_frame(f, sizeof(f), &s, 18, 1, 2, 3);
	CHECK_EQ_U(pl_parse_frame(f, len, 0, &p), PL_OK);
	CHECK_EQ_U(p.dst_port, 12345);
	CHECK_EQ_U(pl_parse_frame(f, len, PL_UDP_PORT, &p), PL_OTHER_PORT);

	/* Trailing bytes past the IP total length are padding. */
	CHECK_EQ_U(pl_parse_frame(f, len + 20, 0, &p), PL_OK);

	/* An 802.1ad outer tag counts as the one tag; QinQ is not parsed. */
	s = spec_vlan(true);
	len = pl_build_frame(f, sizeof(f), &s, 18, 1, 2, 3);
	f[12] = 0x88, f[13] = 0xa8;
	CHECK_EQ_U(pl_parse_frame(f, len, 0, &p), PL_OK);
	CHECK_EQ_U(p.vlan, 1);
	f[16] = 0x81, f[17] = 0x00;
	CHECK_EQ_U(pl_parse_frame(f, len, 0, &p), PL_OTHER_L2);
	f[16] = 0x86, f[17] = 0xdd;
	CHECK_EQ_U(pl_parse_frame(f, len, 0, &p), PL_OTHER_IPV6);
}

/* Frame and payload size helpers. */
static void test_sizes(void)
{
	unsigned n;

	CHECK_EQ_U(pl_frame_for_payload(18, false), 64);
	CHECK_EQ_U(pl_frame_for_payload(18, true), 68);
	CHECK_EQ_U(pl_frame_for_payload(0, false), 64);
	CHECK_EQ_U(pl_frame_for_payload(1472, false), 1518);
	CHECK_EQ_U(pl_frame_for_payload(1472, true), 1522);
	CHECK_EQ_U(pl_payload_for_frame(64, false), 18);
	CHECK_EQ_U(pl_payload_for_frame(63, false), 0);
	CHECK_EQ_U(pl_payload_for_frame(0, false), 0);
	CHECK_EQ_U(pl_payload_for_frame(64, true), 0);
	CHECK_EQ_U(pl_payload_for_frame(68, true), 18);
	CHECK_EQ_U(pl_payload_for_frame(1518, false), 1472);
	CHECK_EQ_U(pl_payload_for_frame(1522, true), 1472);
	CHECK_EQ_U(pl_payload_for_frame(PL_MAX_FRAME, false), 8972);
	for (n = PL_HDR_LEN; n <= 9000; n++) {
		CHECK_EQ_U(pl_payload_for_frame(pl_frame_for_payload(n, 0), 0),
			   n);
		CHECK_EQ_U(pl_payload_for_frame(pl_frame_for_payload(n, 1), 1),
			   n);
	}
}

/* Return CLOCK_MONOTONIC in ns. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Print how long one parse of a frame with payload n takes (no assert). */
static void time_parse(size_t n, unsigned loops)
{
	static uint8_t f[1600];
	struct pl_frame_spec s = spec_vlan(false);
	struct pl_pkt p;
	uint64_t t0, t;
	unsigned i, ok = 0;
	size_t len;

	len = pl_build_frame(f, sizeof(f), &s, n, 1, 2, 3);
	t0 = now_ns();
	for (i = 0; i < loops; i++)
		ok += pl_parse_frame(f, len, PL_UDP_PORT, &p) == PL_OK;
	t = now_ns() - t0;
	CHECK_EQ_U(ok, loops);
	printf("parse %4zu B frame: %.1f ns\n", len + 4, (double)t / loops);
}

/*
 * pl_frame_reflect: the reply parses as good, with every address and
 * port swapped and the payload (sequence, TX stamp) unchanged; the
 * checksums need no recomputing. With and without a VLAN tag.
 */
static void test_reflect(void)
{
	static uint8_t f[256], orig[256];
	struct pl_frame_spec s;
	struct pl_pkt p, r;
	size_t len;
	int v;

	for (v = 0; v < 2; v++) {
		s = spec_vlan(v);
		len = pl_build_frame(f, sizeof(f), &s, 100, 3, 77, 123456789);
		memcpy(orig, f, len);
		CHECK_EQ_U(pl_parse_frame(f, len, 0, &p), PL_OK);
		pl_frame_reflect(f, &p);
		CHECK_EQ_U(pl_parse_frame(f, len, 0, &r), PL_OK);
		CHECK(!memcmp(f, orig + 6, 6) && !memcmp(f + 6, orig, 6));
		CHECK_EQ_U(r.src_ip, p.dst_ip);
		CHECK_EQ_U(r.dst_ip, p.src_ip);
		CHECK_EQ_U(r.src_port, p.dst_port);
		CHECK_EQ_U(r.dst_port, p.src_port);
		CHECK_EQ_U(r.seq, 77);
		CHECK_EQ_U(r.flow, 3);
		CHECK_EQ_U(r.tx_ns, 123456789);
		CHECK(!memcmp(f + p.payload_off, orig + p.payload_off, 100));
		pl_frame_reflect(f, &r);
		CHECK(!memcmp(f, orig, len)); /* twice: the frame as it was */
	}
}

/*
 * pl_frame_udp_csum: a frame whose UDP checksum is partial (the folded
 * pseudo-header sum that CHECKSUM_PARTIAL leaves for a NIC to finish, as
 * veth hands it over) or zero gets the whole checksum back, the one the
 * builder wrote; a frame that had it keeps it. With and without VLAN.
 */
static void test_udp_csum(void)
{
	static uint8_t f[256], orig[256];
	struct pl_frame_spec s;
	uint8_t pseudo[12] = { 0 }, *ip, *udp;
	struct pl_pkt p;
	uint16_t part;
	size_t len;
	int v;

	for (v = 0; v < 2; v++) {
		s = spec_vlan(v);
		len = pl_build_frame(f, sizeof(f), &s, 101, 1, 5, 42);
		memcpy(orig, f, len);
		CHECK_EQ_U(pl_parse_frame(f, len, 0, &p), PL_OK);
		ip = f + p.l3_off;
		udp = f + p.l4_off;
		memcpy(pseudo, ip + 12, 8);
		pseudo[9] = 17;
		memcpy(pseudo + 10, udp + 4, 2);
		part = ref_fold(ref_sum(0, pseudo, 12));
		udp[6] = (uint8_t)(part >> 8);
		udp[7] = (uint8_t)part;
		CHECK(udp_sum(ip) != 0xffff); /* partial: not valid as is */
		pl_frame_udp_csum(f, &p);
		CHECK(!memcmp(f, orig, len));
		CHECK_EQ_U(udp_sum(ip), 0xffff);
		udp[6] = udp[7] = 0;
		pl_frame_udp_csum(f, &p);
		CHECK(!memcmp(f, orig, len));
		pl_frame_reflect(f, &p);
		pl_frame_udp_csum(f, &p);
		CHECK_EQ_U(udp_sum(ip), 0xffff);
	}
}

int main(void)
{
	test_csum();
	test_names();
	test_roundtrip();
	test_payload();
	test_bad_frames();
	test_truncation();
	test_bit_flips();
	test_other();
	test_sizes();
	test_reflect();
	test_udp_csum();
	time_parse(18, 2000000);
	time_parse(978, 500000);
	return CHECK_DONE();
}
