// SPDX-License-Identifier: MIT
/* pathlab-rx-xsk's command line: its options, defaults and checks. */
#include "rx_xsk.h"
#include "gpu.h"
#include "mgmt.h"
#include "opt.h"
#include "rx.h"

#include <stdio.h>

const char *const xsk_actions[] = { "redirect", "drop", "pass", NULL };
const char *const xsk_attaches[] = { "native", "skb", NULL };
const char *const xsk_binds[] = { "copy", "zerocopy", "auto", NULL };
const char *const xsk_loops[] = { "busy", "poll", NULL };

static const char *const onoff[] = { "off", "on", NULL };

/* The options that do not go together; a one-line error and false. */
static bool check_cfg(const struct cfg *c)
{
	const char *why = NULL;

	if (!c->rx.iface || (c->frames & (c->frames - 1)) ||
	    (c->ring & (c->ring - 1)) ||
	    (c->frame_size != 2048 && c->frame_size != 4096))
		why = "--iface is required; --frames and --ring are powers "
		      "of two; --frame-size is 2048 or 4096";
	else if (c->gpu && c->action != PL_XDP_REDIRECT)
		why = "--gpu needs --action redirect: XDP alone hands "
		      "nothing over";
	else if (pl_rx_queues(&c->rx) > 1 && c->action != PL_XDP_REDIRECT)
		why = "--queues needs --action redirect: XDP alone has no "
		      "thread per queue (the program runs on every queue, in "
		      "the driver, and counts per CPU)";
	else if (pl_rx_queues(&c->rx) > 1 && (c->rx.trace || c->gpu))
		why = "--queues runs the plain loop: no --trace or --gpu "
		      "with it";
	else if (c->rx.reflect && c->action != PL_XDP_REDIRECT)
		why = "--reflect needs --action redirect: it sends through "
		      "the AF_XDP socket's TX ring";
	else if (c->rx.reflect && (c->rx.trace || c->gpu))
		why = "--reflect runs the plain loop: no --trace or --gpu "
		      "with it";
	else if (c->busy_poll &&
		 (c->action != PL_XDP_REDIRECT || c->loop != LOOP_BUSY))
		why = "--busy-poll needs --action redirect and --loop busy: "
		      "it is the spinning loop's calls that run NAPI";
	else if (c->queue + pl_rx_queues(&c->rx) > PL_XSKS_MAX)
		why = "--queue + --queues go past the xsks map's 64 entries";
	if (why)
		fprintf(stderr, "pathlab-rx-xsk: %s\n", why);
	return !why;
}

/*
 * The RX queues --queue and --queues ask for must exist on the interface
 * (ethtool -l): a clear error here, not EINVAL from the bind. Skipped
 * when the interface cannot say (the bind then decides).
 */
static bool check_queues(const struct cfg *c)
{
	unsigned n = pl_rx_queues(&c->rx);
	int have;

	if (c->action != PL_XDP_REDIRECT)
		return true;
	have = xsk_link_rx_queues(c->rx.iface);
	if (have <= 0 || c->queue + n <= (unsigned)have)
		return true;
	fprintf(stderr,
		"pathlab-rx-xsk: --queue %u --queues %u: %s has %d RX "
		"queue(s) (ethtool -l %s; the lab: PATHLAB_QUEUES)\n",
		c->queue, n, c->rx.iface, have, c->rx.iface);
	return false;
}

int xsk_options(int argc, char **argv, struct cfg *c)
{
	int err, wakeup = 1;
	const struct pl_opt opts[] = {
		{ "iface", PL_OPT_IFACE, &c->rx.iface, "IF",
		  "receiving interface (required)" },
		{ "action", PL_OPT_CHOICE, &c->action, "ACT",
		  "lab datagrams: to the socket, or XDP alone", 0, 0,
		  xsk_actions },
		{ "attach", PL_OPT_CHOICE, &c->attach, "MODE",
		  "XDP in the driver, or generic (skb)", 0, 0, xsk_attaches },
		{ "bind", PL_OPT_CHOICE, &c->bind, "MODE",
		  "AF_XDP copy, zero-copy, or zero-copy else copy (auto)", 0, 0,
		  xsk_binds },
		{ "need-wakeup", PL_OPT_CHOICE, &wakeup, "ON",
		  "XDP_USE_NEED_WAKEUP: enter the kernel only when asked (on)",
		  0, 0, onoff },
		{ "loop", PL_OPT_CHOICE, &c->loop, "KIND",
		  "spin on the RX ring, or sleep in poll()", 0, 0, xsk_loops },
		{ "busy-poll", PL_OPT_FLAG, &c->busy_poll, NULL,
		  "preferred busy polling: the loop's calls run the link's "
		  "NAPI on its core (with --loop busy)" },
		{ "batch", PL_OPT_U32, &c->batch, "N",
		  "descriptors per RX ring peek (64)", 1, MAX_BATCH },
		{ "queue", PL_OPT_U32, &c->queue, "N",
		  "RX queue to bind, the first of --queues (0)", 0,
		  PL_XSKS_MAX - 1 },
		{ "frames", PL_OPT_U32, &c->frames, "N",
		  "UMEM frames, a power of two (4096)", 64, 1u << 20 },
		{ "frame-size", PL_OPT_U32, &c->frame_size, "BYTES",
		  "UMEM frame size, 2048 or 4096 (4096)", 2048, 4096 },
		{ "headroom", PL_OPT_U32, &c->headroom, "BYTES",
		  "free bytes before each frame's data (0)", 0, 1024 },
		{ "ring", PL_OPT_U32, &c->ring, "N",
		  "RX ring (and --reflect TX ring) entries, a power of two "
		  "(2048)",
		  64, 1u << 16 },
		{ "port", PL_OPT_U32, &c->port, "N", "UDP port (9000)", 1,
		  65535 },
		{ "gpu", PL_OPT_CHOICE, &c->gpu, "KIND",
		  "GPU variant: none, sim (emulated GPU) or cuda", 0, 0,
		  pl_gpu_kinds },
		{ "gpu-mode", PL_OPT_CHOICE, &c->gpu_mode, "MODE",
		  "the GPU reads the UMEM in place, or gets a copy", 0, 0,
		  gpu_xsk_modes },
		PL_GPU_OPT_PCI(&c->gpu_pci),
		PL_RX_OPT_TRACE(&c->rx, "datagram"),
		PL_RX_OPT_CPU(&c->rx),
		PL_RX_OPT_QUEUES(&c->rx, "RX queue"),
		PL_RX_OPT_REFLECT(&c->rx, "AF_XDP TX ring"),
		PL_RX_OPTS(&c->rx, "datagram", "from the interface's driver"),
		{ 0 }
	};

	*c = (struct cfg){ .rx = PL_RX_DEFAULTS,
			   .port = PL_UDP_PORT,
			   .frames = 4096,
			   .frame_size = XSK_UMEM__DEFAULT_FRAME_SIZE,
			   .ring = XSK_RING_CONS__DEFAULT_NUM_DESCS,
			   .batch = 64,
			   .bind = BIND_AUTO,
			   .need_wakeup = true };
	err = pl_opt_parse(argc, argv, opts, "--iface IF [options]", NULL);
	if (err)
		return err == PL_OPT_HELP ? PL_EXIT_OK : PL_EXIT_USAGE;
	c->need_wakeup = wakeup;
	if (!check_cfg(c) || !check_queues(c) ||
	    !pl_gpu_opts_ok("pathlab-rx-xsk", c->gpu, c->gpu_pci) ||
	    pl_mgmt_refuse_iface("pathlab-rx-xsk", c->rx.iface))
		return PL_EXIT_USAGE;
	return -1;
}
