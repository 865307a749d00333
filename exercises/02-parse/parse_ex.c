/* SPDX-License-Identifier: MIT */
/*
 * Exercise 2: a bounds-checked Ethernet / IPv4 / UDP parser.
 *
 * Every path runs these same checks on every frame: common/wire.c for the
 * socket, AF_XDP and DPDK receivers, af-xdp/pathlab.bpf.c inside the
 * kernel (where the verifier refuses a program that might read past the
 * end), gpudirect/consumer.h on the GPU. A frame comes off the wire: any
 * length field in it may lie. Check before you read, and return the
 * reason code of common/wire.h for the first thing that is wrong.
 *
 * Fill in the "Exercise 2.N" marks. pl_csum() (common/wire.h) sums bytes.
 */
#include "parse_ex.h"

#include <netinet/in.h>
#include <string.h>

#define ET_IPV4	  0x0800
#define ET_IPV6	  0x86dd
#define ET_8021Q  0x8100
#define ET_8021AD 0x88a8
#define IP_MF	  0x2000
#define IP_OFFSET 0x1fff

/* Read a big-endian 16-bit field. */
static uint16_t get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

/* Check the pathlab payload (given: common/wire.c does it) into *p. */
static enum pl_reason parse_payload(const uint8_t *b, size_t len,
				    struct pl_pkt *p)
{
	struct pl_pkt q;
	enum pl_reason r = pl_parse_payload(b, len, &q);

	p->payload_len = q.payload_len;
	p->flags = q.flags;
	p->flow = q.flow;
	p->seq = q.seq;
	p->tx_ns = q.tx_ns;
	return r;
}

/* Check the UDP header at f + p->l4_off, room bytes of IP payload. */
static enum pl_reason parse_udp(const uint8_t *f, size_t room,
				uint16_t dst_port, struct pl_pkt *p)
{
	const uint8_t *udp = f + p->l4_off;
	size_t ulen = 0;

	/*
	 * Exercise 2.3: the UDP header must fit in room (PL_BAD_UDP_TRUNC).
	 * Its length field (udp + 4) counts header and payload: less than a
	 * header, or more than room, is PL_BAD_UDP_LEN. Then set
	 * p->src_port and p->dst_port (host order) and return PL_OTHER_PORT
	 * when dst_port is not 0 and the datagram goes to another port.
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
	size_t ihl = PL_IP4_LEN, tot = room;

	/*
	 * Exercise 2.2: in this order, return
	 *   PL_BAD_IP_TRUNC   when room cannot hold a minimal header,
	 *   PL_BAD_IP_VERSION when the version nibble is not 4,
	 *   PL_BAD_IP_IHL     when the header length (IHL * 4 bytes) is
	 *                     below 20 or beyond room,
	 *   PL_BAD_IP_TOTLEN  when the total length is below the header
	 *                     length or beyond room (bytes after it are
	 *                     padding, not an error),
	 *   PL_BAD_IP_CSUM    when pl_csum() over the header is not 0,
	 *   PL_BAD_IP_FRAG    for a fragment (MF set or an offset).
	 * Set ihl and tot from the header on the way.
	 */

	memcpy(&p->src_ip, ip + 12, sizeof(p->src_ip));
	memcpy(&p->dst_ip, ip + 16, sizeof(p->dst_ip));
	if (ip[9] != IPPROTO_UDP)
		return PL_OTHER_L4;
	p->l4_off = (uint16_t)(p->l3_off + ihl);
	return parse_udp(f, tot - ihl, dst_port, p);
}

/* Parse a whole frame; see parse_ex.h. */
enum pl_reason ex_parse_frame(const void *buf, size_t len, uint16_t dst_port,
			      struct pl_pkt *p)
{
	const uint8_t *f = buf;
	uint16_t type;

	memset(p, 0, sizeof(*p));
	/*
	 * Exercise 2.1: a frame shorter than an Ethernet header is
	 * PL_BAD_ETH_TRUNC: check that before reading the EtherType below.
	 */
	p->l3_off = PL_ETH_LEN;
	type = get16(f + 12);
	/*
	 * Exercise 2.1 (continued): an 802.1Q or 802.1ad tag (one tag only)
	 * must fit (PL_BAD_VLAN_TRUNC); record it in p->vlan and p->vlan_tci,
	 * read the EtherType after it, and move p->l3_off past it.
	 */
	if (type == ET_IPV6)
		return PL_OTHER_IPV6;
	if (type != ET_IPV4)
		return PL_OTHER_L2;
	return parse_ipv4(f, len, dst_port, p);
}
