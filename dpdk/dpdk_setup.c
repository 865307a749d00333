/* SPDX-License-Identifier: MIT */
/*
 * The DPDK receiver's setup helpers: EAL and the ports, the queues and the
 * lcores that poll them, the ports of a run and what is said when they do not
 * come up, and the EAL worker lcores the run's other queues are launched on.
 */
#include "rx_dpdk.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>

/* The run's mode: the vdev kind, or the PMD's name on a real NIC. */
const char *port_mode(const char *driver)
{
	if (!strcmp(driver, "net_af_packet"))
		return "af_packet";
	if (!strcmp(driver, "net_af_xdp"))
		return "af_xdp";
	return driver;
}

/*
 * What each queue polls and where: queue q on lcore q of the EAL's list
 * (queue 0 on the main lcore, this thread; the others on the workers, in
 * order), polling RX queue q of the one port, or queue 0 of port q when
 * every queue is a port of its own. check_lcores() said there are enough.
 */
void queues_setup(struct dpdk_rx *rx, const struct cfg *c)
{
	unsigned n = pl_rx_queues(&c->rx), q = 1, lcore;
	struct dpdk_queue *dq;

	rx->queues[0].lcore = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		if (q < n)
			rx->queues[q++].lcore = lcore;
	}
	for (q = 0; q < n; q++) {
		dq = &rx->queues[q];
		dq->rx = rx;
		dq->port = run_port(rx, rx->nports > 1 ? q : 0)->id;
		dq->queue = (uint16_t)(rx->nports > 1 ? 0 : q);
		dq->burst = (uint16_t)rx->burst;
		dq->stats = q ? &dq->own : &rx->stats;
		dq->on_burst = q ? rx->plain_burst : rx->on_burst;
		if (q)
			pl_stats_init(&dq->own);
	}
	rx->nqueues = n;
}

/*
 * Undo queues_setup() for queue q, the last one left: its own stats (queue
 * 0's are the run's).
 */
void dpdk_queue_close(struct dpdk_rx *rx, unsigned q)
{
	if (q)
		pl_stats_free(&rx->queues[q].own);
	rx->nqueues = q;
}

/* One lcore per queue, or a one-line error and -EINVAL. */
int check_lcores(const struct cfg *c)
{
	unsigned n = pl_rx_queues(&c->rx);

	if (rte_lcore_count() >= n)
		return 0;
	fprintf(stderr,
		"pathlab-rx-dpdk: --queues %u needs %u lcores, one per "
		"queue (EAL -l or --lcores); the EAL has %u\n",
		n, n, rte_lcore_count());
	return -EINVAL;
}

/* Say why the ports did not come up, in one line. */
void ports_error(const struct dpdk_rx *rx, const struct cfg *c, int err)
{
	if (err == -ENODEV)
		fprintf(stderr,
			"pathlab-rx-dpdk: no port: the device did not probe "
			"(is %s%s in this network namespace?)\n",
			c->rx.iface ? "interface " : "PCI device ",
			c->rx.iface ? c->rx.iface
			: c->pci    ? c->pci
				    : "?");
	else if (err == -EXDEV)
		fprintf(stderr,
			"pathlab-rx-dpdk: --queues %u: the EAL has %u ports; "
			"give one (with %u queues) or %u (one queue each)\n",
			pl_rx_queues(&c->rx), rte_eth_dev_count_avail(),
			pl_rx_queues(&c->rx), pl_rx_queues(&c->rx));
	else if (err == -ERANGE)
		fprintf(stderr,
			"pathlab-rx-dpdk: --queues %u: port %u (%s) takes %u "
			"queues at most (af_packet: its qpairs)\n",
			pl_rx_queues(&c->rx), rx->port.id, rx->port.driver,
			rx->port.max_queues);
	else
		fprintf(stderr,
			"pathlab-rx-dpdk: port: %s (see the PMD's message "
			"above; af_xdp wants --mbufs 8191 or more)\n",
			strerror(-err));
}

/* Stop and close every port of the run, port 0 (the pool's owner) last. */
void ports_teardown(struct dpdk_rx *rx)
{
	unsigned i;

	for (i = rx->nports; i-- > 0;)
		port_teardown(run_port(rx, i));
	rx->nports = 0;
}

/* An EAL worker's entry: what pl_rx_measure() gave queue_launch. */
static int lcore_main(void *arg)
{
	struct dpdk_queue *q = arg;

	q->launch_fn(q->launch_arg);
	return 0;
}

/* Start queue q's loop on its EAL worker lcore; 0 or -errno. */
int dpdk_queue_launch(void *arg, unsigned q, void *(*fn)(void *), void *targ)
{
	struct dpdk_rx *rx = arg;
	struct dpdk_queue *dq = &rx->queues[q];

	dq->launch_fn = fn;
	dq->launch_arg = targ;
	return rte_eal_remote_launch(lcore_main, dq, dq->lcore);
}

/* Wait for queue q's lcore to finish its loop. */
void dpdk_queue_wait(void *arg, unsigned q)
{
	struct dpdk_rx *rx = arg;

	rte_eal_wait_lcore(rx->queues[q].lcore);
}

/* Reset every port's counters before the run. */
void ports_stats_reset(struct dpdk_rx *rx)
{
	unsigned i;

	for (i = 0; i < rx->nports; i++)
		port_stats_reset(run_port(rx, i));
}

/* EAL, then the ports, for the run; undone on failure. 0 or -errno. */
int dpdk_open(struct dpdk_rx *rx, struct pl_run *run, const struct cfg *c)
{
	int err;

	rx->run = run;
	rx->burst = c->burst;
	rx->reflect = c->rx.reflect;
	eal_sweep_stale();
	eal_remove_runtime_at_exit(&rx->eal);
	memcpy(rx->eal.shown, rx->eal.argv, sizeof(rx->eal.shown));
	if (rte_eal_init(rx->eal.argc, rx->eal.argv) < 0) {
		err = -rte_errno;
		fprintf(stderr, "pathlab-rx-dpdk: EAL: %s\n",
			rte_strerror(rte_errno));
		return err;
	}
	err = check_lcores(c);
	if (!err && c->hw_stamps)
		err = hwts_check(rx); /* before the port is configured */
	if (!err && c->gpu)
		err = gpu_dpdk_setup(rx, c);
	if (!err) {
		err = ports_setup(&rx->port, rx->more_ports,
				  pl_rx_queues(&c->rx), &rx->nports, c);
		if (err)
			ports_error(rx, c, err);
	}
	if (!err && c->hw_stamps) {
		rx->hwts.on = true;
		err = hwts_begin(rx);
		if (err)
			ports_teardown(rx);
	}
	if (!err) {
		rx->mode = port_mode(rx->port.driver);
		return 0;
	}
	if (rx->gpu)
		gpu_dpdk_teardown(rx);
	rte_eal_cleanup();
	return err;
}

/* Undo dpdk_open(); the runtime directory goes at exit (eal.c). */
void dpdk_close(struct dpdk_rx *rx)
{
	pl_trace_close(&rx->trace); /* a run that ended while tracing */
	ports_teardown(rx);
	if (rx->gpu)
		gpu_dpdk_teardown(rx);
	rte_eal_cleanup();
}
