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
 * labs/plab/merge.py reads from pathlab-gen's (sent, drops, ...).
 *
 * --queues N: N QPs, each connected to the receiver's QP of the same index
 * (on --port + q), each with its own CQ and ring; flow f goes to QP
 * f % N, and each flow's end marker on its own QP. --pingpong: one ping at
 * a time, timed until the receiver (--reflect) sends it back
 * (pingpong_verbs.c).
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

#define SPIN_NS 50000 /* paced: sleep until this close, then spin */

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
/*
 * Build message k of QP q (on flow) in its ring slot and the work request
 * that sends it: data, an end marker, or a ping (every one signalled).
 */
static void fill_msg(struct verbs_tx *tx, struct tx_queue *q, uint64_t k,
		     unsigned flow, bool end, bool ping, struct ibv_send_wr *wr,
		     struct ibv_sge *sge)
{
	const struct verbs_wire *rm = &q->ep.remote;
	unsigned slot = (unsigned)(k % tx->depth);
	uint8_t *buf = q->ep.buf + (size_t)slot * VERBS_SLOT;
	enum pl_reason why = end || ping ? PL_OK : bad_kind(tx, tx->built);
	uint32_t len = tx->payload, rslot;

	q->good_at[slot] = q->good;
	pl_build_payload(buf, len, (uint8_t)flow, (uint32_t)tx->seq[flow],
			 pl_now_ns());
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
		if (ping) { /* "reflect me", for the receiver's --reflect */
			buf[2] |= PL_FLAG_PING;
			pl_payload_reseal(buf, len);
		}
		tx->seq[flow]++;
		q->good++;
		tx->good++;
	}
	tx->built += !end;
	*sge = (struct ibv_sge){ .addr = (uintptr_t)buf,
				 .length = len,
				 .lkey = q->ep.mr->lkey };
	*wr = (struct ibv_send_wr){
		.wr_id = k,
		.sg_list = sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = (k + 1) % tx->signal == 0 || end || ping
				      ? IBV_SEND_SIGNALED
				      : 0,
	};
	if (tx->cfg->v.mode == VERBS_UD) {
		wr->wr.ud.ah = q->ep.ah;
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

void tx_verbs_send_done(struct verbs_tx *tx, struct tx_queue *q,
			const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS) {
		tx->wc_errors++;
		tx->last_status = wc->status;
		if (wc->wr_id < q->fail_index)
			q->fail_index = wc->wr_id;
	}
	if (wc->wr_id + 1 > q->completed)
		q->completed = wc->wr_id + 1;
}

void tx_verbs_reap(struct verbs_tx *tx, struct tx_queue *q, unsigned room)
{
	uint64_t idle_since = 0;
	int i, n;

	while (q->posted - q->completed > room && !q->stalled) {
		n = ibv_poll_cq(q->ep.cq, VERBS_MAX_BATCH, tx->wc);
		tx->cq_polls++;
		for (i = 0; i < n; i++) {
			if (!(tx->wc[i].wr_id & TX_RECV_TAG))
				tx_verbs_send_done(tx, q, &tx->wc[i]);
			else if (tx->rtt) /* a reply after its ping's time */
				tx->rtt->late++;
		}
		if (n > 0) {
			idle_since = 0;
		} else if (!idle_since) {
			idle_since = pl_now_ns();
		} else if ((tx->cq_polls & 1023) == 0 &&
			   pl_now_ns() - idle_since >
				   tx->cfg->v.timeout_ms * 1000000ull) {
			q->stalled = true; /* the peer stopped answering */
		}
	}
}

/* The flow of QP q's next message: its flows q, q + N, ... in turn. */
static unsigned next_flow(struct verbs_tx *tx, struct tx_queue *q)
{
	unsigned f = q->next_flow;

	q->next_flow = (f + 1) % q->nflows;
	return (unsigned)(q - tx->q) + tx->nq * f;
}

bool tx_verbs_post(struct verbs_tx *tx, struct tx_queue *q, unsigned n,
		   bool end, bool ping)
{
	struct ibv_send_wr *bad;
	unsigned i, flow;
	int err;

	tx_verbs_reap(tx, q, tx->depth - n);
	if (q->stalled || q->fail_index != TX_NO_INDEX)
		return false;
	for (i = 0; i < n; i++) {
		/* End markers: one per flow of this QP, in order. */
		flow = end ? (unsigned)(q - tx->q) + tx->nq * i
			   : next_flow(tx, q);
		fill_msg(tx, q, q->posted + i, flow, end, ping, &tx->wr[i],
			 &tx->sge[i]);
	}
	tx->wr[n - 1].next = NULL;
	for (i = 0; i + 1 < n; i++)
		tx->wr[i].next = &tx->wr[i + 1];
	tx->post_calls++;
	err = ibv_post_send(q->ep.qp, tx->wr, &bad);
	if (err) {
		/* Nothing from bad on was posted. */
		tx->post_errors++;
		tx->last_errno = err;
		n = (unsigned)(bad - tx->wr);
		q->fail_index = q->posted + n;
	}
	q->posted += n;
	return !err;
}

/* Send the train: batches, QP after QP, paced when --rate is set. */
static void send_train(struct verbs_tx *tx, const struct tx_cfg *c)
{
	uint64_t deadline = pl_now_ns(), left;
	unsigned n, q = 0;

	while (!stop && tx->good < c->count) {
		left = c->count - tx->good;
		n = left < tx->batch ? (unsigned)left : tx->batch;
		if (c->rate) {
			pl_wait_until(deadline, SPIN_NS);
			deadline += (uint64_t)n * 1000000000ull / c->rate;
		}
		if (!tx_verbs_post(tx, &tx->q[q], n, false, false))
			break;
		q = (q + 1) % tx->nq;
	}
}

/*
 * Every flow's end marker on its QP (PL_END_ROUNDS times, 20 ms apart, on
 * UD), then wait for every QP's sends to complete.
 */
static void send_end(struct verbs_tx *tx, const struct tx_cfg *c)
{
	struct timespec gap = { .tv_nsec = 20000000L };
	unsigned i, q, times = c->v.mode == VERBS_UD ? PL_END_ROUNDS : 1;
	bool ok = !c->no_end;

	for (i = 0; i < times && ok; i++) {
		if (i)
			nanosleep(&gap, NULL);
		tx->end_round = i;
		for (q = 0; q < tx->nq && ok; q++) {
			ok = tx_verbs_post(tx, &tx->q[q], tx->q[q].nflows, true,
					   false);
			if (ok)
				tx->end_sent += tx->q[q].nflows;
		}
	}
	for (q = 0; q < tx->nq; q++)
		tx_verbs_reap(tx, &tx->q[q], 0);
}

/* Whether the message fits what the connection allows; -EMSGSIZE if not. */
static int check_fits(const struct verbs_tx *tx, const struct tx_queue *q,
		      const struct tx_cfg *c)
{
	unsigned mtu = verbs_mtu_bytes(q->ep.where.mtu);

	if ((c->v.mode == VERBS_UD && tx->payload > mtu) ||
	    tx->payload > ntohl(q->ep.remote.slot_size)) {
		fprintf(stderr,
			"pathlab-tx-verbs: a %u-byte message does not "
			"fit (%s: one packet of the %u-byte path MTU)\n",
			tx->payload, verbs_modes[c->v.mode], mtu);
		return -EMSGSIZE;
	}
	return 0;
}

/*
 * Device, CQ, send ring (and, for --pingpong, receive buffers after it),
 * QP number qi; connected to the receiver's QP of the same number.
 */
static int queue_setup(struct verbs_tx *tx, struct tx_queue *q, unsigned qi,
		       const struct tx_cfg *c)
{
	unsigned recv_wr = tx->recv_slots ? tx->recv_slots : 1;
	int err;

	q->fail_index = TX_NO_INDEX;
	q->nflows = (tx->flows - qi + tx->nq - 1) / tx->nq;
	q->good_at = calloc(tx->depth, sizeof(*q->good_at));
	if (!q->good_at)
		return -ENOMEM;
	err = verbs_ep_open(&q->ep, &c->v, false, qi);
	if (!err)
		err = verbs_ep_objects(&q->ep, &c->v,
				       tx->depth + tx->recv_slots,
				       IBV_ACCESS_LOCAL_WRITE);
	if (!err && c->v.oob)
		err = verbs_qp_create(&q->ep, &c->v, tx->depth, recv_wr);
	if (!err)
		err = verbs_connect(&q->ep, &c->v, tx->depth, recv_wr);
	if (!err)
		err = check_fits(tx, q, c);
	if (err) {
		verbs_ep_close(&q->ep);
		free(q->good_at);
		q->good_at = NULL;
	}
	return err;
}

/* Undo queue_setup(). */
static void queue_teardown(struct tx_queue *q)
{
	verbs_disconnect(&q->ep);
	verbs_ep_close(&q->ep);
	free(q->good_at);
}

/* Every QP, connected in turn (the receiver accepts them in turn). */
static int verbs_setup(struct verbs_tx *tx, const struct tx_cfg *c)
{
	unsigned q;
	int err = 0;

	tx->depth = c->v.depth;
	tx->batch = c->v.batch ? c->v.batch : c->rate ? 1 : 32;
	tx->signal = tx->depth / 4 < 64 ? tx->depth / 4 : 64;
	tx->nq = verbs_queues(&c->v);
	tx->flows = c->flows ? c->flows : tx->nq;
	tx->recv_slots = c->pingpong ? TX_PINGPONG_RECVS : 0;
	for (q = 0; q < tx->nq && !err; q++)
		err = queue_setup(tx, &tx->q[q], q, c);
	if (!err && c->pingpong)
		err = pingpong_setup(tx);
	if (!err)
		return 0;
	while (q-- > 0)
		if (tx->q[q].good_at)
			queue_teardown(&tx->q[q]);
	return err;
}

/* Undo verbs_setup(). */
static void verbs_teardown(struct verbs_tx *tx)
{
	unsigned q;

	for (q = tx->nq; q-- > 0;)
		queue_teardown(&tx->q[q]);
}

/* Good messages known to have gone: before each QP's first failure. */
static void count_sent(struct verbs_tx *tx)
{
	struct tx_queue *q;
	unsigned i;

	tx->sent = 0;
	for (i = 0; i < tx->nq; i++) {
		q = &tx->q[i];
		if (q->stalled && q->completed < q->fail_index)
			q->fail_index = q->completed;
		q->sent = q->fail_index >= q->posted
				  ? q->good
				  : q->good_at[q->fail_index % tx->depth];
		tx->sent += q->sent;
		tx->stalled = tx->stalled || q->stalled;
	}
}

/* Send between two counter snapshots; what went is what completed. */
static void send_all(struct verbs_tx *tx, const struct tx_cfg *c)
{
	const struct verbs_where *w = &tx->q[0].ep.where;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	verbs_hwctr_read(w, &tx->hw_before);
	pl_sysctr_read(&tx->before, w->ifname);
	tx->start_ns = pl_now_ns();
	if (c->pingpong)
		pingpong_run(tx, &stop);
	else
		send_train(tx, c);
	tx->end_ns = pl_now_ns();
	send_end(tx, c);
	pl_sysctr_read(&tx->after, w->ifname);
	verbs_hwctr_read(w, &tx->hw_after);
	count_sent(tx);
}

/* --queues and --flows: every QP gets a flow; false (and why) if not. */
static bool check_queues(const struct tx_cfg *c)
{
	unsigned n = verbs_queues(&c->v);

	if (c->flows && c->flows < n) {
		fprintf(stderr,
			"pathlab-tx-verbs: --flows %u leaves QPs without a "
			"flow: at least --queues (%u)\n",
			c->flows, n);
		return false;
	}
	if (c->v.port + n - 1 > 65535) {
		fprintf(stderr, "pathlab-tx-verbs: --port: QP q connects on "
				"--port + q, past 65535\n");
		return false;
	}
	return true;
}

/*
 * --pingpong: SENDs the receiver can reflect, nothing malformed, a
 * warm-up shorter than the run (default 100, or a tenth of a --count
 * below 1000, as pathlab-gen). 0 or -EINVAL.
 */
static int check_pingpong(struct tx_cfg *c)
{
	if (!c->pingpong)
		return 0;
	if (c->v.mode == VERBS_RC_WRITE_IMM || c->corrupt_every) {
		fprintf(stderr, "pathlab-tx-verbs: --pingpong needs --mode ud "
				"or rc and no --corrupt-every\n");
		return -EINVAL;
	}
	c->v.duplex = true; /* replies complete on the sends' CQs */
	if (c->warmup == UINT_MAX)
		c->warmup = c->count < 1000 ? (unsigned)c->count / 10 : 100;
	if (c->warmup >= c->count) {
		fprintf(stderr,
			"pathlab-tx-verbs: --warmup %u leaves nothing of "
			"--count %llu to measure\n",
			c->warmup, (unsigned long long)c->count);
		return -EINVAL;
	}
	return 0;
}

/* Resolve --size / --payload into the payload length; -EINVAL if wrong. */
static int check_cfg(struct verbs_tx *tx, struct tx_cfg *c)
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
	return check_queues(c) ? check_pingpong(c) : -EINVAL;
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
			    .gid_index = UINT_MAX,
			    .warmup = UINT_MAX,
			    .reply_timeout_ms = 100 };
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
		{ "queues", PL_OPT_U32, &c.v.queues, "N",
		  "send over N QPs, to the receiver's N (its --queues): flow "
		  "f on QP f % N, QP q connected on --port + q (1)",
		  1, PL_MAX_QUEUES },
		{ "flows", PL_OPT_U32, &c.flows, "N",
		  "flows, each with its own sequence and end marker "
		  "(--queues)",
		  1, TX_MAX_FLOWS },
		PL_RTT_OPTS(&c.pingpong, &c.warmup, &c.reply_timeout_ms, ""),
		{ "cpu", PL_OPT_U32, &c.cpu, "N", "pin to this CPU", 0, 4095 },
		{ "json", PL_OPT_OUT, &c.json, "FILE",
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
	free(tx.rtt);
	if (err)
		return PL_EXIT_FAIL;
	if (tx.rtt && tx.rtt->gave_up)
		return PL_EXIT_FAIL;
	return tx.wc_errors || tx.post_errors || tx.stalled ? PL_EXIT_FAIL
							    : PL_EXIT_OK;
}
