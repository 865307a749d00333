/* SPDX-License-Identifier: MIT */
/*
 * The model's world the graders of exercises 12 and 16 drive: two hosts
 * back to back, their objects as the worker knows them, and the device
 * that carries out the worker's verbs (vm_world.h).
 */
#include "grade.h"
#include "vm_world.h"

#include <string.h>

/* Two hosts back to back, an RC QP on each, 64 KiB registered on each. */
struct vm_node na, nb;
struct vm_cq a_scq, a_rcq, b_scq, b_rcq;
struct vm_qp qa, qb;
uint8_t buf_a[65536], buf_b[65536];
struct vm_mr *mr_a, *mr_b;

/* The objects the worker knows, in the order of its copies. */
static struct vm_qp *qps[QX_QPS];
static struct vm_cq *cqs[QX_CQS] = { &a_scq, &a_rcq, &b_scq, &b_rcq };
static const struct vm_mr *mrs[QX_MRS];
static unsigned nqp;

/* The worker's name for a QP, a CQ, an MR of ours. */
static uint32_t id_of(const void *p, const void *const *t, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (t[i] == p)
			return i;
	gr_setup_failed("an object the worker does not know");
}

/* Let the worker know QP qp too. */
void known(struct vm_qp *qp)
{
	if (nqp < QX_QPS)
		qps[nqp++] = qp;
}

/* A request about qp, mr, cq, with the world as the worker must see it. */
struct qx_req request(struct vm_qp *qp, const struct vm_mr *mr,
		      struct vm_cq *cq)
{
	struct qx_req q = { .w.nqp = nqp, .w.nmr = QX_MRS };
	unsigned i;

	q.w.node[0].lid = na.lid, q.w.node[0].active_mtu = na.active_mtu;
	q.w.node[1].lid = nb.lid, q.w.node[1].active_mtu = nb.active_mtu;
	for (i = 0; i < nqp; i++) {
		q.w.qp[i].node = qps[i]->node == &nb;
		q.w.qp[i].type = qps[i]->type;
		q.w.qp[i].qp_num = qps[i]->qp_num;
		q.w.qp[i].scq =
			id_of(qps[i]->send_cq, (const void **)cqs, QX_CQS);
		q.w.qp[i].rcq =
			id_of(qps[i]->recv_cq, (const void **)cqs, QX_CQS);
	}
	for (i = 0; i < QX_MRS; i++)
		q.w.mr[i] = *mrs[i];
	q.qp = qp ? id_of(qp, (const void **)qps, nqp) : 0;
	q.mr = mr ? id_of(mr, (const void **)mrs, QX_MRS) : 0;
	q.cq = cq ? id_of(cq, (const void **)cqs, QX_CQS) : 0;
	return q;
}

/* Send request op; the worker's answer. */
struct qx_ans ask(unsigned op, const struct qx_req *q)
{
	struct qx_ans a;

	gr_call_exact(op, q, sizeof(*q), &a, sizeof(a));
	return a;
}

uint64_t vw_polled[QX_CQS][VM_WC_WR_FLUSH_ERR + 1];
int vw_first_error[QX_CQS];

/* The device: a verb the worker calls, carried out on the model. */
static long device(unsigned n, const void *in, size_t len, void *out,
		   size_t cap)
{
	const struct vd_call *c = in;
	struct vd_ans *a = out;
	struct vm_recv_wr rw;
	struct vm_send_wr sw;
	struct vm_qp *qp;

	if (len != sizeof(*c) || cap < sizeof(*a))
		return -1;
	memset(a, 0, sizeof(*a));
	qp = c->qp < nqp ? qps[c->qp] : NULL;
	if (n == VD_POLL) {
		int i;

		if (c->cq >= QX_CQS || c->n < 0)
			return -1;
		a->ret = vm_poll_cq(cqs[c->cq],
				    c->n < VM_MAX_CQE ? c->n : VM_MAX_CQE,
				    a->wc);
		/* The device's own count of what it reported. */
		for (i = 0; i < a->ret; i++) {
			vw_polled[c->cq][a->wc[i].status]++;
			if (a->wc[i].status != VM_WC_SUCCESS &&
			    vw_first_error[c->cq] < 0)
				vw_first_error[c->cq] = (int)a->wc[i].status;
		}
		return sizeof(*a);
	}
	if (!qp)
		return -1;
	switch (n) {
	case VD_MODIFY:
		a->ret = vm_modify_qp(qp, &c->attr, c->mask);
		break;
	case VD_QUERY:
		a->ret = vm_query_qp(qp, &a->attr);
		break;
	case VD_POST_RECV:
		rw = (struct vm_recv_wr){ .wr_id = c->wr_id,
					  .sg_list = (struct vm_sge *)c->sge,
					  .num_sge = c->num_sge };
		if (c->num_sge > VD_MAX_SGE)
			rw.num_sge = -1;
		a->ret = vm_post_recv(qp, &rw);
		break;
	case VD_POST_SEND:
		sw = c->send;
		sw.sg_list = (struct vm_sge *)c->sge;
		sw.num_sge = c->num_sge > VD_MAX_SGE ? -1 : c->num_sge;
		a->ret = vm_post_send(qp, &sw);
		break;
	default:
		return -1;
	}
	return sizeof(*a);
}

/* Two hosts, an RC QP and 64 KiB registered on each; the device served. */
void setup(void)
{
	unsigned acc = VM_ACCESS_LOCAL_WRITE | VM_ACCESS_REMOTE_WRITE;

	vm_link(&na, &nb);
	memset(&a_scq, 0, sizeof(a_scq));
	memset(&a_rcq, 0, sizeof(a_rcq));
	memset(&b_scq, 0, sizeof(b_scq));
	memset(&b_rcq, 0, sizeof(b_rcq));
	vm_create_qp(&na, &qa, VM_QPT_RC, &a_scq, &a_rcq);
	vm_create_qp(&nb, &qb, VM_QPT_RC, &b_scq, &b_rcq);
	mr_a = vm_reg_mr(&na, buf_a, sizeof(buf_a), acc);
	mr_b = vm_reg_mr(&nb, buf_b, sizeof(buf_b), acc);
	nqp = 0;
	known(&qa);
	known(&qb);
	mrs[0] = mr_a;
	mrs[1] = mr_b;
	memset(vw_polled, 0, sizeof(vw_polled));
	memset(vw_first_error, 0xff, sizeof(vw_first_error));
	gr_device(device);
}
