/* SPDX-License-Identifier: MIT */
/*
 * pathlab-rx-dpdk's command line: EAL arguments before "--", ours after,
 * their defaults and checks, and the EAL arguments the lab builds.
 */
#include "rx_dpdk.h"
#include "gpu.h"
#include "opt.h"
#include "rx.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char *const vdevs[] = { "af_packet", "af_xdp", NULL };

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
	if (c->busy_poll && (c->vdev != VDEV_AF_XDP || c->pci)) {
		fprintf(stderr, "pathlab-rx-dpdk: --busy-poll needs "
				"--vdev-kind af_xdp: af_packet has no busy "
				"polling, and a PCI port no kernel NAPI\n");
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

int dpdk_options(int argc, char **argv, struct cfg *c, struct eal_args *e)
{
	const struct pl_opt opts[] = {
		{ "iface", PL_OPT_IFACE, &c->rx.iface, "IF",
		  "lab: build the EAL arguments for a vdev on IF" },
		{ "vdev-kind", PL_OPT_CHOICE, &c->vdev, "KIND",
		  "virtual device on IF", 0, 0, vdevs },
		{ "pci", PL_OPT_STR, &c->pci, "ADDR",
		  "real NIC: EAL -a ADDR (refused for the default route's)" },
		{ "burst", PL_OPT_U32, &c->burst, "N",
		  "mbufs per rte_eth_rx_burst (32)", 1, MAX_BURST },
		{ "rx-desc", PL_OPT_U32, &c->rx_desc, "N",
		  "RX ring descriptors (4096)", 64, 16384 },
		{ "mbufs", PL_OPT_U32, &c->mbufs, "N",
		  "mbufs in the pool (8191)", 1024, 1u << 20 },
		{ "busy-poll", PL_OPT_FLAG, &c->busy_poll, NULL,
		  "af_xdp: preferred busy polling (busy_budget=--burst): the "
		  "PMD's calls run the link's NAPI on the polling core" },
		{ "xstats", PL_OPT_FLAG, &c->xstats, NULL,
		  "add the PMD's extended statistics to the JSON" },
		{ "cpu", PL_OPT_U32, &c->cpu, "N",
		  "lcore to poll on (the highest CPU allowed); with --queues, "
		  "queue q's on CPU N + q, wrapped",
		  0, 4095 },
		{ "gpu", PL_OPT_CHOICE, &c->gpu, "KIND",
		  "GPU variant: none, sim (emulated GPU) or cuda", 0, 0,
		  pl_gpu_kinds },
		PL_GPU_OPT_PCI(&c->gpu_pci),
		{ "hw-stamps", PL_OPT_FLAG, &c->hw_stamps, NULL,
		  "split the latency at the NIC's RX stamps (the timestamp "
		  "offload; exit 77 without it: the lab's vdevs have none)" },
		PL_RX_OPT_TRACE(&c->rx, "datagram"),
		PL_RX_OPT_QUEUES(&c->rx, "RX queue"),
		PL_RX_OPT_REFLECT(&c->rx, "rte_eth_tx_burst"),
		PL_RX_OPTS(&c->rx, "datagram", "from the interface's driver"),
		{ 0 }
	};
	int err, split;

	*c = (struct cfg){ .rx = PL_RX_DEFAULTS,
			   .burst = 32,
			   .rx_desc = 4096,
			   .mbufs = 8191,
			   .cpu = UINT_MAX };
	split = split_args(argc, argv, e);
	argv[split] = argv[0];
	err = pl_opt_parse(argc - split, argv + split, opts,
			   "[EAL args --] [options]", NULL);
	if (err)
		return err == PL_OPT_HELP ? PL_EXIT_OK : PL_EXIT_USAGE;
	if (!check_cfg(c) ||
	    !pl_gpu_opts_ok("pathlab-rx-dpdk", c->gpu, c->gpu_pci))
		return PL_EXIT_USAGE;
	if (c->busy_poll && e->argc > 1) {
		fprintf(stderr, "pathlab-rx-dpdk: --busy-poll builds the "
				"af_xdp vdev; with EAL arguments of your own, "
				"give busy_budget=N in your --vdev\n");
		return PL_EXIT_USAGE;
	}
	if (e->argc <= 1 && !c->rx.iface == !c->pci) {
		fprintf(stderr, "pathlab-rx-dpdk: give --iface IF (lab vdev) "
				"or --pci ADDR (real NIC), or EAL arguments "
				"before --\n");
		return PL_EXIT_USAGE;
	}
	if (c->pci && eal_check_pci(c->pci))
		return PL_EXIT_USAGE;
	if (gpu_dpdk_pick(c))
		return PL_EXIT_USAGE;
	if (e->argc <= 1 &&
	    (eal_check_queues(c) || eal_args_build(e, c, vdevs)))
		return PL_EXIT_USAGE;
	if (!e->built)
		snprintf(e->prefix, sizeof(e->prefix), "rte");
	/* Checked as DPDK will read it, after it is built (a GPU too). */
	if (eal_check_mgmt(e, c))
		return PL_EXIT_USAGE;
	if (e->note)
		fprintf(stderr, "pathlab-rx-dpdk: %s\n", e->note);
	return -1;
}
