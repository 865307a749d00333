/* SPDX-License-Identifier: MIT */
/* Exercise 8's harness: one end of a UD connection (verbs_end.h). */
#include "verbs_end.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The device named name, its GID of address addr; NULL or what failed. */
static const char *open_dev(struct vx_end *e, const char *name,
			    const char *addr)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr pa;
	struct ibv_gid_entry g;
	struct in_addr a;
	int i;

	if (!list || inet_pton(AF_INET, addr, &a) != 1)
		return errno = EINVAL, "device list or address";
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			e->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!e->ctx)
		return errno = errno ? errno : ENODEV, name;
	if (ibv_query_port(e->ctx, 1, &pa))
		return "ibv_query_port";
	e->gid_index = -1;
	for (i = 0; i < pa.gid_tbl_len && e->gid_index < 0; i++)
		if (!ibv_query_gid_ex(e->ctx, 1, (uint32_t)i, &g, 0) &&
		    g.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(&g.gid.raw[12], &a, 4)) {
			e->gid_index = i;
			e->gid = g.gid;
		}
	if (e->gid_index < 0)
		return errno = ENOENT, "no RoCE v2 GID for the address";
	return NULL;
}

const char *vx_end_open(struct vx_end *e, const char *name, const char *addr,
			unsigned slots, unsigned slot_len, bool send)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = VX_QKEY,
	};
	size_t len = (size_t)slots * slot_len;
	const char *err = open_dev(e, name, addr);

	if (err)
		return err;
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = e->pd ? ibv_create_cq(e->ctx, (int)slots + 1, NULL, NULL, 0)
		      : NULL;
	e->buf = aligned_alloc(4096, len);
	if (!e->cq || !e->buf)
		return errno = errno ? errno : ENOMEM, "PD, CQ, buffer";
	memset(e->buf, 0, len);
	e->mr = ibv_reg_mr(e->pd, e->buf, len, IBV_ACCESS_LOCAL_WRITE);
	ia = (struct ibv_qp_init_attr){
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = send ? VX_TX_SLOTS : 1,
			 .max_recv_wr = slots,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	e->qp = e->mr ? ibv_create_qp(e->pd, &ia) : NULL;
	if (!e->qp)
		return "MR, UD QP";
	if (ibv_modify_qp(e->qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_QKEY))
		return "QP to INIT";
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE))
		return "QP to RTR";
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = 1 };
	if (send && ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return "QP to RTS";
	return NULL;
}
