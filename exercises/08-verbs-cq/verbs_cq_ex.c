/* SPDX-License-Identifier: MIT */
/*
 * Exercise 8: posting receives and polling the completion queue.
 *
 * With verbs the NIC writes a message straight into a buffer we
 * registered, but only into one we posted: a receive work request names
 * the buffer (a scatter/gather entry: address, length, the MR's lkey) and
 * carries a wr_id the completion will hand back. Each message consumes one
 * posted receive; on a UD queue pair a message that finds none is simply
 * dropped. We learn what arrived by polling the completion queue from user
 * space, no system call; then the buffer must be posted again. This is
 * verbs_post() of rdma/rx_verbs.h, rx_burst() and verbs_rx_loop() of
 * rdma/rx_verbs.c. Fill in the "Exercise 8.N" marks.
 */
#include "verbs_cq_ex.h"
#include "clock.h"
#include "wire.h"

#include <errno.h>

/* Parse and account one message handed to us at now (given). */
static inline void rx_one(struct ex_verbs_rx *rx, const uint8_t *buf,
			  size_t len, uint64_t now)
{
	struct pl_pkt p;
	enum pl_reason r = pl_parse_payload(buf, len, &p);

	if (r == PL_OK)
		pl_stats_good(&rx->stats, &p, now);
	else
		pl_stats_reject(&rx->stats, r);
}

/* Post receive work requests for n slots in one call, chained. */
int ex_post_slots(struct ex_verbs_rx *rx, const uint32_t *slot, int n)
{
	struct ibv_recv_wr *bad;
	int i;

	for (i = 0; i < n; i++) {
		/*
		 * Exercise 8.1: rx->sge[i] is slot[i]'s buffer: its address
		 * in rx->buf, EX_SLOT bytes, rx->mr->lkey. rx->wr[i] carries
		 * slot[i] as its wr_id, that one sge, and points at the next
		 * work request (NULL after the last), so that one call posts
		 * the whole chain.
		 */
	}
	/*
	 * Exercise 8.1 (continued): count the call in rx->recv_posts and
	 * post the chain with ibv_post_recv(). Careful: verbs return a
	 * positive errno, and this function returns 0 or -errno.
	 */
	(void)bad;
	return 0;
}

/* Account a burst of completions, then give their buffers back. */
static void rx_burst(struct ex_verbs_rx *rx, const struct ibv_wc *wc, int n)
{
	uint64_t now = pl_now_ns();
	uint32_t slot[EX_MAX_BATCH];
	int i, k = 0;

	rx->completions += (unsigned)n;
	for (i = 0; i < n; i++) {
		/*
		 * Exercise 8.3: a completion whose status is not
		 * IBV_WC_SUCCESS is counted (rx->wc_errors, its status in
		 * rx->last_wc_status) and its buffer not posted again: the
		 * QP is broken. For a good one, the slot is the wr_id; the
		 * message sits rx->grh bytes into the slot (UD puts the GRH
		 * first) and is wc[i].byte_len - rx->grh long: hand it to
		 * rx_one() and keep the slot in slot[k++] to post again.
		 */
		(void)now;
	}
	if (ex_post_slots(rx, slot, k))
		rx->post_errors++;
}

/* One poll of the CQ from user space: no system call, no sleep. */
int ex_poll_once(struct ex_verbs_rx *rx)
{
	int n = 0;

	/*
	 * Exercise 8.2: poll rx->cq for up to rx->batch completions into
	 * rx->wc and count the poll in rx->polls. When there are none
	 * (n <= 0) count rx->empty and return 0; otherwise hand them to
	 * rx_burst().
	 */
	return n;
}
