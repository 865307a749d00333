/* SPDX-License-Identifier: MIT */
/*
 * Exercise 12's worker side of the device: the objects the student's
 * code reads, copied from the grader's, and the verbs as calls to the
 * grader's model (qp_rpc.h). A pointer the device never gave out is
 * passed as QX_NONE: the device refuses it.
 */
#include "qp_rpc.h"
#include "worker.h"

#include <string.h>

struct vm_node wk_nodes[2];
struct vm_qp wk_qps[QX_QPS];
struct vm_cq wk_cqs[QX_CQS];
struct vm_mr wk_mrs[QX_MRS];

/* Make the copies what the grader says they are. */
void wk_world(const struct qx_world *w)
{
	unsigned i;

	for (i = 0; i < 2; i++) {
		wk_nodes[i].lid = w->node[i].lid;
		wk_nodes[i].active_mtu = (enum vm_mtu)w->node[i].active_mtu;
		wk_nodes[i].peer = &wk_nodes[!i];
	}
	for (i = 0; i < QX_QPS && i < w->nqp; i++) {
		wk_qps[i].node = &wk_nodes[w->qp[i].node & 1];
		wk_qps[i].type = (enum vm_qp_type)w->qp[i].type;
		wk_qps[i].qp_num = w->qp[i].qp_num;
		wk_qps[i].send_cq = &wk_cqs[w->qp[i].scq % QX_CQS];
		wk_qps[i].recv_cq = &wk_cqs[w->qp[i].rcq % QX_CQS];
	}
	for (i = 0; i < QX_MRS && i < w->nmr; i++)
		wk_mrs[i] = w->mr[i];
}

/* The device's name for a QP, a CQ. */
static uint32_t qp_id(const struct vm_qp *qp)
{
	return qp >= wk_qps && qp < wk_qps + QX_QPS ? (uint32_t)(qp - wk_qps)
						    : QX_NONE;
}

static uint32_t cq_id(const struct vm_cq *cq)
{
	return cq >= wk_cqs && cq < wk_cqs + QX_CQS ? (uint32_t)(cq - wk_cqs)
						    : QX_NONE;
}

/* One call to the device; its answer in *a. */
static int device(unsigned n, const struct vd_call *c, struct vd_ans *a)
{
	memset(a, 0, sizeof(*a));
	wk_device(n, c, sizeof(*c), a, sizeof(*a));
	return a->ret;
}

/* The scatter list of a WR, as far as the call carries it. */
static void sges(struct vd_call *c, const struct vm_sge *s, int n)
{
	int i;

	c->num_sge = n;
	for (i = 0; s && i < n && i < VD_MAX_SGE; i++)
		c->sge[i] = s[i];
}

int vm_modify_qp(struct vm_qp *qp, const struct vm_qp_attr *attr, int mask)
{
	struct vd_call c = { .qp = qp_id(qp), .mask = mask, .attr = *attr };
	struct vd_ans a;

	return device(VD_MODIFY, &c, &a);
}

int vm_query_qp(const struct vm_qp *qp, struct vm_qp_attr *attr)
{
	struct vd_call c = { .qp = qp_id(qp) };
	struct vd_ans a;
	int r = device(VD_QUERY, &c, &a);

	*attr = a.attr;
	return r;
}

int vm_post_recv(struct vm_qp *qp, const struct vm_recv_wr *wr)
{
	struct vd_call c = { .qp = qp_id(qp), .wr_id = wr->wr_id };
	struct vd_ans a;

	sges(&c, wr->sg_list, wr->num_sge);
	return device(VD_POST_RECV, &c, &a);
}

int vm_post_send(struct vm_qp *qp, const struct vm_send_wr *wr)
{
	struct vd_call c = { .qp = qp_id(qp), .send = *wr };
	struct vd_ans a;

	c.send.sg_list = NULL;
	sges(&c, wr->sg_list, wr->num_sge);
	return device(VD_POST_SEND, &c, &a);
}

int vm_poll_cq(struct vm_cq *cq, int n, struct vm_wc *wc)
{
	struct vd_call c = { .cq = cq_id(cq), .n = n };
	struct vd_ans a;
	int r = device(VD_POLL, &c, &a), i;

	for (i = 0; i < r && i < VM_MAX_CQE; i++)
		wc[i] = a.wc[i];
	return r;
}
