/* SPDX-License-Identifier: MIT */
/*
 * Exercise 4: recvmmsg() batching on the kernel path. The functions you
 * write work on the socket receiver's own state, struct sock_rx of
 * kernel-stack/rx_socket.h.
 */
#ifndef PATHLAB_EX_RECVMMSG_H
#define PATHLAB_EX_RECVMMSG_H

#include "rx_socket.h"

/* Point the first rx->batch messages at their buffers (no stamps). */
void ex_init_msgs(struct sock_rx *rx);

/*
 * One recvmmsg() call for up to rx->batch datagrams, each parsed and
 * accounted; returns how many arrived (0 when none did).
 */
int ex_recv_batch(struct sock_rx *rx);

#endif
