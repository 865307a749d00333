/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 2: the frame parser. Every frame is placed
 * right before a page the process may not read, so a parser that reads
 * one byte past the end of a frame dies (and fails the case). The
 * reference is common/wire.c's pl_parse_frame().
 */
#include "grade.h"
#include "parse_ex.h"
#include "wire.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The reference of common/: the code under test may not call it. */
GR_REFERENCE(enum pl_reason, pl_parse_frame,
	     (const void *buf, size_t len, uint16_t dst_port, struct pl_pkt *p))

#define MAXF 2048

static const struct pl_frame_spec spec = {
	.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
	.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
	.src_ip = 0x0a000001,
	.dst_ip = 0x0a000002,
	.src_port = 12345,
	.dst_port = PL_UDP_PORT,
	.ttl = 64,
};

/* A copy of f[0..len) that ends where an unreadable page begins. */
static const uint8_t *guarded(const uint8_t *f, size_t len)
{
	static uint8_t *area;
	long pg = sysconf(_SC_PAGESIZE);
	size_t span = (MAXF + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
	uint8_t *end;

	if (!area) {
		area = mmap(NULL, span + (size_t)pg, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED)
			abort();
		mprotect(area + span, (size_t)pg, PROT_NONE);
	}
	end = area + span;
	memcpy(end - len, f, len);
	return end - len;
}

/* Parse f with both parsers; check the same verdict and, if good, fields. */
static enum pl_reason same(const uint8_t *f, size_t len, uint16_t port,
			   const char *what)
{
	struct pl_pkt want, got;
	enum pl_reason rw = __real_pl_parse_frame(f, len, port, &want), rg;

	gr_context("parsing %s (%zu bytes, common/ says %s)", what, len,
		   pl_reason_name(rw));
	rg = ex_parse_frame(guarded(f, len), len, port, &got);

	if (rg != rw) {
		gr_fail_at(__FILE__, __LINE__,
			   "%s (%zu bytes): %s, expected %s", what, len,
			   pl_reason_name(rg), pl_reason_name(rw));
		return rg;
	}
	if (rw == PL_OK &&
	    (got.l3_off != want.l3_off || got.l4_off != want.l4_off ||
	     got.payload_off != want.payload_off ||
	     got.payload_len != want.payload_len || got.vlan != want.vlan ||
	     got.vlan_tci != want.vlan_tci || got.src_ip != want.src_ip ||
	     got.dst_ip != want.dst_ip || got.src_port != want.src_port ||
	     got.dst_port != want.dst_port || got.seq != want.seq ||
	     got.flow != want.flow))
		gr_fail_at(__FILE__, __LINE__,
			   "%s: fields differ: l3 %u l4 %u payload %u+%u vlan "
			   "%d/%#x ports %u>%u, expected l3 %u l4 %u payload "
			   "%u+%u vlan %d/%#x ports %u>%u",
			   what, got.l3_off, got.l4_off, got.payload_off,
			   got.payload_len, got.vlan, got.vlan_tci,
			   got.src_port, got.dst_port, want.l3_off, want.l4_off,
			   want.payload_off, want.payload_len, want.vlan,
			   want.vlan_tci, want.src_port, want.dst_port);
	return rg;
}

/* Expect exactly reason r (and agreement with common/). */
static void expect(const uint8_t *f, size_t len, uint16_t port,
		   enum pl_reason r, const char *what)
{
	struct pl_pkt p;

	if (__real_pl_parse_frame(f, len, port, &p) != r)
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

	__real_pl_parse_frame(f, len, PL_UDP_PORT, &want);
	gr_context("parsing %s (%zu bytes)", what, len);
	if (ex_parse_frame(guarded(f, len), len, PL_UDP_PORT, &got) !=
	    PL_OTHER_L4) {
		same(f, len, PL_UDP_PORT, what);
		return;
	}
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
	return gr_verdict();
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
	return gr_verdict();
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
	return gr_verdict();
}

/* Every cut of good frames, right against an unreadable page. */
static int bounds(void)
{
	uint8_t f[MAXF];
	size_t len, cut;
	int vlan;

	for (vlan = 0; vlan < 2; vlan++) {
		len = good(f, vlan, 40, 30);
		for (cut = 0; cut <= len; cut++)
			same(f, cut, PL_UDP_PORT, "a frame cut short");
	}
	return gr_verdict();
}

/* Random damage: the same verdict as common/ on 20000 frames. */
static int differential(void)
{
	uint8_t f[MAXF];
	size_t len;
	unsigned i, k, n;

	srand(2024);
	for (i = 0; i < 20000 && gr_failures < 5; i++) {
		len = good(f, rand() % 4 == 0, 18 + (size_t)(rand() % 300), i);
		n = 1 + (unsigned)(rand() % 3);
		for (k = 0; k < n; k++) {
			/* Mostly the headers: that is where the checks are. */
			size_t at = (size_t)rand() % (rand() % 2 ? 50 : len);

			f[at] ^= (uint8_t)(1u << (rand() % 8));
		}
		if (rand() % 4 == 0)
			len = (size_t)rand() % (len + 1);
		if (rand() % 8 == 0) /* sometimes with a right IP checksum */
			reseal_ip(f + PL_ETH_LEN +
				  (f[12] == 0x81 ? PL_VLAN_LEN : 0));
		same(f, len, rand() % 8 ? PL_UDP_PORT : 0, "damaged frame");
	}
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
	return gr_main(argc, argv, "02-parse", cases);
}
