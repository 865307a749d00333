/* SPDX-License-Identifier: MIT */
/*
 * Exercise 10: a GPU consumer that validates packets.
 *
 * Once packets are in GPU memory, a kernel checks each one the way the
 * CPU paths do (common/wire.c) and writes a small result back: one thread
 * per packet, and only byte loads, since device memory has no unaligned
 * loads. gpudirect/consumer.h is that code; nvcc compiles it into the CUDA
 * kernel and the C compiler into the emulated GPU, which runs it over
 * "device memory" the CPU path cannot read. Here you write its payload
 * checks and the emulated GPU's batch loop. The header checks of a whole
 * frame are given (gx_frame(): exercise 2 is their twin).
 *
 * Fill in the "Exercise 10.N" marks. Byte helpers: plc_be16(), plc_be32()
 * (consumer.h). Write the checksum yourself, not with plc_sum().
 */
#include "gpu_consumer_ex.h"

#include <errno.h>

/* The RFC 1071 sum of len bytes, folded to 16 bits, not complemented. */
static uint32_t gx_sum(const uint8_t *b, uint32_t len)
{
	uint64_t sum = 0;

	/*
	 * Exercise 10.2: the Internet checksum's sum (RFC 1071), with byte
	 * loads only. Mind an odd length.
	 */
	return (uint32_t)sum;
}

/* Check a pathlab payload (header, version, checksum) and fill *r. */
uint8_t gx_payload(const uint8_t *b, uint32_t len, struct pl_gpu_res *r)
{
	r->payload_len = (uint16_t)len;
	if (len > 0xffff)
		return PL_BAD_UDP_LEN;
	/*
	 * Exercise 10.1: in this order: shorter than a pathlab header is
	 * PL_BAD_HDR_TRUNC; a magic other than PL_MAGIC is PL_BAD_MAGIC; a
	 * version (PL_VER() of byte 2) other than PL_VERSION is
	 * PL_BAD_VERSION.
	 */

	/*
	 * Exercise 10.2 (continued): an intact payload, its check field
	 * included, sums to 0xffff: anything else is PL_BAD_CHECK.
	 */

	/*
	 * Exercise 10.3: the header's fields into *r (common/wire.h shows
	 * the header's layout).
	 */
	(void)gx_sum;
	return PL_OK;
}

/* Check the IPv4 and UDP headers at f + l3 of a len-byte frame (given). */
static uint8_t gx_ipv4_udp(const uint8_t *f, uint32_t len, uint32_t l3,
			   uint16_t port, struct pl_gpu_res *r)
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
	return gx_payload(udp + PL_UDP_LEN, ulen - PL_UDP_LEN, r);
}

/* Check a whole Ethernet frame (one optional 802.1Q tag) (given). */
static uint8_t gx_frame(const uint8_t *f, uint32_t len, uint16_t port,
			struct pl_gpu_res *r)
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
	return gx_ipv4_udp(f, len, l3, port, r);
}

/* The consumer's work on one packet: check it, record what it found. */
static void gx_check(const uint8_t *bytes, const struct pl_gpu_desc *d,
		     struct pl_gpu_res *r)
{
	r->tx_ns = 0;
	r->seq = 0;
	r->payload_len = 0;
	r->flow = 0;
	r->flags = 0;
	r->reason = d->frame ? gx_frame(bytes, d->len, d->port, r)
			     : gx_payload(bytes, d->len, r);
}

/* The consumer over a batch, reading each packet where the GPU would. */
int gx_consume(const struct gx_region *reg, unsigned nreg,
	       const struct pl_gpu_desc *d, struct pl_gpu_res *res, unsigned n)
{
	/*
	 * Exercise 10.4: each descriptor's bytes must lie wholly inside one
	 * region (else -EFAULT: a real GPU would fault); gx_check() reads
	 * them through that region's view. Never read the
	 * address itself: it is device memory, and the CPU has no ordinary
	 * pointer to it (only a mapping made for it: GDRCopy,
	 * rte_gpu_mem_cpu_map()).
	 */
	(void)gx_check;
	return 0;
}
