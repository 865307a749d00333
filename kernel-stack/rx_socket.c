/* SPDX-License-Identifier: MIT */
/*
 * pathlab-rx-socket: the kernel-stack receiver.
 *
 * The NIC (here: veth) hands each frame to the kernel; NAPI and the softirq
 * run IP and UDP and queue an skb on our socket; a system call copies the
 * payload into our buffer. We count system calls, wake-ups and, with
 * --rx-stamps, split each packet's latency at the kernel's own RX stamp.
 *
 * socket_setup() -> socket_rx_loop() -> socket_teardown() -> main(), the
 * skeleton every path has (rx_xsk.c, rx_dpdk.c, rx_verbs.c): diff two of
 * them to see what differs between the paths. The features live in their
 * own files: reflect_socket.c, hwstamp_socket.c, trace_socket.c,
 * gpu_socket.c, the report in report_socket.c and the command line in
 * opts_socket.c.
 */
#include "rx_socket.h"
#include "gpu.h"
#include "opt.h"
#include "report.h"
#include "run.h"
#include "rx.h"
#include "stats.h"
#include "sysctr.h"
#include "wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <linux/filter.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
static int steer_by_cpu(int fd, unsigned queues)
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

/*
 * The burst handler of each kind of run, chosen once at setup, so that no
 * loop tests an option per datagram: plain, and the traced one that steps
 * through the first --trace N datagrams and then hands over to the plain
 * one (*plain). --mode recvfrom receives one datagram per call (*one).
 * check_cfg() refuses the kinds that have no traced handler.
 */
static burst_fn *choose_loop(const struct cfg *c, burst_fn **plain, bool *one)
{
	enum { RECVMMSG, RECVFROM, STAMPED, REFLECT, GPU };
	static const struct {
		burst_fn *plain, *traced;
	} table[] = {
		[RECVMMSG] = { socket_plain_burst, socket_traced_burst },
		[RECVFROM] = { socket_plain_burst, NULL },
		[STAMPED] = { stamped_socket_burst, socket_traced_burst },
		[REFLECT] = { reflect_socket_burst, NULL },
		[GPU] = { gpu_socket_burst, gpu_socket_traced_burst },
	};
	int kind = c->gpu		      ? GPU
		   : c->rx.reflect	      ? REFLECT
		   : c->mode == MODE_RECVFROM ? RECVFROM
		   : c->stamps		      ? STAMPED
					      : RECVMMSG;

	*plain = table[kind].plain;
	*one = kind == RECVFROM;
	return c->rx.trace ? table[kind].traced : table[kind].plain;
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
	rx->on_burst = choose_loop(c, &rx->plain_burst, &rx->one_per_call);
	if (c->rx.trace)
		socket_trace_setup(rx, c);
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

/*
 * Set up: queue 0's socket, then the other queues' sockets in the same
 * SO_REUSEPORT group; each with the loop its run needs. 0 or -errno.
 */
static int socket_setup(struct sock_rx *rxq, struct pl_run *run,
			const struct cfg *c)
{
	unsigned q, n = pl_rx_queues(&c->rx);
	int err = 0;

	for (q = 0; q < n && !err; q++) {
		rxq[q].run = run;
		if (q)
			pl_stats_init(&rxq[q].stats);
		err = socket_open(&rxq[q], c);
		if (err)
			break;
		if (q == 0 && n > 1 && c->steer == STEER_CPU)
			err = steer_by_cpu(rxq[0].fd, n);
	}
	if (err)
		while (q-- > 0)
			socket_close(&rxq[q]);
	return err;
}

/* One datagram per system call (--mode recvfrom), as one message: 1/-1. */
static inline int recv_one(struct sock_rx *rx)
{
	ssize_t n =
		recvfrom(rx->fd, rx->bufs[0], BUF_LEN, rx->flags, NULL, NULL);

	if (n < 0)
		return -1;
	rx->msgs[0].msg_len = (unsigned)n;
	return 1;
}

/* The plain handler: parse and account every datagram of the burst. */
void socket_plain_burst(struct sock_rx *rx, int n, uint64_t now)
{
	struct pl_pkt p;
	int i;

	for (i = 0; i < n; i++)
		rx_one(rx, rx->bufs[i], rx->msgs[i].msg_len, now, &p);
}

/* 8< socket-rx-loop */
/*
 * Receive a batch per system call (recvmmsg(); with --mode recvfrom one
 * datagram per call, the baseline recvmmsg() improves on) and hand it to
 * the run's handler; the kernel copies each payload to us.
 */
void socket_rx_loop(struct sock_rx *rx)
{
	int n;

	while (!pl_run_done(rx->run, &rx->stats)) {
		n = rx->one_per_call ? recv_one(rx)
				     : recvmmsg(rx->fd, rx->msgs, rx->batch,
						rx->flags, NULL);
		rx->syscalls++;
		if (n <= 0) {
			rx->empty++; /* EAGAIN when busy, EINTR at the end */
			continue;
		}
		rx->on_burst(rx, n, pl_now_ns());
	}
}
/* >8 socket-rx-loop */

/* Undo socket_setup(), the last queue first. */
static void socket_teardown(struct sock_rx *rxq, const struct cfg *c)
{
	unsigned q;

	for (q = pl_rx_queues(&c->rx); q-- > 0;) {
		socket_close(&rxq[q]);
		if (q)
			pl_stats_free(&rxq[q].stats);
	}
}

int main(int argc, char **argv)
{
	struct cfg c;
	static struct sock_rx rxq[PL_MAX_QUEUES];
	static struct pl_rx_stats total;
	struct sock_rx *rx = &rxq[0];
	struct pl_run run;
	int err;

	err = socket_options(argc, argv, &c);
	if (err >= 0)
		return err;
	if (c.hw_stamps && (err = hwstamp_begin(c.rx.iface)))
		return err;
	if (pl_rx_trace_open("pathlab-rx-socket", &c.rx, &rx->trace, "pkt"))
		return PL_EXIT_USAGE;
	if (pl_rx_begin("pathlab-rx-socket", &c.rx, &run, &rx->stats))
		return PL_EXIT_USAGE;
	pl_stats_init(&total);
	err = socket_setup(rxq, &run, &c);
	if (err) {
		fprintf(stderr, "pathlab-rx-socket: %s:%u: %s\n", c.bind,
			c.port, strerror(-err));
		return err == -EINVAL ? PL_EXIT_USAGE : PL_EXIT_FAIL;
	}
	err = socket_report(rxq, &c, &total);
	socket_teardown(rxq, &c);
	pl_stats_free(&total);
	return pl_rx_end(&run, &rx->stats, err);
}
