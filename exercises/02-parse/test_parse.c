/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 2: the frame parser. The student's parser runs
 * in the worker (wk_parse.c), which places every frame right before a
 * page it may not read: a parser that reads one byte past the end of a
 * frame dies (and fails the case). The reference is common/wire.c's
 * pl_parse_frame(), here; every case adds frames drawn from the seed.
 */
#include "grade.h"
#include "parse_rpc.h"
#include "wire.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#define MAXF PX_MAXF

static const struct pl_frame_spec spec = {
	.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
	.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
	.src_ip = 0x0a000001,
	.dst_ip = 0x0a000002,
	.src_port = 12345,
	.dst_port = PL_UDP_PORT,
	.ttl = 64,
};

/* The student's parser on n frames: a result each. */
static void student_many(const struct px_frame *f, size_t n,
			 struct px_result *r)
{
	gr_call_exact(PX_PARSE, f, n * sizeof(*f), r, n * sizeof(*r));
}

/* The student's parser on one frame: its verdict, the packet in *p. */
static enum pl_reason student(const uint8_t *f, size_t len, uint16_t port,
			      struct pl_pkt *p)
{
	static struct px_frame q;
	struct px_result r;

	q.len = (uint16_t)len;
	q.port = port;
	memcpy(q.bytes, f, len);
	student_many(&q, 1, &r);
	*p = r.pkt;
	return (enum pl_reason)r.reason;
}

/* Do the student's verdict and fields agree with common/'s? */
static void compare(enum pl_reason rg, const struct pl_pkt *g,
		    enum pl_reason rw, const struct pl_pkt *w, size_t len,
		    const char *what)
{
	if (rg != rw) {
		gr_fail_at(__FILE__, __LINE__,
			   "%s (%zu bytes): %s, expected %s", what, len,
			   pl_reason_name(rg), pl_reason_name(rw));
		return;
	}
	if (rw == PL_OK &&
	    (g->l3_off != w->l3_off || g->l4_off != w->l4_off ||
	     g->payload_off != w->payload_off ||
	     g->payload_len != w->payload_len || g->vlan != w->vlan ||
	     g->vlan_tci != w->vlan_tci || g->src_ip != w->src_ip ||
	     g->dst_ip != w->dst_ip || g->src_port != w->src_port ||
	     g->dst_port != w->dst_port || g->seq != w->seq ||
	     g->flow != w->flow))
		gr_fail_at(__FILE__, __LINE__,
			   "%s: fields differ: l3 %u l4 %u payload %u+%u vlan "
			   "%d/%#x ports %u>%u, expected l3 %u l4 %u payload "
			   "%u+%u vlan %d/%#x ports %u>%u",
			   what, g->l3_off, g->l4_off, g->payload_off,
			   g->payload_len, g->vlan, g->vlan_tci, g->src_port,
			   g->dst_port, w->l3_off, w->l4_off, w->payload_off,
			   w->payload_len, w->vlan, w->vlan_tci, w->src_port,
			   w->dst_port);
}

/* Parse f with both parsers; check the same verdict and, if good, fields. */
static enum pl_reason same(const uint8_t *f, size_t len, uint16_t port,
			   const char *what)
{
	struct pl_pkt want, got;
	enum pl_reason rw = pl_parse_frame(f, len, port, &want), rg;

	gr_context("parsing %s (%zu bytes, common/ says %s)", what, len,
		   pl_reason_name(rw));
	rg = student(f, len, port, &got);
	gr_context("%s", "");
	compare(rg, &got, rw, &want, len, what);
	return rg;
}

/* Expect exactly reason r (and agreement with common/). */
static void expect(const uint8_t *f, size_t len, uint16_t port,
		   enum pl_reason r, const char *what)
{
	struct pl_pkt p;

	if (pl_parse_frame(f, len, port, &p) != r)
		gr_fail_at(__FILE__, __LINE__, "test bug: %s is not %s", what,
			   pl_reason_name(r));
	same(f, len, port, what);
}

/* A good frame with a payload of n bytes; its length. */
static size_t good(uint8_t *f, bool vlan, size_t n, uint32_t seq)
{
	struct pl_frame_spec s = spec;

	s.vlan = vlan;
	s.vlan_tci = 0x2064;
	return pl_build_frame(f, MAXF, &s, n, 7, seq, 123456789);
}

/* A good frame of drawn addresses, ports, tag and payload; its length. */
static size_t drawn(uint8_t *f, uint16_t *port)
{
	struct pl_frame_spec s = spec;
	unsigned i;

	for (i = 0; i < 6; i++)
		s.src_mac[i] = (uint8_t)gr_rand();
	s.src_ip = (uint32_t)gr_rand();
	s.dst_ip = (uint32_t)gr_rand();
	s.src_port = (uint16_t)gr_rand();
	s.dst_port =
		gr_below(2) ? PL_UDP_PORT : (uint16_t)(1 + gr_below(65535));
	s.vlan = gr_below(3) == 0;
	s.vlan_tci = (uint16_t)gr_rand();
	s.ttl = (uint8_t)(1 + gr_below(255));
	*port = gr_below(4) ? PL_UDP_PORT : (gr_below(2) ? 0 : s.dst_port);
	return pl_build_frame(f, MAXF, &s, 18 + gr_below(1400),
			      (uint8_t)gr_rand(), (uint32_t)gr_rand(),
			      gr_rand());
}

/* Reseal the IPv4 header checksum at ip (ihl bytes). */
static void reseal_ip(uint8_t *ip)
{
	size_t ihl = (ip[0] & 0x0f) * 4u;
	uint16_t c;

	ip[10] = ip[11] = 0;
	c = htons(pl_csum(ip, ihl));
	memcpy(ip + 10, &c, 2);
}

/* A malformed frame from common/ of reason r, checked. */
static void bad(enum pl_reason r)
{
	uint8_t f[MAXF];
	size_t len = pl_build_bad_frame(f, sizeof(f), &spec, r, 5, 99);

	expect(f, len, PL_UDP_PORT, r, pl_reason_name(r));
}

/* A frame that is fine but not ours (TCP), tagged or not; its length. */
static size_t tcp(uint8_t *f, bool vlan, size_t n)
{
	size_t len = good(f, vlan, n, 0);
	uint8_t *ip = f + PL_ETH_LEN + (vlan ? PL_VLAN_LEN : 0);

	ip[9] = IPPROTO_TCP;
	reseal_ip(ip);
	return len;
}

/* Expect other_l4 with the layer 2 and 3 fields filled in. */
static void tcp_fields(const uint8_t *f, size_t len, const char *what)
{
	struct pl_pkt want, got;

	pl_parse_frame(f, len, PL_UDP_PORT, &want);
	gr_context("parsing %s (%zu bytes)", what, len);
	if (student(f, len, PL_UDP_PORT, &got) != PL_OTHER_L4) {
		gr_context("%s", "");
		same(f, len, PL_UDP_PORT, what);
		return;
	}
	gr_context("%s", "");
	if (got.l3_off != want.l3_off || got.vlan != want.vlan ||
	    got.vlan_tci != want.vlan_tci || got.src_ip != want.src_ip ||
	    got.dst_ip != want.dst_ip)
		gr_fail_at(__FILE__, __LINE__,
			   "%s: l3_off %u vlan %d tci %#x src %#x dst %#x, "
			   "expected %u %d %#x %#x %#x",
			   what, got.l3_off, got.vlan, got.vlan_tci,
			   ntohl(got.src_ip), ntohl(got.dst_ip), want.l3_off,
			   want.vlan, want.vlan_tci, ntohl(want.src_ip),
			   ntohl(want.dst_ip));
}

/* n drawn frames, each changed by fn (may be NULL), against common/. */
static void drawn_batch(unsigned n, void (*fn)(struct px_frame *),
			const char *what)
{
	static struct px_frame q[PX_BATCH];
	static struct px_result r[PX_BATCH];
	struct pl_pkt want;
	enum pl_reason rw;
	unsigned i;

	for (i = 0; i < n; i++) {
		q[i].len = (uint16_t)drawn(q[i].bytes, &q[i].port);
		if (fn)
			fn(&q[i]);
	}
	gr_context("parsing %u drawn frames (%s)", n, what);
	student_many(q, n, r);
	gr_context("%s", "");
	for (i = 0; i < n && gr_failures < 3; i++) {
		rw = pl_parse_frame(q[i].bytes, q[i].len, q[i].port, &want);
		compare((enum pl_reason)r[i].reason, &r[i].pkt, rw, &want,
			q[i].len, what);
	}
}

/* Another EtherType than IPv4, IPv6 or a tag, or a cut before it. */
static void other_l2(struct px_frame *q)
{
	uint16_t t;

	if (gr_below(2)) {
		q->len = (uint16_t)gr_below(18);
		return;
	}
	do
		t = (uint16_t)gr_rand();
	while (t == 0x0800 || t == 0x86dd || t == 0x8100 || t == 0x88a8);
	q->bytes[12 + (q->bytes[12] == 0x81 ? PL_VLAN_LEN : 0)] =
		(uint8_t)(t >> 8);
}

/* Ethernet: length, one VLAN tag (802.1Q or 802.1ad), other EtherTypes. */
static int ethernet(void)
{
	uint8_t f[MAXF];
	size_t len, i;

	len = tcp(f, false, 18);
	tcp_fields(f, len, "TCP, untagged");
	len = tcp(f, true, 100);
	tcp_fields(f, len, "TCP, 802.1Q tag");
	f[12] = 0x88, f[13] = 0xa8;
	tcp_fields(f, len, "TCP, 802.1ad tag");
	bad(PL_BAD_ETH_TRUNC);
	bad(PL_BAD_VLAN_TRUNC);
	for (i = 14; i < 18; i++)
		expect(f, i, PL_UDP_PORT, PL_BAD_VLAN_TRUNC, "cut-off tag");
	for (i = 0; i < 14; i++)
		expect(f, i, PL_UDP_PORT, PL_BAD_ETH_TRUNC, "runt");
	len = good(f, false, 18, 4);
	f[12] = 0x08, f[13] = 0x06;
	expect(f, len, PL_UDP_PORT, PL_OTHER_L2, "ARP");
	f[12] = 0x86, f[13] = 0xdd;
	expect(f, len, PL_UDP_PORT, PL_OTHER_IPV6, "IPv6");
	drawn_batch(200, other_l2, "runts, tags and other EtherTypes");
	return gr_verdict();
}

/* One IPv4 header field of a drawn frame damaged, the checksum resealed. */
static void bad_ip(struct px_frame *q)
{
	uint8_t *ip = q->bytes + PL_ETH_LEN +
		      (q->bytes[12] == 0x81 ? PL_VLAN_LEN : 0);
	uint16_t tot;

	switch (gr_below(6)) {
	case 0: /* version */
		ip[0] = (uint8_t)((gr_below(16) << 4) | (ip[0] & 0x0f));
		break;
	case 1: /* IHL */
		ip[0] = (uint8_t)((ip[0] & 0xf0) | gr_below(16));
		break;
	case 2: /* total length */
		tot = (uint16_t)gr_rand();
		memcpy(ip + 2, &tot, 2);
		break;
	case 3: /* fragments */
		ip[6] = (uint8_t)gr_rand(), ip[7] = (uint8_t)gr_rand();
		break;
	case 4: /* protocol */
		ip[9] = (uint8_t)gr_rand();
		break;
	default: /* the checksum itself, not resealed */
		ip[10] ^= (uint8_t)(1 + gr_below(255));
		return;
	}
	if ((ip[0] & 0x0f) >= 5 && (ip[0] & 0x0f) * 4u <= q->len)
		reseal_ip(ip);
}

/* IPv4: every header check, options, padding, fragments. */
static int ipv4(void)
{
	static const enum pl_reason rs[] = {
		PL_BAD_IP_TRUNC,  PL_BAD_IP_VERSION, PL_BAD_IP_IHL,
		PL_BAD_IP_TOTLEN, PL_BAD_IP_CSUM,    PL_BAD_IP_FRAG,
	};
	uint8_t f[MAXF], g[MAXF];
	uint8_t *ip = f + PL_ETH_LEN;
	size_t len, i;
	uint16_t tot;

	for (i = 0; i < sizeof(rs) / sizeof(rs[0]); i++)
		bad(rs[i]);
	len = tcp(f, false, 64);
	tcp_fields(f, len, "TCP");
	/* 4 bytes of options (NOP): IHL 6. */
	memcpy(g, f, PL_ETH_LEN + PL_IP4_LEN);
	memset(g + PL_ETH_LEN + PL_IP4_LEN, 1, 4);
	memcpy(g + PL_ETH_LEN + PL_IP4_LEN + 4, f + PL_ETH_LEN + PL_IP4_LEN,
	       len - PL_ETH_LEN - PL_IP4_LEN);
	g[PL_ETH_LEN] = 0x46;
	memcpy(&tot, g + PL_ETH_LEN + 2, 2);
	tot = htons(ntohs(tot) + 4);
	memcpy(g + PL_ETH_LEN + 2, &tot, 2);
	reseal_ip(g + PL_ETH_LEN);
	tcp_fields(g, len + 4, "TCP with IPv4 options (IHL 6)");
	/* Bytes after the total length are padding. */
	memset(f + len, 0xee, 10);
	tcp_fields(f, len + 10, "TCP and 10 bytes of padding");
	/* IHL 15 in a short frame: the options run past the end. */
	len = good(f, false, 18, 11);
	ip[0] = 0x4f;
	reseal_ip(ip);
	expect(f, len, PL_UDP_PORT, PL_BAD_IP_IHL, "IHL 15 in 60 bytes");
	/* An offset without MF: the last fragment is a fragment too. */
	len = good(f, false, 18, 13);
	ip[6] = 0x00, ip[7] = 0x10;
	reseal_ip(ip);
	expect(f, len, PL_UDP_PORT, PL_BAD_IP_FRAG, "last fragment");
	drawn_batch(300, bad_ip, "a damaged IPv4 header");
	return gr_verdict();
}

/* A drawn frame's UDP length or payload damaged. */
static void bad_udp(struct px_frame *q)
{
	uint8_t *ip = q->bytes + PL_ETH_LEN +
		      (q->bytes[12] == 0x81 ? PL_VLAN_LEN : 0);
	uint8_t *u = ip + (ip[0] & 0x0f) * 4u;

	if (gr_below(2))
		u[4 + gr_below(2)] = (uint8_t)gr_rand(); /* UDP length */
	else
		u[PL_UDP_LEN + gr_below(18)] ^= (uint8_t)(1 + gr_below(255));
}

/* UDP: length checks, ports, and the payload checks after it. */
static int udp(void)
{
	static const enum pl_reason rs[] = {
		PL_BAD_UDP_TRUNC, PL_BAD_UDP_LEN, PL_BAD_HDR_TRUNC,
		PL_BAD_MAGIC,	  PL_BAD_VERSION, PL_BAD_CHECK,
	};
	uint8_t f[MAXF];
	uint8_t *ip = f + PL_ETH_LEN, *u = ip + PL_IP4_LEN;
	struct pl_frame_spec s = spec;
	size_t len, i;
	uint16_t tot;

	len = good(f, false, 200, 20);
	expect(f, len, PL_UDP_PORT, PL_OK, "good frame, 200-byte payload");
	expect(f, len, 0, PL_OK, "good frame, any port");
	for (i = 0; i < sizeof(rs) / sizeof(rs[0]); i++)
		bad(rs[i]);
	s.dst_port = 9001;
	len = pl_build_frame(f, MAXF, &s, 18, 0, 21, 5);
	expect(f, len, PL_UDP_PORT, PL_OTHER_PORT, "port 9001");
	expect(f, len, 9001, PL_OK, "port 9001 asked for");
	expect(f, len, 0, PL_OK, "port 9001, any port");
	/* A UDP length short of the IP payload: the rest is junk. */
	len = good(f, false, 18, 22);
	memset(f + len, 0xaa, 6);
	memcpy(&tot, ip + 2, 2);
	tot = htons(ntohs(tot) + 6);
	memcpy(ip + 2, &tot, 2);
	reseal_ip(ip);
	expect(f, len + 6, PL_UDP_PORT, PL_OK, "junk after the UDP datagram");
	/* A UDP length one byte past the IP payload. */
	len = good(f, false, 18, 23);
	u[5]++;
	expect(f, len, PL_UDP_PORT, PL_BAD_UDP_LEN, "UDP length + 1");
	drawn_batch(200, NULL, "good frames, drawn ports");
	drawn_batch(300, bad_udp, "a damaged UDP header or payload");
	return gr_verdict();
}

/* Every cut of good frames, right against an unreadable page. */
static int bounds(void)
{
	static struct px_frame q[PX_BATCH];
	static struct px_result r[PX_BATCH];
	uint8_t f[MAXF];
	struct pl_pkt want;
	size_t len, cut, n;
	uint16_t port;
	int k;

	for (k = 0; k < 4; k++) {
		/* Two known frames, two drawn ones. */
		if (k < 2)
			len = good(f, k, 40, 30), port = PL_UDP_PORT;
		else
			len = drawn(f, &port);
		for (cut = 0, n = 0; cut <= len && n < PX_BATCH; cut++, n++) {
			q[n].len = (uint16_t)cut;
			q[n].port = port;
			memcpy(q[n].bytes, f, cut);
		}
		gr_context("parsing every cut of a %zu-byte frame", len);
		student_many(q, n, r);
		gr_context("%s", "");
		for (cut = 0; cut < n && gr_failures < 3; cut++)
			compare((enum pl_reason)r[cut].reason, &r[cut].pkt,
				pl_parse_frame(f, cut, port, &want), &want, cut,
				"a frame cut short");
	}
	return gr_verdict();
}

/* Random bit flips, mostly in the headers, sometimes a cut. */
static void damage(struct px_frame *q)
{
	unsigned k, n = 1 + (unsigned)gr_below(3);

	for (k = 0; k < n; k++) {
		size_t at = (size_t)gr_below(gr_below(2) ? 50 : q->len);

		q->bytes[at] ^= (uint8_t)(1u << gr_below(8));
	}
	if (gr_below(4) == 0)
		q->len = (uint16_t)gr_below(q->len + 1u);
	if (gr_below(8) == 0) /* sometimes with a right IP checksum */
		reseal_ip(q->bytes + PL_ETH_LEN +
			  (q->bytes[12] == 0x81 ? PL_VLAN_LEN : 0));
}

/* Random damage: the same verdict as common/ on 20000 drawn frames. */
static int differential(void)
{
	unsigned i;

	for (i = 0; i < 20 && gr_failures < 5; i++)
		drawn_batch(1000, damage, "damaged frame");
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "ethernet", 3, "runts, one VLAN tag, other EtherTypes", ethernet },
	{ "ipv4", 5, "every IPv4 check, options, padding, fragments", ipv4 },
	{ "udp", 3, "UDP lengths and ports, then the payload", udp },
	{ "bounds", 4, "no byte read past the end of any cut frame", bounds },
	{ "differential", 3, "same verdicts as common/ on damaged frames",
	  differential },
	{ 0 }
};

int main(int argc, char **argv)
{
	gr_sandbox(&(struct gr_sandbox){ 0 });
	return gr_main(argc, argv, "02-parse", cases);
}
