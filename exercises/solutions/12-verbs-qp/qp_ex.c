/* SPDX-License-Identifier: MIT */
/*
 * Exercise 12, the reference solution: a verbs connection, from the
 * specification alone. The real code of rdma/ does the same with
 * ibv_modify_qp(), ibv_post_recv(), ibv_post_send() and ibv_poll_cq().
 */
#include "qp_ex.h"

#include <arpa/inet.h>
#include <errno.h>

/* Is [off, off + len) inside mr (without overflowing)? */
static int in_mr(const struct vm_mr *mr, size_t off, uint32_t len)
{
	return off <= mr->length && len <= mr->length - off;
}

/* One step; -EINVAL when the device refuses it. */
static int step(struct vm_qp *qp, struct vm_qp_attr *a, enum vm_qp_state to,
		int mask)
{
	a->qp_state = to;
	return vm_modify_qp(qp, a, VM_QP_STATE | mask) ? -EINVAL : 0;
}

int qx_rc_connect(struct vm_qp *qp, const struct qx_peer *peer, uint32_t my_psn)
{
	struct vm_qp_attr a = {
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags =
			VM_ACCESS_LOCAL_WRITE | VM_ACCESS_REMOTE_WRITE,
		.dlid = peer->lid,
		.path_mtu = qp->node->active_mtu,
		.dest_qp_num = peer->qpn,
		.rq_psn = peer->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.sq_psn = my_psn,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
	};

	if (step(qp, &a, VM_QPS_INIT,
		 VM_QP_PKEY_INDEX | VM_QP_PORT | VM_QP_ACCESS_FLAGS))
		return -EINVAL;
	if (step(qp, &a, VM_QPS_RTR,
		 VM_QP_AV | VM_QP_PATH_MTU | VM_QP_DEST_QPN | VM_QP_RQ_PSN |
			 VM_QP_MAX_DEST_RD_ATOMIC | VM_QP_MIN_RNR_TIMER))
		return -EINVAL;
	return step(qp, &a, VM_QPS_RTS,
		    VM_QP_SQ_PSN | VM_QP_TIMEOUT | VM_QP_RETRY_CNT |
			    VM_QP_RNR_RETRY | VM_QP_MAX_QP_RD_ATOMIC);
}

int qx_ud_ready(struct vm_qp *qp, uint32_t qkey, uint32_t psn)
{
	struct vm_qp_attr a = { .port_num = 1, .qkey = qkey, .sq_psn = psn };

	if (step(qp, &a, VM_QPS_INIT,
		 VM_QP_PKEY_INDEX | VM_QP_PORT | VM_QP_QKEY))
		return -EINVAL;
	if (step(qp, &a, VM_QPS_RTR, 0))
		return -EINVAL;
	return step(qp, &a, VM_QPS_RTS, VM_QP_SQ_PSN);
}

int qx_post_recv(struct vm_qp *qp, const struct vm_mr *mr, size_t off,
		 uint32_t len, uint64_t wr_id)
{
	struct vm_sge sge = { (uint64_t)(uintptr_t)(mr->addr + off), len,
			      mr->lkey };
	struct vm_recv_wr wr = { .wr_id = wr_id,
				 .sg_list = &sge,
				 .num_sge = 1 };

	if (!in_mr(mr, off, len))
		return -EINVAL;
	return -vm_post_recv(qp, &wr);
}

int qx_write_imm(struct vm_qp *qp, const struct vm_mr *mr, size_t off,
		 uint32_t len, uint64_t remote_addr, uint32_t rkey,
		 uint32_t imm, uint64_t wr_id)
{
	struct vm_sge sge = { (uint64_t)(uintptr_t)(mr->addr + off), len,
			      mr->lkey };
	struct vm_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = VM_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = VM_SEND_SIGNALED,
		.imm_data = htonl(imm),
		.remote_addr = remote_addr,
		.rkey = rkey,
	};

	if (!in_mr(mr, off, len))
		return -EINVAL;
	return -vm_post_send(qp, &wr);
}

int qx_poll_imm(struct vm_cq *cq, uint32_t *imm, uint32_t *len, uint64_t *wr_id)
{
	struct vm_wc wc;

	if (vm_poll_cq(cq, 1, &wc) == 0)
		return 0;
	if (wc.status != VM_WC_SUCCESS || wc.opcode != VM_WC_RECV_RDMA_WITH_IMM)
		return -EIO;
	*imm = ntohl(wc.imm_data);
	*len = wc.byte_len;
	*wr_id = wc.wr_id;
	return 1;
}
