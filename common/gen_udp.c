/* SPDX-License-Identifier: MIT */
/*
 * pathlab-gen over a UDP socket: the kernel builds the headers, sendmmsg()
 * hands it a batch per system call. One socket per flow, each bound to its
 * own source port, so a receiver's RSS can tell the flows apart.
 */
#include "gen.h"

#include <arpa/inet.h>
#include <linux/udp.h>
#include <netinet/in.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct udp_tx {
	int fd[GEN_MAX_FLOWS];
	unsigned flows, payload;
	struct sockaddr_in dst;
	struct mmsghdr msgs[GEN_MAX_BATCH];
	struct iovec iov[GEN_MAX_BATCH];
	uint8_t buf[GEN_MAX_BATCH][PL_MAX_FRAME];
};

/* Close every socket opened so far and free the context. */
static void udp_close(void *ctx)
{
	struct udp_tx *u = ctx;
	unsigned i;

	for (i = 0; i < u->flows; i++)
		if (u->fd[i] >= 0)
			close(u->fd[i]);
	free(u);
}

/*
 * One connected socket per flow of this thread (--threads: the others'
 * flows are theirs, fd -1 here), bound to the flow's source port.
 */
static int udp_open(const struct gen_cfg *cfg, void **ctx)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct udp_tx *u;
	unsigned i;
	int err;

	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->payload = cfg->payload_bytes;
	u->dst = (struct sockaddr_in){ .sin_family = AF_INET,
				       .sin_port = htons(cfg->port) };
	if (inet_pton(AF_INET, cfg->dst, &u->dst.sin_addr) != 1) {
		free(u);
		return -EINVAL;
	}
	for (i = 0; i < GEN_MAX_FLOWS; i++)
		u->fd[i] = -1;
	u->flows = cfg->flows;
	for (i = 0; i < cfg->flows; i++) {
		if (!gen_flow_mine(cfg, i))
			continue;
		u->fd[i] = socket(AF_INET, SOCK_DGRAM, 0);
		if (u->fd[i] < 0)
			goto out_close;
		src.sin_port = htons(cfg->src_port + i);
		if (bind(u->fd[i], (struct sockaddr *)&src, sizeof(src)) ||
		    connect(u->fd[i], (struct sockaddr *)&u->dst,
			    sizeof(u->dst)))
			goto out_close;
	}
	for (i = 0; i < GEN_MAX_BATCH; i++) {
		u->iov[i] = (struct iovec){ u->buf[i], u->payload };
		u->msgs[i].msg_hdr = (struct msghdr){
			.msg_iov = &u->iov[i],
			.msg_iovlen = 1,
		};
	}
	*ctx = u;
	return 0;

out_close:
	err = -errno;
	udp_close(u);
	return err;
}

/* Send a batch; all messages of one call belong to one flow. */
static int udp_send(void *ctx, const struct gen_msg *m, unsigned n)
{
	struct udp_tx *u = ctx;
	unsigned i;
	int sent;

	for (i = 0; i < n; i++)
		gen_fill_payload(u->buf[i], u->payload, &m[i]);
	sent = sendmmsg(gen_udp_fd(u, m[0].flow), u->msgs, n, 0);
	return sent < 0 ? -errno : sent;
}

int gen_udp_fd(void *ctx, unsigned flow)
{
	struct udp_tx *u = ctx;

	return u->fd[flow % u->flows];
}

const struct gen_tx_ops gen_tx_udp = {
	.name = "udp",
	.open = udp_open,
	.send = udp_send,
	.close = udp_close,
};

/* 8< gen-udp-gso */
/*
 * UDP GSO (UDP_SEGMENT): one sendmsg() hands the kernel the payloads of a
 * whole batch back to back; the stack builds one large skb and cuts it into
 * datagrams of gso_size at the last moment (the NIC, or here the
 * receiving side of the veth). One system call and one route and socket
 * lookup per batch instead of per datagram.
 */
#define GSO_MAX_SEGS 64 /* the kernel's UDP_MAX_SEGMENTS on older kernels */

static int udp_gso_open(const struct gen_cfg *cfg, void **ctx)
{
	int seg = (int)cfg->payload_bytes, err;
	struct udp_tx *u;
	unsigned i;

	err = udp_open(cfg, ctx);
	if (err)
		return err;
	u = *ctx;
	for (i = 0; i < u->flows; i++) {
		if (u->fd[i] >= 0 &&
		    setsockopt(u->fd[i], IPPROTO_UDP, UDP_SEGMENT, &seg,
			       sizeof(seg))) {
			err = -errno;
			udp_close(u);
			return err;
		}
	}
	return 0;
}

/* Lay the batch's payloads out back to back and send them as one. */
static int udp_gso_send(void *ctx, const struct gen_msg *m, unsigned n)
{
	struct udp_tx *u = ctx;
	uint8_t *area = u->buf[0]; /* the batch buffers, used as one area */
	unsigned i, max = 65507 / u->payload;
	ssize_t sent;

	if (max > GSO_MAX_SEGS)
		max = GSO_MAX_SEGS;
	if (n > max)
		n = max; /* the caller undoes the rest and sends it next */
	for (i = 0; i < n; i++)
		gen_fill_payload(area + (size_t)i * u->payload, u->payload,
				 &m[i]);
	sent = send(gen_udp_fd(u, m[0].flow), area, (size_t)n * u->payload, 0);
	return sent < 0 ? -errno : (int)n;
}
/* >8 gen-udp-gso */

const struct gen_tx_ops gen_tx_udp_gso = {
	.name = "udp-gso",
	.open = udp_gso_open,
	.send = udp_gso_send,
	.close = udp_close,
};
