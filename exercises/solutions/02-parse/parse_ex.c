/* SPDX-License-Identifier: MIT */
/*
 * Exercise 2: a bounds-checked Ethernet / IPv4 / UDP parser. Reference
 * solution: the checks of common/wire.c.
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

	/* Exercise 2.3 */
	if (room < PL_UDP_LEN)
		return PL_BAD_UDP_TRUNC;
	ulen = get16(udp + 4);
	if (ulen < PL_UDP_LEN || ulen > room)
		return PL_BAD_UDP_LEN;
	p->src_port = get16(udp);
	p->dst_port = get16(udp + 2);
	if (dst_port && p->dst_port != dst_port)
		return PL_OTHER_PORT;

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

	/* Exercise 2.2 */
	if (room < PL_IP4_LEN)
		return PL_BAD_IP_TRUNC;
	if (ip[0] >> 4 != 4)
		return PL_BAD_IP_VERSION;
	ihl = (ip[0] & 0x0fu) * 4;
	if (ihl < PL_IP4_LEN || ihl > room)
		return PL_BAD_IP_IHL;
	tot = get16(ip + 2);
	if (tot < ihl || tot > room)
		return PL_BAD_IP_TOTLEN;
	if (pl_csum(ip, ihl) != 0)
		return PL_BAD_IP_CSUM;
	if (get16(ip + 6) & (IP_MF | IP_OFFSET))
		return PL_BAD_IP_FRAG;

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
	/* Exercise 2.1 */
	if (len < PL_ETH_LEN)
		return PL_BAD_ETH_TRUNC;
	p->l3_off = PL_ETH_LEN;
	type = get16(f + 12);
	/* Exercise 2.1 (continued) */
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
