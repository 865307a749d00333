/* SPDX-License-Identifier: MIT */
/*
 * pathlab-tx-verbs: the RDMA sender.
 *
 * Each message is a pathlab payload (common/wire.h) stamped when it is
 * posted, in a registered send ring. A batch of work requests goes to the
 * send queue in one ibv_post_send(): on a hardware NIC that rings a doorbell
 * (a write to device memory); on rxe it is a system call. Only every
 * signal-th request asks for a completion, which says that it and every
 * request before it are done, so its ring slots may be reused.
 *
 * Ends with the END marker (seq = good messages sent): PL_END_ROUNDS times
 * on UD, which may lose it, once on RC. The JSON summary has the fields
 * labs/lib/merge.jq reads from pathlab-gen's (sent, drops, ...).
 */
#include "clock.h"
#include "opt.h"
#include "run.h"
#include "verbs_tx.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SPIN_NS	 50000 /* paced: sleep until this close, then spin */
#define NO_INDEX UINT64_MAX

static volatile sig_atomic_t stop;

/* SIGINT/SIGTERM: finish with the end markers and the summary. */
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Break a built payload in the way why names; may shorten it. */
static void corrupt(uint8_t *buf, uint32_t *len, enum pl_reason why)
{
	switch (why) {
	case PL_BAD_HDR_TRUNC:
		*len = PL_HDR_LEN - 8;
		break;
	case PL_BAD_MAGIC:
		buf[0] ^= 0xff;
		break;
	case PL_BAD_VERSION:
		buf[2] = (uint8_t)((buf[2] & 0xf0) | 0x0f);
		break;
	default: /* PL_BAD_CHECK: one flipped bit the check must catch */
		buf[PL_HDR_LEN - 1] ^= 0x01;
		break;
	}
}

/* Which malformation message k carries, or PL_OK. */
static enum pl_reason bad_kind(const struct verbs_tx *tx, uint64_t k)
{
	static const enum pl_reason cycle[] = { PL_BAD_HDR_TRUNC, PL_BAD_MAGIC,
						PL_BAD_VERSION, PL_BAD_CHECK };
	unsigned n = tx->cfg->corrupt_every;

	if (!n || (k + 1) % n)
		return PL_OK;
	return cycle[((k + 1) / n - 1) % 4];
}

/* 8< verbs-fill-send */
/* Build message k in its ring slot and the work request that sends it. */
static void fill_msg(struct verbs_tx *tx, uint64_t k, bool end,
		     struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	const struct verbs_wire *rm = &tx->ep.remote;
	unsigned slot = (unsigned)(k % tx->depth);
	uint8_t *buf = tx->ep.buf + (size_t)slot * VERBS_SLOT;
	enum pl_reason why = end ? PL_OK : bad_kind(tx, k);
	uint32_t len = tx->payload, rslot;

	tx->good_at[slot] = tx->good;
	pl_build_payload(buf, len, 0, (uint32_t)tx->good, pl_now_ns());
	if (end) {
		/* The round in the top bits: a receiver that first sees round
		 * k knows k markers were lost before it. */
		buf[2] |= (uint8_t)(PL_FLAG_END | tx->end_round << 6);
		pl_payload_reseal(buf, len);
	} else if (why != PL_OK) {
		corrupt(buf, &len, why);
		tx->bad[why]++;
		tx->bad_sent++;
	} else {
		tx->good++;
	}
	*sge = (struct ibv_sge){ .addr = (uintptr_t)buf,
				 .length = len,
				 .lkey = tx->ep.mr->lkey };
	*wr = (struct ibv_send_wr){
		.wr_id = k,
		.sg_list = sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = (k + 1) % tx->signal == 0 || end
				      ? IBV_SEND_SIGNALED
				      : 0,
	};
	if (tx->cfg->v.mode == VERBS_UD) {
		wr->wr.ud.ah = tx->ep.ah;
		wr->wr.ud.remote_qpn = ntohl(rm->qpn);
		wr->wr.ud.remote_qkey = ntohl(rm->qkey);
	} else if (tx->cfg->v.mode == VERBS_RC_WRITE_IMM) {
		rslot = (uint32_t)(k % ntohl(rm->slots));
		wr->opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr->imm_data = htonl(rslot); /* where to look, for the peer */
		wr->wr.rdma.remote_addr =
			be64toh(rm->addr) +
			(uint64_t)rslot * ntohl(rm->slot_size);
		wr->wr.rdma.rkey = ntohl(rm->rkey);
	}
}
/* >8 verbs-fill-send */

/* Poll the send CQ until at most room requests are outstanding. */
static void reap(struct verbs_tx *tx, unsigned room)
{
	uint64_t idle_since = 0;
	int i, n;

	while (tx->posted - tx->completed > room && !tx->stalled) {
		n = ibv_poll_cq(tx->ep.cq, VERBS_MAX_BATCH, tx->wc);
		tx->cq_polls++;
		for (i = 0; i < n; i++) {
			if (tx->wc[i].status != IBV_WC_SUCCESS) {
				tx->wc_errors++;
				tx->last_status = tx->wc[i].status;
				if (tx->wc[i].wr_id < tx->fail_index)
					tx->fail_index = tx->wc[i].wr_id;
			}
			if (tx->wc[i].wr_id + 1 > tx->completed)
				tx->completed = tx->wc[i].wr_id + 1;
		}
		if (n > 0) {
			idle_since = 0;
		} else if (!idle_since) {
			idle_since = pl_now_ns();
		} else if ((tx->cq_polls & 1023) == 0 &&
			   pl_now_ns() - idle_since >
				   tx->cfg->v.timeout_ms * 1000000ull) {
			tx->stalled = true; /* the peer stopped answering */
		}
	}
}

/* Post n messages (end markers if end) in one call; false on failure. */
static bool post_batch(struct verbs_tx *tx, unsigned n, bool end)
{
	struct ibv_send_wr *bad;
	unsigned i;
	int err;

	reap(tx, tx->depth - n);
	if (tx->stalled || tx->fail_index != NO_INDEX)
		return false;
	for (i = 0; i < n; i++)
		fill_msg(tx, tx->posted + i, end, &tx->wr[i], &tx->sge[i]);
	tx->wr[n - 1].next = NULL;
	for (i = 0; i + 1 < n; i++)
		tx->wr[i].next = &tx->wr[i + 1];
	tx->post_calls++;
	err = ibv_post_send(tx->ep.qp, tx->wr, &bad);
	if (err) {
		/* Nothing from bad on was posted. */
		tx->post_errors++;
		tx->last_errno = err;
		n = (unsigned)(bad - tx->wr);
		tx->fail_index = tx->posted + n;
	}
	tx->posted += n;
	return !err;
}

/* Send the train: batches, paced when --rate is set. */
static void send_train(struct verbs_tx *tx, const struct tx_cfg *c)
{
	uint64_t deadline = pl_now_ns(), left;
	unsigned n;

	while (!stop && tx->good < c->count) {
		left = c->count - tx->good;
		n = left < tx->batch ? (unsigned)left : tx->batch;
		if (c->rate) {
			pl_wait_until(deadline, SPIN_NS);
			deadline += (uint64_t)n * 1000000000ull / c->rate;
		}
		if (!post_batch(tx, n, false))
			break;
	}
}

/* The end marker (PL_END_ROUNDS times, 20 ms apart, on UD), then wait. */
static void send_end(struct verbs_tx *tx, const struct tx_cfg *c)
{
	struct timespec gap = { .tv_nsec = 20000000L };
	unsigned i, times = c->v.mode == VERBS_UD ? PL_END_ROUNDS : 1;

	for (i = 0; i < times && !c->no_end; i++) {
		if (i)
			nanosleep(&gap, NULL);
		tx->end_round = i;
		if (!post_batch(tx, 1, true))
			break;
		tx->end_sent++;
	}
	reap(tx, 0);
}

/* Device, CQ, send ring, QP; connected to the receiver. */
static int verbs_setup(struct verbs_tx *tx, const struct tx_cfg *c)
{
	unsigned mtu;
	int err;

	tx->depth = c->v.depth;
	tx->batch = c->v.batch ? c->v.batch : c->rate ? 1 : 32;
	tx->signal = tx->depth / 4 < 64 ? tx->depth / 4 : 64;
	tx->fail_index = NO_INDEX;
	tx->good_at = calloc(tx->depth, sizeof(*tx->good_at));
	if (!tx->good_at)
		return -ENOMEM;
	err = verbs_ep_open(&tx->ep, &c->v, false);
	if (err)
		goto out_close;
	err = verbs_ep_objects(&tx->ep, &c->v, tx->depth,
			       IBV_ACCESS_LOCAL_WRITE);
	if (err)
		goto out_close;
	if (c->v.oob && (err = verbs_qp_create(&tx->ep, &c->v, tx->depth, 1)))
		goto out_close;
	err = verbs_connect(&tx->ep, &c->v, tx->depth, 1);
	if (err)
		goto out_close;
	mtu = verbs_mtu_bytes(tx->ep.where.mtu);
	if ((c->v.mode == VERBS_UD && tx->payload > mtu) ||
	    tx->payload > ntohl(tx->ep.remote.slot_size)) {
		fprintf(stderr,
			"pathlab-tx-verbs: a %u-byte message does not "
			"fit (%s: one packet of the %u-byte path MTU)\n",
			tx->payload, verbs_modes[c->v.mode], mtu);
		err = -EMSGSIZE;
		goto out_close;
	}
	return 0;

out_close:
	verbs_ep_close(&tx->ep);
	free(tx->good_at);
	return err;
}

/* Undo verbs_setup(). */
static void verbs_teardown(struct verbs_tx *tx)
{
	verbs_disconnect(&tx->ep);
	verbs_ep_close(&tx->ep);
	free(tx->good_at);
}

/* Send between two counter snapshots; what went is what completed. */
static void send_all(struct verbs_tx *tx, const struct tx_cfg *c)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	verbs_hwctr_read(&tx->ep.where, &tx->hw_before);
	pl_sysctr_read(&tx->before, tx->ep.where.ifname);
	tx->start_ns = pl_now_ns();
	send_train(tx, c);
	tx->end_ns = pl_now_ns();
	send_end(tx, c);
	pl_sysctr_read(&tx->after, tx->ep.where.ifname);
	verbs_hwctr_read(&tx->ep.where, &tx->hw_after);
	/* Good messages before the first one not known to have gone. */
	if (tx->stalled && tx->completed < tx->fail_index)
		tx->fail_index = tx->completed;
	tx->sent = tx->fail_index >= tx->posted
			   ? tx->good
			   : tx->good_at[tx->fail_index % tx->depth];
}

/* Resolve --size / --payload into the payload length; -EINVAL if wrong. */
static int check_cfg(struct verbs_tx *tx, const struct tx_cfg *c)
{
	if (c->size && c->payload) {
		fprintf(stderr,
			"pathlab-tx-verbs: --size and --payload exclude "
			"each other\n");
		return -EINVAL;
	}
	tx->payload =
		c->payload ? c->payload
			   : pl_payload_for_frame(
				     c->size ? c->size : PL_MIN_FRAME, false);
	if (!c->count) {
		fprintf(stderr, "pathlab-tx-verbs: --count must be > 0\n");
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tx_cfg c = { .v = { .peer = "10.77.0.2",
				   .ib_port = 1,
				   .port = VERBS_PORT,
				   .timeout_ms = 5000,
				   .depth = 256 },
			    .count = 100000,
			    .cpu = UINT_MAX,
			    .gid_index = UINT_MAX };
	static struct verbs_tx tx;
	int err;
	const struct pl_opt opts[] = {
		{ "dst", PL_OPT_STR, &c.v.peer, "ADDR",
		  "the receiver's IPv4 address (10.77.0.2)" },
		{ "mode", PL_OPT_CHOICE, &c.v.mode, "MODE",
		  "ud, rc or rc_write_imm (ud)", 0, 0, verbs_modes },
		{ "device", PL_OPT_STR, &c.v.device, "NAME",
		  "RDMA device (the first with a RoCE v2 IPv4 GID)" },
		{ "ib-port", PL_OPT_U32, &c.v.ib_port, "N", "device port (1)",
		  1, 255 },
		{ "gid-index", PL_OPT_U32, &c.gid_index, "N",
		  "GID table index (the first RoCE v2 IPv4 GID)", 0, 4095 },
		{ "port", PL_OPT_U32, &c.v.port, "N",
		  "rdma_cm port, or TCP port with --oob (18515)", 1, 65535 },
		{ "oob", PL_OPT_FLAG, &c.v.oob, NULL,
		  "exchange QP facts over TCP instead of rdma_cm" },
		{ "timeout", PL_OPT_U32, &c.v.timeout_ms, "MS",
		  "bound on each connection step and on a silent peer (5000)",
		  1, 3600000 },
		{ "size", PL_OPT_U32, &c.size, "BYTES",
		  "the UDP paths' frame size incl. FCS: payload = size - 46 "
		  "(64)",
		  64, 1518 },
		{ "payload", PL_OPT_U32, &c.payload, "BYTES",
		  "message (pathlab payload) size instead of --size",
		  PL_HDR_LEN, 1472 },
		{ "count", PL_OPT_U64, &c.count, "N",
		  "good messages to send (100000)" },
		{ "rate", PL_OPT_U64, &c.rate, "PPS",
		  "messages per second, paced; 0 = as fast as possible" },
		{ "batch", PL_OPT_U32, &c.v.batch, "N",
		  "work requests per ibv_post_send (32; 1 when paced)", 1,
		  VERBS_MAX_BATCH },
		{ "depth", PL_OPT_U32, &c.v.depth, "N",
		  "send queue depth and send ring slots (256)", 16, 4096 },
		{ "corrupt-every", PL_OPT_U32, &c.corrupt_every, "N",
		  "every Nth message malformed (4 kinds in turn)", 2, 1000000 },
		{ "no-end", PL_OPT_FLAG, &c.no_end, NULL,
		  "send no end marker" },
		{ "cpu", PL_OPT_U32, &c.cpu, "N", "pin to this CPU", 0, 4095 },
		{ "json", PL_OPT_STR, &c.json, "FILE",
		  "write the JSON summary to FILE (- = stdout)" },
		{ "quiet", PL_OPT_FLAG, &c.quiet, NULL, "no summary line" },
		{ 0 }
	};

	err = pl_opt_parse(argc, argv, opts, "[options]", NULL);
	if (err)
		return err == PL_OPT_HELP ? PL_EXIT_OK : PL_EXIT_USAGE;
	c.v.gid_index = c.gid_index == UINT_MAX ? -1 : (int)c.gid_index;
	tx.cfg = &c;
	if (check_cfg(&tx, &c))
		return PL_EXIT_USAGE;
	if (c.cpu != UINT_MAX && (err = pl_pin_cpu(c.cpu))) {
		fprintf(stderr, "pathlab-tx-verbs: --cpu %u: %s\n", c.cpu,
			strerror(-err));
		return PL_EXIT_USAGE;
	}
	err = verbs_setup(&tx, &c);
	if (err) {
		fprintf(stderr, "pathlab-tx-verbs: setup (to %s): %s\n",
			c.v.peer, strerror(-err));
		return err == -ENODEV ? PL_EXIT_SKIP : PL_EXIT_FAIL;
	}
	send_all(&tx, &c);
	err = tx_verbs_report(&tx);
	verbs_teardown(&tx);
	if (err)
		return PL_EXIT_FAIL;
	return tx.wc_errors || tx.post_errors || tx.stalled ? PL_EXIT_FAIL
							    : PL_EXIT_OK;
}
