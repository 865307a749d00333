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
 * setup() -> rx_loop() -> teardown(), the shape every path copies.
 */
#include "clock.h"
#include "dpdk.h"
#include "gpu.h"
#include "opt.h"
#include "report.h"
#include "run.h"
#include "rx.h"
#include "stats.h"
#include "sysctr.h"
#include "wire.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

static const char *const vdevs[] = { "af_packet", "af_xdp", NULL };

/* Parse and account one frame that queue q was handed at now. */
static inline enum pl_reason rx_parse(struct dpdk_queue *q,
				      const struct rte_mbuf *m, uint64_t now,
				      struct pl_pkt *p)
{
	return pl_rx_frame(q->stats, rte_pktmbuf_mtod(m, const void *),
			   m->data_len, PL_UDP_PORT, now, p);
}

/* The same, when only the stats need what the parser found. */
static inline void rx_one(struct dpdk_queue *q, const struct rte_mbuf *m,
			  uint64_t now)
{
	struct pl_pkt p;

	rx_parse(q, m, now, &p);
}

/* 8< dpdk-rx-loop */
/* Poll for a burst, parse, free; forever, whether or not anything came. */
static void dpdk_rx_loop(struct dpdk_queue *q)
{
	const uint16_t port = q->port, queue = q->queue, burst = q->burst;
	uint64_t t, prev = rte_rdtsc(), now;
	uint16_t i, n;

	for (;;) {
		if (pl_run_done(&q->rx->run, q->stats))
			break;
		n = rte_eth_rx_burst(port, queue, q->bufs, burst);
		if (n) {
			now = pl_now_ns();
			for (i = 0; i < n; i++)
				rx_one(q, q->bufs[i], now);
			rte_pktmbuf_free_bulk(q->bufs, n);
		}
		/* One TSC read per poll: busy if it returned packets. */
		t = rte_rdtsc();
		q->cycles[n != 0] += t - prev;
		q->polls[n != 0]++;
		prev = t;
	}
}
/* >8 dpdk-rx-loop */

/* The NIC's stamp of one good frame (hwts_frame()): what the PMD wrote. */
static inline uint64_t hwts_stamp(struct dpdk_hwts *h, const struct rte_mbuf *m,
				  uint64_t now)
{
	bool stamped = (m->ol_flags & h->flag) != 0;
	uint64_t raw = 0;

	if (stamped)
		raw = *RTE_MBUF_DYNFIELD(m, h->field,
					 const rte_mbuf_timestamp_t *);
	return hwts_frame(h, stamped, raw, now);
}

/* 8< dpdk-hwts-loop */
/*
 * --hw-stamps: as dpdk_rx_loop(), and each good frame's latency split at
 * the NIC's stamp: sender to NIC (latency_to_stack_ns) and NIC to this
 * loop (latency_stack_to_user_ns: the RX ring and the wait for a poll). A
 * loop of its own, chosen once at setup: the plain one carries none of it.
 */
static void hwts_rx_loop(struct dpdk_queue *q)
{
	const uint16_t port = q->port, queue = q->queue, burst = q->burst;
	struct dpdk_hwts *h = &q->rx->hwts;
	uint64_t t, prev = rte_rdtsc(), now;
	struct pl_pkt p;
	uint16_t i, n;

	while (!pl_run_done(&q->rx->run, q->stats)) {
		n = rte_eth_rx_burst(port, queue, q->bufs, burst);
		if (n) {
			now = pl_now_ns();
			hwts_due(h, now); /* the clock's offset, every 10 ms */
			for (i = 0; i < n; i++)
				if (rx_parse(q, q->bufs[i], now, &p) == PL_OK)
					pl_stats_split(
						q->stats, p.tx_ns,
						hwts_stamp(h, q->bufs[i], now),
						now);
			rte_pktmbuf_free_bulk(q->bufs, n);
		}
		t = rte_rdtsc();
		q->cycles[n != 0] += t - prev;
		q->polls[n != 0]++;
		prev = t;
	}
}
/* >8 dpdk-hwts-loop */

/*
 * Send the n frames of q->back on the TX queue of q's number; what
 * tx_burst did not take goes back to the pool, counted as failed (the
 * pinging side sees a timeout).
 */
static void reflect_send(struct dpdk_queue *q, uint16_t n)
{
	uint16_t sent = n ? rte_eth_tx_burst(q->port, q->queue, q->back, n) : 0;

	q->reflected += sent;
	if (sent < n) {
		q->reflect_errors += n - sent;
		rte_pktmbuf_free_bulk(q->back + sent, n - sent);
	}
}

/* 8< dpdk-reflect */
/*
 * --reflect, the far end of the rtt workload: as dpdk_rx_loop(), but every
 * good frame is turned around in its own mbuf (MACs, IPv4 addresses and
 * UDP ports swapped, the UDP checksum computed afresh: wire.h says why)
 * and goes back out; the rest is freed. No copy: the mbuf the PMD filled
 * is the one it sends.
 */
static void reflect_loop(struct dpdk_queue *q)
{
	const uint16_t port = q->port, queue = q->queue, burst = q->burst;
	uint64_t t, prev = rte_rdtsc(), now;
	uint16_t i, n, nback, nfree;
	struct rte_mbuf *m;
	struct pl_pkt p;
	void *data;

	while (!pl_run_done(&q->rx->run, q->stats)) {
		n = rte_eth_rx_burst(port, queue, q->bufs, burst);
		if (n) {
			now = pl_now_ns();
			for (i = nback = nfree = 0; i < n; i++) {
				m = q->bufs[i];
				if (rx_parse(q, m, now, &p) != PL_OK) {
					q->bufs[nfree++] = m; /* nfree <= i */
					continue;
				}
				data = rte_pktmbuf_mtod(m, void *);
				pl_frame_reflect(data, &p);
				pl_frame_udp_csum(data, &p);
				q->back[nback++] = m;
			}
			reflect_send(q, nback);
			if (nfree)
				rte_pktmbuf_free_bulk(q->bufs, nfree);
		}
		t = rte_rdtsc();
		q->cycles[n != 0] += t - prev;
		q->polls[n != 0]++;
		prev = t;
	}
}
/* >8 dpdk-reflect */

/* One queue's loop on this thread: queue 0's (the traced loop's rx_plain). */
static void queue0_loop(struct dpdk_rx *rx)
{
	rx->poll(&rx->queues[0]);
}

/* The run's mode: the vdev kind, or the PMD's name on a real NIC. */
static const char *port_mode(const char *driver)
{
	if (!strcmp(driver, "net_af_packet"))
		return "af_packet";
	if (!strcmp(driver, "net_af_xdp"))
		return "af_xdp";
	return driver;
}

/* Port i of the run: port 0, or one of the af_xdp vdev's others. */
static struct dpdk_port *run_port(struct dpdk_rx *rx, unsigned i)
{
	return i ? &rx->more_ports[i - 1] : &rx->port;
}

/*
 * What each queue polls and where: queue q on lcore q of the EAL's list
 * (queue 0 on the main lcore, this thread; the others on the workers, in
 * order), polling RX queue q of the one port, or queue 0 of port q when
 * every queue is a port of its own. check_lcores() said there are enough.
 */
static void queues_setup(struct dpdk_rx *rx, const struct cfg *c)
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
		if (q)
			pl_stats_init(&dq->own);
	}
	rx->nqueues = n;
	rx->poll = rx->reflect	 ? reflect_loop
		   : rx->hwts.on ? hwts_rx_loop
				 : dpdk_rx_loop;
}

/* Undo queues_setup(): the queues' own stats. */
static void queues_teardown(struct dpdk_rx *rx)
{
	unsigned q;

	for (q = 1; q < rx->nqueues; q++)
		pl_stats_free(&rx->queues[q].own);
	rx->nqueues = 0;
}

/* One lcore per queue, or a one-line error and -EINVAL. */
static int check_lcores(const struct cfg *c)
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
static void ports_error(const struct dpdk_rx *rx, const struct cfg *c, int err)
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
static void ports_teardown(struct dpdk_rx *rx)
{
	unsigned i;

	for (i = rx->nports; i-- > 0;)
		port_teardown(run_port(rx, i));
	rx->nports = 0;
}

/* EAL, then the ports and the queues; undone in reverse by the label. */
static int dpdk_setup(struct dpdk_rx *rx, const struct cfg *c)
{
	int err;

	eal_sweep_stale();
	eal_remove_runtime_at_exit(&rx->eal);
	memcpy(rx->eal.shown, rx->eal.argv, sizeof(rx->eal.shown));
	if (rte_eal_init(rx->eal.argc, rx->eal.argv) < 0) {
		err = -rte_errno;
		fprintf(stderr, "pathlab-rx-dpdk: EAL: %s\n",
			rte_strerror(rte_errno));
		return err;
	}
	rx->rx_loop = queue0_loop;
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
	if (err)
		goto out_cleanup_eal;
	queues_setup(rx, c);
	if (c->rx.trace) {
		/* Chosen once, here: the plain loop carries no trace code. */
		rx->rx_plain = rx->rx_loop;
		rx->rx_loop = dpdk_traced_loop;
		dpdk_trace_setup(rx, c);
		if (rx->gpu)
			gpu_dpdk_trace_setup(rx);
	}
	return 0;

out_cleanup_eal:
	if (rx->gpu)
		gpu_dpdk_teardown(rx);
	rte_eal_cleanup();
	return err;
}

/* Undo dpdk_setup(); the runtime directory goes at exit (eal.c). */
static void dpdk_teardown(struct dpdk_rx *rx)
{
	pl_trace_close(&rx->trace); /* a run that ended while tracing */
	queues_teardown(rx);
	ports_teardown(rx);
	if (rx->gpu)
		gpu_dpdk_teardown(rx);
	rte_eal_cleanup();
}

/*
 * Who spread the frames over the queues: the NIC's RSS, the kernel's
 * PACKET_FANOUT hash (af_packet's sockets), or the kernel's RX queue
 * itself (af_xdp: one vdev, one XSK, per queue).
 */
static const char *steering(const struct dpdk_rx *rx)
{
	if (rx->nqueues < 2)
		return "none";
	if (rx->port.rss)
		return "rss";
	if (!strcmp(rx->port.driver, "net_af_packet"))
		return "kernel_fanout_hash";
	if (!strcmp(rx->port.driver, "net_af_xdp"))
		return "kernel_rx_queue";
	return "pmd";
}

/*
 * The CPU an lcore is pinned to, or -1 when it may run on several. Its
 * cpuset, not rte_lcore_to_cpu_id(): with --lcores 0@1 that gives the
 * topology of CPU 0, the lcore's number, not of the CPU it runs on.
 */
static int lcore_cpu(unsigned lcore)
{
	rte_cpuset_t set = rte_lcore_cpuset(lcore);
	int cpu;

	if (CPU_COUNT(&set) != 1)
		return -1;
	for (cpu = 0; !CPU_ISSET(cpu, &set); cpu++)
		;
	return cpu;
}

/* The queues: how they were laid out and what each lcore did. */
static void queues_json(struct pl_json *j, const struct dpdk_rx *rx)
{
	const struct dpdk_queue *q;
	unsigned i;
	int cpu;

	pl_json_u64(j, "ports", rx->nports);
	pl_json_str(j, "steering", steering(rx));
	pl_json_u64(j, "rss_hf", rx->port.rss_hf);
	if (rx->nqueues < 2)
		return;
	pl_json_arr(j, "queues");
	for (i = 0; i < rx->nqueues; i++) {
		q = &rx->queues[i];
		cpu = lcore_cpu(q->lcore);
		pl_json_obj(j, NULL);
		pl_json_u64(j, "queue", i);
		pl_json_u64(j, "port", q->port);
		pl_json_u64(j, "port_queue", q->queue);
		pl_json_u64(j, "lcore", q->lcore);
		pl_json_i64(j, "cpu", cpu);
		pl_json_u64(j, "polls", q->polls[0] + q->polls[1]);
		pl_json_u64(j, "empty_polls", q->polls[0]);
		pl_json_u64(j, "busy_cycles", q->cycles[1]);
		pl_json_u64(j, "idle_cycles", q->cycles[0]);
		pl_json_u64(j, "pmd_ipackets", q->pmd_ipackets);
		if (rx->reflect) {
			pl_json_u64(j, "reflected", q->reflected);
			pl_json_u64(j, "reflect_errors", q->reflect_errors);
		}
		pl_json_end(j);
	}
	pl_json_endarr(j);
}

/* The DPDK path's own figures, nested under "dpdk" in the JSON. */
static void dpdk_json(struct pl_json *j, void *arg)
{
	const struct dpdk_rx *rx = arg;
	const struct eal_args *e = &rx->eal;
	uint64_t polls = rx->polls[0] + rx->polls[1];
	uint64_t pkts = rx->port.ipackets;
	int i;

	pl_json_obj(j, "dpdk");
	pl_json_str(j, "vdev", rx->mode);
	pl_json_str(j, "driver", rx->port.driver);
	pl_json_u64(j, "burst", rx->burst);
	pl_json_u64(j, "mbufs",
		    rte_mempool_avail_count(rx->port.pool) +
			    rte_mempool_in_use_count(rx->port.pool));
	pl_json_u64(j, "polls", polls);
	pl_json_u64(j, "empty_polls", rx->polls[0]);
	pl_json_dbl(j, "empty_poll_share",
		    polls ? (double)rx->polls[0] / (double)polls : 0);
	pl_json_u64(j, "busy_cycles", rx->cycles[1]);
	pl_json_u64(j, "idle_cycles", rx->cycles[0]);
	pl_json_dbl(j, "busy_cycles_per_packet",
		    pkts ? (double)rx->cycles[1] / (double)pkts : 0);
	pl_json_dbl(j, "loop_cycles_per_packet",
		    pkts ? (double)(rx->cycles[0] + rx->cycles[1]) /
				    (double)pkts
			 : 0);
	pl_json_str(j, "cycles_source", "rdtsc around each poll");
	pl_json_obj(j, "hugepages");
	pl_json_bool(j, "used", e->huge);
	pl_json_u64(j, "page_kb", e->huge_kb);
	pl_json_u64(j, "free_pages_at_start", e->huge_free);
	pl_json_u64(j, "eal_mem_mb", e->mem_mb);
	pl_json_str(j, "note", e->note ? e->note : "");
	pl_json_end(j);
	pl_json_arr(j, "eal_args");
	for (i = 1; i < e->argc; i++)
		pl_json_str(j, NULL, e->shown[i]);
	pl_json_endarr(j);
	pl_json_bool(j, "eal_args_built", e->built);
	port_stats_json(j, &rx->port);
	queues_json(j, rx);
	if (rx->hwts.on)
		hwts_json(j, &rx->hwts);
	pl_json_end(j);
}

/*
 * The loss counters that matter for this PMD, and the copies it makes.
 * link_dropped is the receiving link's rx_dropped over the run: on veth it
 * counts every frame the XDP program could not redirect, the XSK drops that
 * af_xdp reports as imissed included, so only the rest is added for it.
 */
static void dpdk_report_path(struct pl_report *r, const struct dpdk_rx *rx,
			     uint64_t link_dropped)
{
	const struct dpdk_port *p = &rx->port;

	pl_report_drop(r, "dpdk_imissed", p->imissed);
	pl_report_drop(r, "dpdk_ierrors", p->ierrors);
	pl_report_drop(r, "dpdk_rx_nombuf", p->rx_nombuf);
	if (!strcmp(p->driver, "net_af_packet")) {
		pl_report_drop(r, "dpdk_af_packet_ring_drops", p->ring_drops);
		/* tpacket_rcv() copies skb -> ring, the PMD ring -> mbuf. */
		r->copies_per_packet = 2;
		r->copies_note = "kernel skb to the packet ring, then the PMD "
				 "ring to the mbuf; the stack also gets the "
				 "skb (NoPorts grows)";
		r->loss_points = PL_LOSS_LINK | PL_LOSS_BACKLOG;
	} else if (!strcmp(p->driver, "net_af_xdp")) {
		pl_report_drop(r, "rx_link_dropped_not_imissed",
			       link_dropped > p->imissed
				       ? link_dropped - p->imissed
				       : 0);
		r->copies_per_packet = 1;
		r->copies_note = "AF_XDP copy mode: kernel to the UMEM, "
				 "which is the mbuf pool (veth may copy the "
				 "skb for XDP first)";
	} else {
		r->copies_per_packet = 0;
		r->copies_note = "the NIC writes into the mbuf by DMA";
		r->loss_points = PL_LOSS_LINK;
	}
}

/* The poll loop chosen at setup, as pl_rx_measure() runs it. */
static void dpdk_loop(void *arg)
{
	struct dpdk_rx *rx = arg;

	rx->rx_loop(rx);
}

/* Queue q's loop, as pl_rx_measure() runs it on queue q's lcore. */
static void dpdk_queue_loop(void *arg, unsigned q)
{
	struct dpdk_rx *rx = arg;

	rx->poll(&rx->queues[q]);
}

/* An EAL worker's entry: what pl_rx_measure() gave queue_launch. */
static int lcore_main(void *arg)
{
	struct dpdk_queue *q = arg;

	q->launch_fn(q->launch_arg);
	return 0;
}

/* Start queue q's loop on its EAL worker lcore; 0 or -errno. */
static int dpdk_queue_launch(void *arg, unsigned q, void *(*fn)(void *),
			     void *targ)
{
	struct dpdk_rx *rx = arg;
	struct dpdk_queue *dq = &rx->queues[q];

	dq->launch_fn = fn;
	dq->launch_arg = targ;
	return rte_eal_remote_launch(lcore_main, dq, dq->lcore);
}

/* Wait for queue q's lcore to finish its loop. */
static void dpdk_queue_wait(void *arg, unsigned q)
{
	struct dpdk_rx *rx = arg;

	rte_eal_wait_lcore(rx->queues[q].lcore);
}

/* Reset every port's counters before the run. */
static void ports_stats_reset(struct dpdk_rx *rx)
{
	unsigned i;

	for (i = 0; i < rx->nports; i++)
		port_stats_reset(run_port(rx, i));
}

/*
 * Read every port's counters after the run: each queue's own count, then
 * the other ports' (one af_xdp vdev per queue) added into port 0's, so
 * eth_stats are the run's. xstats are port 0's. 0 or -errno.
 */
static int ports_stats_read(struct dpdk_rx *rx, bool xstats)
{
	struct dpdk_port *p = &rx->port, *o;
	struct dpdk_queue *q;
	unsigned i;
	int err = 0;

	for (i = 0; i < rx->nports && !err; i++)
		err = port_stats_read(run_port(rx, i), xstats && !i);
	for (i = 0; i < rx->nqueues; i++) {
		q = &rx->queues[i];
		q->pmd_ipackets = rx->nports > 1 ? run_port(rx, i)->ipackets
						 : p->q_ipackets[q->queue];
	}
	for (i = 1; i < rx->nports; i++) {
		o = run_port(rx, i);
		p->ipackets += o->ipackets;
		p->ibytes += o->ibytes;
		p->imissed += o->imissed;
		p->ierrors += o->ierrors;
		p->rx_nombuf += o->rx_nombuf;
	}
	return err;
}

/*
 * The queues' loop counters summed into the run's, their reflections into
 * the report; with many queues, one report entry per queue.
 */
static void queues_report(struct dpdk_rx *rx, const struct cfg *c,
			  const struct pl_rx_window *w,
			  struct pl_report_queue *rq, struct pl_report *r)
{
	struct dpdk_queue *q;
	unsigned i;
	int cpu;

	for (i = 0; i < rx->nqueues; i++) {
		q = &rx->queues[i];
		rx->polls[0] += q->polls[0];
		rx->polls[1] += q->polls[1];
		rx->cycles[0] += q->cycles[0];
		rx->cycles[1] += q->cycles[1];
		r->reflected += q->reflected;
		r->reflect_errors += q->reflect_errors;
	}
	r->reflect = rx->reflect;
	if (rx->nqueues < 2)
		return;
	pl_rx_merge_queues(&c->rx, w, &rx->total);
	r->stats = &rx->total;
	r->queues = rq;
	r->nqueues = rx->nqueues;
	r->wakeups = 0;
	for (i = 0; i < rx->nqueues; i++) {
		cpu = lcore_cpu(rx->queues[i].lcore);
		rq[i] = (struct pl_report_queue){
			.id = i,
			.cpu = cpu < 0 ? ~0u : (unsigned)cpu,
			.stats = rx->queues[i].stats,
			.wakeups = w->queue_sleeps[i],
		};
		r->wakeups += w->queue_sleeps[i];
	}
}

/* Run the loop (or the queues' loops) between two snapshots and report. */
static int receive_and_report(struct dpdk_rx *rx, const struct cfg *c)
{
	struct pl_report_queue rq[PL_MAX_QUEUES];
	struct pl_sysctr before, after;
	struct pl_rx_window w = { .loop = dpdk_loop,
				  .queue_loop = dpdk_queue_loop,
				  .queue_launch = dpdk_queue_launch,
				  .queue_wait = dpdk_queue_wait,
				  .arg = rx,
				  .ifname = c->rx.iface,
				  .before = &before,
				  .after = &after };
	char envbuf[32];
	struct pl_report r = {
		.tool = "pathlab-rx-dpdk",
		.path = "dpdk",
		.mode = rx->mode,
		.gpu = "none",
		.workload = pl_workloads[c->rx.workload],
		.env = pl_rx_env(&c->rx, "nic", envbuf, sizeof(envbuf)),
		.ifname = c->rx.iface,
		.latency_kind = "one-way",
		.copies_source = "by_design",
		.rx_stamp_source = rx->hwts.on ? "hardware" : "none",
		.stats = &rx->stats,
		.before = &before,
		.after = &after,
		.extra_json = dpdk_json,
		.extra_arg = rx,
	};
	unsigned q;
	int err;

	for (q = 0; q < rx->nqueues; q++)
		w.queue_stats[q] = rx->queues[q].stats;
	ports_stats_reset(rx);
	rx->run.polls = true; /* a poll-mode driver: time busy and idle turns */
	err = pl_rx_measure(&c->rx, &rx->run, &w);
	if (err)
		return err;
	rx->wakeups = w.sleeps;
	err = ports_stats_read(rx, c->xstats);
	if (err)
		fprintf(stderr, "pathlab-rx-dpdk: port stats: %s\n",
			strerror(-err));
	dpdk_report_path(&r, rx,
			 after.link_rx_dropped - before.link_rx_dropped);
	r.syscalls = 0; /* ours; the PMD's own wake-up calls are not seen */
	r.wakeups = rx->wakeups;
	queues_report(rx, c, &w, rq, &r);
	if (rx->gpu)
		gpu_dpdk_report(rx, &r);
	return pl_report_emit(&r, c->rx.json, c->rx.quiet);
}

/* Split argv at "--": EAL arguments before it, ours after (DPDK's way). */
static int split_args(int argc, char **argv, struct eal_args *e)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			break;
	if (i == argc)
		return 0; /* no "--": everything is ours */
	for (e->argc = 0; e->argc < i && e->argc < EAL_MAX_ARGS - 1; e->argc++)
		e->argv[e->argc] = argv[e->argc];
	e->argv[e->argc] = NULL;
	return i;
}

/* Options that the plain loop on one queue only can do; error, false. */
static bool check_cfg(const struct cfg *c)
{
	if (pl_rx_queues(&c->rx) > 1 && (c->rx.trace || c->gpu)) {
		fprintf(stderr, "pathlab-rx-dpdk: --queues runs the plain "
				"loop: no --trace or --gpu with it\n");
		return false;
	}
	if (c->rx.reflect && (c->rx.trace || c->gpu)) {
		fprintf(stderr, "pathlab-rx-dpdk: --reflect runs its own "
				"loop: no --trace or --gpu with it\n");
		return false;
	}
	if (c->hw_stamps && (pl_rx_queues(&c->rx) > 1 || c->rx.trace ||
			     c->gpu || c->rx.reflect)) {
		fprintf(stderr, "pathlab-rx-dpdk: --hw-stamps runs its own "
				"loop on one queue: no --queues, --trace, "
				"--gpu or --reflect with it\n");
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	struct cfg c = { .rx = PL_RX_DEFAULTS,
			 .burst = 32,
			 .rx_desc = 4096,
			 .mbufs = 8191,
			 .cpu = UINT_MAX };
	static struct dpdk_rx rx;
	int err, split;
	const struct pl_opt opts[] = {
		{ "iface", PL_OPT_STR, &c.rx.iface, "IF",
		  "lab: build the EAL arguments for a vdev on IF" },
		{ "vdev-kind", PL_OPT_CHOICE, &c.vdev, "KIND",
		  "virtual device on IF", 0, 0, vdevs },
		{ "pci", PL_OPT_STR, &c.pci, "ADDR",
		  "real NIC: EAL -a ADDR (refused for the default route's)" },
		{ "burst", PL_OPT_U32, &c.burst, "N",
		  "mbufs per rte_eth_rx_burst (32)", 1, MAX_BURST },
		{ "rx-desc", PL_OPT_U32, &c.rx_desc, "N",
		  "RX ring descriptors (4096)", 64, 16384 },
		{ "mbufs", PL_OPT_U32, &c.mbufs, "N",
		  "mbufs in the pool (8191)", 1024, 1u << 20 },
		{ "xstats", PL_OPT_FLAG, &c.xstats, NULL,
		  "add the PMD's extended statistics to the JSON" },
		{ "cpu", PL_OPT_U32, &c.cpu, "N",
		  "lcore to poll on (the highest CPU allowed); with --queues, "
		  "queue q's on CPU N + q, wrapped",
		  0, 4095 },
		{ "gpu", PL_OPT_CHOICE, &c.gpu, "KIND",
		  "GPU variant: none, sim (emulated GPU) or cuda", 0, 0,
		  pl_gpu_kinds },
		{ "hw-stamps", PL_OPT_FLAG, &c.hw_stamps, NULL,
		  "split the latency at the NIC's RX stamps (the timestamp "
		  "offload; exit 77 without it: the lab's vdevs have none)" },
		PL_RX_OPT_TRACE(&c.rx, "datagram"),
		PL_RX_OPT_QUEUES(&c.rx, "RX queue"),
		PL_RX_OPT_REFLECT(&c.rx, "rte_eth_tx_burst"),
		PL_RX_OPTS(&c.rx, "datagram", "from the interface's driver"),
		{ 0 }
	};

	split = split_args(argc, argv, &rx.eal);
	argv[split] = argv[0];
	err = pl_opt_parse(argc - split, argv + split, opts,
			   "[EAL args --] [options]", NULL);
	if (err)
		return err == PL_OPT_HELP ? PL_EXIT_OK : PL_EXIT_USAGE;
	if (!check_cfg(&c))
		return PL_EXIT_USAGE;
	if (rx.eal.argc <= 1 && !c.rx.iface == !c.pci) {
		fprintf(stderr, "pathlab-rx-dpdk: give --iface IF (lab vdev) "
				"or --pci ADDR (real NIC), or EAL arguments "
				"before --\n");
		return PL_EXIT_USAGE;
	}
	if (c.pci && (err = eal_check_pci(c.pci)))
		return err == -EPERM ? PL_EXIT_USAGE : PL_EXIT_FAIL;
	if (rx.eal.argc <= 1 && eal_check_queues(&c))
		return PL_EXIT_USAGE;
	if (rx.eal.argc > 1)
		eal_args_prefix(&rx.eal);
	else if (eal_args_build(&rx.eal, &c, vdevs))
		return PL_EXIT_USAGE;
	if (rx.eal.note)
		fprintf(stderr, "pathlab-rx-dpdk: %s\n", rx.eal.note);
	rx.burst = c.burst;
	rx.reflect = c.rx.reflect;
	if (pl_rx_trace_open("pathlab-rx-dpdk", &c.rx, &rx.trace, "pkt"))
		return PL_EXIT_USAGE;
	if (pl_rx_begin("pathlab-rx-dpdk", &c.rx, &rx.run, &rx.stats))
		return PL_EXIT_USAGE;
	err = dpdk_setup(&rx, &c);
	if (err && rx.hwts.refused) /* the port cannot: said so */
		return PL_EXIT_SKIP;
	if (err) /* bad arguments, or more queues than lcores or ports */
		return err == -EINVAL || err == -ERANGE || err == -EXDEV
			       ? PL_EXIT_USAGE
			       : PL_EXIT_FAIL;
	rx.mode = port_mode(rx.port.driver);
	pl_stats_init(&rx.total);
	err = receive_and_report(&rx, &c);
	dpdk_teardown(&rx);
	pl_stats_free(&rx.total);
	return pl_rx_end(&rx.run, &rx.stats, err);
}
