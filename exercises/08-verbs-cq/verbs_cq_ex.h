/* SPDX-License-Identifier: MIT */
/*
 * Exercise 8: posting receives and polling the completion queue. The
 * receiver's state is a trimmed copy of struct verbs_rx (rdma/rx_verbs.h)
 * for a UD queue pair.
 */
#ifndef PATHLAB_EX_VERBS_CQ_H
#define PATHLAB_EX_VERBS_CQ_H

#include <infiniband/verbs.h>
#include <stdint.h>

#include "stats.h"

#define EX_SLOT	     2048 /* one receive buffer */
#define EX_GRH	     40	  /* a UD receive starts with the GRH */
#define EX_MAX_BATCH 64

struct ex_verbs_rx {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;	/* slots * EX_SLOT bytes, registered as mr */
	unsigned slots; /* receive buffers in buf */
	unsigned batch; /* completions per ibv_poll_cq(), <= EX_MAX_BATCH */
	unsigned grh;	/* bytes before the payload in a slot */
	uint64_t completions, polls, empty, wc_errors, recv_posts, post_errors;
	int last_wc_status;
	struct pl_rx_stats stats;
	struct ibv_recv_wr wr[EX_MAX_BATCH];
	struct ibv_sge sge[EX_MAX_BATCH];
	struct ibv_wc wc[EX_MAX_BATCH];
};

/* Post receives for the n slots of slot[] (n <= EX_MAX_BATCH); 0/-errno. */
int ex_post_slots(struct ex_verbs_rx *rx, const uint32_t *slot, int n);

/*
 * Poll the CQ once for up to rx->batch completions, account each, post
 * the buffers again; returns how many completions there were.
 */
int ex_poll_once(struct ex_verbs_rx *rx);

#endif
