/* SPDX-License-Identifier: MIT */
/* The sender's state, shared by tx_verbs.c, its ping-pong and its JSON. */
#ifndef PATHLAB_VERBS_TX_H
#define PATHLAB_VERBS_TX_H

#include "hist.h"
#include "json.h"
#include "run.h"
#include "sysctr.h"
#include "rtt.h"
#include "verbs.h"
#include "wire.h"

#include <signal.h>
#include <stdio.h>

#define TX_MAX_FLOWS	  256	     /* the flow field is one byte */
#define TX_PINGPONG_RECVS 64	     /* --pingpong: receive buffers per QP */
#define TX_NO_INDEX	  UINT64_MAX /* no work request failed */

struct tx_cfg {
	struct verbs_cfg v;
	const char *json;
	unsigned size, payload, corrupt_every, cpu, gid_index;
	unsigned flows; /* flow f goes to QP f % queues; 0: one per QP */
	uint64_t count, rate;
	bool quiet, no_end;
	bool pingpong;		   /* round trips: one ping, its reflection */
	unsigned warmup;	   /* ping-pong: first pings not measured */
	unsigned reply_timeout_ms; /* ping-pong: then the ping is lost */
};

/* One QP of the sender (--queues N: N of them), with its send ring. */
struct tx_queue {
	struct verbs_ep ep;
	uint64_t posted;     /* work requests posted: the next one's index */
	uint64_t completed;  /* work requests known to be complete */
	uint64_t good;	     /* good messages posted on this QP */
	uint64_t *good_at;   /* per send slot: good messages before it */
	uint64_t fail_index; /* first work request that failed */
	uint64_t sent;	     /* good messages known to have gone */
	unsigned nflows, next_flow; /* its flows: q, q + N, ...; the next */
	bool stalled;		    /* no completion within --timeout */
};

/* The round trips of --pingpong, on the sender's own clock. */
struct verbs_tx {
	const struct tx_cfg *cfg;
	unsigned depth, batch, signal, payload, end_round;
	unsigned nq, flows;  /* QPs, and the flows spread over them */
	unsigned recv_slots; /* --pingpong: receive buffers after the ring */
	uint64_t good;	     /* good messages posted, all QPs */
	uint64_t built;	     /* data messages built: the malformed cycle */
	uint64_t sent, bad_sent, end_sent, bad[PL_REASON_MAX];
	uint64_t post_calls, post_errors, cq_polls, wc_errors;
	int last_status, last_errno;
	bool stalled; /* a QP had no completion within --timeout */
	uint64_t start_ns, end_ns;
	uint64_t seq[TX_MAX_FLOWS]; /* per flow: good messages posted */
	struct tx_queue q[PL_MAX_QUEUES];
	struct pl_rtt *rtt; /* --pingpong, else NULL */
	struct pl_sysctr before, after;
	struct verbs_hwctr hw_before, hw_after;
	struct ibv_send_wr wr[VERBS_MAX_BATCH];
	struct ibv_sge sge[VERBS_MAX_BATCH];
	struct ibv_wc wc[VERBS_MAX_BATCH];
};

/* A receive's wr_id on the sender (--pingpong): the slot, tagged. */
#define TX_RECV_TAG (1ull << 62)

/*
 * tx_verbs.c: post n messages on QP q in one call (end markers if end,
 * pings if ping); false on failure.
 */
bool tx_verbs_post(struct verbs_tx *tx, struct tx_queue *q, unsigned n,
		   bool end, bool ping);

/* tx_verbs.c: poll QP q's CQ until at most room requests are in flight. */
void tx_verbs_reap(struct verbs_tx *tx, struct tx_queue *q, unsigned room);

/* tx_verbs.c: account one send completion of QP q. */
void tx_verbs_send_done(struct verbs_tx *tx, struct tx_queue *q,
			const struct ibv_wc *wc);

/*
 * pingpong_verbs.c (--pingpong): post the receive buffers of every QP,
 * before the first ping; 0 or -errno.
 */
int pingpong_setup(struct verbs_tx *tx);

/* pingpong_verbs.c: the round trips, ping after ping. */
void pingpong_run(struct verbs_tx *tx, volatile sig_atomic_t *stop);

/* pingpong_verbs.c: the "rtt" object, and its line on the terminal. */

/* tx_verbs_json.c */
int tx_verbs_report(const struct verbs_tx *tx);

#endif
