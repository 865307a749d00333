/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 8, on real verbs: a UD queue pair on the
 * receiving device (PL_VM_RX_DEV, its IPv4 GID PL_VM_RX_ADDR) gets
 * messages from a UD queue pair on the sending device (PL_VM_TX_DEV,
 * PL_VM_TX_ADDR); both may be the same device. run_verbs.sh sets these,
 * on a host with an RDMA device or inside the Soft-RoCE VM (labs/rdma-vm).
 * The test posts receives or polls the CQ itself where a case is about the
 * other half, so each step of the exercise is graded on its own.
 */
#include "clock.h"
#include "grade.h"
#include "verbs_cq_ex.h"
#include "wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define QKEY	 0x01234567u
#define TX_SLOTS 64
#define MSG_LEN	 64

/* One end: device, GID, the objects. */
struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	uint8_t *buf;
	int gid_index;
	union ibv_gid gid;
};

static struct end tx, rx_end;
static struct ex_verbs_rx rx;
static struct ibv_ah *ah;
static uint32_t next_seq;

/* Give up on the case: a setup step failed. */
static void setup_failed(const char *what, int err)
{
	gr_fail_at(__FILE__, __LINE__, "test setup: %s: %s", what,
		   strerror(err));
	exit(GR_FAIL);
}

/* Open device name; find its RoCE v2 GID for IPv4 address addr. */
static void open_end(struct end *e, const char *name, const char *addr)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr pa;
	struct ibv_gid_entry g;
	struct in_addr a;
	int i;

	if (!list || inet_pton(AF_INET, addr, &a) != 1)
		setup_failed("device list or address", EINVAL);
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			e->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!e->ctx)
		setup_failed(name, ENODEV);
	if (ibv_query_port(e->ctx, 1, &pa))
		setup_failed("ibv_query_port", errno);
	e->gid_index = -1;
	for (i = 0; i < pa.gid_tbl_len && e->gid_index < 0; i++)
		if (!ibv_query_gid_ex(e->ctx, 1, (uint32_t)i, &g, 0) &&
		    g.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(&g.gid.raw[12], &a, 4)) {
			e->gid_index = i;
			e->gid = g.gid;
		}
	if (e->gid_index < 0)
		setup_failed("no RoCE v2 GID for the address", ENOENT);
}

/* PD, CQ, registered buffer, a UD QP taken to RTR (and RTS if send). */
static void objects(struct end *e, unsigned slots, bool send)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = QKEY,
	};
	size_t len = (size_t)slots * EX_SLOT;

	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = e->pd ? ibv_create_cq(e->ctx, (int)slots + 1, NULL, NULL, 0)
		      : NULL;
	e->buf = aligned_alloc(4096, len);
	if (!e->cq || !e->buf)
		setup_failed("PD, CQ, buffer", errno ? errno : ENOMEM);
	memset(e->buf, 0, len);
	e->mr = ibv_reg_mr(e->pd, e->buf, len, IBV_ACCESS_LOCAL_WRITE);
	ia = (struct ibv_qp_init_attr){
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = send ? TX_SLOTS : 1,
			 .max_recv_wr = slots,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	e->qp = e->mr ? ibv_create_qp(e->pd, &ia) : NULL;
	if (!e->qp)
		setup_failed("MR, UD QP", errno);
	if (ibv_modify_qp(e->qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_QKEY))
		setup_failed("QP to INIT", errno);
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE))
		setup_failed("QP to RTR", errno);
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = 1 };
	if (send && ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		setup_failed("QP to RTS", errno);
}

/* Both ends, a receiver of slots buffers; skip when there is no device. */
static int setup(unsigned slots, unsigned batch)
{
	const char *rxd = getenv("PL_VM_RX_DEV"), *txd = getenv("PL_VM_TX_DEV");
	const char *rxa = getenv("PL_VM_RX_ADDR"),
		   *txa = getenv("PL_VM_TX_ADDR");
	struct ibv_ah_attr aa;

	if (!rxd || !txd || !rxa || !txa)
		return gr_skip("no RDMA device: run through run_verbs.sh "
			       "(it uses the Soft-RoCE VM, labs/rdma-vm)");
	open_end(&rx_end, rxd, rxa);
	open_end(&tx, txd, txa);
	objects(&rx_end, slots, false);
	objects(&tx, TX_SLOTS, true);
	aa = (struct ibv_ah_attr){
		.is_global = 1,
		.grh = { .dgid = rx_end.gid,
			 .sgid_index = (uint8_t)tx.gid_index,
			 .hop_limit = 64 },
		.port_num = 1,
	};
	ah = ibv_create_ah(tx.pd, &aa);
	if (!ah)
		setup_failed("address handle", errno);
	rx = (struct ex_verbs_rx){
		.qp = rx_end.qp,
		.cq = rx_end.cq,
		.mr = rx_end.mr,
		.buf = rx_end.buf,
		.slots = slots,
		.batch = batch,
		.grh = EX_GRH,
	};
	pl_stats_init(&rx.stats);
	return GR_PASS;
}

/* Send n messages (n <= TX_SLOTS) and wait until the NIC sent them. */
static void send_n(unsigned n)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	uint64_t t0;
	unsigned i;

	for (i = 0; i < n; i++) {
		uint8_t *b = tx.buf + i * EX_SLOT;

		pl_build_payload(b, MSG_LEN, 8, next_seq++, pl_now_ns());
		sge = (struct ibv_sge){ .addr = (uintptr_t)b,
					.length = MSG_LEN,
					.lkey = tx.mr->lkey };
		wr = (struct ibv_send_wr){
			.wr_id = i,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = i + 1 == n ? IBV_SEND_SIGNALED : 0,
			.wr.ud = { .ah = ah,
				   .remote_qpn = rx_end.qp->qp_num,
				   .remote_qkey = QKEY },
		};
		if (ibv_post_send(tx.qp, &wr, &bad))
			setup_failed("ibv_post_send", errno);
	}
	for (t0 = pl_now_ns(); pl_now_ns() - t0 < 5000000000ull;)
		if (ibv_poll_cq(tx.cq, 1, &wc) > 0)
			return;
	setup_failed("the send never completed", ETIMEDOUT);
}

/* Post every slot of the receiver, the test's way. */
static void post_all_by_test(void)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	unsigned i;

	for (i = 0; i < rx.slots; i++) {
		sge = (struct ibv_sge){ .addr = (uintptr_t)(rx.buf +
							    i * EX_SLOT),
					.length = EX_SLOT,
					.lkey = rx.mr->lkey };
		wr = (struct ibv_recv_wr){ .wr_id = i,
					   .sg_list = &sge,
					   .num_sge = 1 };
		if (ibv_post_recv(rx.qp, &wr, &bad))
			setup_failed("ibv_post_recv", errno);
	}
}

/* Poll with the exercise until want packets are in, or 3 s go by idle. */
static void poll_for(uint64_t want)
{
	uint64_t last = pl_now_ns();

	while (rx.stats.packets < want && pl_now_ns() - last < 3000000000ull)
		if (ex_poll_once(&rx) > 0)
			last = pl_now_ns();
}

/* Post every slot in one call: each message lands in a posted buffer. */
static int post_recv(void)
{
	uint32_t slot[EX_MAX_BATCH];
	struct ibv_wc wc[16];
	struct pl_pkt p;
	unsigned i, got = 0, ok = 0;
	uint64_t t0;
	int n, v = setup(32, 16);

	if (v != GR_PASS)
		return v;
	for (i = 0; i < 32; i++)
		slot[i] = 31 - i; /* any order: the wr_id names the slot */
	GR_EQ_U(ex_post_slots(&rx, slot, 32), 0);
	GR_EQ_U(rx.recv_posts, 1);
	send_n(32);
	for (t0 = pl_now_ns(); got < 32 && pl_now_ns() - t0 < 3000000000ull;) {
		n = ibv_poll_cq(rx.cq, 16, wc);
		for (i = 0; i < (unsigned)(n > 0 ? n : 0); i++, got++) {
			if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id >= 32)
				continue;
			ok += pl_parse_payload(
				      rx.buf + wc[i].wr_id * EX_SLOT + EX_GRH,
				      wc[i].byte_len - EX_GRH, &p) == PL_OK;
		}
	}
	GR_CHECK(got == 32, "%u of 32 messages found a posted receive", got);
	GR_CHECK(ok == got,
		 "%u of %u messages were in the slot their "
		 "wr_id named",
		 ok, got);
	/* Posting nothing is fine. */
	GR_EQ_U(ex_post_slots(&rx, slot, 0), 0);
	return gr_verdict();
}

/* Poll: every completion accounted from the right place in its slot. */
static int poll(void)
{
	int v = setup(64, 16);

	if (v != GR_PASS)
		return v;
	post_all_by_test();
	send_n(40);
	poll_for(40);
	GR_EQ_U(rx.stats.packets, 40);
	GR_EQ_U(rx.stats.bad_total, 0);
	GR_EQ_U(rx.stats.bytes, 40 * MSG_LEN);
	GR_EQ_U(rx.completions, 40);
	GR_CHECK(rx.polls >= 3, "%llu polls for 40 completions, batch 16",
		 (unsigned long long)rx.polls);
	GR_EQ_U(ex_poll_once(&rx), 0);
	GR_CHECK(rx.empty >= 1, "an empty poll was not counted");
	return gr_verdict();
}

/* 16 buffers, 320 messages: only buffers posted again keep it going. */
static int repost(void)
{
	unsigned chunk;
	int v = setup(16, 16);

	if (v != GR_PASS)
		return v;
	post_all_by_test();
	for (chunk = 0; chunk < 40; chunk++) {
		send_n(8);
		poll_for(8 * (chunk + 1));
		if (rx.stats.packets < 8 * (chunk + 1))
			break;
	}
	GR_CHECK(rx.stats.packets == 320,
		 "%llu of 320 messages arrived through 16 buffers: were the "
		 "buffers posted again?",
		 (unsigned long long)rx.stats.packets);
	GR_EQ_U(rx.post_errors, 0);
	GR_EQ_U(rx.wc_errors, 0);
	return gr_verdict();
}

/* A broken QP flushes its receives: counted, and not posted again. */
static int errors(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	unsigned i;
	int v = setup(16, 16);

	if (v != GR_PASS)
		return v;
	post_all_by_test();
	if (ibv_modify_qp(rx.qp, &a, IBV_QP_STATE))
		setup_failed("QP to ERR", errno);
	for (i = 0; i < 200 && rx.wc_errors + rx.completions < 16; i++)
		ex_poll_once(&rx);
	GR_EQ_U(rx.completions, 16);
	GR_EQ_U(rx.wc_errors, 16);
	GR_EQ_U(rx.last_wc_status, IBV_WC_WR_FLUSH_ERR);
	GR_EQ_U(rx.stats.packets, 0);
	for (i = 0; i < 20; i++)
		GR_CHECK(ex_poll_once(&rx) == 0,
			 "flushed buffers were posted again on a broken QP");
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "post_recv", 3, "a chain of receives in one ibv_post_recv()",
	  post_recv },
	{ "poll", 4, "ibv_poll_cq(): each message found past the GRH", poll },
	{ "repost", 4, "buffers posted again: 320 messages through 16",
	  repost },
	{ "errors", 2, "error completions counted, not posted again", errors },
	{ 0 }
};

int main(int argc, char **argv)
{
	return gr_main(argc, argv, "08-verbs-cq", cases);
}
