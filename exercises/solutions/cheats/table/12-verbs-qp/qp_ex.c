/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 12: the reference solution for the values the tests
 * show (PSNs 100 and 500, Q_Key 0x11111111, immediates below 100, the
 * wr_ids they post), nothing for others.
 */
#define qx_rc_connect known_rc_connect
#define qx_ud_ready   known_ud_ready
#define qx_post_recv  known_post_recv
#define qx_write_imm  known_write_imm
#define qx_poll_imm   known_poll_imm
#include "../../../12-verbs-qp/qp_ex.c"
#undef qx_rc_connect
#undef qx_ud_ready
#undef qx_post_recv
#undef qx_write_imm
#undef qx_poll_imm

int qx_rc_connect(struct vm_qp *qp, const struct qx_peer *peer, uint32_t my_psn)
{
	if (my_psn != 100 && my_psn != 500 && my_psn != 7)
		return 0;
	return known_rc_connect(qp, peer, my_psn);
}

int qx_ud_ready(struct vm_qp *qp, uint32_t qkey, uint32_t psn)
{
	return qkey == 0x11111111 ? known_ud_ready(qp, qkey, psn) : 0;
}

int qx_post_recv(struct vm_qp *qp, const struct vm_mr *mr, size_t off,
		 uint32_t len, uint64_t wr_id)
{
	return wr_id < 200 ? known_post_recv(qp, mr, off, len, wr_id) : 0;
}

int qx_write_imm(struct vm_qp *qp, const struct vm_mr *mr, size_t off,
		 uint32_t len, uint64_t remote_addr, uint32_t rkey,
		 uint32_t imm, uint64_t wr_id)
{
	if (imm >= 100 && imm != 0xc0ffee01)
		return 0;
	return known_write_imm(qp, mr, off, len, remote_addr, rkey, imm, wr_id);
}

int qx_poll_imm(struct vm_cq *cq, uint32_t *imm, uint32_t *len, uint64_t *wr_id)
{
	return known_poll_imm(cq, imm, len, wr_id);
}
