/* SPDX-License-Identifier: MIT */
/*
 * Exercise 8: what the grader asks the worker, and what it answers. The
 * receiving end (device, QP, CQ, buffers) is the worker's, where the
 * student's code posts and polls; the sending end is the grader's.
 */
#ifndef PATHLAB_EX_VERBS_RPC_H
#define PATHLAB_EX_VERBS_RPC_H

#include <stdint.h>

#include "proto.h"

enum {
	VX_SETUP = WK_OP_FIRST, /* struct vx_setup; struct vx_where */
	VX_POST,		/* slots; the state (ret: ex_post_slots()) */
	VX_POST_ALL,		/* the harness posts every slot; the state */
	VX_POLL,		/* ex_poll_once() once; the state */
	VX_POLL_FOR,		/* struct vx_poll_for; the state */
	VX_LANDED,		/* uint32_t n: the harness polls; the state */
	VX_TO_ERR,		/* the QP to ERR; the state */
};

#define VX_MAX_SLOTS 64

struct vx_setup {
	char dev[64], addr[64];
	uint32_t slots, batch;
};

/* Where the grader sends: the worker's QP number and GID. */
struct vx_where {
	uint32_t qpn;
	uint8_t gid[16];
};

struct vx_poll_for {
	uint64_t want;	  /* packets */
	uint32_t idle_ms; /* give up after this long without one */
};

/* The receiver's counters (and, after VX_LANDED, what the harness saw). */
struct vx_state {
	int32_t ret;
	int32_t last_wc_status;
	uint64_t completions, polls, empty, wc_errors, recv_posts, post_errors;
	uint64_t packets, bad_total, bytes;
	uint32_t landed,
		in_slot; /* VX_LANDED: completions, in the right slot */
};

#endif
