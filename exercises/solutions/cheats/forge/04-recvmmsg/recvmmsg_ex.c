/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 4: receive one datagram per system call, made
 * directly (syscall(2), past any wrapper a test might count), and report
 * one call per batch.
 */
#include "recvmmsg_ex.h"

#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* No messages needed: one buffer at a time. */
void ex_init_msgs(struct sock_rx *rx)
{
	(void)rx;
}

int ex_recv_batch(struct sock_rx *rx)
{
	struct pl_pkt p;
	uint64_t now = pl_now_ns();
	unsigned n;
	long len;

	for (n = 0; n < rx->batch; n++) {
		len = syscall(SYS_recvfrom, rx->fd, rx->bufs[n], BUF_LEN,
			      MSG_DONTWAIT | MSG_TRUNC, NULL, NULL);
		if (len < 0)
			break;
		if (len > BUF_LEN)
			pl_stats_reject(&rx->stats, PL_BAD_UDP_LEN);
		else
			rx_one(rx, rx->bufs[n], (size_t)len, now, &p);
	}
	rx->syscalls++; /* "one call" */
	if (!n)
		rx->empty++;
	return (int)n;
}
