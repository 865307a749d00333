/* SPDX-License-Identifier: MIT */
/*
 * What the grader and the worker say to each other: the only thing the
 * two programs share. The worker runs the code under test; it reads
 * requests on fd WK_FD_REQ and writes replies on fd WK_FD_REP, both pipes.
 * A message is a header and len bytes of data:
 *
 *	grader -> worker: { op, len } data	a request (op < WK_OP_REPLY)
 *	worker -> grader: { WK_OP_REPLY, len }	its answer, as data
 *	worker -> grader: { WK_OP_DEV + n, len }	a call to the device
 *model the grader keeps (exercises 12, 14): the grader answers { WK_OP_REPLY,
 *len } on the request pipe, then waits on
 *
 * Nothing the worker sends is a verdict: the grader compares what it
 * answers with its own model and decides.
 */
#ifndef PATHLAB_EX_PROTO_H
#define PATHLAB_EX_PROTO_H

#include <stdint.h>

/* The worker's descriptors: nothing else is open in it. */
enum {
	WK_FD_REQ = 0,	/* requests, and the device model's answers */
	WK_FD_OUT = 1,	/* its stdout and stderr: a file the grader relays */
	WK_FD_REP = 3,	/* its answers, and its calls to the device model */
	WK_FD_GIVEN = 4 /* the first descriptor a case hands it (gr_give_fd) */
};

enum {
	WK_OP_MAP = 0,	       /* map the given memfd: { fd, len } -> addr */
	WK_OP_FIRST = 1,       /* the first of an exercise's own requests */
	WK_OP_REPLY = 0x7000,  /* an answer */
	WK_OP_DEV = 0x7100,    /* + n: a call to the device model */
	WK_OP_FAULT = 0x7fff,  /* the request was malformed */
	WK_MSG_MAX = 16 << 20, /* bytes of data in one message, at most */
};

struct wk_hdr {
	uint32_t op;
	uint32_t len;
};

/* WK_OP_MAP's request and answer. */
struct wk_map {
	uint32_t fd;
	uint32_t prot; /* PROT_READ | PROT_WRITE */
	uint64_t len;
	uint64_t addr; /* the answer: where the worker mapped it */
};

#endif
