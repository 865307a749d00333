/* SPDX-License-Identifier: MIT */
/*
 * The socket receiver's state, config and per-datagram work, shared by
 * rx_socket.c (the skeleton: setup, loop, teardown, main) and its feature
 * files: report_socket.c, reflect_socket.c, hwstamp_socket.c,
 * trace_socket.c, gpu_socket.c.
 */
#ifndef PATHLAB_RX_SOCKET_H
#define PATHLAB_RX_SOCKET_H

#include "clock.h"
#include "run.h"
#include "rx.h"
#include "stats.h"
#include "trace.h"
#include "wire.h"
#include "hwstamp_socket.h"

#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define MAX_BATCH 1024
/*
 * One receive buffer: the largest datagram pathlab sends (a jumbo frame's
 * UDP payload) fits, rounded up. The calls are asked for the whole length
 * (MSG_TRUNC), so a longer one is seen, and counted as too_long.
 */
#define BUF_LEN	    9216
#define CMSG_LEN_TS CMSG_SPACE(sizeof(struct scm_timestamping))

enum { MODE_RECVMMSG, MODE_RECVFROM };
enum { LOOP_BLOCK, LOOP_BUSY };
enum { STEER_HASH, STEER_CPU };

struct cfg {
	struct pl_rx_opts rx; /* the options every receiver takes */
	const char *bind;
	unsigned port, batch, rcvbuf;
	int mode, loop;
	int steer; /* STEER_*: how SO_REUSEPORT picks a queue's socket */
	bool stamps;
	bool hw_stamps; /* --hw-stamps: the NIC's clock (hwstamp_socket.c) */
	int gpu;	/* enum pl_gpu_kind */
	const char *gpu_pci; /* --gpu-pci, or NULL */
};

/*
 * opts_socket.c: the command line into c, its defaults first, checked:
 * -1 to go on, or the exit code (0 after --help, 2 after a bad option).
 */
int socket_options(int argc, char **argv, struct cfg *c);

struct sock_rx;

/*
 * A burst handler: the n datagrams one receive returned (msgs[0..n-1],
 * bufs[0..n-1]), handed over at now. The loop calls the one choose_loop()
 * picked once per burst; the per-datagram step (rx_one()) is inline in it.
 */
typedef void burst_fn(struct sock_rx *rx, int n, uint64_t now);

struct sock_rx {
	int fd;
	int flags; /* MSG_WAITFORONE (block) or MSG_DONTWAIT (busy) */
	unsigned batch;
	int rcvbuf;	      /* what the kernel granted */
	int64_t realtime_off; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	struct hwconv hw;     /* --hw-stamps: PHC to CLOCK_MONOTONIC */
	uint64_t syscalls, empty, wakeups;
	uint64_t reflected, reflect_errors; /* --reflect */
	bool one_per_call;     /* --mode recvfrom: recvfrom(), one datagram */
	burst_fn *on_burst;    /* chosen at setup (choose_loop()) */
	burst_fn *plain_burst; /* after the traced part */
	struct pl_trace trace;
	uint32_t traced;    /* --trace: datagrams traced so far */
	uint64_t queued;    /* --trace: bytes queued before the next call */
	struct pl_run *run; /* shared by every queue of the run */
	struct pl_rx_stats stats;
	struct mmsghdr msgs[MAX_BATCH];
	struct iovec iov[MAX_BATCH];
	uint8_t (*bufs)[BUF_LEN];
	uint8_t (*cmsg)[CMSG_LEN_TS];
	struct sockaddr_storage *peers; /* --reflect: each datagram's sender */
	struct mmsghdr *out;		/* --reflect: the good ones, to send */
	struct gpu_socket *gpu;		/* the GPU variant's state, or NULL */
};

/* The kernel's software RX stamp of one datagram, in monotonic ns, or 0. */
static inline uint64_t rx_stamp(const struct sock_rx *rx, struct msghdr *mh)
{
	const struct scm_timestamping *ts = sock_stamps(mh);

	return ts ? pl_timespec_ns(&ts->ts[0]) - (uint64_t)rx->realtime_off : 0;
}

/* The datagram's RX stamp in monotonic ns: the NIC's with --hw-stamps,
 * else the kernel's software stamp; 0 if it has none. */
static inline uint64_t rx_stamp_at(struct sock_rx *rx, struct msghdr *mh,
				   uint64_t now)
{
	return rx->hw.on ? hwconv_stamp(&rx->hw, mh, now) : rx_stamp(rx, mh);
}

/*
 * Parse and account one datagram handed to us at now; len is its whole
 * length (MSG_TRUNC), so one longer than its buffer counts as too_long
 * instead of being parsed cut short.
 */
static inline enum pl_reason rx_one(struct sock_rx *rx, const void *buf,
				    size_t len, uint64_t now, struct pl_pkt *p)
{
	return pl_rx_account(&rx->stats,
			     len > BUF_LEN ? PL_BAD_TOO_LONG
					   : pl_parse_payload(buf, len, p),
			     p, now);
}

/*
 * socket_setup.c: queue q's socket, options, bind, buffers and stats, in
 * the run; 0 or -errno. Undone by socket_queue_close().
 */
int socket_queue_open(struct sock_rx *rxq, unsigned q, struct pl_run *run,
		      const struct cfg *c);
void socket_queue_close(struct sock_rx *rxq, unsigned q);

/*
 * socket_setup.c, --steer cpu: the group's socket picked by the CPU that
 * ran the receive softirq, modulo queues; 0 or -errno.
 */
int steer_by_cpu(int fd, unsigned queues);

/* The receive loop (rx_socket.c): recvmmsg() a batch, or recvfrom() one. */
void socket_rx_loop(void *arg);

/* The plain handler (rx_socket.c): every datagram parsed and accounted. */
burst_fn socket_plain_burst;

/* --rx-stamps (hwstamp_socket.c): each latency split at the RX stamp. */
burst_fn stamped_socket_burst;

/* --reflect (reflect_socket.c): send the good datagrams back. */
burst_fn reflect_socket_burst;

/* The traced handler (trace_socket.c): --trace N datagrams, then plain. */
burst_fn socket_traced_burst;

/* Record the one-time setup of the socket as trace events. */
void socket_trace_setup(struct sock_rx *rx, const struct cfg *c);

struct pl_report;

/* The GPU variant (gpu_socket.c): its buffers and loops; 0 or -errno. */
int gpu_socket_setup(struct sock_rx *rx, const struct cfg *c);

/* --trace N with --gpu: the GPU's setup as trace events. */
void gpu_socket_trace_setup(struct sock_rx *rx);

/* Undo gpu_socket_setup(), before the buffers are freed. */
void gpu_socket_teardown(struct sock_rx *rx);

/* Add the GPU figures to the run's report. */
void gpu_socket_report(struct sock_rx *rx, struct pl_report *r);

/* The GPU variant's handlers, plain and traced (gpu_socket.c). */
burst_fn gpu_socket_burst, gpu_socket_traced_burst;

/*
 * report_socket.c: write the report of the run measured in w (the loop of
 * every queue of rxq); 0 or -errno.
 */
int socket_report(struct sock_rx *rxq, const struct cfg *c,
		  const struct pl_rx_window *w, struct pl_rx_stats *total);

#endif
