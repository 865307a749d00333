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
 * skeleton every path has: diff two rx_*.c files to see what differs
 * between the paths. The setup helpers live in socket_setup.c, the features
 * in their own files (rx_socket.h names them), the report in report_socket.c
 * and the command line in opts_socket.c.
 */
#include "rx_socket.h"
#include "clock.h"
#include "opt.h"
#include "rx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/*
 * The handlers of each kind of run, chosen once at setup, so that no loop
 * tests an option per packet: plain, and the traced one that steps through
 * the first --trace N packets and then hands over to the plain one.
 * check_cfg() refuses the kinds that have no traced handler.
 * --mode recvfrom receives one datagram per call.
 */
static void choose_loop(const struct cfg *c, struct sock_rx *rx)
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

	rx->plain_burst = table[kind].plain;
	rx->on_burst = c->rx.trace ? table[kind].traced : table[kind].plain;
	rx->one_per_call = kind == RECVFROM;
}

/*
 * Set up: every queue's socket, in one SO_REUSEPORT group, each with the
 * handler its run needs; the window the run is measured in. 0 or -errno.
 */
static int socket_setup(struct sock_rx *rxq, struct pl_run *run,
			const struct cfg *c, struct pl_rx_window *w)
{
	unsigned q, n = pl_rx_queues(&c->rx);
	int err = 0;

	for (q = 0; q < n; q++) {
		err = socket_queue_open(rxq, q, run, c);
		if (err)
			break;
		choose_loop(c, &rxq[q]);
	}
	if (!err && n > 1 && c->steer == STEER_CPU)
		err = steer_by_cpu(rxq[0].fd, n);
	if (err) {
		while (q-- > 0)
			socket_queue_close(rxq, q);
		return err;
	}
	if (c->rx.trace) {
		socket_trace_setup(rxq, c);
		if (rxq->gpu)
			gpu_socket_trace_setup(rxq);
	}
	*w = (struct pl_rx_window){
		.rx_loop = socket_rx_loop,
		.queues = rxq,
		.stride = sizeof(*rxq),
		.arg = rxq,
		.ifname = c->rx.iface,
	};
	for (q = 0; q < n; q++)
		w->queue_stats[q] = &rxq[q].stats;
	return 0;
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
void socket_rx_loop(void *arg)
{
	struct sock_rx *rx = arg;
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

	for (q = pl_rx_queues(&c->rx); q-- > 0;)
		socket_queue_close(rxq, q);
}

/* Say why setup failed, in one line; the exit code. */
static int setup_error(const struct cfg *c, const struct sock_rx *rx, int err)
{
	(void)rx;
	fprintf(stderr, "pathlab-rx-socket: %s:%u: %s\n", c->bind, c->port,
		strerror(-err));
	return err == -EINVAL ? PL_EXIT_USAGE : PL_EXIT_FAIL;
}

int main(int argc, char **argv)
{
	static struct sock_rx rxq[PL_MAX_QUEUES];
	static struct pl_rx_stats total;
	static struct pl_rx_window w;
	static struct pl_run run;
	struct sock_rx *rx = &rxq[0];
	struct cfg c;
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
	err = socket_setup(rxq, &run, &c, &w);
	if (err)
		return setup_error(&c, rx, err);
	err = pl_rx_measure(&c.rx, &run, &w);
	if (!err)
		err = socket_report(rxq, &c, &w, &total);
	socket_teardown(rxq, &c);
	pl_stats_free(&total);
	return pl_rx_end(&run, &rx->stats, err);
}
