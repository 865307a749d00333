/* SPDX-License-Identifier: MIT */
/*
 * pathlab-rx-dpdk: the DPDK receiver.
 *
 * The kernel is out of the data path: a poll-mode driver (PMD) in our
 * process fills mbufs from the NIC's RX ring, and one core asks it for a
 * burst again and again, whether or not anything arrived. In the lab the
 * "NIC" is a virtual device on the veth: net_af_packet (the kernel still
 * runs its stack on every frame) or net_af_xdp (an XDP program steers
 * every frame to us). We count empty polls and split the loop's TSC
 * cycles into busy (a poll that returned packets) and idle.
 *
 *   pathlab-rx-dpdk [EAL args --] [options]
 *
 * dpdk_setup() -> dpdk_rx_loop() -> dpdk_teardown() -> main(), the
 * skeleton every path has: diff two rx_*.c files to see what differs
 * between the paths. The setup helpers live in dpdk_setup.c, the features
 * in their own files (rx_dpdk.h names them), the report in report_dpdk.c
 * and the command line in opts_dpdk.c.
 */
#include "rx_dpdk.h"
#include "clock.h"
#include "opt.h"
#include "rx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

/*
 * The handlers of each kind of run, chosen once at setup, so that no loop
 * tests an option per packet: plain, and the traced one that steps through
 * the first --trace N packets and then hands over to the plain one.
 * check_cfg() refuses the kinds that have no traced handler.
 * The traced one is queue 0's.
 */
static void choose_loop(const struct cfg *c, struct dpdk_rx *rx)
{
	enum { PLAIN, HWTS, REFLECT, GPU };
	static const struct {
		burst_fn *plain, *traced;
	} table[] = {
		[PLAIN] = { dpdk_plain_burst, dpdk_traced_burst },
		[HWTS] = { hwts_burst, NULL },
		[REFLECT] = { reflect_dpdk_burst, NULL },
		[GPU] = { gpu_dpdk_burst, gpu_dpdk_traced_burst },
	};
	int kind = c->gpu	   ? GPU
		   : c->rx.reflect ? REFLECT
		   : c->hw_stamps  ? HWTS
				   : PLAIN;

	rx->plain_burst = table[kind].plain;
	rx->on_burst = c->rx.trace ? table[kind].traced : table[kind].plain;
}

/*
 * Set up: EAL and the ports, then every queue, each with the handler its run
 * needs; the window the run is measured in. 0 or -errno.
 */
static int dpdk_setup(struct dpdk_rx *rxq, struct pl_run *run,
		      const struct cfg *c, struct pl_rx_window *w)
{
	unsigned q, n = pl_rx_queues(&c->rx);
	int err = 0;

	err = dpdk_open(rxq, run, c);
	if (err)
		return err;
	choose_loop(c, rxq);
	queues_setup(rxq, c);
	if (c->rx.trace) {
		dpdk_trace_setup(rxq, c);
		if (rxq->gpu)
			gpu_dpdk_trace_setup(rxq);
	}
	*w = (struct pl_rx_window){
		.rx_loop = dpdk_rx_loop,
		.queues = rxq->queues,
		.stride = sizeof(rxq->queues[0]),
		.queue_launch = dpdk_queue_launch,
		.queue_wait = dpdk_queue_wait,
		.arg = rxq,
		.ifname = c->rx.iface,
	};
	for (q = 0; q < n; q++)
		w->queue_stats[q] = rxq->queues[q].stats;
	/* Time the turns of the loops that spin */
	run->polls = true; /* a poll-mode driver: all of them */
	ports_stats_reset(rxq);
	return 0;
}

/* The plain handler: parse and account every packet of the burst, then
 * free it. */
void dpdk_plain_burst(struct dpdk_queue *q, uint16_t n, uint64_t now)
{
	struct pl_pkt p;
	uint16_t i;

	for (i = 0; i < n; i++)
		rx_one(q, rte_pktmbuf_mtod(q->bufs[i], const void *),
		       q->bufs[i]->data_len, now, &p);
	rte_pktmbuf_free_bulk(q->bufs, n);
}

/* 8< dpdk-rx-loop */
/*
 * Poll for a burst and hand it to the run's handler; forever, whether or
 * not anything came.
 */
void dpdk_rx_loop(void *arg)
{
	struct dpdk_queue *q = arg;
	const uint16_t port = q->port, queue = q->queue, burst = q->burst;
	uint64_t t, prev = rte_rdtsc();
	uint16_t n;

	while (!pl_run_done(q->rx->run, q->stats)) {
		n = rte_eth_rx_burst(port, queue, q->bufs, burst);
		if (n)
			q->on_burst(q, n, pl_now_ns());
		/* One TSC read per poll: busy if it returned packets. */
		t = rte_rdtsc();
		q->cycles[n != 0] += t - prev;
		q->polls[n != 0]++;
		prev = t;
	}
}
/* >8 dpdk-rx-loop */

/* Undo dpdk_setup(), the last queue first. */
static void dpdk_teardown(struct dpdk_rx *rxq, const struct cfg *c)
{
	unsigned q;

	for (q = pl_rx_queues(&c->rx); q-- > 0;)
		dpdk_queue_close(rxq, q);
	dpdk_close(rxq);
}

/* Say why setup failed, in one line (if it has not); the exit code. */
static int setup_error(const struct cfg *c, const struct dpdk_rx *rx, int err)
{
	(void)c;
	if (rx->hwts.refused) /* the port cannot: said so */
		return PL_EXIT_SKIP;
	/* bad arguments, or more queues than lcores or ports */
	return err == -EINVAL || err == -ERANGE || err == -EXDEV ? PL_EXIT_USAGE
								 : PL_EXIT_FAIL;
}

int main(int argc, char **argv)
{
	static struct dpdk_rx rxq[1]; /* one receiver, its queues inside */
	static struct pl_rx_stats total;
	static struct pl_rx_window w;
	static struct pl_run run;
	struct dpdk_rx *rx = &rxq[0];
	struct cfg c;
	int err;

	err = dpdk_options(argc, argv, &c, &rx->eal);
	if (err >= 0)
		return err;
	if (pl_rx_trace_open("pathlab-rx-dpdk", &c.rx, &rx->trace, "pkt"))
		return PL_EXIT_USAGE;
	if (pl_rx_begin("pathlab-rx-dpdk", &c.rx, &run, &rx->stats))
		return PL_EXIT_USAGE;
	pl_stats_init(&total);
	err = dpdk_setup(rxq, &run, &c, &w);
	if (err)
		return setup_error(&c, rx, err);
	err = pl_rx_measure(&c.rx, &run, &w);
	if (!err)
		err = dpdk_report(rxq, &c, &w, &total);
	dpdk_teardown(rxq, &c);
	pl_stats_free(&total);
	return pl_rx_end(&run, &rx->stats, err);
}
