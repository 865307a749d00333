/* SPDX-License-Identifier: MIT */
/*
 * pathlab-rx-verbs: the RDMA receiver.
 *
 * We register a ring of buffers once and post receive work requests that
 * point into it. The NIC (here: rxe in the guest kernel) places each
 * message in a posted buffer and writes a completion; we find it by polling
 * the completion queue from user space, or, with --cq event, by sleeping on
 * the completion channel until the CQ has something. No system call on the
 * data path when polling; no copy by us ever.

 * --mode ud, rc or rc_write_imm: rx_verbs.h says what each one does.
 *
 * verbs_setup() -> verbs_rx_loop() -> verbs_teardown() -> main(), the
 * skeleton every path has: diff two rx_*.c files to see what differs
 * between the paths. The setup helpers live in verbs_setup.c, the features
 * in their own files (rx_verbs.h names them), the report in report_verbs.c
 * and the command line in opts_verbs.c.
 */
#include "rx_verbs.h"
#include "clock.h"
#include "opt.h"
#include "rx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * The handlers of each kind of run, chosen once at setup, so that no loop
 * tests an option per packet: plain, and the traced one that steps through
 * the first --trace N packets and then hands over to the plain one.
 * check_cfg() refuses the kinds that have no traced handler.
 * An empty CQ has a handler with --cq event (arm it, sleep), else none:
 * spin. --hw-stamps polls the extended CQ.
 */
static void choose_loop(const struct cfg *c, struct verbs_rx *rx)
{
	enum { POLL, EVENT, HWSTAMP, GPU };
	static const struct {
		burst_fn *plain, *traced;
		idle_fn *idle;
	} table[] = {
		[POLL] = { verbs_plain_burst, verbs_traced_burst, NULL },
		[EVENT] = { verbs_plain_burst, NULL, event_wait },
		[HWSTAMP] = { hwstamp_verbs_burst, NULL, NULL },
		[GPU] = { gpu_verbs_burst, gpu_verbs_traced_burst, NULL },
	};
	int kind = c->hw_stamps		  ? HWSTAMP
		   : c->gpu		  ? GPU
		   : c->cq == RX_CQ_EVENT ? EVENT
					  : POLL;

	rx->plain_burst = table[kind].plain;
	rx->on_burst = c->rx.trace ? table[kind].traced : table[kind].plain;
	rx->on_idle = table[kind].idle;
	rx->stamped_cq = kind == HWSTAMP;
}

/*
 * Set up: every queue's QP, CQ and ring, each with the handler its run
 * needs; the window the run is measured in, whose first step lets the
 * sender connect. 0 or -errno.
 */
static int verbs_setup(struct verbs_rx *rxq, struct pl_run *run,
		       const struct cfg *c, struct pl_rx_window *w)
{
	unsigned q, n = verbs_queues(&c->v);
	int err = 0;

	for (q = 0; q < n; q++) {
		err = verbs_queue_open(rxq, q, run, c);
		if (err)
			break;
		choose_loop(c, &rxq[q]);
	}
	if (err) {
		while (q-- > 0)
			verbs_queue_close(rxq, q);
		return err;
	}
	if (c->rx.trace) {
		verbs_trace_setup(rxq);
		if (rxq->gpu)
			gpu_verbs_trace_setup(rxq);
	}
	rxq->ifname = c->rx.iface ? c->rx.iface : rxq->ep.where.ifname;
	*w = (struct pl_rx_window){
		.rx_loop = verbs_rx_loop,
		.queues = rxq,
		.stride = sizeof(*rxq),
		.open = verbs_accept_sender,
		.after_loop = verbs_after_loop,
		.arg = rxq,
		.ifname = rxq->ifname,
		.before = &rxq->before,
		.after = &rxq->after,
	};
	for (q = 0; q < n; q++)
		w->queue_stats[q] = &rxq[q].stats;
	/* Time the turns of the loops that spin */
	run->polls = c->cq != RX_CQ_EVENT || rxq->gpu; /* on ibv_poll_cq() */
	return 0;
}

/* 8< verbs-rx-burst */
/* The plain handler: parse and account every message of the burst (and
 * reflect it), then give the buffers back. */
void verbs_plain_burst(struct verbs_rx *rx, int n, uint64_t now)
{
	const struct ibv_wc *wc = rx->wc;
	uint32_t slot[VERBS_MAX_BATCH];
	unsigned sends = 0;
	struct pl_pkt p;
	uint32_t len;
	size_t off;
	int i, k = 0;

	for (i = 0; i < n; i++) {
		if (wc[i].wr_id & VERBS_SEND_TAG) {
			/* --reflect: a send went, its buffer is free. */
			if (reflect_done(rx, &wc[i]))
				slot[k++] = (uint32_t)wc[i].wr_id;
			continue;
		}
		rx->completions++;
		if (wc[i].status != IBV_WC_SUCCESS) {
			rx->wc_errors++; /* the QP is broken: no repost */
			rx->last_wc_status = wc[i].status;
			continue;
		}
		slot[k] = (uint32_t)wc[i].wr_id;
		if (verbs_decode_wc(rx, &wc[i], &off, &len) &&
		    rx_one(rx, rx->ep.buf + off, len, now, &p) == PL_OK &&
		    verbs_is_ping(&p) && rx->reflect && !rx->write_imm &&
		    reflect_queue(rx, &wc[i], rx->ep.buf + off - rx->grh,
				  sends)) {
			sends++; /* its buffer comes back once sent */
			continue;
		}
		k++;
	}
	if (sends)
		reflect_post(rx, sends, slot, &k);
	if (verbs_post(rx, slot, k))
		rx->post_errors++;
}
/* >8 verbs-rx-burst */

/* 8< verbs-poll-loop */
/*
 * Poll the CQ from user space (no system call) and hand each burst to the
 * run's handler; when it is empty, spin, or the idle step (--cq event).
 * --hw-stamps reads the extended CQ instead, whose completions carry the
 * stamp that struct ibv_wc has no room for.
 */
void verbs_rx_loop(void *arg)
{
	struct verbs_rx *rx = arg;
	int n;

	while (!pl_run_done(rx->run, &rx->stats)) {
		n = rx->stamped_cq
			    ? hwstamp_verbs_poll(rx)
			    : ibv_poll_cq(rx->ep.cq, (int)rx->batch, rx->wc);
		rx->polls++;
		if (n > 0) {
			rx->on_burst(rx, n, pl_now_ns());
			continue;
		}
		rx->empty++;
		if (rx->on_idle)
			rx->on_idle(rx);
	}
}
/* >8 verbs-poll-loop */

/* Undo verbs_setup(), the last queue first. */
static void verbs_teardown(struct verbs_rx *rxq, const struct cfg *c)
{
	unsigned q;

	for (q = verbs_queues(&c->v); q-- > 0;)
		verbs_queue_close(rxq, q);
}

/* Say why setup failed, in one line; the exit code. */
static int setup_error(const struct cfg *c, const struct verbs_rx *rx, int err)
{
	(void)c;
	(void)rx;
	fprintf(stderr, "pathlab-rx-verbs: setup: %s\n", strerror(-err));
	return err == -ENODEV ? PL_EXIT_SKIP : PL_EXIT_FAIL;
}

int main(int argc, char **argv)
{
	static struct verbs_rx rxq[PL_MAX_QUEUES];
	static struct pl_rx_stats total;
	static struct pl_rx_window w;
	static struct pl_run run;
	struct verbs_rx *rx = &rxq[0];
	struct cfg c;
	int err;

	err = verbs_options(argc, argv, &c);
	if (err >= 0)
		return err;
	if (pl_rx_trace_open("pathlab-rx-verbs", &c.rx, &rx->trace, "msg"))
		return PL_EXIT_USAGE;
	if (pl_rx_begin("pathlab-rx-verbs", &c.rx, &run, &rx->stats))
		return PL_EXIT_USAGE;
	pl_stats_init(&total);
	err = verbs_setup(rxq, &run, &c, &w);
	if (err)
		return setup_error(&c, rx, err);
	err = pl_rx_measure(&c.rx, &run, &w);
	if (!err)
		err = verbs_report(rxq, &c, &w, &total);
	verbs_teardown(rxq, &c);
	pl_stats_free(&total);
	return pl_rx_end(&run, &rx->stats, err);
}
