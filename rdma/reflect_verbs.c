/* SPDX-License-Identifier: MIT */
/*
 * --reflect on the verbs path: the far end of pathlab-tx-verbs --pingpong
 * (the rtt workload). A message flagged PL_FLAG_PING goes back unchanged,
 * as a SEND straight out of the receive buffer it landed in (no copy):
 *
 *   rc  on the same QP: its one peer is the sender
 *   ud  to the completion's source: the QP number in wc.src_qp, the address
 *       in the GRH area rxe wrote before the message, the Q_Key the sender
 *       told us; one address handle per source, made on its first message
 *
 * The buffer is posted for a receive again only when the send's completion
 * says the NIC has read it. Other messages (a plain train, end markers)
 * are received as usual and not sent back.
 */
#include "rx_verbs.h"

#include <arpa/inet.h>
#include <string.h>

/*
 * The source GID in a UD receive's 40-byte GRH area. For RoCE v2 over
 * IPv4, rxe puts the IPv4 header in its last 20 bytes: the source address,
 * IPv4-mapped. Otherwise it is a GRH (the IPv6 layout): the source GID at
 * byte 8.
 */
static void grh_source(const uint8_t *grh, uint8_t gid[16])
{
	const uint8_t *ip4 = grh + 20;

	if (grh[0] >> 4 != 6 && ip4[0] >> 4 == 4) {
		memset(gid, 0, 10);
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, ip4 + 12, 4);
	} else {
		memcpy(gid, grh + 8, 16);
	}
}

/* 8< verbs-reflect-ah */
/*
 * The address handle for the source of a UD completion: made from the
 * completion and its GRH on the source's first message, kept until the
 * teardown (a send in flight may still use it). NULL without a GRH, when
 * the device refuses, or past REFLECT_MAX_AHS sources.
 */
static struct ibv_ah *source_ah(struct verbs_rx *rx, const struct ibv_wc *wc,
				uint8_t *grh)
{
	struct reflect_peer *p;
	uint8_t gid[16];
	unsigned i;

	if (!(wc->wc_flags & IBV_WC_GRH))
		return NULL;
	grh_source(grh, gid);
	for (i = 0; i < rx->npeers; i++) {
		p = &rx->peers[i];
		if (p->qpn == wc->src_qp && !memcmp(p->gid, gid, sizeof(gid)))
			return p->ah;
	}
	if (rx->npeers == REFLECT_MAX_AHS)
		return NULL;
	p = &rx->peers[rx->npeers];
	p->ah = ibv_create_ah_from_wc(rx->ep.pd, (struct ibv_wc *)wc,
				      (struct ibv_grh *)grh,
				      (uint8_t)rx->ep.where.port);
	if (!p->ah)
		return NULL;
	p->qpn = wc->src_qp;
	memcpy(p->gid, gid, sizeof(gid));
	rx->npeers++;
	return p->ah;
}
/* >8 verbs-reflect-ah */

/* 8< verbs-reflect */
bool reflect_queue(struct verbs_rx *rx, const struct ibv_wc *wc, uint8_t *buf,
		   unsigned i)
{
	struct ibv_send_wr *wr = &rx->swr[i];
	struct ibv_ah *ah = NULL;

	if (rx->grh && !(ah = source_ah(rx, wc, buf))) {
		rx->reflect_errors++; /* nowhere to send it: receive only */
		return false;
	}
	rx->ssge[i] = (struct ibv_sge){
		.addr = (uintptr_t)(buf + rx->grh), /* the message as it came */
		.length = wc->byte_len - rx->grh,
		.lkey = rx->ep.mr->lkey,
	};
	*wr = (struct ibv_send_wr){
		.wr_id = VERBS_SEND_TAG | wc->wr_id, /* the slot, once sent */
		.sg_list = &rx->ssge[i],
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED, /* each frees its buffer */
	};
	if (ah) {
		wr->wr.ud.ah = ah;
		wr->wr.ud.remote_qpn = wc->src_qp;
		wr->wr.ud.remote_qkey = ntohl(rx->ep.remote.qkey);
	}
	return true;
}
/* >8 verbs-reflect */

void reflect_post(struct verbs_rx *rx, unsigned n, uint32_t *slot, int *k)
{
	struct ibv_send_wr *bad = NULL;
	unsigned i, went;

	for (i = 0; i + 1 < n; i++)
		rx->swr[i].next = &rx->swr[i + 1];
	rx->swr[n - 1].next = NULL;
	rx->reflect_posts++;
	if (!ibv_post_send(rx->ep.qp, rx->swr, &bad)) {
		rx->reflect_wrs += n;
		return;
	}
	/* Nothing from bad on was posted: those buffers are free now. */
	went = bad ? (unsigned)(bad - rx->swr) : 0;
	rx->reflect_wrs += went;
	for (i = went; i < n; i++) {
		slot[(*k)++] = (uint32_t)rx->swr[i].wr_id;
		rx->reflect_errors++;
	}
}

bool reflect_done(struct verbs_rx *rx, const struct ibv_wc *wc)
{
	rx->reflect_cqes++;
	if (wc->status == IBV_WC_SUCCESS) {
		rx->reflected++;
		return true;
	}
	rx->reflect_errors++; /* the QP is broken: no repost */
	rx->last_wc_status = wc->status;
	return false;
}

void reflect_teardown(struct verbs_rx *rx)
{
	while (rx->npeers)
		ibv_destroy_ah(rx->peers[--rx->npeers].ah);
}
