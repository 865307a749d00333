// SPDX-License-Identifier: MIT
/*
 * pathlab.bpf.c: the XDP program of the XDP and AF_XDP paths.
 *
 * It runs on every frame the driver receives, before the kernel builds an
 * skb. It parses Ethernet, one 802.1Q tag, IPv4 and UDP with the same
 * reason codes as common/wire.h, counts every frame by verdict and by
 * reason, and takes the configured action on good datagrams to the lab
 * port: redirect into our AF_XDP socket, drop, or pass. Everything else
 * (ARP, other ports, malformed frames) goes on to the stack untouched.
 *
 * Simplification: the pathlab payload checksum is not verified here (a
 * loop over up to 9000 bytes per frame); the AF_XDP receiver checks it,
 * and the drop mode counts what it drops without it.
 */
/* 8< xdp-program */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "pathlab_xdp.h"
#include "wire.h"

#define IP_MF	  0x2000
#define IP_OFFSET 0x1fff

/* Set by the loader before the program is loaded (.rodata). */
const volatile __u16 lab_port = PL_UDP_PORT;
const volatile __u32 lab_action = PL_XDP_REDIRECT;
/*
 * --trace N with --action drop|pass: the first N lab datagrams (per CPU)
 * go to trace_ring. 0 without --trace: the verifier sees the constant and
 * removes the tracing branch, so the untraced program carries no cost.
 */
const volatile __u32 trace_n = 0;

/* 8< xsks-map */
/* One AF_XDP socket per RX queue, keyed by the queue's index. */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, PL_XSKS_MAX);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");
/* >8 xsks-map */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PL_XDP_VERDICTS);
	__type(key, __u32);
	__type(value, struct pl_xdp_count);
} verdicts SEC(".maps");

/* Every frame by parse outcome: PL_OK is a datagram to the lab port. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PL_REASON_MAX);
	__type(key, __u32);
	__type(value, __u64);
} reasons SEC(".maps");

/*
 * What the program passed on to the kernel, by the same reason: every
 * frame that is not a good lab datagram (the receiver reports them as bad
 * or other), and under PL_OK the lab's datagrams it did not redirect or
 * drop. The kernel may drop these in turn: not ours, so not our loss.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PL_REASON_MAX);
	__type(key, __u32);
	__type(value, __u64);
} passed SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pl_xdp_lab);
} lab SEC(".maps");

/* Traced frames, one struct pl_xdp_trace each; read after the run. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PL_XDP_TRACE_RING);
} trace_ring SEC(".maps");

/* Per CPU: frames traced so far, records lost to a full ring. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pl_xdp_trace_state);
} trace_state SEC(".maps");

/* Per flow, the seq of its end marker: how many datagrams it sent. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PL_XDP_FLOWS);
	__type(key, __u32);
	__type(value, __u64);
} end_counts SEC(".maps");

/* The IPv4 header checksum over ihl 16-bit words: 0 when intact. */
static __always_inline __u16 ip_csum(const __u16 *w, __u32 words,
				     const void *end)
{
	__u32 sum = 0, i;

	for (i = 0; i < 30; i++) { /* 60 bytes: the largest header */
		if (i >= words || (const void *)(w + i + 1) > end)
			break;
		sum += w[i];
	}
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* Check the pathlab header at pl; record end markers and the flow's count. */
static __always_inline enum pl_reason
parse_payload(const __u8 *pl, __u32 len, const void *end, struct pl_xdp_lab *st)
{
	__u64 seq;
	__u32 flow;

	if (len < PL_HDR_LEN || (const void *)(pl + PL_HDR_LEN) > end)
		return PL_BAD_HDR_TRUNC;
	if (((pl[0] << 8) | pl[1]) != PL_MAGIC)
		return PL_BAD_MAGIC;
	if (PL_VER(pl[2]) != PL_VERSION)
		return PL_BAD_VERSION;
	if (!st)
		return PL_OK;
	if (pl[2] & PL_FLAG_END) {
		flow = pl[3];
		seq = bpf_ntohl(*(const __u32 *)(pl + 4));
		bpf_map_update_elem(&end_counts, &flow, &seq, BPF_ANY);
		st->end_markers++;
		return PL_OK;
	}
	st->data++;
	st->payload_len = len;
	st->last_ns = bpf_ktime_get_ns();
	if (!st->first_ns)
		st->first_ns = st->last_ns;
	return PL_OK;
}

/* Check UDP at udp (room bytes of IP payload), then the pathlab header. */
static __always_inline enum pl_reason parse_udp(const struct udphdr *udp,
						__u32 room, const void *end,
						struct pl_xdp_lab *st)
{
	__u32 ulen;

	if (room < PL_UDP_LEN || (const void *)(udp + 1) > end)
		return PL_BAD_UDP_TRUNC;
	ulen = bpf_ntohs(udp->len);
	if (ulen < PL_UDP_LEN || ulen > room)
		return PL_BAD_UDP_LEN;
	if (bpf_ntohs(udp->dest) != lab_port)
		return PL_OTHER_PORT;
	return parse_payload((const __u8 *)(udp + 1), ulen - PL_UDP_LEN, end,
			     st);
}

/* Check IPv4 at ip, room bytes to the end of the frame, then UDP. */
static __always_inline enum pl_reason parse_ipv4(const struct iphdr *ip,
						 __u32 room, const void *end,
						 struct pl_xdp_lab *st)
{
	__u32 ihl, tot;

	if (room < PL_IP4_LEN || (const void *)(ip + 1) > end)
		return PL_BAD_IP_TRUNC;
	if (ip->version != 4)
		return PL_BAD_IP_VERSION;
	ihl = ip->ihl * 4;
	if (ihl < PL_IP4_LEN || ihl > room)
		return PL_BAD_IP_IHL;
	tot = bpf_ntohs(ip->tot_len);
	if (tot < ihl || tot > room)
		return PL_BAD_IP_TOTLEN;
	if (ip_csum((const __u16 *)ip, ihl / 2, end) != 0)
		return PL_BAD_IP_CSUM;
	if (ip->frag_off & bpf_htons(IP_MF | IP_OFFSET))
		return PL_BAD_IP_FRAG;
	if (ip->protocol != IPPROTO_UDP)
		return PL_OTHER_L4;
	return parse_udp((const void *)ip + ihl, tot - ihl, end, st);
}

/* 8< xdp-parse */
/* Classify one frame with the reason codes of common/wire.h. */
static __always_inline enum pl_reason parse_frame(void *data, void *end,
						  struct pl_xdp_lab *st)
{
	struct ethhdr *eth = data;
	__u32 len = end - data, off = PL_ETH_LEN;
	__u16 type;

	if ((void *)(eth + 1) > end)
		return PL_BAD_ETH_TRUNC;
	type = bpf_ntohs(eth->h_proto);
	/* Simplification: one tag only, as in wire.c. */
	if (type == ETH_P_8021Q || type == ETH_P_8021AD) {
		if (data + PL_ETH_LEN + PL_VLAN_LEN > end)
			return PL_BAD_VLAN_TRUNC;
		type = bpf_ntohs(*(__be16 *)(data + 16));
		off += PL_VLAN_LEN;
	}
	if (type == ETH_P_IPV6)
		return PL_OTHER_IPV6;
	if (type != ETH_P_IP)
		return PL_OTHER_L2;
	return parse_ipv4(data + off, len - off, end, st);
}
/* >8 xdp-parse */

/*
 * Add one frame of len bytes, parsed as reason r, to the counters of its
 * verdict, and to what was passed on when it goes to the kernel.
 */
static __always_inline int count(__u32 verdict, __u32 r, __u64 len)
{
	/* 8< xdp-count-verdict */
	struct pl_xdp_count *c = bpf_map_lookup_elem(&verdicts, &verdict);
	__u64 *n;

	if (c) {
		c->packets++;
		c->bytes += len;
	}
	/* >8 xdp-count-verdict */
	if (verdict == XDP_PASS && (n = bpf_map_lookup_elem(&passed, &r)))
		(*n)++;
	return verdict;
}

/* The pathlab header of a frame parse_frame() found good, or NULL. */
static __always_inline const __u8 *lab_header(void *data, void *end)
{
	struct ethhdr *eth = data;
	struct iphdr *ip = data + PL_ETH_LEN;
	const __u8 *pl;

	if ((void *)(eth + 1) > end)
		return NULL;
	if (eth->h_proto == bpf_htons(ETH_P_8021Q) ||
	    eth->h_proto == bpf_htons(ETH_P_8021AD))
		ip = (void *)ip + PL_VLAN_LEN;
	if ((void *)(ip + 1) > end)
		return NULL;
	pl = (const __u8 *)ip + ip->ihl * 4 + PL_UDP_LEN;
	if ((const void *)(pl + 8) > end)
		return NULL;
	return pl;
}

/* Write one record of a good lab datagram to trace_ring (--trace N). */
static __always_inline int trace_frame(struct xdp_md *ctx, __u32 verdict)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct pl_xdp_trace_state *ts;
	struct pl_xdp_trace *rec;
	const __u8 *pl;
	__u32 zero = 0;

	ts = bpf_map_lookup_elem(&trace_state, &zero);
	if (!ts || ts->traced >= trace_n)
		return 0;
	ts->traced++;
	rec = bpf_ringbuf_reserve(&trace_ring, sizeof(*rec), 0);
	if (!rec) {
		ts->lost++;
		return 0;
	}
	pl = lab_header(data, end);
	rec->ns = bpf_ktime_get_ns();
	rec->ifindex = ctx->ingress_ifindex;
	rec->rx_queue = ctx->rx_queue_index;
	rec->len = end - data;
	rec->verdict = verdict;
	rec->reason = PL_OK;
	rec->seq = pl ? bpf_ntohl(*(const __u32 *)(pl + 4)) : 0;
	rec->flow = pl ? pl[3] : 0;
	rec->cpu = bpf_get_smp_processor_id();
	bpf_ringbuf_submit(rec, 0);
	return 0;
}

/* 8< xdp-verdict */
SEC("xdp")
int pathlab_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 zero = 0, r, verdict = XDP_PASS;
	struct pl_xdp_lab *st = bpf_map_lookup_elem(&lab, &zero);
	__u64 *n, ends = st ? st->end_markers : 0;

	r = parse_frame(data, end, st);
	/* 8< xdp-count-reason */
	n = bpf_map_lookup_elem(&reasons, &r);
	if (n)
		(*n)++;
	/* >8 xdp-count-reason */
	if (r != PL_OK)
		return count(XDP_PASS, r,
			     end - data); /* not ours: the stack's */
	if (lab_action == PL_XDP_DROP) {
		verdict = XDP_DROP;
	} else if (lab_action == PL_XDP_REDIRECT) {
		/* 8< xdp-redirect */
		/* XDP_PASS when no socket is bound to this queue. */
		verdict =
			bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS);
		/* >8 xdp-redirect */
		/* Data only: parse_frame() counted an end marker if any. */
		if (verdict == XDP_PASS && st && st->end_markers == ends)
			st->no_socket++;
	}
	if (trace_n) /* constant: gone from the program without --trace */
		trace_frame(ctx, verdict);
	return count(verdict, r, end - data);
}
/* >8 xdp-verdict */

char LICENSE[] SEC("license") = "Dual MIT/GPL";
/* >8 xdp-program */
