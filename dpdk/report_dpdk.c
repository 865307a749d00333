/* SPDX-License-Identifier: MIT */
/*
 * The DPDK receiver's report: its loop (queue 0's on
 * this thread, the others' on the EAL's worker lcores) between two
 * snapshots of the counters, then the run's figures, the path's own under
 * "dpdk" in the JSON.
 */
#include "rx_dpdk.h"
#include "clock.h"
#include "report.h"
#include "rx.h"
#include "sysctr.h"

#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>

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
		pl_report_link_drop(r, "rx_link_dropped_not_imissed",
				    link_dropped > p->imissed
					    ? link_dropped - p->imissed
					    : 0);
		/* Its XDP program takes every frame: none goes on. */
		r->not_ours_set = true;
		r->not_ours_source = "af_xdp_takes_all";
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
			  struct pl_rx_stats *total, struct pl_report_queue *rq,
			  struct pl_report *r)
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
	pl_rx_report_queues(&c->rx, w, total, rq, r);
	r->wakeups = 0;
	for (i = 0; i < rx->nqueues; i++) {
		cpu = lcore_cpu(rx->queues[i].lcore);
		rq[i].cpu = cpu < 0 ? ~0u : (unsigned)cpu;
		rq[i].wakeups = w->queue_sleeps[i];
		r->wakeups += w->queue_sleeps[i];
	}
}

/* Write the report of the run measured in w; 0 or -errno. */
int dpdk_report(struct dpdk_rx *rx, const struct cfg *c,
		const struct pl_rx_window *w, struct pl_rx_stats *total)
{
	struct pl_report_queue rq[PL_MAX_QUEUES];
	const struct pl_sysctr *before = w->before, *after = w->after;
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
		.before = before,
		.after = after,
		.extra_json = dpdk_json,
		.extra_arg = rx,
	};
	int err;

	rx->wakeups = w->sleeps;
	err = ports_stats_read(rx, c->xstats);
	if (err)
		fprintf(stderr, "pathlab-rx-dpdk: port stats: %s\n",
			strerror(-err));
	dpdk_report_path(&r, rx,
			 after->link_rx_dropped - before->link_rx_dropped);
	r.syscalls = 0; /* ours; the PMD's own wake-up calls are not seen */
	r.wakeups = rx->wakeups;
	r.busy_poll = c->busy_poll;
	r.busy_poll_napi_id = c->busy_poll ? pl_xsk_napi_id() : 0;
	queues_report(rx, c, w, total, rq, &r);
	if (rx->gpu)
		gpu_dpdk_report(rx, &r);
	return pl_report_emit(&r, c->rx.json, c->rx.quiet);
}
