/* SPDX-License-Identifier: MIT */
/* A cheat for the meta-test: exercise 12 ends the process "successfully". */
#include "qp_ex.h"

#include <stdlib.h>

int qx_rc_connect(struct vm_qp *qp, const struct qx_peer *peer, uint32_t my_psn)
{
	exit(0);
}

int qx_ud_ready(struct vm_qp *qp, uint32_t qkey, uint32_t psn)
{
	exit(0);
}

int qx_post_recv(struct vm_qp *qp, const struct vm_mr *mr, size_t off,
		 uint32_t len, uint64_t wr_id)
{
	exit(0);
}

int qx_write_imm(struct vm_qp *qp, const struct vm_mr *mr, size_t off,
		 uint32_t len, uint64_t remote_addr, uint32_t rkey,
		 uint32_t imm, uint64_t wr_id)
{
	exit(0);
}

int qx_poll_imm(struct vm_cq *cq, uint32_t *imm, uint32_t *len, uint64_t *wr_id)
{
	exit(0);
}
