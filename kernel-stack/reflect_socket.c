/* SPDX-License-Identifier: MIT */
/*
 * --reflect on the socket path: the far end of the rtt workload
 * (pathlab-gen --pingpong). Every good datagram goes back to its sender.
 */
#include "rx_socket.h"

/* 8< socket-reflect */
/*
 * The rtt workload's far end: receive a batch, then hand the buffers of
 * its good datagrams straight back with one sendmmsg(), each to the
 * address it came from.
 */
static void reflect_batch(struct sock_rx *rx, const bool *good, int n)
{
	int i, g = 0, sent;

	for (i = 0; i < n; i++) {
		if (!good[i])
			continue; /* bad or foreign: never echoed */
		rx->iov[i].iov_len = rx->msgs[i].msg_len;
		rx->out[g++] = rx->msgs[i];
	}
	if (g) {
		sent = sendmmsg(rx->fd, rx->out, (unsigned)g, 0);
		rx->syscalls++;
		rx->reflected += sent > 0 ? (unsigned)sent : 0;
		rx->reflect_errors += (unsigned)(g - (sent > 0 ? sent : 0));
	}
	for (i = 0; i < n; i++) {
		rx->iov[i].iov_len = BUF_LEN;
		rx->msgs[i].msg_hdr.msg_namelen = sizeof(rx->peers[i]);
	}
}

/* The reflecting handler: account the burst, send the good ones back. */
void reflect_socket_burst(struct sock_rx *rx, int n, uint64_t now)
{
	bool good[MAX_BATCH];
	struct pl_pkt p;
	int i;

	for (i = 0; i < n; i++)
		good[i] = rx_one(rx, rx->bufs[i], rx->msgs[i].msg_len, now,
				 &p) == PL_OK;
	reflect_batch(rx, good, n);
}
/* >8 socket-reflect */
