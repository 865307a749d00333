/* SPDX-License-Identifier: MIT */
/*
 * The socket receiver's setup helpers: one queue's socket with its
 * options, bind and buffers (and its teardown), and the SO_REUSEPORT group
 * of a run on many queues.
 */
#include "rx_socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * Point every message of the batch at its buffer (and stamp space, and
 * with --reflect the space for its sender's address).
 */
static void init_msgs(struct sock_rx *rx, bool stamps)
{
	unsigned i;

	for (i = 0; i < rx->batch; i++) {
		rx->iov[i] = (struct iovec){ rx->bufs[i], BUF_LEN };
		rx->msgs[i].msg_hdr = (struct msghdr){
			.msg_iov = &rx->iov[i],
			.msg_iovlen = 1,
			.msg_control = stamps ? rx->cmsg[i] : NULL,
			.msg_controllen = stamps ? CMSG_LEN_TS : 0,
			.msg_name = rx->peers ? &rx->peers[i] : NULL,
			.msg_namelen = rx->peers ? sizeof(rx->peers[i]) : 0,
		};
	}
}

/* Ask for a receive buffer; root may exceed net.core.rmem_max. */
static int set_rcvbuf(int fd, unsigned bytes, int *granted)
{
	socklen_t len = sizeof(*granted);
	int v = (int)bytes;

	if (bytes &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)))
		return -errno;
	return getsockopt(fd, SOL_SOCKET, SO_RCVBUF, granted, &len) ? -errno
								    : 0;
}

/* 8< socket-reuseport */
/*
 * Many queues: every queue's socket binds the same port with SO_REUSEPORT
 * and the kernel picks one socket per datagram, by a hash of its 4-tuple
 * (so one flow always reaches one socket, as a NIC's RSS picks one RX
 * queue), or, with --steer cpu, by a classic BPF program: the socket
 * whose number is the CPU that ran the receive softirq, modulo N, so a
 * datagram stays on the CPU that took it in.
 */
int steer_by_cpu(int fd, unsigned queues)
{
	struct sock_filter code[] = {
		{ BPF_LD | BPF_W | BPF_ABS, 0, 0, SKF_AD_OFF + SKF_AD_CPU },
		{ BPF_ALU | BPF_MOD | BPF_K, 0, 0, queues },
		{ BPF_RET | BPF_A, 0, 0, 0 },
	};
	struct sock_fprog prog = { .len = 3, .filter = code };

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog,
			  sizeof(prog))
		       ? -errno
		       : 0;
}
/* >8 socket-reuseport */

/* Join the port's SO_REUSEPORT group when the run has many queues. */
static int reuseport(int fd, const struct cfg *c)
{
	int on = 1;

	if (pl_rx_queues(&c->rx) < 2)
		return 0;
	return setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on))
		       ? -errno
		       : 0;
}

/* One queue's socket, options, bind, buffers; undone by socket_close(). */
static int socket_open(struct sock_rx *rx, const struct cfg *c)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_port = htons(c->port) };
	int on = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE |
		 (c->hw_stamps ? HWSTAMP_SOF : 0);
	int err;

	if (inet_pton(AF_INET, c->bind, &addr.sin_addr) != 1)
		return -EINVAL;
	rx->batch = c->mode == MODE_RECVFROM ? 1 : c->batch;
	rx->bufs = calloc(rx->batch, BUF_LEN);
	rx->cmsg = calloc(rx->batch, CMSG_LEN_TS);
	if (c->rx.reflect) {
		rx->peers = calloc(rx->batch, sizeof(*rx->peers));
		rx->out = calloc(rx->batch, sizeof(*rx->out));
	}
	if (!rx->bufs || !rx->cmsg ||
	    (c->rx.reflect && (!rx->peers || !rx->out))) {
		err = -ENOMEM;
		goto out_free;
	}
	rx->fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx->fd < 0) {
		err = -errno;
		goto out_free;
	}
	err = set_rcvbuf(rx->fd, c->rcvbuf, &rx->rcvbuf);
	if (!err)
		err = reuseport(rx->fd, c);
	if (!err && (c->stamps || c->rx.trace) &&
	    setsockopt(rx->fd, SOL_SOCKET, SO_TIMESTAMPING, &on, sizeof(on)))
		err = -errno;
	if (!err && bind(rx->fd, (struct sockaddr *)&addr, sizeof(addr)))
		err = -errno;
	if (err)
		goto out_close;
	init_msgs(rx, c->stamps || c->rx.trace);
	hwconv_init(&rx->hw, c->hw_stamps);
	rx->realtime_off = pl_realtime_offset_ns();
	/* MSG_TRUNC: the whole length, to tell a datagram cut short. */
	rx->flags = MSG_TRUNC | (c->loop == LOOP_BUSY	    ? MSG_DONTWAIT
				 : c->mode == MODE_RECVFROM ? 0
							    : MSG_WAITFORONE);
	if (c->gpu && (err = gpu_socket_setup(rx, c)))
		goto out_close;
	return 0;

out_close:
	close(rx->fd);
out_free:
	free(rx->out);
	free(rx->peers);
	free(rx->cmsg);
	free(rx->bufs);
	return err;
}

/* Undo socket_open(). */
static void socket_close(struct sock_rx *rx)
{
	if (rx->gpu)
		gpu_socket_teardown(rx);
	pl_trace_close(&rx->trace); /* a run that ended while tracing */
	close(rx->fd);
	free(rx->out);
	free(rx->peers);
	free(rx->cmsg);
	free(rx->bufs);
}

int socket_queue_open(struct sock_rx *rxq, unsigned q, struct pl_run *run,
		      const struct cfg *c)
{
	int err;

	rxq[q].run = run;
	if (q) /* queue 0's are the run's, set up by pl_rx_begin() */
		pl_stats_init(&rxq[q].stats);
	err = socket_open(&rxq[q], c);
	if (err && q)
		pl_stats_free(&rxq[q].stats);
	return err;
}

void socket_queue_close(struct sock_rx *rxq, unsigned q)
{
	socket_close(&rxq[q]);
	if (q)
		pl_stats_free(&rxq[q].stats);
}
