/* SPDX-License-Identifier: MIT */
/*
 * Exercise 8: posting receives and polling the completion queue.
 * Reference solution: verbs_post() of rdma/rx_verbs.h, verbs_plain_burst()
 * and verbs_rx_loop() of rdma/rx_verbs.c, for a UD queue pair.
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
		/* Exercise 8.1 */
		rx->sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)(rx->buf + slot[i] * EX_SLOT),
			.length = EX_SLOT,
			.lkey = rx->mr->lkey,
		};
		rx->wr[i] = (struct ibv_recv_wr){
			.wr_id = slot[i],
			.next = i + 1 < n ? &rx->wr[i + 1] : NULL,
			.sg_list = &rx->sge[i],
			.num_sge = 1,
		};
	}
	/* Exercise 8.1 (continued) */
	rx->recv_posts++;
	return n ? -ibv_post_recv(rx->qp, rx->wr, &bad) : 0;
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
		/* Exercise 8.3 */
		if (wc[i].status != IBV_WC_SUCCESS) {
			rx->wc_errors++;
			rx->last_wc_status = wc[i].status;
			continue;
		}
		slot[k] = (uint32_t)wc[i].wr_id;
		rx_one(rx, rx->buf + slot[k] * EX_SLOT + rx->grh,
		       wc[i].byte_len - rx->grh, now);
		k++;
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

	/* Exercise 8.2 */
	n = ibv_poll_cq(rx->cq, (int)rx->batch, rx->wc);
	rx->polls++;
	if (n <= 0) {
		rx->empty++;
		return 0;
	}
	plain_burst(rx, n, pl_now_ns());
	return n;
}
