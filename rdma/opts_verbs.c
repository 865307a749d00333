/* SPDX-License-Identifier: MIT */
/* pathlab-rx-verbs' command line: its options, defaults and checks. */
#include "rx_verbs.h"
#include "gpu.h"
#include "opt.h"
#include "rx.h"

#include <limits.h>
#include <stdio.h>

static const char *const cqs[] = { "poll", "event", NULL };

/* Options that do not go together; a one-line error and false. */
static bool check_cfg(const struct cfg *c)
{
	const char *why = NULL;

	if (c->rx.trace && c->cq == RX_CQ_EVENT)
		why = "--trace follows the busy-polled CQ: --cq poll";
	else if (pl_rx_queues(&c->rx) > 1 && (c->rx.trace || c->gpu))
		why = "--queues runs the plain loops: no --trace or --gpu "
		      "with it";
	else if (c->rx.reflect && (c->rx.trace || c->gpu))
		why = "--reflect runs the plain loop: no --trace or --gpu "
		      "with it";
	else if (c->rx.reflect && c->v.mode == VERBS_RC_WRITE_IMM)
		why = "--reflect sends a message back as a SEND: --mode ud "
		      "or rc";
	else if (c->hw_stamps &&
		 (c->rx.trace || c->gpu || c->rx.reflect ||
		  c->cq == RX_CQ_EVENT || pl_rx_queues(&c->rx) > 1))
		why = "--hw-stamps busy-polls one stamped CQ in a loop of its "
		      "own: no --trace, --gpu, --reflect, --queues or --cq "
		      "event with it";
	else if (c->v.port + pl_rx_queues(&c->rx) - 1 > 65535)
		why = "--port: QP q connects on --port + q, past 65535";
	if (why)
		fprintf(stderr, "pathlab-rx-verbs: %s\n", why);
	return !why;
}

int verbs_options(int argc, char **argv, struct cfg *c)
{
	const struct pl_opt opts[] = {
		{ "mode", PL_OPT_CHOICE, &c->v.mode, "MODE",
		  "ud, rc or rc_write_imm (ud)", 0, 0, verbs_modes },
		{ "cq", PL_OPT_CHOICE, &c->cq, "KIND",
		  "busy-poll the CQ, or sleep on its completion channel", 0, 0,
		  cqs },
		{ "device", PL_OPT_STR, &c->v.device, "NAME",
		  "RDMA device (the first with a RoCE v2 IPv4 GID)" },
		{ "ib-port", PL_OPT_U32, &c->v.ib_port, "N", "device port (1)",
		  1, 255 },
		{ "gid-index", PL_OPT_U32, &c->gid_index, "N",
		  "GID table index (the first RoCE v2 IPv4 GID)", 0, 4095 },
		{ "port", PL_OPT_U32, &c->v.port, "N",
		  "rdma_cm port, or TCP port with --oob (18515)", 1, 65535 },
		{ "oob", PL_OPT_FLAG, &c->v.oob, NULL,
		  "exchange QP facts over TCP instead of rdma_cm" },
		{ "timeout", PL_OPT_U32, &c->v.timeout_ms, "MS",
		  "wait this long for a sender (60000)", 1, 3600000 },
		{ "depth", PL_OPT_U32, &c->v.depth, "N",
		  "receive buffers (ring slots) posted (2048)", 16,
		  VERBS_MAX_DEPTH },
		{ "batch", PL_OPT_U32, &c->v.batch, "N",
		  "completions per ibv_poll_cq (64)", 1, VERBS_MAX_BATCH },
		{ "iface", PL_OPT_IFACE, &c->rx.iface, "IF",
		  "link for the counters (the GID's network device)" },
		{ "gpu", PL_OPT_CHOICE, &c->gpu, "KIND",
		  "GPU variant: none, sim (emulated GPU) or cuda; the ring "
		  "in device memory",
		  0, 0, pl_gpu_kinds },
		PL_GPU_OPT_PCI(&c->gpu_pci),
		{ "hw-stamps", PL_OPT_FLAG, &c->hw_stamps, NULL,
		  "split each message's latency at the NIC's completion stamp "
		  "(ibv_create_cq_ex); rxe has none" },
		PL_RX_OPT_TRACE(&c->rx, "message"),
		PL_RX_OPT_CPU(&c->rx),
		PL_RX_OPT_QUEUES(&c->rx, "QP"),
		/* Our own row: what goes back is a ping, to our sender. */
		{ "reflect", PL_OPT_FLAG, &c->rx.reflect, NULL,
		  "send every ping back, as a SEND (RC: on the same QP; UD: "
		  "to the completion's source QP): the far end of "
		  "pathlab-tx-verbs --pingpong" },
		PL_RX_OPTS(&c->rx, "message", "vm-softroce for rxe in a VM"),
		{ 0 }
	};
	int err;

	*c = (struct cfg){ .rx = PL_RX_DEFAULTS,
			   .v = { .ib_port = 1,
				  .port = VERBS_PORT,
				  .timeout_ms = 60000,
				  .depth = 2048,
				  .batch = 64 },
			   .gid_index = UINT_MAX };
	err = pl_opt_parse(argc, argv, opts, "[options]", NULL);
	if (err)
		return err == PL_OPT_HELP ? PL_EXIT_OK : PL_EXIT_USAGE;
	c->v.gid_index = c->gid_index == UINT_MAX ? -1 : (int)c->gid_index;
	c->v.events = c->cq == RX_CQ_EVENT;
	c->v.queues = pl_rx_queues(&c->rx);
	c->v.duplex = c->rx.reflect;
	return check_cfg(c) && pl_gpu_opts_ok("pathlab-rx-verbs", c->gpu,
					      c->gpu_pci)
		       ? -1
		       : PL_EXIT_USAGE;
}
