/* SPDX-License-Identifier: MIT */
/*
 * pl-frames: the train of malformed and foreign frames the netns tests
 * send from the sender's namespace at a receiver, beside pathlab-gen's
 * good datagrams. One class per reason of common/wire.c a frame can carry
 * (pl_build_bad_frame()), then what is not ours: UDP to another port,
 * another IPv4 protocol, IPv6, garbage EtherTypes (an 802.3 length among
 * them), a VLAN-tagged and a QinQ-tagged datagram. Each class goes out
 * --each times from an AF_PACKET socket, paced so that none is lost on
 * the way. A class the sender's kernel refuses (the 10-byte eth_trunc:
 * AF_PACKET wants a whole Ethernet header) is reported as refused.
 *
 * It prints one JSON object: per class what was sent and what it is,
 * and per reason how many frames a receiver that sees whole frames must
 * count (pl_parse_frame() on each frame as built), bad and other in all,
 * and how many were IPv4 frames (ones the stack's Ip InReceives counts).
 */
#include "json.h"
#include "opt.h"
#include "wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NOT_OURS 8 /* the classes after the reasons */

/* Everything the train needs to know, from the command line. */
struct train {
	struct pl_frame_spec spec;
	unsigned each, port;
	const char *skip; /* a class left out, or NULL */
	int fd;
	uint64_t reason[PL_REASON_MAX];
	uint64_t ipv4, non_ipv4, sent, refused;
};

/* Write a big-endian 16-bit field. */
static void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* Seal the IPv4 header at ip (20 bytes) after a change. */
static void seal_ip(uint8_t *ip)
{
	put16(ip + 10, 0);
	put16(ip + 10, pl_csum(ip, PL_IP4_LEN));
}

/* Move a frame's bytes from off on by n, to make room for a header. */
static size_t open_gap(uint8_t *f, size_t len, size_t off, size_t n)
{
	memmove(f + off + n, f + off, len - off);
	return len + n;
}

/* The foreign class k (0..NOT_OURS-1) into f; its name and length. */
static size_t not_ours(struct train *t, unsigned k, uint8_t *f, size_t cap,
		       const char **name)
{
	struct pl_frame_spec s = t->spec;
	size_t len;

	s.dst_port = (uint16_t)(t->port + 1);
	s.vlan = k == 6 || k == 7;
	s.vlan_tci = 7;
	len = pl_build_frame(f, cap, &s, PL_HDR_LEN, 200, 0, 0);
	switch (k) {
	case 0:
		*name = "other_port";
		break;
	case 1:
		*name = "other_l4"; /* an experimental protocol */
		f[PL_ETH_LEN + 9] = 253;
		seal_ip(f + PL_ETH_LEN);
		break;
	case 2:
		/* IPv6 (version 6, UDP), addresses fe80::1 -> fe80::2. */
		*name = "ipv6";
		len = open_gap(f, len, PL_ETH_LEN, 20);
		put16(f + 12, 0x86dd);
		memset(f + PL_ETH_LEN, 0, 40);
		f[PL_ETH_LEN] = 0x60;
		put16(f + PL_ETH_LEN + 4, PL_UDP_LEN + PL_HDR_LEN);
		f[PL_ETH_LEN + 6] = 17;
		f[PL_ETH_LEN + 7] = 64;
		put16(f + PL_ETH_LEN + 8, 0xfe80);
		f[PL_ETH_LEN + 23] = 1;
		put16(f + PL_ETH_LEN + 24, 0xfe80);
		f[PL_ETH_LEN + 39] = 2;
		break;
	case 3:
	case 4:
	case 5: {
		static const uint16_t types[] = { 0x88b5, 0xffff, 0x0000 };
		static const char *const names[] = { "ethertype_88b5",
						     "ethertype_ffff",
						     "ethertype_0000_802_3" };

		*name = names[k - 3];
		put16(f + 12, types[k - 3]);
		break;
	}
	case 6:
		*name = "vlan";
		break;
	default:
		*name = "qinq"; /* 802.1ad VID 7 around 802.1Q VID 7 */
		len = open_gap(f, len, 12, PL_VLAN_LEN);
		put16(f + 12, 0x88a8);
		put16(f + 14, 7);
		break;
	}
	return len;
}

/* Send one class each times; count what a receiver must make of it. */
static void send_class(struct train *t, struct pl_json *j, const char *name,
		       const uint8_t *f, size_t len)
{
	struct timespec pause = { .tv_nsec = 500000 };
	struct pl_pkt p;
	enum pl_reason r = pl_parse_frame(f, len, (uint16_t)t->port, &p);
	bool ipv4 = len >= PL_ETH_LEN && f[12] == 0x08 && f[13] == 0x00;
	unsigned i, n = 0;
	int err = 0;

	if (t->skip && !strcmp(t->skip, name))
		return;
	for (i = 0; i < t->each && !err; i++) {
		if (send(t->fd, f, len, 0) == (ssize_t)len)
			n++;
		else
			err = errno;
		nanosleep(&pause, NULL);
	}
	pl_json_obj(j, name);
	pl_json_u64(j, "sent", n);
	pl_json_u64(j, "bytes", len);
	pl_json_str(j, "reason", pl_reason_name(r));
	pl_json_bool(j, "ipv4", ipv4);
	pl_json_str(j, "refused", err ? strerror(err) : "");
	pl_json_end(j);
	t->reason[r] += n;
	*(ipv4 ? &t->ipv4 : &t->non_ipv4) += n;
	t->sent += n;
	t->refused += err ? 1 : 0;
}

/* The whole train, then the totals. */
static void run(struct train *t, struct pl_json *j)
{
	uint8_t f[PL_MAX_FRAME];
	const char *name;
	unsigned r, k;
	size_t len;

	pl_json_obj(j, "classes");
	for (r = PL_BAD_ETH_TRUNC; r < PL_REASON_FRAME_MAX; r++) {
		len = pl_build_bad_frame(f, sizeof(f), &t->spec, r, r, 0);
		if (len)
			send_class(t, j, pl_reason_name(r), f, len);
	}
	for (k = 0; k < NOT_OURS; k++) {
		len = not_ours(t, k, f, sizeof(f), &name);
		send_class(t, j, name, f, len);
	}
	pl_json_end(j);
	pl_json_obj(j, "by_reason");
	for (r = PL_OK + 1; r < PL_REASON_MAX; r++)
		pl_json_u64(j, pl_reason_name(r), t->reason[r]);
	pl_json_end(j);
	pl_json_u64(j, "bad",
		    t->sent - t->reason[PL_OTHER_L2] -
			    t->reason[PL_OTHER_IPV6] - t->reason[PL_OTHER_L4] -
			    t->reason[PL_OTHER_PORT]);
	pl_json_u64(j, "other",
		    t->reason[PL_OTHER_L2] + t->reason[PL_OTHER_IPV6] +
			    t->reason[PL_OTHER_L4] + t->reason[PL_OTHER_PORT]);
	pl_json_u64(j, "sent", t->sent);
	pl_json_u64(j, "ipv4", t->ipv4);
	pl_json_u64(j, "non_ipv4", t->non_ipv4);
	pl_json_u64(j, "classes_refused", t->refused);
}

/* A MAC address "02:70:6c:00:00:01" into m; 0 or -EINVAL. */
static int parse_mac(const char *s, uint8_t *m)
{
	unsigned v[6], i;
	char end;

	if (!s || sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3],
			 &v[4], &v[5], &end) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		m[i] = (uint8_t)v[i];
	return 0;
}

int main(int argc, char **argv)
{
	struct train t = { .each = 3, .port = PL_UDP_PORT };
	const char *iface = NULL, *smac = NULL, *dmac = NULL, *src = NULL,
		   *dst = NULL;
	const struct pl_opt opts[] = {
		{ "iface", PL_OPT_IFACE, &iface, "IF", "send out of IF" },
		{ "src-mac", PL_OPT_STR, &smac, "MAC", "our MAC" },
		{ "dst-mac", PL_OPT_STR, &dmac, "MAC", "the receiver's MAC" },
		{ "src", PL_OPT_STR, &src, "ADDR", "our IPv4 address" },
		{ "dst", PL_OPT_STR, &dst, "ADDR", "the receiver's address" },
		{ "port", PL_OPT_U32, &t.port, "N", "the lab port (9000)", 1,
		  65534 },
		{ "each", PL_OPT_U32, &t.each, "N", "frames per class (3)", 1,
		  1000 },
		{ "skip", PL_OPT_STR, &t.skip, "CLASS", "leave one class out" },
		{ 0 }
	};
	struct sockaddr_ll ll = { .sll_family = AF_PACKET };
	struct in_addr a, b;
	struct pl_json j;

	if (pl_opt_parse(argc, argv, opts, "--iface IF ...", NULL))
		return PL_EXIT_USAGE;
	if (!iface || parse_mac(smac, t.spec.src_mac) ||
	    parse_mac(dmac, t.spec.dst_mac) || !src || !dst ||
	    inet_pton(AF_INET, src, &a) != 1 ||
	    inet_pton(AF_INET, dst, &b) != 1) {
		fprintf(stderr, "pl-frames: give --iface, --src-mac, "
				"--dst-mac, --src and --dst\n");
		return PL_EXIT_USAGE;
	}
	t.spec.src_ip = ntohl(a.s_addr);
	t.spec.dst_ip = ntohl(b.s_addr);
	t.spec.src_port = 10999;
	t.spec.dst_port = (uint16_t)t.port;
	t.spec.ttl = 64;
	ll.sll_ifindex = (int)if_nametoindex(iface);
	t.fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (t.fd < 0 || bind(t.fd, (struct sockaddr *)&ll, sizeof(ll))) {
		perror("pl-frames: AF_PACKET socket");
		return errno == EPERM ? PL_EXIT_SKIP : PL_EXIT_FAIL;
	}
	pl_json_init(&j, stdout, true);
	pl_json_obj(&j, NULL);
	pl_json_u64(&j, "each", t.each);
	run(&t, &j);
	pl_json_end(&j);
	pl_json_done(&j);
	close(t.fd);
	return PL_EXIT_OK;
}
