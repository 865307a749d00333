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
 * space, no system call; then the buffer must be posted again.
 * Fill in the "Exercise 8.N" marks (ibv_post_recv(3), ibv_poll_cq(3)).
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
		 * Exercise 8.1: work request i receives into slot[i] (each
		 * slot is EX_SLOT bytes of rx->buf, registered as rx->mr),
		 * and its completion must say which slot it was.
		 */
	}
	/*
	 * Exercise 8.1 (continued): all n with one call (rx->recv_posts
	 * counts calls). Mind the sign of the errors.
	 */
	(void)bad;
	return 0;
}

/*
 * The plain handler, as verbs_plain_burst(): account every completion of
 * the burst (in rx->wc; the messages arrived at now), then give their
 * buffers back.
 */
static void plain_burst(struct ex_verbs_rx *rx, int n, uint64_t now)
{
	const struct ibv_wc *wc = rx->wc;
	uint32_t slot[EX_MAX_BATCH];
	int i, k = 0;

	rx->completions += (unsigned)n;
	for (i = 0; i < n; i++) {
		/*
		 * Exercise 8.3: a failed completion is counted
		 * (rx->wc_errors, rx->last_wc_status), and its buffer is not
		 * posted again: the QP is broken. A good one is accounted
		 * (rx_one()), and its slot goes into slot[k++] to be posted
		 * again. Where does the message start in the slot on UD?
		 */
		(void)wc;
		(void)now;
	}
	if (ex_post_slots(rx, slot, k))
		rx->post_errors++;
}

/*
 * One turn of verbs_rx_loop(): one poll of the CQ from user space (no
 * system call, no sleep), the burst to plain_burst().
 */
int ex_poll_once(struct ex_verbs_rx *rx)
{
	int n = 0;

	/*
	 * Exercise 8.2: one poll of up to rx->batch completions, counted
	 * in rx->polls (an empty one also in rx->empty, returning 0); the
	 * completions go to plain_burst().
	 */
	return n;
}
