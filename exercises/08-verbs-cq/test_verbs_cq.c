/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 8, on real verbs: a UD queue pair on the
 * receiving device (PL_VM_RX_DEV, its IPv4 GID PL_VM_RX_ADDR), in the
 * worker (wk_verbs.c) where the student's code posts and polls, gets
 * messages from the grader's UD queue pair on the sending device
 * (PL_VM_TX_DEV, PL_VM_TX_ADDR); both may be the same device.
 * run_verbs.sh sets these, on a host with an RDMA device or inside the
 * Soft-RoCE VM (labs/rdma-vm). The harness posts receives or polls the CQ
 * itself where a case is about the other half, so each step of the
 * exercise is graded on its own.
 */
#include "clock.h"
#include "grade.h"
#include "verbs_end.h"
#include "verbs_rpc.h"
#include "wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct vx_end tx;
static struct ibv_ah *ah;
static struct vx_where where;
static struct vx_state st; /* the receiver's, after the last request */
static uint32_t next_seq;

/* Send request op; the receiver's state after it. */
static void ask(unsigned op, const void *in, size_t len)
{
	gr_call_exact(op, in, len, &st, sizeof(st));
}

/* Both ends, a receiver of slots buffers; skip when there is no device. */
static int setup(unsigned slots, unsigned batch)
{
	const char *rxd = getenv("PL_VM_RX_DEV"), *txd = getenv("PL_VM_TX_DEV");
	const char *rxa = getenv("PL_VM_RX_ADDR"),
		   *txa = getenv("PL_VM_TX_ADDR");
	struct vx_setup q = { .slots = slots, .batch = batch };
	struct ibv_ah_attr aa;
	const char *err;

	if (!rxd || !txd || !rxa || !txa)
		return gr_skip("no RDMA device: run through run_verbs.sh "
			       "(it uses the Soft-RoCE VM, labs/rdma-vm)");
	snprintf(q.dev, sizeof(q.dev), "%s", rxd);
	snprintf(q.addr, sizeof(q.addr), "%s", rxa);
	gr_context("the worker's receiving end on %s", rxd);
	gr_call_exact(VX_SETUP, &q, sizeof(q), &where, sizeof(where));
	gr_context("%s", "");
	err = vx_end_open(&tx, txd, txa, VX_TX_SLOTS, 2048, true);
	if (err)
		gr_setup_failed("%s: %s", err, strerror(errno));
	aa = (struct ibv_ah_attr){
		.is_global = 1,
		.grh = { .sgid_index = (uint8_t)tx.gid_index, .hop_limit = 64 },
		.port_num = 1,
	};
	memcpy(aa.grh.dgid.raw, where.gid, sizeof(where.gid));
	ah = ibv_create_ah(tx.pd, &aa);
	if (!ah)
		gr_setup_failed("address handle: %s", strerror(errno));
	return GR_PASS;
}

/* Send n messages (n <= VX_TX_SLOTS) and wait until the NIC sent them. */
static void send_n(unsigned n)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	uint64_t t0;
	unsigned i;

	for (i = 0; i < n; i++) {
		uint8_t *b = tx.buf + i * 2048;

		pl_build_payload(b, VX_MSG_LEN, 8, next_seq++, pl_now_ns());
		sge = (struct ibv_sge){ .addr = (uintptr_t)b,
					.length = VX_MSG_LEN,
					.lkey = tx.mr->lkey };
		wr = (struct ibv_send_wr){
			.wr_id = i,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = i + 1 == n ? IBV_SEND_SIGNALED : 0,
			.wr.ud = { .ah = ah,
				   .remote_qpn = where.qpn,
				   .remote_qkey = VX_QKEY },
		};
		if (ibv_post_send(tx.qp, &wr, &bad))
			gr_setup_failed("ibv_post_send: %s", strerror(errno));
	}
	for (t0 = pl_now_ns(); pl_now_ns() - t0 < 5000000000ull;)
		if (ibv_poll_cq(tx.cq, 1, &wc) > 0)
			return;
	gr_setup_failed("the send never completed");
}

/* The student's ex_poll_once() until want packets are in, or 3 s idle. */
static void poll_for(uint64_t want)
{
	struct vx_poll_for q = { want, 3000 };

	ask(VX_POLL_FOR, &q, sizeof(q));
}

/* The student's ex_poll_once() once: what it returned. */
static int ex_poll_once(void)
{
	ask(VX_POLL, NULL, 0);
	return st.ret;
}

/* The student's ex_post_slots() of slot[0..n). */
static int ex_post_slots(const uint32_t *slot, unsigned n)
{
	ask(VX_POST, slot, n * sizeof(*slot));
	return st.ret;
}

/* Post every slot in one call: each message lands in a posted buffer. */
static int post_recv(void)
{
	unsigned slots = 17 + 2 * (unsigned)gr_below(23),
		 n = 8 + (unsigned)gr_below(slots - 8), i, j;
	uint32_t slot[VX_MAX_SLOTS], t;
	int v = setup(slots, 5 + 2 * (unsigned)gr_below(5));

	if (v != GR_PASS)
		return v;
	/* Any order: the wr_id names the slot. Drawn: which, how many. */
	for (i = 0; i < slots; i++)
		slot[i] = i;
	for (i = slots - 1; i > 0; i--) {
		j = (unsigned)gr_below(i + 1);
		t = slot[i], slot[i] = slot[j], slot[j] = t;
	}
	GR_EQ_U(ex_post_slots(slot, n), 0);
	GR_EQ_U(st.recv_posts, 1);
	send_n(n);
	ask(VX_LANDED, &n, sizeof(n));
	GR_CHECK(st.landed == n, "%u of %u messages found a posted receive",
		 st.landed, n);
	GR_CHECK(st.in_slot == st.landed,
		 "%u of %u messages were in the slot their wr_id named",
		 st.in_slot, st.landed);
	/* Posting nothing is fine. */
	GR_EQ_U(ex_post_slots(slot, 0), 0);
	return gr_verdict();
}

/* Poll: every completion accounted from the right place in its slot. */
static int poll(void)
{
	unsigned batch = 3 + 2 * (unsigned)gr_below(7),
		 n = 20 + (unsigned)gr_below(41);
	int v = setup(61 + 2 * (unsigned)gr_below(2), batch);

	if (v != GR_PASS)
		return v;
	ask(VX_POST_ALL, NULL, 0);
	send_n(n);
	poll_for(n);
	GR_EQ_U(st.packets, n);
	GR_EQ_U(st.bad_total, 0);
	GR_EQ_U(st.bytes, n * VX_MSG_LEN);
	GR_EQ_U(st.completions, n);
	GR_CHECK(st.polls >= (n + batch - 1) / batch,
		 "%llu polls for %u completions, batch %u",
		 (unsigned long long)st.polls, n, batch);
	GR_EQ_U(ex_poll_once(), 0);
	GR_CHECK(st.empty >= 1, "an empty poll was not counted");
	return gr_verdict();
}

/* 15 or 17 buffers, hundreds of messages: only buffers posted again do. */
static int repost(void)
{
	unsigned chunk, k = 4 + (unsigned)gr_below(11), sent = 0;
	int v = setup(15 + 2 * (unsigned)gr_below(2),
		      5 + 2 * (unsigned)gr_below(5));

	if (v != GR_PASS)
		return v;
	ask(VX_POST_ALL, NULL, 0);
	for (chunk = 0; chunk < 40; chunk++) {
		send_n(k);
		sent += k;
		poll_for(sent);
		if (st.packets < sent)
			break;
	}
	GR_CHECK(st.packets == 40 * k,
		 "%llu of %u messages arrived through 15 or 17 buffers: were "
		 "the "
		 "buffers posted again?",
		 (unsigned long long)st.packets, 40 * k);
	GR_EQ_U(st.post_errors, 0);
	GR_EQ_U(st.wc_errors, 0);
	return gr_verdict();
}

/* A broken QP flushes its receives: counted, and not posted again. */
static int errors(void)
{
	unsigned i, slots = 5 + 2 * (unsigned)gr_below(14);
	int v = setup(slots, 3 + 2 * (unsigned)gr_below(6));

	if (v != GR_PASS)
		return v;
	ask(VX_POST_ALL, NULL, 0);
	ask(VX_TO_ERR, NULL, 0);
	/* A software device flushes at its own pace: up to 3 s. */
	for (i = 0; i < 3000 && st.completions < slots; i++)
		if (ex_poll_once() == 0)
			usleep(1000);
	GR_EQ_U(st.completions, slots);
	GR_EQ_U(st.wc_errors, slots);
	GR_EQ_U(st.last_wc_status, IBV_WC_WR_FLUSH_ERR);
	GR_EQ_U(st.packets, 0);
	for (i = 0; i < 20; i++)
		GR_CHECK(ex_poll_once() == 0,
			 "flushed buffers were posted again on a broken QP");
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "post_recv", 3, "a chain of receives in one ibv_post_recv()",
	  post_recv },
	{ "poll", 4, "ibv_poll_cq(): each message found past the GRH", poll },
	{ "repost", 4,
	  "buffers posted again: hundreds of messages through 15 or 17",
	  repost },
	{ "errors", 2, "error completions counted, not posted again", errors },
	{ 0 }
};

int main(int argc, char **argv)
{
	gr_sandbox(&(struct gr_sandbox){
		.flags = GR_SB_DYNAMIC | GR_SB_DEVICES | GR_SB_THREADS |
			 GR_SB_HOST_NET,
		.mem_mib = ~0u,
		.nofile = 256,
	});
	return gr_main(argc, argv, "08-verbs-cq", cases);
}
