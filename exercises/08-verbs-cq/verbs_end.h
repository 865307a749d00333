/* SPDX-License-Identifier: MIT */
/*
 * Exercise 8's harness, on both sides: one end of a UD connection on a
 * device (its GID for an IPv4 address, PD, CQ, a registered buffer, a
 * QP). The grader's end sends; the worker's end receives, with the
 * student's code. Not a reference of the exercise: setup only.
 */
#ifndef PATHLAB_EX_VERBS_END_H
#define PATHLAB_EX_VERBS_END_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>

#define VX_QKEY	    0x01234567u
#define VX_TX_SLOTS 64
#define VX_MSG_LEN  64

struct vx_end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	uint8_t *buf;
	int gid_index;
	union ibv_gid gid;
};

/*
 * Open device name and find its RoCE v2 GID for IPv4 address addr; then
 * PD, CQ, a buffer of slots slot_len-byte slots registered, a UD QP in
 * RTR (RTS too when send). NULL, or what failed (errno set).
 */
const char *vx_end_open(struct vx_end *e, const char *name, const char *addr,
			unsigned slots, unsigned slot_len, bool send);

#endif
