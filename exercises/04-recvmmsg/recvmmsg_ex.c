/* SPDX-License-Identifier: MIT */
/*
 * Exercise 4: recvmmsg() batching on the kernel path.
 *
 * recvfrom() costs one system call per datagram. recvmmsg() fills a whole
 * vector of messages in one call: each struct mmsghdr describes where its
 * datagram goes, and the kernel says how long each one was. Fill in the
 * "Exercise 4.N" marks; recvmmsg(2) is the reference to read.
 */
#include "recvmmsg_ex.h"

#include <sys/socket.h>

/* Point every message of the batch at its buffer. */
void ex_init_msgs(struct sock_rx *rx)
{
	unsigned i;

	for (i = 0; i < rx->batch; i++) {
		/*
		 * Exercise 4.1: message i receives into rx->bufs[i], nothing
		 * else (no address, no control messages).
		 */
	}
}

/*
 * The plain handler, as socket_plain_burst(): parse and account every
 * datagram of the burst, which arrived at now.
 */
static void plain_burst(struct sock_rx *rx, int n, uint64_t now)
{
	struct pl_pkt p;

	/*
	 * Exercise 4.3: account every datagram that arrived: rx_one()
	 * (rx_socket.h) parses one. A datagram longer than its buffer was
	 * cut by the kernel, which says so: do not parse what is left,
	 * reject it as PL_BAD_UDP_LEN (pl_stats_reject()).
	 */
	(void)rx;
	(void)n;
	(void)now;
	(void)p;
}

/*
 * One turn of socket_rx_loop(): receive a batch in one system call (the
 * kernel copies each payload) and hand it to plain_burst().
 */
int ex_recv_batch(struct sock_rx *rx)
{
	int n = 0;

	/*
	 * Exercise 4.2: one system call for up to rx->batch datagrams
	 * (rx->flags). Every call counts in rx->syscalls, one that brought
	 * nothing in rx->empty (and the function returns 0).
	 */

	plain_burst(rx, n, pl_now_ns());
	return n;
}
