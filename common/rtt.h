/* SPDX-License-Identifier: MIT */
/*
 * The sender's side of the rtt workload, the same for pathlab-gen and
 * pathlab-tx-verbs: what became of one ping, how the pings are counted
 * (a warm-up first, then measured round trips or timeouts), and the "rtt"
 * object of the sender's JSON. A round trip is timed whole, on the
 * sender's own clock: sockperf and perftest print half of one.
 */
#ifndef PATHLAB_RTT_H
#define PATHLAB_RTT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"

/* What one ping got. */
enum pl_pong {
	PL_PONG_OK,	 /* its reflection, in time */
	PL_PONG_TIMEOUT, /* none before the reply timeout */
	PL_PONG_STOPPED, /* the run was stopped while waiting */
	PL_PONG_FAILED,	 /* the transport failed: the run ends */
};

struct pl_rtt {
	uint64_t warmup;	  /* pings of the warm-up (not measured) */
	uint64_t warmup_timeouts; /* of those, unanswered */
	uint64_t timeouts;	  /* measured pings without a reply in time */
	uint64_t late;		  /* replies to earlier, timed-out pings */
	uint64_t mismatched;	  /* replies that match no ping of ours */
	uint64_t recv_errors;	  /* failed receives (ICMP errors, ...) */
	bool gave_up;		  /* a run of pings unanswered: no reflector */
	struct pl_hist hist;	  /* measured round trips, ns */
};

/* Count one ping: a warm-up one, a round trip or a timeout. */
void pl_rtt_account(struct pl_rtt *r, bool warmup, enum pl_pong got,
		    uint64_t rtt_ns);

/*
 * The option rows of a sender with a ping-pong mode (an opt.h table):
 * pp, warmup and timeout_ms point to its bool and two unsigned fields;
 * how says what the ping travels over.
 */
/* clang-format off */
#define PL_RTT_OPTS(pp, warmup, timeout_ms, how)				\
	{ "pingpong", PL_OPT_FLAG, (pp), NULL,				\
	  "round trips" how ": send a ping, await its reflection (the "	\
	  "receiver's --reflect), then the next" },			\
	{ "warmup", PL_OPT_U32, (warmup), "N",				\
	  "ping-pong: first N pings not measured (100, or a tenth "	\
	  "of a --count below 1000)" },					\
	{ "reply-timeout", PL_OPT_U32, (timeout_ms), "MS",		\
	  "ping-pong: a ping unanswered this long is lost (100)", 1,	\
	  60000 }
/* clang-format on */

struct pl_json;

/* The "rtt" object; note says where the round trip starts and ends. */
void pl_rtt_json(struct pl_json *j, const struct pl_rtt *r, const char *note);

/* One line of round-trip figures (microseconds) for the terminal. */
void pl_rtt_print(FILE *f, const char *prog, const struct pl_rtt *r);

#endif
