/* SPDX-License-Identifier: MIT */
/*
 * Exercise 4: what the grader asks the worker, and what it answers. The
 * socket is the grader's: it binds it, hands the worker a copy (the
 * worker's descriptor WK_FD_GIVEN) and sends to it; it counts the
 * worker's receive calls itself, from outside (gr_syscalls()).
 */
#ifndef PATHLAB_EX_RECVMMSG_RPC_H
#define PATHLAB_EX_RECVMMSG_RPC_H

#include <stdint.h>

#include "proto.h"
#include "wire.h"

enum { RX_SETUP = WK_OP_FIRST, RX_BATCH, RX_LOOP };

/* RX_SETUP: a receiver of batch messages on the given socket. */
struct rx_setup_in {
	uint32_t batch;
	int32_t flags;
};

/* What ex_init_msgs() left in message i, as indices into the state. */
struct rx_msg_view {
	int32_t iov;	  /* msg_iov - rx->iov, or -1: elsewhere */
	uint32_t iovlen;  /* msg_iovlen */
	int32_t buf;	  /* iov[i].iov_base - rx->bufs, in buffers, or -1 */
	uint32_t iov_len; /* iov[i].iov_len */
	uint32_t extras;  /* msg_name, namelen, control, controllen set */
};

/* RX_BATCH: ex_recv_batch() once; the receiver's counters after it.
 * RX_LOOP (uint32_t idle_ms): ex_recv_batch() until nothing came for
 * idle_ms; ret: how many calls. */
struct rx_counts {
	int32_t ret;
	uint32_t pad;
	uint64_t syscalls, empty, packets, bytes, bad_total;
	uint64_t unique; /* distinct sequence numbers, over the flows */
	uint64_t end_markers;
	uint64_t bad[PL_REASON_MAX];
};

#endif
