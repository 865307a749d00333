/* SPDX-License-Identifier: MIT */
/*
 * The pathlab wire format and the one frame parser every path uses.
 *
 * A pathlab datagram is an ordinary UDP datagram whose payload starts with
 * an 18-byte header. 18 bytes is exactly the UDP payload of a minimum
 * 64-byte Ethernet frame (14 Ethernet + 20 IPv4 + 8 UDP + 18 + 4 FCS), so the
 * canonical 64 B benchmark carries a full header. Larger payloads continue
 * with a pattern byte[i] = (seq + i) & 0xff that the check covers.
 *
 *   0      2     3     4          8                  16     18
 *   +------+-----+-----+----------+------------------+------+-- - -
 *   |magic |ver/ |flow | seq      | tx_ns            |check | pattern
 *   |"PL"  |flags|     | (be32)   | (be64, MONOTONIC)|(be16)|
 *   +------+-----+-----+----------+------------------+------+-- - -
 *
 * check is the Internet checksum (RFC 1071) over header and payload with the
 * check field taken as zero; a value of 0 is sent as 0xffff.
 */
#ifndef PATHLAB_WIRE_H
#define PATHLAB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PL_MAGIC     0x504c /* "PL" */
#define PL_VERSION   1
#define PL_HDR_LEN   18
#define PL_UDP_PORT  9000
#define PL_ETH_LEN   14
#define PL_VLAN_LEN  4
#define PL_IP4_LEN   20
#define PL_UDP_LEN   8
#define PL_FCS_LEN   4
#define PL_MIN_FRAME 64
#define PL_MAX_FRAME 9018 /* jumbo frame incl. FCS */
/* Ethernet + IPv4 + UDP + FCS: frame size = payload + PL_FRAME_OVERHEAD. */
#define PL_FRAME_OVERHEAD (PL_ETH_LEN + PL_IP4_LEN + PL_UDP_LEN + PL_FCS_LEN)

/* Version/flags byte: low nibble version, high nibble flags. */
#define PL_VER(vf)   ((vf)&0x0f)
#define PL_FLAG_PING 0x10 /* reflect me (round-trip workloads) */
/*
 * End of a train: not data. Its seq field carries how many datagrams the
 * flow's sender sent, so a receiver knows when to stop and what it missed.
 * The generator sends it PL_END_ROUNDS times, 20 ms apart, right after the
 * train, numbering the rounds in the top two bits: a receiver that first
 * sees round k knows k markers were lost before it (and counted as drops).
 */
#define PL_FLAG_END	    0x20
#define PL_END_ROUNDS	    3
#define PL_END_ROUND(flags) (((flags) >> 6) & 3)

struct pl_hdr {
	uint16_t magic; /* network order */
	uint8_t ver_flags;
	uint8_t flow;
	uint32_t seq;	/* network order, wraps */
	uint64_t tx_ns; /* network order, CLOCK_MONOTONIC ns at send */
	uint16_t check; /* network order */
} __attribute__((packed));

_Static_assert(sizeof(struct pl_hdr) == PL_HDR_LEN, "pathlab header size");

/*
 * Why a frame is not a good pathlab datagram. The XDP program keeps its own
 * verifier-safe copy of the parser with these same codes, so keep the values
 * stable: they index per-reason counters in BPF maps and in results.json.
 * The PL_OTHER_* codes are frames that are fine but not ours (ARP, IPv6,
 * TCP, another port): they are passed on, not counted as bad.
 */
enum pl_reason {
	PL_OK = 0,
	PL_OTHER_L2,	   /* not IPv4/IPv6 (ARP, LLDP, ...) */
	PL_OTHER_IPV6,	   /* IPv6: recognised, reported, not parsed */
	PL_OTHER_L4,	   /* IPv4 but not UDP */
	PL_OTHER_PORT,	   /* UDP to another port (checked by the caller) */
	PL_BAD_ETH_TRUNC,  /* shorter than an Ethernet header */
	PL_BAD_VLAN_TRUNC, /* 802.1Q tag cut off */
	PL_BAD_IP_TRUNC,   /* shorter than a minimal IPv4 header */
	PL_BAD_IP_VERSION, /* EtherType IPv4, version field not 4 */
	PL_BAD_IP_IHL,	   /* IHL < 5 or options beyond the frame */
	PL_BAD_IP_TOTLEN,  /* total length < IHL or beyond the frame */
	PL_BAD_IP_CSUM,	   /* IPv4 header checksum wrong */
	PL_BAD_IP_FRAG,	   /* a fragment (MF set or offset != 0) */
	PL_BAD_UDP_TRUNC,  /* UDP header cut off */
	PL_BAD_UDP_LEN,	   /* UDP length < 8 or beyond the IP payload */
	PL_BAD_HDR_TRUNC,  /* UDP payload shorter than the pathlab header */
	PL_BAD_MAGIC,	   /* not a pathlab datagram */
	PL_BAD_VERSION,	   /* pathlab version we do not speak */
	PL_BAD_CHECK,	   /* header or payload corrupted */
	/*
	 * Reasons a receiver finds before the parser, about the buffer and
	 * not the bytes, so no frame carries them (pl_build_bad_frame() and
	 * pathlab-gen --bad-every stop at PL_REASON_FRAME_MAX).
	 */
	PL_BAD_TOO_LONG, /* longer than its receive buffer: a truncated
			  * datagram (MSG_TRUNC), an RDMA WRITE's byte_len
			  * past its slot */
	PL_REASON_MAX
};

/* The reasons a frame itself can carry: those below this one. */
#define PL_REASON_FRAME_MAX PL_BAD_TOO_LONG

/* true for codes that make a frame "bad" (counted), not merely "other". */
static inline bool pl_reason_is_bad(enum pl_reason r)
{
	return r >= PL_BAD_ETH_TRUNC && r < PL_REASON_MAX;
}

/* Short stable name of a reason ("ip_ihl"), used as a JSON key. */
const char *pl_reason_name(enum pl_reason r);

/* What the parser found; offsets are from the start of the buffer given. */
struct pl_pkt {
	uint32_t seq;
	uint64_t tx_ns;
	uint8_t flow;
	uint8_t flags;
	uint16_t vlan_tci; /* 0 when untagged */
	bool vlan;
	uint16_t l3_off;	     /* frame parser only */
	uint16_t l4_off;	     /* frame parser only */
	uint16_t payload_off;	     /* where the pathlab header starts */
	uint16_t payload_len;	     /* UDP payload length (header + pattern) */
	uint32_t src_ip, dst_ip;     /* network order, frame parser only */
	uint16_t src_port, dst_port; /* host order, frame parser only */
};

/*
 * Parse a whole Ethernet frame (without FCS) of len bytes: Ethernet, an
 * optional 802.1Q tag, IPv4, UDP to dst_port (0 = any port), then the
 * pathlab payload. Never reads past buf + len. Returns PL_OK and fills *p,
 * or the first reason the frame is not a good pathlab datagram.
 */
enum pl_reason pl_parse_frame(const void *buf, size_t len, uint16_t dst_port,
			      struct pl_pkt *p);

/* Parse a UDP payload (what a socket hands to user space). */
enum pl_reason pl_parse_payload(const void *buf, size_t len, struct pl_pkt *p);

/* RFC 1071 Internet checksum, folded and complemented. */
uint16_t pl_csum(const void *buf, size_t len);

/* Write a pathlab payload of len >= PL_HDR_LEN bytes: header, pattern, check.
 */
void pl_build_payload(void *buf, size_t len, uint8_t flow, uint32_t seq,
		      uint64_t tx_ns);

/* Recompute the check of a payload after its header was changed (flags). */
void pl_payload_reseal(void *buf, size_t len);

/* Addresses of a frame to build; all fields in host order but the MACs. */
struct pl_frame_spec {
	uint8_t src_mac[6], dst_mac[6];
	uint32_t src_ip, dst_ip; /* host order */
	uint16_t src_port, dst_port;
	uint16_t vlan_tci; /* used when vlan is true */
	bool vlan;
	uint8_t ttl;
};

/*
 * Build a complete frame (without FCS) carrying a payload of payload_len
 * bytes into buf of cap bytes. Returns the frame length, or 0 when it does
 * not fit. Frames shorter than 60 bytes are padded with zeros as a NIC would.
 */
size_t pl_build_frame(void *buf, size_t cap, const struct pl_frame_spec *spec,
		      size_t payload_len, uint8_t flow, uint32_t seq,
		      uint64_t tx_ns);

/*
 * Build a frame that is malformed in exactly the way reason names (any
 * PL_BAD_* code), for tests and the generator's --bad train. Returns its
 * length, or 0 for a reason that is not a PL_BAD_* code or does not fit.
 */
size_t pl_build_bad_frame(void *buf, size_t cap,
			  const struct pl_frame_spec *spec, enum pl_reason why,
			  uint32_t seq, uint64_t tx_ns);

/*
 * Turn a parsed frame (p from pl_parse_frame()) around in place, for the
 * rtt workload's far end: swap the Ethernet, IPv4 and UDP source and
 * destination. Both checksums stay valid: a one's-complement sum does not
 * depend on the order of its words, and every swapped field is summed.
 */
void pl_frame_reflect(void *frame, const struct pl_pkt *p);

/*
 * Compute the UDP checksum of a parsed frame (p from pl_parse_frame())
 * afresh. A frame a local socket sent over veth still carries the partial
 * checksum of CHECKSUM_PARTIAL (the pseudo-header sum only, for a NIC to
 * finish): XDP, AF_XDP and AF_PACKET see it as is, and a copy sent back
 * with it fails the sender's UDP checksum check (Udp InCsumErrors).
 */
void pl_frame_udp_csum(void *frame, const struct pl_pkt *p);

/* Frame size (incl. FCS) for a UDP payload, padded to 64; vlan adds 4. */
unsigned pl_frame_for_payload(unsigned payload, bool vlan);

/* UDP payload for a frame size (incl. FCS); 0 when below the minimum. */
unsigned pl_payload_for_frame(unsigned frame, bool vlan);

#endif
