/* SPDX-License-Identifier: MIT */
/*
 * pathlab-rx-socket: the kernel-stack receiver.
 *
 * The NIC (here: veth) hands each frame to the kernel; NAPI and the softirq
 * run IP and UDP and queue an skb on our socket; a system call copies the
 * payload into our buffer. We count system calls, wake-ups and, with
 * --rx-stamps, split each packet's latency at the kernel's own RX stamp.
 *
 * setup() -> rx_loop() -> teardown(), the shape every path copies.
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
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *const modes[] = { "recvmmsg", "recvfrom", NULL };
static const char *const loops[] = { "block", "busy", NULL };

/* 8< socket-rx-loop */
/* Receive a batch per system call; the kernel copies each payload to us. */
static void recvmmsg_loop(struct sock_rx *rx)
{
	struct pl_pkt p;
	uint64_t now;
	int i, n;

	while (!pl_run_done(&rx->run, &rx->stats)) {
		n = recvmmsg(rx->fd, rx->msgs, rx->batch, rx->flags, NULL);
		rx->syscalls++;
		if (n <= 0) {
			rx->empty++; /* EAGAIN when busy, EINTR at the end */
			continue;
		}
		now = pl_now_ns();
		for (i = 0; i < n; i++)
			rx_one(rx, rx->bufs[i], rx->msgs[i].msg_len, now, &p);
	}
}
/* >8 socket-rx-loop */

/* The same, reading each datagram's kernel RX stamp to split its latency. */
static void recvmmsg_stamped_loop(struct sock_rx *rx)
{
	struct pl_pkt p;
	uint64_t now;
	unsigned i;
	int n;

	while (!pl_run_done(&rx->run, &rx->stats)) {
		for (i = 0; i < rx->batch; i++)
			rx->msgs[i].msg_hdr.msg_controllen = CMSG_LEN_TS;
		n = recvmmsg(rx->fd, rx->msgs, rx->batch, rx->flags, NULL);
		rx->syscalls++;
		if (n <= 0) {
			rx->empty++;
			continue;
		}
		now = pl_now_ns();
		for (i = 0; i < (unsigned)n; i++) {
			struct msghdr *mh = &rx->msgs[i].msg_hdr;

			if (rx_one(rx, rx->bufs[i], rx->msgs[i].msg_len, now,
				   &p) == PL_OK)
				pl_stats_split(&rx->stats, p.tx_ns,
					       rx_stamp(rx, mh), now);
		}
	}
}

/* One datagram per system call: the baseline recvmmsg() improves on. */
static void recvfrom_loop(struct sock_rx *rx)
{
	struct pl_pkt p;
	ssize_t n;

	while (!pl_run_done(&rx->run, &rx->stats)) {
		n = recvfrom(rx->fd, rx->bufs[0], BUF_LEN, rx->flags, NULL,
			     NULL);
		rx->syscalls++;
		if (n < 0) {
			rx->empty++;
			continue;
		}
		rx_one(rx, rx->bufs[0], (size_t)n, pl_now_ns(), &p);
	}
}

/* Point every message of the batch at its buffer (and stamp space). */
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

/* Socket, options, bind, buffers; undone in reverse by the labels. */
static int socket_setup(struct sock_rx *rx, const struct cfg *c)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_port = htons(c->port) };
	int on = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	int err;

	if (inet_pton(AF_INET, c->bind, &addr.sin_addr) != 1)
		return -EINVAL;
	rx->batch = c->mode == MODE_RECVFROM ? 1 : c->batch;
	rx->bufs = calloc(rx->batch, BUF_LEN);
	rx->cmsg = calloc(rx->batch, CMSG_LEN_TS);
	if (!rx->bufs || !rx->cmsg) {
		err = -ENOMEM;
		goto out_free;
	}
	rx->fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx->fd < 0) {
		err = -errno;
		goto out_free;
	}
	err = set_rcvbuf(rx->fd, c->rcvbuf, &rx->rcvbuf);
	if (!err && (c->stamps || c->rx.trace) &&
	    setsockopt(rx->fd, SOL_SOCKET, SO_TIMESTAMPING, &on, sizeof(on)))
		err = -errno;
	if (!err && bind(rx->fd, (struct sockaddr *)&addr, sizeof(addr)))
		err = -errno;
	if (err)
		goto out_close;
	init_msgs(rx, c->stamps || c->rx.trace);
	rx->realtime_off = pl_realtime_offset_ns();
	if (c->mode == MODE_RECVFROM) {
		rx->flags = c->loop == LOOP_BUSY ? MSG_DONTWAIT : 0;
		rx->rx_loop = recvfrom_loop;
	} else {
		rx->flags =
			c->loop == LOOP_BUSY ? MSG_DONTWAIT : MSG_WAITFORONE;
		rx->rx_loop = c->stamps ? recvmmsg_stamped_loop : recvmmsg_loop;
	}
	if (c->rx.trace) {
		/* Chosen once, here: the plain loop carries no trace code. */
		rx->rx_plain = rx->rx_loop;
		rx->rx_loop = recvmmsg_traced_loop;
		socket_trace_setup(rx, c);
	}
	if (c->gpu && (err = gpu_socket_setup(rx, c)))
		goto out_close;
	return 0;

out_close:
	close(rx->fd);
out_free:
	free(rx->cmsg);
	free(rx->bufs);
	return err;
}

/* Undo socket_setup(). */
static void socket_teardown(struct sock_rx *rx)
{
	if (rx->gpu)
		gpu_socket_teardown(rx);
	pl_trace_close(&rx->trace); /* a run that ended while tracing */
	close(rx->fd);
	free(rx->cmsg);
	free(rx->bufs);
}

/* The socket path's own figures, nested under "socket" in the JSON. */
static void socket_json(struct pl_json *j, void *arg)
{
	const struct sock_rx *rx = arg;

	pl_json_obj(j, "socket");
	pl_json_u64(j, "batch", rx->batch);
	pl_json_u64(j, "rcvbuf_bytes", (uint64_t)rx->rcvbuf);
	pl_json_bool(j, "busy_poll_loop", rx->flags & MSG_DONTWAIT);
	pl_json_u64(j, "syscalls", rx->syscalls);
	pl_json_u64(j, "empty_syscalls", rx->empty);
	pl_json_u64(j, "thread_wakeups", rx->wakeups);
	pl_json_end(j);
}

/* The loop chosen at setup, as pl_rx_measure() runs it. */
static void socket_loop(void *arg)
{
	struct sock_rx *rx = arg;

	rx->rx_loop(rx);
}

/* Run the loop between two counter snapshots and report. */
static int receive_and_report(struct sock_rx *rx, const struct cfg *c)
{
	struct pl_sysctr before, after;
	struct pl_rx_window w = { .loop = socket_loop,
				  .arg = rx,
				  .ifname = c->rx.iface,
				  .before = &before,
				  .after = &after };
	char envbuf[32];
	struct pl_report r = {
		.tool = "pathlab-rx-socket",
		.path = "socket",
		.mode = modes[c->mode],
		.gpu = "none",
		.workload = pl_workloads[c->rx.workload],
		.env = pl_rx_env(&c->rx, "unknown", envbuf, sizeof(envbuf)),
		.ifname = c->rx.iface,
		.latency_kind = "one-way",
		.copies_per_packet = 1,
		.copies_source = "by_design",
		.copies_note =
			"kernel skb to the user buffer in the system call",
		.loss_points = PL_LOSS_LINK | PL_LOSS_BACKLOG | PL_LOSS_SOCKET,
		.stats = &rx->stats,
		.before = &before,
		.after = &after,
		.extra_json = socket_json,
		.extra_arg = rx,
	};
	int err;

	err = pl_rx_measure(&c->rx, &rx->run, &w);
	if (err)
		return err;
	rx->wakeups = w.sleeps;
	r.syscalls = rx->syscalls;
	r.wakeups = rx->wakeups;
	if (rx->gpu)
		gpu_socket_report(rx, &r);
	return pl_report_emit(&r, c->rx.json, c->rx.quiet);
}

int main(int argc, char **argv)
{
	struct cfg c = { .rx = PL_RX_DEFAULTS,
			 .bind = "0.0.0.0",
			 .port = PL_UDP_PORT,
			 .batch = 64 };
	static struct sock_rx rx;
	int err;
	const struct pl_opt opts[] = {
		{ "port", PL_OPT_U32, &c.port, "N", "UDP port (9000)", 1,
		  65535 },
		{ "bind", PL_OPT_STR, &c.bind, "ADDR",
		  "local IPv4 address (0.0.0.0)" },
		{ "mode", PL_OPT_CHOICE, &c.mode, "MODE", "receive call", 0, 0,
		  modes },
		{ "batch", PL_OPT_U32, &c.batch, "N",
		  "datagrams per recvmmsg (64)", 1, MAX_BATCH },
		{ "loop", PL_OPT_CHOICE, &c.loop, "KIND",
		  "block in the call, or spin with MSG_DONTWAIT", 0, 0, loops },
		{ "rcvbuf", PL_OPT_U32, &c.rcvbuf, "BYTES",
		  "SO_RCVBUF(FORCE) size (kernel default)", 4096, 1u << 30 },
		{ "rx-stamps", PL_OPT_FLAG, &c.stamps, NULL,
		  "SO_TIMESTAMPING software RX stamps: split the latency" },
		{ "iface", PL_OPT_STR, &c.rx.iface, "IF",
		  "receiving interface, for its counters and env label" },
		PL_RX_OPT_TRACE(&c.rx, "datagram"),
		{ "gpu", PL_OPT_CHOICE, &c.gpu, "KIND",
		  "GPU variant: none, sim (emulated GPU) or cuda", 0, 0,
		  pl_gpu_kinds },
		PL_RX_OPT_CPU(&c.rx),
		PL_RX_OPTS(&c.rx, "datagram", "from the interface's driver"),
		{ 0 }
	};

	err = pl_opt_parse(argc, argv, opts, "[options]", NULL);
	if (err)
		return err == PL_OPT_HELP ? PL_EXIT_OK : PL_EXIT_USAGE;
	if ((c.stamps || c.rx.trace) && c.mode == MODE_RECVFROM) {
		fprintf(stderr,
			"pathlab-rx-socket: --rx-stamps and --trace need "
			"--mode recvmmsg (stamps arrive as control "
			"messages)\n");
		return PL_EXIT_USAGE;
	}
	if (pl_rx_trace_open("pathlab-rx-socket", &c.rx, &rx.trace, "pkt"))
		return PL_EXIT_USAGE;
	if (pl_rx_begin("pathlab-rx-socket", &c.rx, &rx.run, &rx.stats))
		return PL_EXIT_USAGE;
	err = socket_setup(&rx, &c);
	if (err) {
		fprintf(stderr, "pathlab-rx-socket: %s:%u: %s\n", c.bind,
			c.port, strerror(-err));
		return err == -EINVAL ? PL_EXIT_USAGE : PL_EXIT_FAIL;
	}
	err = receive_and_report(&rx, &c);
	socket_teardown(&rx);
	return pl_rx_end(&rx.run, &rx.stats, err);
}
