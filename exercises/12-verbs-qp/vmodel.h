/* SPDX-License-Identifier: MIT */
/*
 * A small model of the verbs rules, for exercise 12: no hardware, no
 * kernel, the same rules. Names follow <infiniband/verbs.h> with vm_ for
 * ibv_: struct vm_qp_attr is struct ibv_qp_attr, VM_QP_STATE is
 * IBV_QP_STATE, vm_modify_qp() is ibv_modify_qp(), and so on.
 *
 * What it checks, as a real device does:
 * - a QP goes RESET -> INIT -> RTR -> RTS, one step at a time, and each
 *   step needs exactly its attributes in the mask (ibv_modify_qp(3));
 * - receives may be posted from INIT on, sends only in RTS;
 * - every scatter/gather entry lies inside the memory region its lkey
 *   names, and an RDMA write inside the remote region its rkey names,
 *   registered with IBV_ACCESS_REMOTE_WRITE;
 * - an RDMA WRITE WITH IMMEDIATE consumes one posted receive at the
 *   responder, whose CQ reports IBV_WC_RECV_RDMA_WITH_IMM, the immediate
 *   (as sent: network byte order) and the length;
 * - the responder's QP must point back at the requester (dest_qp_num) and
 *   expect its first PSN (rq_psn = the requester's sq_psn).
 * Work requests complete at once (the model has no wire).
 */
#ifndef PATHLAB_EX_VMODEL_H
#define PATHLAB_EX_VMODEL_H

#include <stddef.h>
#include <stdint.h>

enum vm_qp_type { VM_QPT_RC, VM_QPT_UD };
enum vm_qp_state {
	VM_QPS_RESET,
	VM_QPS_INIT,
	VM_QPS_RTR,
	VM_QPS_RTS,
	VM_QPS_ERR
};

enum vm_qp_attr_mask {
	VM_QP_STATE = 1 << 0,
	VM_QP_ACCESS_FLAGS = 1 << 3,
	VM_QP_PKEY_INDEX = 1 << 4,
	VM_QP_PORT = 1 << 5,
	VM_QP_QKEY = 1 << 6,
	VM_QP_AV = 1 << 7,
	VM_QP_PATH_MTU = 1 << 8,
	VM_QP_TIMEOUT = 1 << 9,
	VM_QP_RETRY_CNT = 1 << 10,
	VM_QP_RNR_RETRY = 1 << 11,
	VM_QP_RQ_PSN = 1 << 12,
	VM_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	VM_QP_MIN_RNR_TIMER = 1 << 15,
	VM_QP_SQ_PSN = 1 << 16,
	VM_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	VM_QP_DEST_QPN = 1 << 20,
};

enum vm_access {
	VM_ACCESS_LOCAL_WRITE = 1,
	VM_ACCESS_REMOTE_WRITE = 2,
	VM_ACCESS_REMOTE_READ = 4
};
enum vm_mtu {
	VM_MTU_256 = 1,
	VM_MTU_512,
	VM_MTU_1024,
	VM_MTU_2048,
	VM_MTU_4096
};
enum vm_wr_opcode { VM_WR_SEND, VM_WR_RDMA_WRITE, VM_WR_RDMA_WRITE_WITH_IMM };
enum vm_send_flags { VM_SEND_SIGNALED = 1 };
enum vm_wc_opcode {
	VM_WC_SEND,
	VM_WC_RDMA_WRITE,
	VM_WC_RECV,
	VM_WC_RECV_RDMA_WITH_IMM
};
enum vm_wc_status {
	VM_WC_SUCCESS,
	VM_WC_LOC_PROT_ERR,
	VM_WC_REM_ACCESS_ERR,
	VM_WC_RNR_RETRY_EXC_ERR,
	VM_WC_RETRY_EXC_ERR,
	VM_WC_WR_FLUSH_ERR
};

struct vm_qp_attr {
	enum vm_qp_state qp_state;
	enum vm_mtu path_mtu;
	uint32_t qkey, rq_psn, sq_psn, dest_qp_num;
	unsigned qp_access_flags;
	uint16_t pkey_index, dlid; /* dlid: the address vector (ah_attr) */
	uint8_t port_num, max_rd_atomic, max_dest_rd_atomic, min_rnr_timer;
	uint8_t timeout, retry_cnt, rnr_retry;
};

struct vm_mr {
	uint8_t *addr;
	size_t length;
	uint32_t lkey, rkey;
	unsigned access;
};

struct vm_sge {
	uint64_t addr; /* a virtual address inside the MR of lkey */
	uint32_t length, lkey;
};

struct vm_send_wr {
	uint64_t wr_id;
	struct vm_sge *sg_list;
	int num_sge;
	enum vm_wr_opcode opcode;
	unsigned send_flags;
	uint32_t imm_data; /* network byte order, as on the wire */
	uint64_t remote_addr;
	uint32_t rkey;
};

struct vm_recv_wr {
	uint64_t wr_id;
	struct vm_sge *sg_list;
	int num_sge;
};

struct vm_wc {
	uint64_t wr_id;
	enum vm_wc_status status;
	enum vm_wc_opcode opcode;
	uint32_t byte_len, imm_data, qp_num;
};

#define VM_MAX_CQE  64
#define VM_MAX_RECV 64
#define VM_MAX_MR   8

struct vm_cq {
	struct vm_wc wc[VM_MAX_CQE];
	unsigned head, count;
};

struct vm_node; /* one host: its port, its MRs */

struct vm_qp {
	struct vm_node *node;
	enum vm_qp_type type;
	uint32_t qp_num;
	struct vm_cq *send_cq, *recv_cq;
	struct vm_qp_attr attr; /* what the steps set so far */
	struct vm_recv_wr rq[VM_MAX_RECV];
	struct vm_sge rq_sge[VM_MAX_RECV];
	unsigned rq_head, rq_count;
	uint32_t next_psn;   /* of the next packet sent */
	uint32_t expect_psn; /* of the next packet received */
};

struct vm_node {
	uint16_t lid;
	enum vm_mtu active_mtu;
	struct vm_mr mr[VM_MAX_MR];
	unsigned nmr;
	struct vm_qp *qps[4];
	unsigned nqp;
	struct vm_node *peer; /* the other end of the link */
};

/* Two hosts linked back to back (LIDs 1 and 2, MTU 4096 active). */
void vm_link(struct vm_node *a, struct vm_node *b);
/* A QP on node n (its QPN comes from the node), in RESET. */
void vm_create_qp(struct vm_node *n, struct vm_qp *qp, enum vm_qp_type type,
		  struct vm_cq *send_cq, struct vm_cq *recv_cq);
/* Register len bytes at addr with access flags; NULL when full. */
struct vm_mr *vm_reg_mr(struct vm_node *n, void *addr, size_t len,
			unsigned access);

/* ibv_query_qp(): the attributes the device holds for qp. */
int vm_query_qp(const struct vm_qp *qp, struct vm_qp_attr *attr);
/* ibv_modify_qp(): 0, or EINVAL for a wrong step, mask or value. */
int vm_modify_qp(struct vm_qp *qp, const struct vm_qp_attr *attr, int mask);
/* ibv_post_recv() of one WR: 0, EINVAL (state, lkey, bounds), ENOMEM. */
int vm_post_recv(struct vm_qp *qp, const struct vm_recv_wr *wr);
/* ibv_post_send() of one WR: 0 or EINVAL (state); errors complete. */
int vm_post_send(struct vm_qp *qp, const struct vm_send_wr *wr);
/* ibv_poll_cq(): up to n completions into wc, how many. */
int vm_poll_cq(struct vm_cq *cq, int n, struct vm_wc *wc);

#endif
