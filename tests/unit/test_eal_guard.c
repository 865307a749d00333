/* SPDX-License-Identifier: MIT */
/*
 * The DPDK receiver's guard reads the EAL argument vector as DPDK 22.11
 * does (dpdk/eal_guard.c): every way of naming a device that got past
 * the old exact-name check is found here, and what the guard does not
 * know is refused. No DPDK, no interface: the items found are recorded.
 */
#include "check.h"
#include "eal_guard.h"

#include <stdarg.h>
#include <string.h>

/* What one walk found: "kind:value" items, space-separated. */
struct seen {
	char items[4096];
};

static const char *const kinds[] = { "pci", "blocked", "iface", "new",
				     "prefix" };

/* The walk's callback: record the item, go on. */
static int record(void *ctx, enum eal_item kind, const char *value,
		  const char *arg)
{
	struct seen *s = ctx;
	size_t n = strlen(s->items);

	(void)arg;
	snprintf(s->items + n, sizeof(s->items) - n, "%s%s:%s", n ? " " : "",
		 kinds[kind], value);
	return 0;
}

/*
 * Walk the NULL-terminated EAL arguments after the program name; the
 * walk's result, the items in s.
 */
static int walk(struct seen *s, ...)
{
	char *argv[64] = { "pathlab-rx-dpdk" };
	va_list ap;
	int argc = 1;

	va_start(ap, s);
	while (argc < 63 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	s->items[0] = '\0';
	return eal_walk("test", argc, argv, record, s);
}

/* The walk of the arguments passes and finds exactly want. */
#define FINDS(want, ...)                                                       \
	do {                                                                   \
		struct seen s_;                                                \
		CHECK_EQ_U(walk(&s_, __VA_ARGS__, NULL), 0);                   \
		if (strcmp(s_.items, want)) {                                  \
			fprintf(stderr, "%s:%d: found '%s', wanted '%s'\n",    \
				__FILE__, __LINE__, s_.items, want);           \
			check_failures++;                                      \
		}                                                              \
	} while (0)

/* The walk of the arguments is refused. */
#define REFUSED(...)                                                           \
	do {                                                                   \
		struct seen s_;                                                \
		CHECK(walk(&s_, __VA_ARGS__, NULL) < 0);                       \
	} while (0)

int main(void)
{
	char longargs[1024], many[512];
	int i;

	/* The lab's own vector, as eal_args_build() makes it. */
	FINDS("prefix:pathlab-1 iface:pl-rx0", "-l", "1", "--no-huge", "-m",
	      "512", "--no-shconf", "--file-prefix", "pathlab-1", "--no-pci",
	      "--vdev=net_af_packet0,iface=pl-rx0,framecnt=4096");
	FINDS("iface:pl-rx0 iface:pl-rx0", "--lcores", "0@1,1@0", "--no-pci",
	      "--vdev=net_af_xdp0,iface=pl-rx0,start_queue=0,queue_count=1",
	      "--vdev=net_af_xdp1,iface=pl-rx0,start_queue=1,queue_count=1");

	/* getopt_long's abbreviations and forms, as DPDK takes them. */
	FINDS("iface:eth0", "--no-pci", "--vd=net_af_packet0,iface=eth0");
	FINDS("iface:eth0", "--no-pci", "--vde", "net_af_packet0,iface=eth0");
	FINDS("pci:0000:3b:00.0", "--allo=0000:3b:00.0");
	FINDS("pci:0000:3b:00.0", "--al", "3b:00.0");
	FINDS("pci:0000:3b:00.0", "-a3b:00.0");
	FINDS("pci:0000:3b:00.0", "-va", "0000:3b:00.0");
	FINDS("pci:0000:3b:00.0", "-a", "0x3b:0.0x0,rxq_cqe_comp_en=0");
	FINDS("pci:0000:3b:00.0", "-a", "pci:0000:3b:00.0");
	FINDS("prefix:x", "--no-pci", "--file-pre=x");
	FINDS("iface:eth0", "-l", "1", "--no-pci", "junk",
	      "--vdev=net_af_packet0,iface=eth0"); /* permuted past junk */
	REFUSED("--no-pci", "--no-"); /* no-hpet, no-huge, no-pci, ... */
	REFUSED("--no-pci", "--bogus");
	REFUSED("--no-pci", "-x");
	REFUSED("--no-pci", "--vdev");

	/* A comma: a second iface= key, the last one the PMD's. */
	FINDS("iface:x iface:eth0", "--no-pci",
	      "--vdev=net_af_packet0,iface=x,iface=eth0");
	/* A second '=' starts the key again, as rte_kvargs reads it. */
	FINDS("iface:eth0", "--no-pci", "--vdev=net_af_packet0,q=iface=eth0");
	/* Any length: an iface= past the old 256-byte buffer. */
	snprintf(longargs, sizeof(longargs), "--vdev=net_af_packet0");
	for (i = 0; i < 30; i++)
		strcat(longargs, ",qpairs=1");
	strcat(longargs, ",iface=eth0");
	FINDS("iface:eth0", "--no-pci", longargs);
	/* Keys other than iface that name an interface. */
	FINDS("new:dtap0 iface:eth0", "--no-pci",
	      "--vdev=net_tap0,iface=dtap0,remote=eth0");
	FINDS("iface:eth0 iface:eth1", "--no-pci",
	      "--vdev=net_pcap0,rx_iface=eth0,tx_iface=eth1");
	FINDS("iface:eth0", "--no-pci", "--vdev=eth_pcap0,iface=eth0");
	/* A device named by -a or -b is made all the same. */
	FINDS("iface:eth0", "--no-pci", "-a", "net_tap0,remote=eth0");
	FINDS("iface:eth0", "--no-pci", "-b", "net_tap0,remote=eth0");
	FINDS("blocked:0000:3b:00.0", "--no-pci", "-b", "3b:00.0");
	/* Bus prefixes: one character after the bus name, any. */
	FINDS("iface:eth0", "--no-pci", "--vdev=vdev:net_tap0,remote=eth0");
	FINDS("iface:eth0", "--no-pci", "--vdev=vdevXnet_tap0,remote=eth0");
	/* A value in a [list] keeps its commas: the name is judged whole. */
	FINDS("iface:[eth0,eth1]", "--no-pci",
	      "--vdev=net_af_packet0,iface=[eth0,eth1]");

	/* What the guard does not know is refused. */
	REFUSED("--no-pci", "--vdev=net_af_packet0,bogus=1");
	REFUSED("--no-pci", "--vdev=net_af_packet0,iface");
	REFUSED("--no-pci", "--vdev=net_vhost0,iface=/tmp/sock");
	REFUSED("--no-pci", "--vdev=net_bonding0,slave=0000:3b:00.0");
	REFUSED("--no-pci", "--vdev=bus=vdev/driver=net_tap,remote=eth0");
	REFUSED("--no-pci", "-a", "auxiliary:mlx5_core.sf.2");
	REFUSED("--no-pci", "-a", "pci:0000:3b:00.0,x=1");
	snprintf(many, sizeof(many), "--vdev=net_null0");
	for (i = 0; i < 33; i++)
		strcat(many, ",size=64");
	REFUSED("--no-pci", many);
	/* Every PCI device DPDK can drive: neither --no-pci nor -a. */
	REFUSED("-l", "1", "--vdev=net_null0");
	REFUSED("-l", "1", "-b", "3b:00.0");
	return CHECK_DONE();
}
