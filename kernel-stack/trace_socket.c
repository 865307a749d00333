/* SPDX-License-Identifier: MIT */
/*
 * --trace N on the socket path: the first N datagrams step by step, with
 * the values of this run: how many bytes waited on the socket, the
 * kernel's own RX stamp of each datagram, the recvmmsg() call that returned
 * it, the copy into our buffer and what the parser found. Then the plain
 * loop takes over: tracing costs nothing once it is done.
 */
#include "rx_socket.h"

#include <linux/sock_diag.h>

/* Bytes of datagrams waiting on the socket's receive queue (SO_MEMINFO). */
static uint64_t queued_bytes(int fd)
{
	uint32_t mem[SK_MEMINFO_VARS] = { 0 };
	socklen_t len = sizeof(mem);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len))
		return 0;
	return mem[SK_MEMINFO_RMEM_ALLOC];
}

void socket_trace_setup(struct sock_rx *rx, const struct cfg *c)
{
	struct pl_trace *t = &rx->trace;

	pl_trace_rec(t, 0, PL_AT_USER, PL_EV_SYSCALL, "socket(AF_INET, DGRAM)",
		     "fd", (uint64_t)rx->fd, 0, 0, 0);
	pl_trace_rec(t, 0, PL_AT_KERNEL, PL_EV_STEP, "SO_RCVBUF granted",
		     "bytes", (uint64_t)rx->rcvbuf, 0, 0, 0);
	pl_trace_rec(t, 0, PL_AT_KERNEL, PL_EV_STEP,
		     "SO_TIMESTAMPING software RX", "on", 1, 0, 0, 0);
	pl_trace_rec(t, 0, PL_AT_USER, PL_EV_SYSCALL, "bind()", "port", c->port,
		     0, 0, 0);
	pl_trace_rec(t, 0, PL_AT_USER, PL_EV_STEP, "buffers for a batch",
		     "batch bytes addr", rx->batch,
		     (uint64_t)rx->batch * BUF_LEN, (uintptr_t)rx->bufs, 0);
	rx->queued = queued_bytes(rx->fd);
}

/*
 * Trace one datagram of a batch in the order it happened: queued by the
 * kernel (at its RX stamp), returned by the call, copied, parsed.
 */
static void trace_one(struct sock_rx *rx, uint32_t unit, unsigned i, int n,
		      uint64_t now, uint64_t queued)
{
	struct pl_trace *t = &rx->trace;
	struct msghdr *mh = &rx->msgs[i].msg_hdr;
	unsigned len = rx->msgs[i].msg_len;
	uint64_t stamp = rx_stamp(rx, mh);
	enum pl_reason r;
	struct pl_pkt p = { 0 };

	r = rx_one(rx, rx->bufs[i], len, now, &p);
	pl_trace_rec_at(t, stamp ? stamp : now, unit, PL_AT_KERNEL, PL_EV_STEP,
			"softirq: IP, UDP, socket queue", "after_tx_ns",
			r == PL_OK && stamp > p.tx_ns ? stamp - p.tx_ns : 0, 0,
			0, 0);
	pl_trace_rec(t, unit, PL_AT_USER, PL_EV_SYSCALL, "recvmmsg()",
		     "call returned index queued_bytes", rx->syscalls,
		     (uint64_t)n, i, queued);
	pl_trace_rec(t, unit, PL_AT_KERNEL, PL_EV_COPY,
		     "copy skb -> user buffer", "len index addr", len, i,
		     (uintptr_t)rx->bufs[i], 0);
	pl_trace_rec(t, unit, PL_AT_USER, PL_EV_STEP, "parse pathlab header",
		     "reason seq flow one_way_ns", r, p.seq, p.flow,
		     r == PL_OK && now > p.tx_ns ? now - p.tx_ns : 0);
}

/*
 * The traced handler: trace the burst's datagrams while fewer than --trace
 * N are, account the rest; then the plain handler takes over.
 */
void socket_traced_burst(struct sock_rx *rx, int n, uint64_t now)
{
	struct pl_trace *t = &rx->trace;
	int i;

	for (i = 0; i < n; i++) {
		if (rx->traced < t->units)
			trace_one(rx, ++rx->traced, (unsigned)i, n, now,
				  rx->queued);
		else
			rx_one(rx, rx->bufs[i], rx->msgs[i].msg_len, now,
			       &(struct pl_pkt){ 0 });
		rx->msgs[i].msg_hdr.msg_controllen = CMSG_LEN_TS;
	}
	if (rx->traced < t->units) {
		rx->queued = queued_bytes(rx->fd); /* before the next call */
		return;
	}
	pl_trace_close(t);
	rx->on_burst = rx->plain_burst;
}
