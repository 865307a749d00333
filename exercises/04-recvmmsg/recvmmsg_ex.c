/* SPDX-License-Identifier: MIT */
/*
 * Exercise 4: recvmmsg() batching on the kernel path.
 *
 * recvfrom() costs one system call per datagram. recvmmsg() fills a whole
 * vector of messages in one call: each struct mmsghdr points at its own
 * buffer through an iovec, and the kernel writes each datagram's length
 * into its msg_len. This is the heart of kernel-stack/rx_socket.c
 * (init_msgs() and socket_rx_loop()). Fill in the "Exercise 4.N" marks.
 */
#include "recvmmsg_ex.h"

#include <sys/socket.h>

/* Point every message of the batch at its buffer. */
void ex_init_msgs(struct sock_rx *rx)
{
	unsigned i;

	for (i = 0; i < rx->batch; i++) {
		/*
		 * Exercise 4.1: rx->iov[i] describes rx->bufs[i], BUF_LEN
		 * bytes; rx->msgs[i].msg_hdr takes that one iovec, and no
		 * address and no control messages (all other fields 0).
		 */
	}
}

/* Receive a batch in one system call; the kernel copies each payload. */
int ex_recv_batch(struct sock_rx *rx)
{
	struct pl_pkt p;
	uint64_t now;
	int n = 0;

	/*
	 * Exercise 4.2: one recvmmsg() on rx->fd for up to rx->batch
	 * messages, with rx->flags and no timeout. Count the call in
	 * rx->syscalls. When it returns nothing (n <= 0: EAGAIN with
	 * MSG_DONTWAIT, EINTR at the end of a run) count rx->empty and
	 * return 0.
	 */

	now = pl_now_ns();
	/*
	 * Exercise 4.3: hand every datagram that arrived to rx_one()
	 * (rx_socket.h) with its own length, which the kernel wrote into
	 * rx->msgs[i].msg_len.
	 */
	(void)p;
	(void)now;
	return n;
}
