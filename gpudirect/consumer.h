/* SPDX-License-Identifier: MIT */
/*
 * The consumer: what runs on the GPU once packets are in its reach. For
 * every packet of a batch it redoes the checks of common/wire.c (Ethernet,
 * IPv4, UDP for frames; magic, version and the Internet checksum over the
 * pathlab header and payload) and writes one small result record back.
 *
 * One source for both backends: nvcc compiles these functions into the
 * CUDA kernel (consumer.cu), the C compiler into the emulated GPU's loop
 * (gpu_sim.c). The verdicts are the reason codes of wire.h, and the unit
 * test checks them against pl_parse_frame() and pl_parse_payload().
 *
 * Simplification: one thread per packet, byte loads only (device memory
 * has no unaligned loads); a production kernel would give a packet a warp.
 */
#ifndef PATHLAB_CONSUMER_H
#define PATHLAB_CONSUMER_H

#include <stdint.h>

#include "wire.h"

#ifdef __CUDACC__
#define PL_HD __host__ __device__
#else
#define PL_HD
#endif

/* One packet handed to the consumer: where the GPU finds its bytes. */
struct pl_gpu_desc {
	uint64_t addr; /* a device address, or a host address mapped for it */
	uint32_t len;  /* bytes there */
	uint16_t port; /* frames: the lab's UDP port (0 = any) */
	uint8_t frame; /* 1: a whole Ethernet frame, 0: a UDP payload */
	uint8_t pad;
};

/* What the consumer found in one packet (written by the GPU). */
struct pl_gpu_res {
	uint64_t tx_ns;
	uint32_t seq;
	uint16_t payload_len;
	uint8_t flow, flags;
	uint8_t reason; /* enum pl_reason */
	uint8_t pad[7];
};

/* The CPU writes one, the GPU reads it: one layout for both compilers. */
_Static_assert(sizeof(struct pl_gpu_desc) == 16, "descriptor layout");
_Static_assert(sizeof(struct pl_gpu_res) == 24, "result layout");

/* A big-endian 16-bit value from two bytes. */
PL_HD static inline uint32_t plc_be16(const uint8_t *b)
{
	return (uint32_t)b[0] << 8 | b[1];
}

/* A big-endian 32-bit value from four bytes. */
PL_HD static inline uint32_t plc_be32(const uint8_t *b)
{
	return plc_be16(b) << 16 | plc_be16(b + 2);
}

/* 8< gpu-consumer-parse */
/* The RFC 1071 sum of len bytes, folded to 16 bits, not complemented. */
PL_HD static inline uint32_t plc_sum(const uint8_t *b, uint32_t len)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += plc_be16(b + i);
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8; /* zero-padded last word */
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint32_t)sum;
}

/* Check a pathlab payload (header, version, checksum) and fill *r. */
PL_HD static inline uint8_t plc_payload(const uint8_t *b, uint32_t len,
					struct pl_gpu_res *r)
{
	r->payload_len = (uint16_t)len;
	if (len > 0xffff)
		return PL_BAD_UDP_LEN;
	if (len < PL_HDR_LEN)
		return PL_BAD_HDR_TRUNC;
	if (plc_be16(b) != PL_MAGIC)
		return PL_BAD_MAGIC;
	if (PL_VER(b[2]) != PL_VERSION)
		return PL_BAD_VERSION;
	/* An intact payload, its check field included, sums to 0xffff. */
	if (plc_sum(b, len) != 0xffff)
		return PL_BAD_CHECK;
	r->flags = b[2] & 0xf0;
	r->flow = b[3];
	r->seq = plc_be32(b + 4);
	r->tx_ns = (uint64_t)plc_be32(b + 8) << 32 | plc_be32(b + 12);
	return PL_OK;
}

/* Check the IPv4 and UDP headers at f + l3 of a len-byte frame. */
PL_HD static inline uint8_t plc_ipv4_udp(const uint8_t *f, uint32_t len,
					 uint32_t l3, uint16_t port,
					 struct pl_gpu_res *r)
{
	const uint8_t *ip = f + l3, *udp;
	uint32_t room = len - l3, ihl, tot, ulen;

	if (room < PL_IP4_LEN)
		return PL_BAD_IP_TRUNC;
	if (ip[0] >> 4 != 4)
		return PL_BAD_IP_VERSION;
	ihl = (ip[0] & 0x0fu) * 4;
	if (ihl < PL_IP4_LEN || ihl > room)
		return PL_BAD_IP_IHL;
	tot = plc_be16(ip + 2);
	if (tot < ihl || tot > room)
		return PL_BAD_IP_TOTLEN;
	if (plc_sum(ip, ihl) != 0xffff)
		return PL_BAD_IP_CSUM;
	if (plc_be16(ip + 6) & 0x3fff) /* MF or a fragment offset */
		return PL_BAD_IP_FRAG;
	if (ip[9] != 17) /* IPPROTO_UDP */
		return PL_OTHER_L4;
	room = tot - ihl;
	udp = ip + ihl;
	if (room < PL_UDP_LEN)
		return PL_BAD_UDP_TRUNC;
	ulen = plc_be16(udp + 4);
	if (ulen < PL_UDP_LEN || ulen > room)
		return PL_BAD_UDP_LEN;
	if (port && plc_be16(udp + 2) != port)
		return PL_OTHER_PORT;
	return plc_payload(udp + PL_UDP_LEN, ulen - PL_UDP_LEN, r);
}

/* Check a whole Ethernet frame (one optional 802.1Q tag) and fill *r. */
PL_HD static inline uint8_t plc_frame(const uint8_t *f, uint32_t len,
				      uint16_t port, struct pl_gpu_res *r)
{
	uint32_t l3 = PL_ETH_LEN, type;

	if (len < PL_ETH_LEN)
		return PL_BAD_ETH_TRUNC;
	type = plc_be16(f + 12);
	if (type == 0x8100 || type == 0x88a8) {
		if (len < PL_ETH_LEN + PL_VLAN_LEN)
			return PL_BAD_VLAN_TRUNC;
		type = plc_be16(f + 16);
		l3 += PL_VLAN_LEN;
	}
	if (type == 0x86dd)
		return PL_OTHER_IPV6;
	if (type != 0x0800)
		return PL_OTHER_L2;
	return plc_ipv4_udp(f, len, l3, port, r);
}
/* >8 gpu-consumer-parse */

/* 8< gpu-consumer-check */
/* The consumer's work on one packet: check it, record what it found. */
PL_HD static inline void plc_check(const uint8_t *bytes,
				   const struct pl_gpu_desc *d,
				   struct pl_gpu_res *r)
{
	r->tx_ns = 0;
	r->seq = 0;
	r->payload_len = 0;
	r->flow = 0;
	r->flags = 0;
	r->reason = d->frame ? plc_frame(bytes, d->len, d->port, r)
			     : plc_payload(bytes, d->len, r);
}
/* >8 gpu-consumer-check */

#endif
