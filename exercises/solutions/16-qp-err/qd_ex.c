/* SPDX-License-Identifier: MIT */
/*
 * Exercise 16: a QP that ends in ERR. Reference solution: QP b expects
 * a's first PSN (rq_psn = psn_a, not its own), and lets a RDMA-write into
 * its memory (IBV_ACCESS_REMOTE_WRITE); the rest was right.
 */
#include "qd_ex.h"

#include <arpa/inet.h>
#include <errno.h>

/* Take QP qp from RESET to RTS, connected to the QP peer_qpn of node lid. */
static int connect_to(struct vm_qp *qp, uint16_t lid, uint32_t peer_qpn,
		      uint32_t peer_psn, uint32_t my_psn, unsigned access)
{
	struct vm_qp_attr a = {
		.qp_state = VM_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = access,
	};

	if (vm_modify_qp(qp, &a,
			 VM_QP_STATE | VM_QP_PKEY_INDEX | VM_QP_PORT |
				 VM_QP_ACCESS_FLAGS))
		return -EINVAL;
	a = (struct vm_qp_attr){
		.qp_state = VM_QPS_RTR,
		.dlid = lid,
		.path_mtu = qp->node->active_mtu,
		.dest_qp_num = peer_qpn,
		.rq_psn = peer_psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
	};
	if (vm_modify_qp(qp, &a,
			 VM_QP_STATE | VM_QP_AV | VM_QP_PATH_MTU |
				 VM_QP_DEST_QPN | VM_QP_RQ_PSN |
				 VM_QP_MAX_DEST_RD_ATOMIC |
				 VM_QP_MIN_RNR_TIMER))
		return -EINVAL;
	a = (struct vm_qp_attr){
		.qp_state = VM_QPS_RTS,
		.sq_psn = my_psn,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
	};
	return vm_modify_qp(qp, &a,
			    VM_QP_STATE | VM_QP_SQ_PSN | VM_QP_TIMEOUT |
				    VM_QP_RETRY_CNT | VM_QP_RNR_RETRY |
				    VM_QP_MAX_QP_RD_ATOMIC)
		       ? -EINVAL
		       : 0;
}

int qd_stream(struct vm_qp *a, struct vm_qp *b, const struct vm_mr *mr_a,
	      const struct vm_mr *mr_b, uint32_t psn_a, uint32_t psn_b,
	      unsigned n, uint32_t len, uint32_t imm0)
{
	struct vm_sge sge = { (uint64_t)(uintptr_t)mr_a->addr, len,
			      mr_a->lkey };
	struct vm_recv_wr rw = { .num_sge = 0 };
	struct vm_wc wc;
	unsigned i, ok = 0;

	if (connect_to(a, b->node->lid, b->qp_num, psn_b, psn_a,
		       VM_ACCESS_LOCAL_WRITE | VM_ACCESS_REMOTE_WRITE) ||
	    connect_to(b, a->node->lid, a->qp_num, psn_a, psn_b,
		       VM_ACCESS_LOCAL_WRITE | VM_ACCESS_REMOTE_WRITE))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		struct vm_sge rs = { (uint64_t)(uintptr_t)mr_b->addr, 0,
				     mr_b->lkey };

		rw = (struct vm_recv_wr){ .wr_id = i,
					  .sg_list = &rs,
					  .num_sge = 1 };
		vm_post_recv(b, &rw);
	}
	for (i = 0; i < n; i++) {
		struct vm_send_wr w = {
			.wr_id = i,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = VM_WR_RDMA_WRITE_WITH_IMM,
			.send_flags = VM_SEND_SIGNALED,
			.imm_data = htonl(imm0 + i),
			.remote_addr = (uint64_t)(uintptr_t)mr_b->addr +
				       (uint64_t)i * len,
			.rkey = mr_b->rkey,
		};

		vm_post_send(a, &w);
	}
	while (vm_poll_cq(a->send_cq, 1, &wc) == 1)
		ok += wc.status == VM_WC_SUCCESS;
	return (int)ok;
}
