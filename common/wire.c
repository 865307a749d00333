/* SPDX-License-Identifier: MIT */
/*
 * The pathlab wire format: the frame parser every path calls, the Internet
 * checksum, and the builders the generator and the tests use.
 *
 * Header fields are read and written a byte at a time in network order, so
 * the code never cares how a frame is aligned in memory or what byte order
 * the host uses. Only the checksum loads whole words, through memcpy.
 */
#include <arpa/inet.h>
#include <string.h>

#include "wire.h"

#define ET_IPV4	  0x0800
#define ET_IPV6	  0x86dd
#define ET_8021Q  0x8100
#define ET_8021AD 0x88a8
#define IP_DF	  0x4000
#define IP_MF	  0x2000
#define IP_OFFSET 0x1fff

static const char *const reason_names[PL_REASON_MAX] = {
	[PL_OK] = "ok",
	[PL_OTHER_L2] = "other_l2",
	[PL_OTHER_IPV6] = "other_ipv6",
	[PL_OTHER_L4] = "other_l4",
	[PL_OTHER_PORT] = "other_port",
	[PL_BAD_ETH_TRUNC] = "eth_trunc",
	[PL_BAD_VLAN_TRUNC] = "vlan_trunc",
	[PL_BAD_IP_TRUNC] = "ip_trunc",
	[PL_BAD_IP_VERSION] = "ip_version",
	[PL_BAD_IP_IHL] = "ip_ihl",
	[PL_BAD_IP_TOTLEN] = "ip_totlen",
	[PL_BAD_IP_CSUM] = "ip_csum",
	[PL_BAD_IP_FRAG] = "ip_frag",
	[PL_BAD_UDP_TRUNC] = "udp_trunc",
	[PL_BAD_UDP_LEN] = "udp_len",
	[PL_BAD_HDR_TRUNC] = "hdr_trunc",
	[PL_BAD_MAGIC] = "magic",
	[PL_BAD_VERSION] = "version",
	[PL_BAD_CHECK] = "check",
	[PL_BAD_TOO_LONG] = "too_long",
};

/* Return the name of a reason, or "unknown" (never NULL) when out of range. */
const char *pl_reason_name(enum pl_reason r)
{
	if ((unsigned)r >= PL_REASON_MAX || !reason_names[r])
		return "unknown";
	return reason_names[r];
}

/* Read a big-endian 16-bit field. */
static uint16_t get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

/* Read a big-endian 32-bit field. */
static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)get16(b) << 16 | get16(b + 2);
}

/* Read a big-endian 64-bit field. */
static uint64_t get64(const uint8_t *b)
{
	return (uint64_t)get32(b) << 32 | get32(b + 4);
}

/* Write a big-endian 16-bit field. */
static void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* Write a big-endian 32-bit field. */
static void put32(uint8_t *b, uint32_t v)
{
	put16(b, (uint16_t)(v >> 16));
	put16(b + 2, (uint16_t)v);
}

/* Write a big-endian 64-bit field. */
static void put64(uint8_t *b, uint64_t v)
{
	put32(b, (uint32_t)(v >> 32));
	put32(b + 4, (uint32_t)v);
}

/*
 * Add len bytes to a running checksum sum. Ones' complement addition does
 * not care about word size or byte order as long as the carries are folded
 * back in at the end (RFC 1071, section 2), so this loads 8 bytes at a time
 * in host order, adds them as two 32-bit words into 64 bits (no carry is
 * lost before 2^32 words), and csum_fold() swaps once. Only the last buffer
 * of a sum may have an odd length.
 */
static uint64_t csum_add(uint64_t sum, const uint8_t *b, size_t len)
{
	uint64_t w64;
	uint32_t w32;
	uint16_t w16;

	for (; len >= 8; b += 8, len -= 8) {
		memcpy(&w64, b, sizeof(w64)); /* b need not be aligned */
		sum += (uint32_t)w64;
		sum += w64 >> 32;
	}
	if (len >= 4) {
		memcpy(&w32, b, sizeof(w32));
		sum += w32;
		b += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&w16, b, sizeof(w16));
		sum += w16;
		b += 2;
		len -= 2;
	}
	if (len) {
		/* An odd last byte is the high half of a zero-padded word. */
		uint8_t pad[2] = { b[0], 0 };

		memcpy(&w16, pad, sizeof(w16));
		sum += w16;
	}
	return sum;
}

/* Fold a running sum to 16 bits, as a host-order number, not complemented. */
static uint16_t csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ntohs((uint16_t)sum);
}

/* Return the RFC 1071 checksum of len bytes: 0 when they sum to 0xffff. */
uint16_t pl_csum(const void *buf, size_t len)
{
	return (uint16_t)~csum_fold(csum_add(0, buf, len));
}

/* Check the pathlab payload of len bytes at b and fill its fields in *p. */
static enum pl_reason parse_payload(const uint8_t *b, size_t len,
				    struct pl_pkt *p)
{
	p->payload_len = (uint16_t)len;
	if (len < PL_HDR_LEN)
		return PL_BAD_HDR_TRUNC;
	if (get16(b) != PL_MAGIC)
		return PL_BAD_MAGIC;
	if (PL_VER(b[2]) != PL_VERSION)
		return PL_BAD_VERSION;
	/*
	 * The check field as stored completes the sum of an intact payload to
	 * 0xffff, so pl_csum() is 0. The 0xffff a sender puts in place of a
	 * computed 0 is the other ones' complement zero and sums the same way.
	 */
	if (pl_csum(b, len) != 0)
		return PL_BAD_CHECK;
	p->flags = b[2] & 0xf0;
	p->flow = b[3];
	p->seq = get32(b + 4);
	p->tx_ns = get64(b + 8);
	return PL_OK;
}

/* Parse the pathlab payload a socket handed over. */
enum pl_reason pl_parse_payload(const void *buf, size_t len, struct pl_pkt *p)
{
	memset(p, 0, sizeof(*p));
	/* No UDP datagram is this large, and payload_len could not hold it. */
	if (len > UINT16_MAX)
		return PL_BAD_UDP_LEN;
	return parse_payload(buf, len, p);
}

/* 8< wire-parse */
/* Check the UDP header at f + p->l4_off, room bytes of IP payload. */
static enum pl_reason parse_udp(const uint8_t *f, size_t room,
				uint16_t dst_port, struct pl_pkt *p)
{
	const uint8_t *udp = f + p->l4_off;
	size_t ulen;

	if (room < PL_UDP_LEN)
		return PL_BAD_UDP_TRUNC;
	/* A UDP length short of the IP payload is fine: the rest is junk. */
	ulen = get16(udp + 4);
	if (ulen < PL_UDP_LEN || ulen > room)
		return PL_BAD_UDP_LEN;
	p->src_port = get16(udp);
	p->dst_port = get16(udp + 2);
	if (dst_port && p->dst_port != dst_port)
		return PL_OTHER_PORT;
	/*
	 * The UDP checksum (udp + 6) is not verified: that is the job of the
	 * NIC or the kernel, and over IPv4 it may be 0 for "none". The pathlab
	 * check covers the payload end to end anyway.
	 */
	p->payload_off = (uint16_t)(p->l4_off + PL_UDP_LEN);
	return parse_payload(udp + PL_UDP_LEN, ulen - PL_UDP_LEN, p);
}

/* Check the IPv4 header at f + p->l3_off in a frame of len bytes. */
static enum pl_reason parse_ipv4(const uint8_t *f, size_t len,
				 uint16_t dst_port, struct pl_pkt *p)
{
	const uint8_t *ip = f + p->l3_off;
	size_t room = len - p->l3_off;
	size_t ihl, tot;

	if (room < PL_IP4_LEN)
		return PL_BAD_IP_TRUNC;
	if (ip[0] >> 4 != 4)
		return PL_BAD_IP_VERSION;
	ihl = (ip[0] & 0x0fu) * 4;
	if (ihl < PL_IP4_LEN || ihl > room)
		return PL_BAD_IP_IHL;
	/* The total length is authoritative: bytes after it are padding. */
	tot = get16(ip + 2);
	if (tot < ihl || tot > room)
		return PL_BAD_IP_TOTLEN;
	if (pl_csum(ip, ihl) != 0)
		return PL_BAD_IP_CSUM;
	/* Simplification: no reassembly, a fragment is simply bad. */
	if (get16(ip + 6) & (IP_MF | IP_OFFSET))
		return PL_BAD_IP_FRAG;
	memcpy(&p->src_ip, ip + 12, sizeof(p->src_ip));
	memcpy(&p->dst_ip, ip + 16, sizeof(p->dst_ip));
	if (ip[9] != IPPROTO_UDP)
		return PL_OTHER_L4;
	p->l4_off = (uint16_t)(p->l3_off + ihl);
	return parse_udp(f, tot - ihl, dst_port, p);
}

/*
 * Parse a whole frame. On failure *p keeps what was parsed before the
 * problem (offsets, VLAN, addresses, ports), which helps when debugging.
 */
enum pl_reason pl_parse_frame(const void *buf, size_t len, uint16_t dst_port,
			      struct pl_pkt *p)
{
	const uint8_t *f = buf;
	uint16_t type;

	memset(p, 0, sizeof(*p));
	if (len < PL_ETH_LEN)
		return PL_BAD_ETH_TRUNC;
	p->l3_off = PL_ETH_LEN;
	type = get16(f + 12);
	/* Simplification: one tag only; QinQ's inner 0x8100 is other_l2. */
	if (type == ET_8021Q || type == ET_8021AD) {
		if (len < PL_ETH_LEN + PL_VLAN_LEN)
			return PL_BAD_VLAN_TRUNC;
		p->vlan = true;
		p->vlan_tci = get16(f + 14);
		type = get16(f + 16);
		p->l3_off += PL_VLAN_LEN;
	}
	if (type == ET_IPV6)
		return PL_OTHER_IPV6;
	if (type != ET_IPV4)
		return PL_OTHER_L2;
	return parse_ipv4(f, len, dst_port, p);
}
/* >8 wire-parse */

/* Zero the check field of a payload, compute it and store it. */
static void seal_payload(uint8_t *b, size_t len)
{
	uint16_t c;

	put16(b + 16, 0);
	c = pl_csum(b, len);
	/* As in UDP, a computed 0 goes out as its twin 0xffff. */
	put16(b + 16, c ? c : 0xffff);
}

void pl_payload_reseal(void *buf, size_t len)
{
	if (len >= PL_HDR_LEN)
		seal_payload(buf, len);
}

/* Write header, pattern and check of a payload of len bytes. */
void pl_build_payload(void *buf, size_t len, uint8_t flow, uint32_t seq,
		      uint64_t tx_ns)
{
	uint8_t *b = buf;
	size_t i;

	if (len < PL_HDR_LEN) /* a caller's bug: better than an overflow */
		return;
	put16(b, PL_MAGIC);
	b[2] = PL_VERSION;
	b[3] = flow;
	put32(b + 4, seq);
	put64(b + 8, tx_ns);
	for (i = PL_HDR_LEN; i < len; i++)
		b[i] = (uint8_t)(seq + i);
	seal_payload(b, len);
}

/* Zero the IPv4 header checksum at ip, compute it and store it. */
static void seal_ip(uint8_t *ip)
{
	put16(ip + 10, 0);
	put16(ip + 10, pl_csum(ip, PL_IP4_LEN));
}

/*
 * Compute and store the checksum of the UDP datagram at udp, whose IPv4
 * source and destination addresses (8 bytes) are at addrs.
 */
static void udp_seal(const uint8_t *addrs, uint8_t *udp)
{
	uint8_t pseudo[12];
	uint16_t c;

	memcpy(pseudo, addrs, 8); /* source and destination address */
	pseudo[8] = 0;
	pseudo[9] = IPPROTO_UDP;
	memcpy(pseudo + 10, udp + 4, 2); /* UDP length */
	put16(udp + 6, 0);
	c = (uint16_t)~csum_fold(csum_add(csum_add(0, pseudo, sizeof(pseudo)),
					  udp, get16(udp + 4)));
	/* 0 means "no checksum" in UDP, so a computed 0 is sent as 0xffff. */
	put16(udp + 6, c ? c : 0xffff);
}

/* Compute and store the UDP checksum of the datagram after ip. */
static void seal_udp(uint8_t *ip)
{
	udp_seal(ip + 12, ip + PL_IP4_LEN);
}

/* Return where the IPv4 header of a frame built from spec starts. */
static size_t l3_off(const struct pl_frame_spec *s)
{
	return PL_ETH_LEN + (s->vlan ? PL_VLAN_LEN : 0);
}

/* Write all headers for a UDP payload of n bytes, UDP checksum left 0. */
static uint8_t *put_headers(uint8_t *f, const struct pl_frame_spec *s, size_t n)
{
	uint8_t *ip = f + l3_off(s);
	uint8_t *udp = ip + PL_IP4_LEN;

	memcpy(f, s->dst_mac, 6);
	memcpy(f + 6, s->src_mac, 6);
	if (s->vlan) {
		put16(f + 12, ET_8021Q);
		put16(f + 14, s->vlan_tci);
	}
	put16(ip - 2, ET_IPV4);
	ip[0] = 0x45; /* version 4, IHL 5: no options */
	ip[1] = 0;
	put16(ip + 2, (uint16_t)(PL_IP4_LEN + PL_UDP_LEN + n));
	put16(ip + 4, 0); /* id: DF is set, so it never gets fragmented */
	put16(ip + 6, IP_DF);
	ip[8] = s->ttl ? s->ttl : 64;
	ip[9] = IPPROTO_UDP;
	put32(ip + 12, s->src_ip);
	put32(ip + 16, s->dst_ip);
	seal_ip(ip);
	put16(udp, s->src_port);
	put16(udp + 2, s->dst_port);
	put16(udp + 4, (uint16_t)(PL_UDP_LEN + n));
	put16(udp + 6, 0);
	return udp + PL_UDP_LEN;
}

/* Return the frame length (no FCS) for a payload of n bytes, padded. */
static size_t frame_len(const struct pl_frame_spec *s, size_t n)
{
	size_t len = l3_off(s) + PL_IP4_LEN + PL_UDP_LEN + n;
	size_t min = PL_MIN_FRAME - PL_FCS_LEN;

	return len < min ? min : len;
}

/* Build a good frame; see wire.h. */
size_t pl_build_frame(void *buf, size_t cap, const struct pl_frame_spec *spec,
		      size_t payload_len, uint8_t flow, uint32_t seq,
		      uint64_t tx_ns)
{
	uint8_t *pl;
	size_t len = frame_len(spec, payload_len);

	if (payload_len < PL_HDR_LEN ||
	    payload_len > UINT16_MAX - PL_IP4_LEN - PL_UDP_LEN || len > cap)
		return 0;
	/*
	 * A whole pathlab header makes the smallest frame exactly 60 bytes, so
	 * a good frame needs no padding; frame_len() pads the hdr_trunc one.
	 */
	pl = put_headers(buf, spec, payload_len);
	pl_build_payload(pl, payload_len, flow, seq, tx_ns);
	seal_udp((uint8_t *)buf + l3_off(spec));
	return len;
}

/*
 * Break an IPv4 or UDP header of the frame f of *len bytes as why says.
 * What a Linux receiver does with each, as far as we know (the netns tests
 * measure it): ip_trunc, ip_version and ip_ihl count in Ip InHdrErrors,
 * ip_csum in Ip InCsumErrors and InHdrErrors, ip_totlen in Ip
 * InTruncatedPkts, ip_frag waits in reassembly (Ip ReasmReqds, later
 * ReasmTimeout and ReasmFails), udp_trunc and udp_len count in Udp InErrors.
 * Returns false for a reason that is not about these headers.
 */
static bool break_headers(uint8_t *f, size_t *len, size_t l3,
			  enum pl_reason why)
{
	uint8_t *ip = f + l3;

	switch (why) {
	case PL_BAD_IP_TRUNC:
		*len = l3 + 10;
		return true;
	case PL_BAD_IP_CSUM:
		ip[11] ^= 0x01; /* off by one: only 0 <-> 0xffff would pass */
		return true;
	case PL_BAD_IP_VERSION:
		ip[0] = 0x65;
		break;
	case PL_BAD_IP_IHL:
		ip[0] = 0x44;
		break;
	case PL_BAD_IP_TOTLEN:
		put16(ip + 2, (uint16_t)(*len - l3 + 1));
		break;
	case PL_BAD_IP_FRAG:
		put16(ip + 6, IP_MF);
		break;
	case PL_BAD_UDP_TRUNC:
		put16(ip + 2, PL_IP4_LEN + 4);
		break;
	case PL_BAD_UDP_LEN:
		/* The UDP checksum goes stale; the length fails first. */
		put16(ip + PL_IP4_LEN + 4, 4);
		break;
	default:
		return false;
	}
	seal_ip(ip);
	return true;
}

/*
 * Break the pathlab payload pl of the frame f as why says, keeping both IP
 * and UDP checksums right: a kernel delivers these to the socket, and only
 * the pathlab parser can tell. Returns false for any other reason.
 */
static bool break_payload(uint8_t *f, size_t *len,
			  const struct pl_frame_spec *s, enum pl_reason why,
			  uint32_t seq, uint64_t tx_ns)
{
	uint8_t *ip = f + l3_off(s);
	uint8_t *pl = ip + PL_IP4_LEN + PL_UDP_LEN;
	uint8_t good[PL_HDR_LEN];

	switch (why) {
	case PL_BAD_HDR_TRUNC:
		/* The first 10 bytes of a good header, padded to 60. */
		pl_build_payload(good, sizeof(good), 0, seq, tx_ns);
		memset(f, 0, *len);
		put_headers(f, s, 10);
		memcpy(pl, good, 10);
		*len = frame_len(s, 10);
		break;
	case PL_BAD_MAGIC:
		pl[0] ^= 0xff;
		seal_payload(pl, PL_HDR_LEN);
		break;
	case PL_BAD_VERSION:
		pl[2] = PL_VERSION + 1;
		seal_payload(pl, PL_HDR_LEN);
		break;
	case PL_BAD_CHECK:
		pl[8] ^= 0x01; /* one bit of tx_ns, check left alone */
		break;
	default:
		return false;
	}
	seal_udp(ip);
	return true;
}

/*
 * Build a frame malformed in exactly the way why names; see wire.h. The
 * truncated ones are shorter than the 60 bytes a NIC pads a frame to, so only
 * a link that does not pad (veth, AF_XDP) delivers them as built; padded,
 * eth_trunc and vlan_trunc read as other_l2 and ip_trunc as ip_csum. As far
 * as we know AF_PACKET refuses to send eth_trunc's 10 bytes at all.
 */
size_t pl_build_bad_frame(void *buf, size_t cap,
			  const struct pl_frame_spec *spec, enum pl_reason why,
			  uint32_t seq, uint64_t tx_ns)
{
	uint8_t f[PL_MIN_FRAME + PL_VLAN_LEN];
	size_t len =
		pl_build_frame(f, sizeof(f), spec, PL_HDR_LEN, 0, seq, tx_ns);

	switch (why) {
	case PL_BAD_ETH_TRUNC:
		len = 10;
		break;
	case PL_BAD_VLAN_TRUNC:
		put16(f + 12, ET_8021Q);
		len = PL_ETH_LEN + 2;
		break;
	default:
		if (!break_headers(f, &len, l3_off(spec), why) &&
		    !break_payload(f, &len, spec, why, seq, tx_ns))
			return 0;
	}
	if (len > cap)
		return 0;
	memcpy(buf, f, len);
	return len;
}

/* Return the frame size on the wire (with FCS) for a UDP payload. */
unsigned pl_frame_for_payload(unsigned payload, bool vlan)
{
	unsigned frame = payload + PL_FRAME_OVERHEAD + (vlan ? PL_VLAN_LEN : 0);

	return frame < PL_MIN_FRAME ? PL_MIN_FRAME : frame;
}

/*
 * Return the UDP payload of a frame size (with FCS), or 0 when the frame is
 * below the minimum or too small to carry a whole pathlab header (a 64-byte
 * VLAN frame: the smallest tagged pathlab frame is 68 bytes).
 */
unsigned pl_payload_for_frame(unsigned frame, bool vlan)
{
	unsigned over = PL_FRAME_OVERHEAD + (vlan ? PL_VLAN_LEN : 0);

	if (frame < PL_MIN_FRAME || frame < over + PL_HDR_LEN)
		return 0;
	return frame - over;
}

/* Swap two fields of n bytes (n <= 6), which need not be aligned. */
static void swap_bytes(uint8_t *a, uint8_t *b, size_t n)
{
	uint8_t t[6];

	memcpy(t, a, n);
	memcpy(a, b, n);
	memcpy(b, t, n);
}

/* 8< frame-reflect */
void pl_frame_reflect(void *frame, const struct pl_pkt *p)
{
	uint8_t *f = frame;

	swap_bytes(f, f + 6, 6);			       /* MACs */
	swap_bytes(f + p->l3_off + 12, f + p->l3_off + 16, 4); /* IPv4 */
	swap_bytes(f + p->l4_off, f + p->l4_off + 2, 2);       /* UDP ports */
}
/* >8 frame-reflect */

/* 8< frame-udp-csum */
void pl_frame_udp_csum(void *frame, const struct pl_pkt *p)
{
	uint8_t *f = frame;

	udp_seal(f + p->l3_off + 12, f + p->l4_off);
}
/* >8 frame-udp-csum */
