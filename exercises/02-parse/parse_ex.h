/* SPDX-License-Identifier: MIT */
/* Exercise 2: the bounds-checked frame parser you write. */
#ifndef PATHLAB_EX_PARSE_H
#define PATHLAB_EX_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/*
 * The contract of pl_parse_frame() in common/wire.h: parse a whole frame
 * (no FCS) of len bytes, never reading past buf + len; return PL_OK and
 * fill *p, or the first reason the frame is not a good pathlab datagram.
 */
enum pl_reason ex_parse_frame(const void *buf, size_t len, uint16_t dst_port,
			      struct pl_pkt *p);

#endif
