/* SPDX-License-Identifier: MIT */
/* The verbs model of exercise 12: the rules of vmodel.h, nothing more. */
#include "vmodel.h"

#include <errno.h>
#include <string.h>

#define PSN_MASK 0xffffffu

/*
 * The device's own record of each QP: the rules go by it. The attr of
 * struct vm_qp is the application's copy (what ibv_query_qp() would
 * fill in): writing it changes nothing on the device.
 */
struct dev_qp {
	const struct vm_qp *qp;
	struct vm_qp_attr attr;
	uint32_t next_psn;   /* of the next packet sent */
	uint32_t expect_psn; /* of the next packet received */
};

static struct dev_qp devs[32], no_qp;
static unsigned ndevs;

/* The device's record of qp (a QP it never created: one in RESET). */
static struct dev_qp *dev(const struct vm_qp *qp)
{
	unsigned i;

	for (i = 0; i < ndevs; i++)
		if (devs[i].qp == qp)
			return &devs[i];
	memset(&no_qp, 0, sizeof(no_qp));
	return &no_qp;
}

/* What a step needs in its mask, and what it may have besides. */
struct step {
	enum vm_qp_state from, to;
	int rc_need, rc_may, ud_need, ud_may;
};

static const struct step steps[] = {
	{ VM_QPS_RESET, VM_QPS_INIT,
	  VM_QP_STATE | VM_QP_PKEY_INDEX | VM_QP_PORT | VM_QP_ACCESS_FLAGS, 0,
	  VM_QP_STATE | VM_QP_PKEY_INDEX | VM_QP_PORT | VM_QP_QKEY, 0 },
	{ VM_QPS_INIT, VM_QPS_RTR,
	  VM_QP_STATE | VM_QP_AV | VM_QP_PATH_MTU | VM_QP_DEST_QPN |
		  VM_QP_RQ_PSN | VM_QP_MAX_DEST_RD_ATOMIC | VM_QP_MIN_RNR_TIMER,
	  VM_QP_ACCESS_FLAGS | VM_QP_PKEY_INDEX, VM_QP_STATE,
	  VM_QP_QKEY | VM_QP_PKEY_INDEX },
	{ VM_QPS_RTR, VM_QPS_RTS,
	  VM_QP_STATE | VM_QP_SQ_PSN | VM_QP_TIMEOUT | VM_QP_RETRY_CNT |
		  VM_QP_RNR_RETRY | VM_QP_MAX_QP_RD_ATOMIC,
	  VM_QP_ACCESS_FLAGS | VM_QP_MIN_RNR_TIMER, VM_QP_STATE | VM_QP_SQ_PSN,
	  VM_QP_QKEY },
};

void vm_link(struct vm_node *a, struct vm_node *b)
{
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	a->lid = 1;
	b->lid = 2;
	a->active_mtu = b->active_mtu = VM_MTU_4096;
	a->peer = b;
	b->peer = a;
}

void vm_create_qp(struct vm_node *n, struct vm_qp *qp, enum vm_qp_type type,
		  struct vm_cq *send_cq, struct vm_cq *recv_cq)
{
	struct dev_qp *d;

	memset(qp, 0, sizeof(*qp));
	qp->node = n;
	qp->type = type;
	qp->qp_num = 0x11 + 0x100 * n->lid + n->nqp;
	qp->send_cq = send_cq;
	qp->recv_cq = recv_cq;
	if (n->nqp < sizeof(n->qps) / sizeof(n->qps[0]))
		n->qps[n->nqp++] = qp;
	d = dev(qp);
	if (d == &no_qp && ndevs < sizeof(devs) / sizeof(devs[0]))
		d = &devs[ndevs++];
	memset(d, 0, sizeof(*d));
	d->qp = qp;
}

int vm_query_qp(const struct vm_qp *qp, struct vm_qp_attr *attr)
{
	*attr = dev(qp)->attr;
	return 0;
}

struct vm_mr *vm_reg_mr(struct vm_node *n, void *addr, size_t len,
			unsigned access)
{
	struct vm_mr *mr;

	if (n->nmr == VM_MAX_MR)
		return NULL;
	mr = &n->mr[n->nmr++];
	*mr = (struct vm_mr){ .addr = addr,
			      .length = len,
			      .lkey = 0x1000u * n->lid + n->nmr,
			      .rkey = 0x2000u * n->lid + n->nmr,
			      .access = access };
	return mr;
}

/* Append a completion (a full CQ drops it: a real one would overrun). */
static void cq_push(struct vm_cq *cq, const struct vm_wc *wc)
{
	if (cq->count < VM_MAX_CQE)
		cq->wc[(cq->head + cq->count++) % VM_MAX_CQE] = *wc;
}

/* Move to ERR: posted receives complete flushed. */
static void qp_error(struct vm_qp *qp)
{
	struct vm_wc wc = { .status = VM_WC_WR_FLUSH_ERR,
			    .opcode = VM_WC_RECV,
			    .qp_num = qp->qp_num };

	dev(qp)->attr.qp_state = VM_QPS_ERR;
	qp->attr.qp_state = VM_QPS_ERR;
	for (; qp->rq_count; qp->rq_count--) {
		wc.wr_id = qp->rq[qp->rq_head].wr_id;
		qp->rq_head = (qp->rq_head + 1) % VM_MAX_RECV;
		cq_push(qp->recv_cq, &wc);
	}
}

/* The step's values: port 1, pkey 0, an MTU the port has, the peer's LID. */
static int check_values(const struct vm_qp *qp, const struct vm_qp_attr *a,
			int mask)
{
	if ((mask & VM_QP_PORT) && a->port_num != 1)
		return EINVAL;
	if ((mask & VM_QP_PKEY_INDEX) && a->pkey_index != 0)
		return EINVAL;
	if ((mask & VM_QP_PATH_MTU) &&
	    (a->path_mtu < VM_MTU_256 || a->path_mtu > qp->node->active_mtu))
		return EINVAL;
	if ((mask & VM_QP_AV) && a->dlid != qp->node->peer->lid)
		return EINVAL;
	return 0;
}

int vm_modify_qp(struct vm_qp *qp, const struct vm_qp_attr *a, int mask)
{
	enum vm_qp_state to = a->qp_state;
	int need, may;
	unsigned i;

	if (!(mask & VM_QP_STATE))
		return EINVAL;
	if (to == VM_QPS_RESET || to == VM_QPS_ERR) {
		if (mask != VM_QP_STATE)
			return EINVAL;
		if (to == VM_QPS_ERR) {
			qp_error(qp);
		} else {
			memset(&qp->attr, 0, sizeof(qp->attr));
			qp->rq_count = 0;
		}
		return 0;
	}
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (steps[i].from != dev(qp)->attr.qp_state ||
		    steps[i].to != to)
			continue;
		need = qp->type == VM_QPT_RC ? steps[i].rc_need
					     : steps[i].ud_need;
		may = qp->type == VM_QPT_RC ? steps[i].rc_may : steps[i].ud_may;
		if ((mask & need) != need || (mask & ~(need | may)))
			return EINVAL;
		if (check_values(qp, a, mask))
			return EINVAL;
		/* Take the attributes of the mask, and the new state. */
		if (mask & VM_QP_PKEY_INDEX)
			dev(qp)->attr.pkey_index = a->pkey_index;
		if (mask & VM_QP_PORT)
			dev(qp)->attr.port_num = a->port_num;
		if (mask & VM_QP_ACCESS_FLAGS)
			dev(qp)->attr.qp_access_flags = a->qp_access_flags;
		if (mask & VM_QP_QKEY)
			dev(qp)->attr.qkey = a->qkey;
		if (mask & VM_QP_AV)
			dev(qp)->attr.dlid = a->dlid;
		if (mask & VM_QP_PATH_MTU)
			dev(qp)->attr.path_mtu = a->path_mtu;
		if (mask & VM_QP_DEST_QPN)
			dev(qp)->attr.dest_qp_num = a->dest_qp_num;
		if (mask & VM_QP_RQ_PSN)
			dev(qp)->expect_psn = dev(qp)->attr.rq_psn =
				a->rq_psn & PSN_MASK;
		if (mask & VM_QP_SQ_PSN)
			dev(qp)->next_psn = dev(qp)->attr.sq_psn =
				a->sq_psn & PSN_MASK;
		if (mask & VM_QP_TIMEOUT)
			dev(qp)->attr.timeout = a->timeout;
		if (mask & VM_QP_RETRY_CNT)
			dev(qp)->attr.retry_cnt = a->retry_cnt;
		if (mask & VM_QP_RNR_RETRY)
			dev(qp)->attr.rnr_retry = a->rnr_retry;
		if (mask & VM_QP_MAX_QP_RD_ATOMIC)
			dev(qp)->attr.max_rd_atomic = a->max_rd_atomic;
		if (mask & VM_QP_MAX_DEST_RD_ATOMIC)
			dev(qp)->attr.max_dest_rd_atomic =
				a->max_dest_rd_atomic;
		if (mask & VM_QP_MIN_RNR_TIMER)
			dev(qp)->attr.min_rnr_timer = a->min_rnr_timer;
		dev(qp)->attr.qp_state = to;
		qp->attr = dev(qp)->attr;
		return 0;
	}
	return EINVAL; /* not a step of RESET -> INIT -> RTR -> RTS */
}

/* The MR of node n that holds [addr, addr + len) under key; or NULL. */
static struct vm_mr *mr_find(struct vm_node *n, uint64_t addr, uint64_t len,
			     uint32_t key, int remote)
{
	unsigned i;

	for (i = 0; i < n->nmr; i++) {
		struct vm_mr *mr = &n->mr[i];
		uint64_t lo = (uint64_t)(uintptr_t)mr->addr;

		if ((remote ? mr->rkey : mr->lkey) != key)
			continue;
		if (addr < lo || len > mr->length ||
		    addr - lo > mr->length - len)
			return NULL;
		return mr;
	}
	return NULL;
}

int vm_post_recv(struct vm_qp *qp, const struct vm_recv_wr *wr)
{
	const struct vm_sge *s = wr->sg_list;

	if (dev(qp)->attr.qp_state == VM_QPS_RESET ||
	    dev(qp)->attr.qp_state == VM_QPS_ERR || wr->num_sge != 1 || !s)
		return EINVAL;
	if (!mr_find(qp->node, s->addr, s->length, s->lkey, 0))
		return EINVAL;
	if (qp->rq_count == VM_MAX_RECV)
		return ENOMEM;
	qp->rq_sge[(qp->rq_head + qp->rq_count) % VM_MAX_RECV] = *s;
	qp->rq[(qp->rq_head + qp->rq_count) % VM_MAX_RECV] = *wr;
	qp->rq_count++;
	return 0;
}

/* The QP at the other end of qp's connection, if it is connected to qp. */
static struct vm_qp *responder(const struct vm_qp *qp)
{
	struct vm_node *p = qp->node->peer;
	unsigned i;

	for (i = 0; i < p->nqp; i++) {
		struct vm_qp *r = p->qps[i];

		if (r->qp_num == dev(qp)->attr.dest_qp_num &&
		    r->type == VM_QPT_RC &&
		    dev(r)->attr.qp_state >= VM_QPS_RTR &&
		    dev(r)->attr.qp_state != VM_QPS_ERR &&
		    dev(r)->attr.dest_qp_num == qp->qp_num &&
		    dev(r)->expect_psn == dev(qp)->next_psn)
			return r;
	}
	return NULL;
}

/* Carry out a send WR on an RC QP in RTS; the status of its completion. */
static enum vm_wc_status execute(struct vm_qp *qp, const struct vm_send_wr *wr,
				 uint32_t *len)
{
	const struct vm_sge *s = wr->sg_list;
	struct vm_wc rwc = { 0 };
	struct vm_qp *r;
	struct vm_mr *rmr = NULL;
	uint32_t mtu, pkts;

	*len = s ? s->length : 0;
	if (wr->num_sge != 1 || !s ||
	    !mr_find(qp->node, s->addr, s->length, s->lkey, 0))
		return VM_WC_LOC_PROT_ERR;
	r = qp->type == VM_QPT_RC ? responder(qp) : NULL;
	if (!r)
		return VM_WC_RETRY_EXC_ERR;
	if (wr->opcode != VM_WR_SEND) {
		rmr = mr_find(r->node, wr->remote_addr, s->length, wr->rkey, 1);
		if (!rmr || !(rmr->access & VM_ACCESS_REMOTE_WRITE) ||
		    !(dev(r)->attr.qp_access_flags & VM_ACCESS_REMOTE_WRITE))
			return VM_WC_REM_ACCESS_ERR;
	}
	if (wr->opcode != VM_WR_RDMA_WRITE) {
		if (!r->rq_count)
			return VM_WC_RNR_RETRY_EXC_ERR;
		rwc.wr_id = r->rq[r->rq_head].wr_id;
		if (wr->opcode == VM_WR_SEND) {
			if (r->rq_sge[r->rq_head].length < s->length)
				return VM_WC_REM_ACCESS_ERR;
			memcpy((void *)(uintptr_t)r->rq_sge[r->rq_head].addr,
			       (const void *)(uintptr_t)s->addr, s->length);
		}
		r->rq_head = (r->rq_head + 1) % VM_MAX_RECV;
		r->rq_count--;
	}
	if (rmr)
		memcpy((void *)(uintptr_t)wr->remote_addr,
		       (const void *)(uintptr_t)s->addr, s->length);
	mtu = 128u << dev(qp)->attr.path_mtu;
	pkts = s->length ? (s->length + mtu - 1) / mtu : 1;
	dev(qp)->next_psn = (dev(qp)->next_psn + pkts) & PSN_MASK;
	dev(r)->expect_psn = (dev(r)->expect_psn + pkts) & PSN_MASK;
	if (wr->opcode != VM_WR_RDMA_WRITE) {
		rwc.status = VM_WC_SUCCESS;
		rwc.opcode = wr->opcode == VM_WR_SEND
				     ? VM_WC_RECV
				     : VM_WC_RECV_RDMA_WITH_IMM;
		rwc.byte_len = s->length;
		rwc.imm_data = wr->opcode == VM_WR_SEND ? 0 : wr->imm_data;
		rwc.qp_num = r->qp_num;
		cq_push(r->recv_cq, &rwc);
	}
	return VM_WC_SUCCESS;
}

int vm_post_send(struct vm_qp *qp, const struct vm_send_wr *wr)
{
	struct vm_wc wc = { .wr_id = wr->wr_id, .qp_num = qp->qp_num };
	uint32_t len;

	if (dev(qp)->attr.qp_state != VM_QPS_RTS)
		return EINVAL;
	wc.status = execute(qp, wr, &len);
	wc.opcode = wr->opcode == VM_WR_SEND ? VM_WC_SEND : VM_WC_RDMA_WRITE;
	wc.byte_len = len;
	if (wc.status != VM_WC_SUCCESS)
		qp_error(qp);
	if (wc.status != VM_WC_SUCCESS || (wr->send_flags & VM_SEND_SIGNALED))
		cq_push(qp->send_cq, &wc);
	return 0;
}

int vm_poll_cq(struct vm_cq *cq, int n, struct vm_wc *wc)
{
	int i;

	for (i = 0; i < n && cq->count; i++) {
		wc[i] = cq->wc[cq->head];
		cq->head = (cq->head + 1) % VM_MAX_CQE;
		cq->count--;
	}
	return i;
}
