/* SPDX-License-Identifier: MIT */
/*
 * The fallback to rdma_cm (--oob): the two ends swap QP number, PSN, GID
 * and ring key over a plain TCP connection, as rc_pingpong and perftest do,
 * and walk their QPs through the state machine themselves.
 */
#include "verbs_oob.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* Read or write exactly len bytes; -ETIMEDOUT after the socket timeout. */
static int full_io(int fd, void *buf, size_t len, bool wr)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = wr ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Bound every later read and write on fd by ms. */
static void set_timeouts(int fd, unsigned ms)
{
	struct timeval tv = { .tv_sec = ms / 1000,
			      .tv_usec = (ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Listen on the TCP port (any address): the receiver's side. */
int oob_listen(struct verbs_ep *ep, const struct verbs_cfg *c)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)(c->port + ep->queue)),
	};
	int on = 1, fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1)) {
		on = -errno;
		close(fd);
		return on;
	}
	ep->oob_listen = fd;
	return 0;
}

/* Wait up to ms for the sender's TCP connection. */
static int oob_wait_peer(struct verbs_ep *ep, unsigned ms)
{
	struct pollfd p = { .fd = ep->oob_listen, .events = POLLIN };
	int n = poll(&p, 1, (int)ms);

	if (n <= 0)
		return n ? -errno : -ETIMEDOUT;
	ep->oob_fd = accept4(ep->oob_listen, NULL, NULL, SOCK_CLOEXEC);
	if (ep->oob_fd < 0)
		return -errno;
	set_timeouts(ep->oob_fd, ms);
	return 0;
}

/* Connect to the receiver's TCP port within ms. */
static int oob_dial(struct verbs_ep *ep, const struct verbs_cfg *c)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)(c->port + ep->queue)),
	};
	struct pollfd p = { .events = POLLOUT };
	int fd, err = 0, n;
	socklen_t len = sizeof(err);

	if (inet_pton(AF_INET, c->peer, &a.sin_addr) != 1)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    errno != EINPROGRESS) {
		err = -errno;
		goto out_close;
	}
	p.fd = fd;
	n = poll(&p, 1, (int)c->timeout_ms);
	if (n <= 0) {
		err = n ? -errno : -ETIMEDOUT;
		goto out_close;
	}
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
	if (err) {
		err = -err;
		goto out_close;
	}
	fcntl(fd, F_SETFL, 0);
	set_timeouts(fd, c->timeout_ms);
	ep->oob_fd = fd;
	return 0;

out_close:
	close(fd);
	return err;
}

/* Check what the peer sent: ours, the same mode, as many QPs. */
int verbs_wire_check(const struct verbs_wire *w, const struct verbs_cfg *c,
		     bool from_sender)
{
	uint32_t mode = w->mode;

	if (ntohl(w->magic) != VERBS_WIRE_MAGIC) {
		fprintf(stderr, "%s: the peer is not a pathlab verbs tool\n",
			program_invocation_short_name);
		return -EPROTO;
	}
	if (mode != (uint32_t)c->mode) {
		fprintf(stderr,
			"%s: the %s runs --mode %s, this one --mode "
			"%s\n",
			program_invocation_short_name,
			from_sender ? "sender" : "receiver",
			mode <= VERBS_RC_WRITE_IMM ? verbs_modes[mode] : "?",
			verbs_modes[c->mode]);
		return -EPROTO;
	}
	if ((w->queues ? w->queues : 1u) != verbs_queues(c)) {
		fprintf(stderr,
			"%s: the %s runs --queues %u, this one --queues "
			"%u\n",
			program_invocation_short_name,
			from_sender ? "sender" : "receiver",
			w->queues ? w->queues : 1u, verbs_queues(c));
		return -EPROTO;
	}
	return 0;
}

/* The receiver: take the sender's QP, get ready, then tell ours. */
int oob_accept(struct verbs_ep *ep, const struct verbs_cfg *c,
	       int (*before_accept)(void *arg), void *arg)
{
	struct verbs_wire mine;
	int err;

	err = oob_wait_peer(ep, c->timeout_ms);
	if (!err)
		err = full_io(ep->oob_fd, &ep->remote, sizeof(ep->remote),
			      false);
	if (!err)
		err = verbs_wire_check(&ep->remote, c, true);
	if (!err)
		err = verbs_qp_rtr(ep, c);
	if (!err)
		err = verbs_qp_rts(ep, c);
	if (!err)
		err = before_accept(arg);
	if (err)
		return err;
	verbs_wire_fill(ep, c, &mine);
	return full_io(ep->oob_fd, &mine, sizeof(mine), true);
}

/* The sender: tell our QP, take the receiver's, walk to RTS. */
int oob_connect(struct verbs_ep *ep, const struct verbs_cfg *c)
{
	struct verbs_wire mine;
	struct ibv_ah_attr ah = {
		.is_global = 1,
		.grh = { .sgid_index = (uint8_t)ep->where.gid_index,
			 .hop_limit = 64 },
		.port_num = (uint8_t)ep->where.port,
	};
	int err;

	verbs_wire_fill(ep, c, &mine);
	err = oob_dial(ep, c);
	if (!err)
		err = full_io(ep->oob_fd, &mine, sizeof(mine), true);
	if (!err)
		err = full_io(ep->oob_fd, &ep->remote, sizeof(ep->remote),
			      false);
	if (!err)
		err = verbs_wire_check(&ep->remote, c, false);
	if (!err)
		err = verbs_qp_rtr(ep, c);
	if (!err)
		err = verbs_qp_rts(ep, c);
	if (err || c->mode != VERBS_UD)
		return err;
	memcpy(ah.grh.dgid.raw, ep->remote.gid, 16);
	ep->ah = ibv_create_ah(ep->pd, &ah);
	return ep->ah ? 0 : -errno;
}
