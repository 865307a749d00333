/* SPDX-License-Identifier: MIT */
/* Exercise 2: what the grader asks the worker, and what it answers. */
#ifndef PATHLAB_EX_PARSE_RPC_H
#define PATHLAB_EX_PARSE_RPC_H

#include <stdint.h>

#include "proto.h"
#include "wire.h"

enum { PX_PARSE = WK_OP_FIRST };

#define PX_MAXF	 2048 /* bytes of one frame */
#define PX_BATCH 1000 /* frames in one request */

/* PX_PARSE: frames to parse, each with the port asked for. */
struct px_frame {
	uint16_t len;
	uint16_t port;
	uint8_t bytes[PX_MAXF];
};

/* What ex_parse_frame() returned, and the packet it filled. */
struct px_result {
	int32_t reason;
	uint32_t pad;
	struct pl_pkt pkt;
};

#endif
