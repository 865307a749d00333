/* SPDX-License-Identifier: MIT */
/*
 * Exercise 4: recvmmsg() batching on the kernel path. Reference solution:
 * init_msgs() of kernel-stack/socket_setup.c, socket_rx_loop() and
 * socket_plain_burst() of kernel-stack/rx_socket.c.
 */
#include "recvmmsg_ex.h"

#include <sys/socket.h>

/* Point every message of the batch at its buffer. */
void ex_init_msgs(struct sock_rx *rx)
{
	unsigned i;

	for (i = 0; i < rx->batch; i++) {
		/* Exercise 4.1 */
		rx->iov[i] = (struct iovec){ rx->bufs[i], BUF_LEN };
		rx->msgs[i].msg_hdr = (struct msghdr){
			.msg_iov = &rx->iov[i],
			.msg_iovlen = 1,
		};
	}
}

/*
 * The plain handler, as socket_plain_burst(): parse and account every
 * datagram of the burst, which arrived at now.
 */
static void plain_burst(struct sock_rx *rx, int n, uint64_t now)
{
	struct pl_pkt p;
	int i;

	/* Exercise 4.3 */
	for (i = 0; i < n; i++) {
		/* Cut to the buffer: what is left cannot be trusted. */
		if (rx->msgs[i].msg_hdr.msg_flags & MSG_TRUNC)
			pl_stats_reject(&rx->stats, PL_BAD_UDP_LEN);
		else
			rx_one(rx, rx->bufs[i], rx->msgs[i].msg_len, now, &p);
	}
}

/*
 * One turn of socket_rx_loop(): receive a batch in one system call (the
 * kernel copies each payload) and hand it to plain_burst().
 */
int ex_recv_batch(struct sock_rx *rx)
{
	int n = 0;

	/* Exercise 4.2 */
	n = recvmmsg(rx->fd, rx->msgs, rx->batch, rx->flags, NULL);
	rx->syscalls++;
	if (n <= 0) {
		rx->empty++;
		return 0;
	}

	plain_burst(rx, n, pl_now_ns());
	return n;
}
