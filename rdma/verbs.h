/* SPDX-License-Identifier: MIT */
/*
 * What the RDMA receiver and sender share: choosing a device, port and GID;
 * the verbs objects of one end (PD, CQ, MR, QP) and their setup and
 * teardown; connecting two ends through librdmacm or, with --oob, through
 * a plain TCP exchange and our own QP state transitions; the rxe counters.
 *
 * Errors: 0 or -errno, as in common/; verbs' positive errno values and
 * librdmacm's -1 + errno are converted where they are called.
 */
#ifndef PATHLAB_VERBS_H
#define PATHLAB_VERBS_H

#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdint.h>

#define VERBS_PORT	 18515 /* rdma_cm port, or TCP port with --oob */
#define VERBS_SLOT	 2048  /* one receive buffer: a 1500-byte MTU fits */
#define VERBS_GRH	 40    /* UD receives start with a GRH */
#define VERBS_QKEY	 0x01234567u /* librdmacm's RDMA_UDP_QKEY */
#define VERBS_MAX_BATCH	 256
#define VERBS_MAX_DEPTH	 16384
#define VERBS_HWCTR_MAX	 24
#define VERBS_WIRE_MAGIC 0x504c5645u /* "PLVE" */

enum verbs_mode { VERBS_UD, VERBS_RC, VERBS_RC_WRITE_IMM };
extern const char *const verbs_modes[]; /* "ud", "rc", "rc_write_imm" */

/* Where an end lives: device, port, GID (chosen or given). */
struct verbs_where {
	char dev[64];
	unsigned port;
	int gid_index;
	union ibv_gid gid;
	bool ipv4;	     /* the GID is an IPv4-mapped RoCE v2 GID */
	struct in_addr addr; /* its IPv4 address, when ipv4 */
	enum ibv_mtu mtu;    /* the port's active MTU */
	char ifname[32];     /* the GID's network device, if known */
};

/*
 * What one end tells the other; all fields in network order. It rides in
 * the CM's private data, and a connect request has room for 56 bytes.
 */
struct verbs_wire {
	uint32_t magic, qpn, psn, qkey;
	uint32_t rkey, slots, slot_size;
	uint64_t addr; /* the receive ring, for RDMA WRITE */
	uint8_t gid[16];
	uint8_t mode, mtu; /* enum verbs_mode, enum ibv_mtu */
	uint8_t queue;	   /* this QP's index among the end's QPs */
	uint8_t queues;	   /* how many QPs the end has (0: one) */
} __attribute__((packed));

_Static_assert(sizeof(struct verbs_wire) <= 56, "fits a CM REQ");

/* The connection options both programs share. */
struct verbs_cfg {
	const char *device; /* NULL: the first with a RoCE v2 IPv4 GID */
	const char *peer;   /* the sender: the receiver's IPv4 address */
	unsigned ib_port, port, depth, batch;
	unsigned timeout_ms; /* each connection step, and the accept wait */
	int gid_index;	     /* -1: automatic */
	int mode;	     /* enum verbs_mode */
	bool oob;	     /* TCP exchange instead of rdma_cm */
	bool events;	     /* a completion channel for the CQ */
	/*
	 * QPs per end, each with its own CQ and ring: QP q connects on
	 * port + q (0 or 1: one). Both ends must agree.
	 */
	unsigned queues;
	bool duplex; /* sends and receives both complete on a CQ: room */
};

/* One end: every object setup creates, undone by teardown. */
struct verbs_ep {
	struct verbs_where where;
	unsigned queue;		  /* its QP's index: connects on port + queue */
	struct verbs_wire remote; /* the peer's, once connected */
	struct rdma_event_channel *cm_ch;
	struct rdma_cm_id *listen_id, *id;
	struct ibv_context *ctx;
	bool own_ctx; /* opened by us (--oob), not by librdmacm */
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	uint8_t *buf; /* slots * slot_size bytes, registered as mr */
	unsigned slots, slot_size, psn;
	int oob_listen, oob_fd;
	uint64_t mr_reg_ns; /* how long ibv_reg_mr took */
	/*
	 * Set between verbs_ep_open() and verbs_ep_objects() to place the
	 * ring elsewhere (the GPU variant: device memory): it sets buf and
	 * mr, and buf is then not ours to free.
	 */
	int (*reg_ring)(struct verbs_ep *ep, size_t len, unsigned access,
			void *arg);
	void *reg_arg;
	bool ext_buf;
	/*
	 * Set between verbs_ep_open() and verbs_ep_objects() for an extended
	 * CQ (ibv_create_cq_ex) whose completions carry these fields (enum
	 * ibv_create_cq_wc_flags: the receiver's --hw-stamps); cqx is then
	 * that CQ, and cq the same one as a plain CQ.
	 */
	uint64_t cq_wc_flags;
	struct ibv_cq_ex *cqx;
};

/* A snapshot of an rxe device's hw_counters (what exists of them). */
struct verbs_hwctr {
	unsigned n;
	char name[VERBS_HWCTR_MAX][32];
	uint64_t val[VERBS_HWCTR_MAX];
};

/* verbs_dev.c */
int verbs_pick(const struct verbs_cfg *c, struct verbs_where *w);
void verbs_hwctr_read(const struct verbs_where *w, struct verbs_hwctr *h);
uint64_t verbs_hwctr_delta(const struct verbs_hwctr *a,
			   const struct verbs_hwctr *b, const char *name);
unsigned verbs_mtu_bytes(enum ibv_mtu mtu);

/* verbs_ctx.c */
int verbs_ep_objects(struct verbs_ep *ep, const struct verbs_cfg *c,
		     unsigned slots, unsigned mr_access);
int verbs_qp_create(struct verbs_ep *ep, const struct verbs_cfg *c,
		    unsigned send_wr, unsigned recv_wr);
int verbs_qp_init(struct verbs_ep *ep, const struct verbs_cfg *c);
int verbs_qp_rtr(struct verbs_ep *ep, const struct verbs_cfg *c);
int verbs_qp_rts(struct verbs_ep *ep, const struct verbs_cfg *c);
void verbs_ep_close(struct verbs_ep *ep);
unsigned verbs_queues(const struct verbs_cfg *c);
void verbs_wire_fill(const struct verbs_ep *ep, const struct verbs_cfg *c,
		     struct verbs_wire *w);

/* verbs_conn.c */
int verbs_ep_open(struct verbs_ep *ep, const struct verbs_cfg *c, bool passive,
		  unsigned queue);
int verbs_accept(struct verbs_ep *ep, const struct verbs_cfg *c,
		 unsigned send_wr, unsigned recv_wr,
		 int (*before_accept)(void *arg), void *arg);
int verbs_connect(struct verbs_ep *ep, const struct verbs_cfg *c,
		  unsigned send_wr, unsigned recv_wr);
void verbs_disconnect(struct verbs_ep *ep);

#endif
