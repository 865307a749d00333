/* SPDX-License-Identifier: MIT */
/*
 * pathlab-gen over an AF_PACKET socket: we build every byte of the frame
 * ourselves (Ethernet, IPv4, UDP), which is what lets the generator send
 * deliberately malformed frames that no UDP socket could produce.
 */
#include "gen.h"
#include "clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct packet_tx {
	int fd;
	unsigned payload;
	struct pl_frame_spec spec;
	struct mmsghdr msgs[GEN_MAX_BATCH];
	struct iovec iov[GEN_MAX_BATCH];
	uint8_t buf[GEN_MAX_BATCH][PL_MAX_FRAME];
};

/* Our MAC and IPv4 address on the interface, the peer's MAC from ARP. */
static int packet_addresses(int fd, const struct gen_cfg *cfg,
			    struct pl_frame_spec *spec)
{
	struct ifreq ifr = { 0 };
	struct arpreq arp = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&arp.arp_pa;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", cfg->iface);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr))
		return -errno;
	memcpy(spec->src_mac, ifr.ifr_hwaddr.sa_data, 6);
	if (ioctl(fd, SIOCGIFADDR, &ifr))
		return -errno;
	spec->src_ip =
		ntohl(((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr.s_addr);
	sin->sin_family = AF_INET;
	if (inet_pton(AF_INET, cfg->dst, &sin->sin_addr) != 1)
		return -EINVAL;
	spec->dst_ip = ntohl(sin->sin_addr.s_addr);
	snprintf(arp.arp_dev, sizeof(arp.arp_dev), "%s", cfg->iface);
	/* Simplification: no ARP of our own; the lab's entries are static. */
	if (ioctl(fd, SIOCGARP, &arp) || !(arp.arp_flags & ATF_COM))
		return -EHOSTUNREACH;
	memcpy(spec->dst_mac, arp.arp_ha.sa_data, 6);
	return 0;
}

static void packet_close(void *ctx)
{
	struct packet_tx *p = ctx;

	close(p->fd);
	free(p);
}

/* Open a raw packet socket bound to the interface. */
static int packet_open(const struct gen_cfg *cfg, void **ctx)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET };
	struct packet_tx *p;
	int udp, err;
	unsigned i;

	if (!cfg->iface)
		return -EDESTADDRREQ;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->payload = cfg->payload_bytes;
	p->fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (p->fd < 0) {
		err = -errno;
		free(p);
		return err;
	}
	ll.sll_ifindex = (int)if_nametoindex(cfg->iface);
	udp = socket(AF_INET, SOCK_DGRAM, 0); /* for the address ioctls */
	err = udp < 0 ? -errno : packet_addresses(udp, cfg, &p->spec);
	if (udp >= 0)
		close(udp);
	if (!err && (!ll.sll_ifindex ||
		     bind(p->fd, (struct sockaddr *)&ll, sizeof(ll))))
		err = ll.sll_ifindex ? -errno : -ENODEV;
	if (err) {
		packet_close(p);
		return err;
	}
	p->spec.dst_port = (uint16_t)cfg->port;
	p->spec.ttl = 64;
	for (i = 0; i < GEN_MAX_BATCH; i++) {
		p->iov[i] = (struct iovec){ p->buf[i], 0 };
		p->msgs[i].msg_hdr = (struct msghdr){ .msg_iov = &p->iov[i],
						      .msg_iovlen = 1 };
	}
	p->spec.src_port = (uint16_t)cfg->src_port;
	*ctx = p;
	return 0;
}

#define PAYLOAD_OFF  (PL_ETH_LEN + PL_IP4_LEN + PL_UDP_LEN)
#define UDP_CSUM_OFF (PL_ETH_LEN + PL_IP4_LEN + 6)

/* Build each frame (good or deliberately bad) and send the batch. */
static int packet_send(void *ctx, const struct gen_msg *m, unsigned n)
{
	struct packet_tx *p = ctx;
	uint16_t base = p->spec.src_port;
	unsigned i;
	size_t len;
	int sent;

	for (i = 0; i < n; i++) {
		p->spec.src_port = (uint16_t)(base + m[i].flow);
		if (m[i].bad != PL_OK) {
			len = pl_build_bad_frame(p->buf[i], PL_MAX_FRAME,
						 &p->spec, m[i].bad, m[i].seq,
						 pl_now_ns());
		} else {
			len = pl_build_frame(p->buf[i], PL_MAX_FRAME, &p->spec,
					     p->payload, m[i].flow, m[i].seq,
					     0);
			/*
			 * Stamp as late as possible; the payload changed, so
			 * send no UDP checksum (0 is allowed over IPv4).
			 */
			gen_fill_payload(p->buf[i] + PAYLOAD_OFF, p->payload,
					 &m[i]);
			p->buf[i][UDP_CSUM_OFF] = 0;
			p->buf[i][UDP_CSUM_OFF + 1] = 0;
		}
		p->iov[i].iov_len = len;
	}
	p->spec.src_port = base;
	sent = sendmmsg(p->fd, p->msgs, n, 0);
	return sent < 0 ? -errno : sent;
}

const struct gen_tx_ops gen_tx_packet = {
	.name = "packet",
	.open = packet_open,
	.send = packet_send,
	.close = packet_close,
};
