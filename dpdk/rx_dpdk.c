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
#include <rte_mbuf.h>

static const char *const vdevs[] = { "af_packet", "af_xdp", NULL };

/* Parse and account one frame handed to us at now. */
static inline void rx_one(struct dpdk_rx *rx, const struct rte_mbuf *m,
			  uint64_t now)
{
	struct pl_pkt p;

	dpdk_account(rx, rte_pktmbuf_mtod(m, const void *), m->data_len, now,
		     &p);
}

/* 8< dpdk-rx-loop */
/* Poll for a burst, parse, free; forever, whether or not anything came. */
static void dpdk_rx_loop(struct dpdk_rx *rx)
{
	const uint16_t port = rx->port.id, burst = (uint16_t)rx->burst;
	uint64_t t, prev = rte_rdtsc(), now;
	uint16_t i, n;

	for (;;) {
		if (pl_run_done(&rx->run, &rx->stats))
			break;
		n = rte_eth_rx_burst(port, 0, rx->bufs, burst);
		if (n) {
			now = pl_now_ns();
			for (i = 0; i < n; i++)
				rx_one(rx, rx->bufs[i], now);
			rte_pktmbuf_free_bulk(rx->bufs, n);
		}
		/* One TSC read per poll: busy if it returned packets. */
		t = rte_rdtsc();
		rx->cycles[n != 0] += t - prev;
		rx->polls[n != 0]++;
		prev = t;
	}
}
/* >8 dpdk-rx-loop */

/* The run's mode: the vdev kind, or the PMD's name on a real NIC. */
static const char *port_mode(const char *driver)
{
	if (!strcmp(driver, "net_af_packet"))
		return "af_packet";
	if (!strcmp(driver, "net_af_xdp"))
		return "af_xdp";
	return driver;
}

/* EAL, then the port; undone in reverse by the labels. */
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
	rx->rx_loop = dpdk_rx_loop;
	err = c->gpu ? gpu_dpdk_setup(rx, c) : 0;
	if (!err)
		err = port_setup(&rx->port, c);
	if (err == -ENODEV)
		fprintf(stderr,
			"pathlab-rx-dpdk: no port: the device did not probe "
			"(is %s%s in this network namespace?)\n",
			c->rx.iface ? "interface " : "PCI device ",
			c->rx.iface ? c->rx.iface
			: c->pci    ? c->pci
				    : "?");
	else if (err)
		fprintf(stderr,
			"pathlab-rx-dpdk: port: %s (see the PMD's message "
			"above; af_xdp wants --mbufs 8191 or more)\n",
			strerror(-err));
	if (err)
		goto out_cleanup_eal;
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
	port_teardown(&rx->port);
	if (rx->gpu)
		gpu_dpdk_teardown(rx);
	rte_eal_cleanup();
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

/* Run the loop between two counter snapshots and report. */
static int receive_and_report(struct dpdk_rx *rx, const struct cfg *c)
{
	struct pl_sysctr before, after;
	struct pl_rx_window w = { .loop = dpdk_loop,
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
		.stats = &rx->stats,
		.before = &before,
		.after = &after,
		.extra_json = dpdk_json,
		.extra_arg = rx,
	};
	int err;

	port_stats_reset(&rx->port);
	err = pl_rx_measure(&c->rx, &rx->run, &w);
	if (err)
		return err;
	rx->wakeups = w.sleeps;
	err = port_stats_read(&rx->port, c->xstats);
	if (err)
		fprintf(stderr, "pathlab-rx-dpdk: port stats: %s\n",
			strerror(-err));
	dpdk_report_path(&r, rx,
			 after.link_rx_dropped - before.link_rx_dropped);
	r.syscalls = 0; /* ours; the PMD's own wake-up calls are not seen */
	r.wakeups = rx->wakeups;
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
		  "lcore to poll on (the highest CPU allowed)", 0, 4095 },
		{ "gpu", PL_OPT_CHOICE, &c.gpu, "KIND",
		  "GPU variant: none, sim (emulated GPU) or cuda", 0, 0,
		  pl_gpu_kinds },
		PL_RX_OPT_TRACE(&c.rx, "datagram"),
		PL_RX_OPTS(&c.rx, "datagram", "from the interface's driver"),
		{ 0 }
	};

	split = split_args(argc, argv, &rx.eal);
	argv[split] = argv[0];
	err = pl_opt_parse(argc - split, argv + split, opts,
			   "[EAL args --] [options]", NULL);
	if (err)
		return err == PL_OPT_HELP ? PL_EXIT_OK : PL_EXIT_USAGE;
	if (rx.eal.argc <= 1 && !c.rx.iface == !c.pci) {
		fprintf(stderr, "pathlab-rx-dpdk: give --iface IF (lab vdev) "
				"or --pci ADDR (real NIC), or EAL arguments "
				"before --\n");
		return PL_EXIT_USAGE;
	}
	if (c.pci && (err = eal_check_pci(c.pci)))
		return err == -EPERM ? PL_EXIT_USAGE : PL_EXIT_FAIL;
	if (rx.eal.argc > 1)
		eal_args_prefix(&rx.eal);
	else if (eal_args_build(&rx.eal, &c, vdevs))
		return PL_EXIT_USAGE;
	if (rx.eal.note)
		fprintf(stderr, "pathlab-rx-dpdk: %s\n", rx.eal.note);
	rx.burst = c.burst;
	if (pl_rx_trace_open("pathlab-rx-dpdk", &c.rx, &rx.trace, "pkt"))
		return PL_EXIT_USAGE;
	if (pl_rx_begin("pathlab-rx-dpdk", &c.rx, &rx.run, &rx.stats))
		return PL_EXIT_USAGE;
	err = dpdk_setup(&rx, &c);
	if (err)
		return err == -EINVAL ? PL_EXIT_USAGE : PL_EXIT_FAIL;
	rx.mode = port_mode(rx.port.driver);
	err = receive_and_report(&rx, &c);
	dpdk_teardown(&rx);
	return pl_rx_end(&rx.run, &rx.stats, err);
}
