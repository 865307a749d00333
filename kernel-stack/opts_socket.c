/* SPDX-License-Identifier: MIT */
/* pathlab-rx-socket's command line: its options, defaults and checks. */
#include "rx_socket.h"
#include "gpu.h"
#include "opt.h"
#include "rx.h"
#include "wire.h"

#include <stdio.h>

static const char *const modes[] = { "recvmmsg", "recvfrom", NULL };
static const char *const loop_kinds[] = { "block", "busy", NULL };
static const char *const steers[] = { "hash", "cpu", NULL };

/* Options that one queue only can do; a one-line error and false. */
static bool check_cfg(const struct cfg *c)
{
	if ((c->stamps || c->rx.trace) && c->mode == MODE_RECVFROM) {
		fprintf(stderr,
			"pathlab-rx-socket: --rx-stamps and --trace need "
			"--mode recvmmsg (stamps arrive as control "
			"messages)\n");
		return false;
	}
	if (pl_rx_queues(&c->rx) > 1 && (c->rx.trace || c->gpu)) {
		fprintf(stderr, "pathlab-rx-socket: --queues runs the plain "
				"loop: no --trace or --gpu with it\n");
		return false;
	}
	if (c->rx.reflect &&
	    (c->mode != MODE_RECVMMSG || c->stamps || c->rx.trace || c->gpu)) {
		fprintf(stderr,
			"pathlab-rx-socket: --reflect runs the plain "
			"recvmmsg loop: no --mode recvfrom, --rx-stamps, "
			"--trace or --gpu with it\n");
		return false;
	}
	if (c->steer == STEER_CPU && pl_rx_queues(&c->rx) < 2) {
		fprintf(stderr, "pathlab-rx-socket: --steer needs --queues 2 "
				"or more\n");
		return false;
	}
	return true;
}

int socket_options(int argc, char **argv, struct cfg *c)
{
	const struct pl_opt opts[] = {
		{ "port", PL_OPT_U32, &c->port, "N", "UDP port (9000)", 1,
		  65535 },
		{ "bind", PL_OPT_STR, &c->bind, "ADDR",
		  "local IPv4 address (0.0.0.0)" },
		{ "mode", PL_OPT_CHOICE, &c->mode, "MODE", "receive call", 0, 0,
		  modes },
		{ "batch", PL_OPT_U32, &c->batch, "N",
		  "datagrams per recvmmsg (64)", 1, MAX_BATCH },
		{ "loop", PL_OPT_CHOICE, &c->loop, "KIND",
		  "block in the call, or spin with MSG_DONTWAIT", 0, 0,
		  loop_kinds },
		{ "rcvbuf", PL_OPT_U32, &c->rcvbuf, "BYTES",
		  "SO_RCVBUF(FORCE) size (kernel default)", 4096, 1u << 30 },
		{ "steer", PL_OPT_CHOICE, &c->steer, "HOW",
		  "with --queues, SO_REUSEPORT picks a socket by 4-tuple hash "
		  "(hash) or by the receiving CPU (cpu)",
		  0, 0, steers },
		{ "rx-stamps", PL_OPT_FLAG, &c->stamps, NULL,
		  "SO_TIMESTAMPING software RX stamps: split the latency" },
		{ "hw-stamps", PL_OPT_FLAG, &c->hw_stamps, NULL,
		  "the NIC's hardware RX stamps instead (SIOCSHWTSTAMP on "
		  "--iface, put back at exit); none on veth" },
		{ "iface", PL_OPT_STR, &c->rx.iface, "IF",
		  "receiving interface, for its counters and env label" },
		PL_RX_OPT_TRACE(&c->rx, "datagram"),
		{ "gpu", PL_OPT_CHOICE, &c->gpu, "KIND",
		  "GPU variant: none, sim (emulated GPU) or cuda", 0, 0,
		  pl_gpu_kinds },
		PL_GPU_OPT_PCI(&c->gpu_pci),
		PL_RX_OPT_CPU(&c->rx),
		PL_RX_OPT_QUEUES(&c->rx, "SO_REUSEPORT socket"),
		PL_RX_OPT_REFLECT(&c->rx, "sendmmsg"),
		PL_RX_OPTS(&c->rx, "datagram", "from the interface's driver"),
		{ 0 }
	};
	int err;

	*c = (struct cfg){ .rx = PL_RX_DEFAULTS,
			   .bind = "0.0.0.0",
			   .port = PL_UDP_PORT,
			   .batch = 64 };
	err = pl_opt_parse(argc, argv, opts, "[options]", NULL);
	if (err)
		return err == PL_OPT_HELP ? PL_EXIT_OK : PL_EXIT_USAGE;
	c->stamps = c->stamps || c->hw_stamps; /* hardware stamps split too */
	return check_cfg(c) && pl_gpu_opts_ok("pathlab-rx-socket", c->gpu,
					      c->gpu_pci)
		       ? -1
		       : PL_EXIT_USAGE;
}
