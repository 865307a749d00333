/* SPDX-License-Identifier: MIT */
/* The sender's state, shared by tx_verbs.c and its JSON summary. */
#ifndef PATHLAB_VERBS_TX_H
#define PATHLAB_VERBS_TX_H

#include "sysctr.h"
#include "verbs.h"
#include "wire.h"

#include <stdio.h>

struct tx_cfg {
	struct verbs_cfg v;
	const char *json;
	unsigned size, payload, corrupt_every, cpu, gid_index;
	uint64_t count, rate;
	bool quiet, no_end;
};

struct verbs_tx {
	const struct tx_cfg *cfg;
	struct verbs_ep ep;
	unsigned depth, batch, signal, payload, end_round;
	uint64_t posted;    /* work requests posted: the next one's index */
	uint64_t completed; /* work requests known to be complete */
	uint64_t good;	    /* good messages posted: the next sequence */
	uint64_t *good_at;  /* per send slot: good messages before it */
	uint64_t sent, bad_sent, end_sent, bad[PL_REASON_MAX];
	uint64_t post_calls, post_errors, cq_polls, wc_errors;
	uint64_t fail_index; /* first work request that failed */
	int last_status, last_errno;
	bool stalled; /* no completion within --timeout */
	uint64_t start_ns, end_ns;
	struct pl_sysctr before, after;
	struct verbs_hwctr hw_before, hw_after;
	struct ibv_send_wr wr[VERBS_MAX_BATCH];
	struct ibv_sge sge[VERBS_MAX_BATCH];
	struct ibv_wc wc[VERBS_MAX_BATCH];
};

/* tx_verbs_json.c */
int tx_verbs_report(const struct verbs_tx *tx);

#endif
