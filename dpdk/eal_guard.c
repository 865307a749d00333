/* SPDX-License-Identifier: MIT */
/*
 * The EAL argument vector as DPDK 22.11 parses it (lib/eal/common/
 * eal_common_options.c, eal_common_devargs.c, lib/kvargs, drivers/bus/
 * vdev and pci): the same getopt_long() call over the same option table,
 * the same device and key/value splitting. Anything this does not know
 * is refused rather than guessed at: a guard that reads the command line
 * differently from the program it guards can be walked around.
 */
#include "eal_guard.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* DPDK 22.11's short options, and its long ones with their arguments. */
static const char eal_short[] = "a:b:c:s:d:hl:S:m:n:r:v";

enum {
	OPT_ALLOW = 256,
	OPT_BLOCK,
	OPT_VDEV,
	OPT_FILE_PREFIX,
	OPT_NO_PCI,
	OPT_OTHER
};

static const struct option eal_long[] = {
	{ "allow", 1, NULL, OPT_ALLOW },
	{ "block", 1, NULL, OPT_BLOCK },
	{ "vdev", 1, NULL, OPT_VDEV },
	{ "file-prefix", 1, NULL, OPT_FILE_PREFIX },
	{ "no-pci", 0, NULL, OPT_NO_PCI },
	{ "base-virtaddr", 1, NULL, OPT_OTHER },
	{ "create-uio-dev", 0, NULL, OPT_OTHER },
	{ "help", 0, NULL, OPT_OTHER },
	{ "huge-dir", 1, NULL, OPT_OTHER },
	{ "huge-unlink", 2, NULL, OPT_OTHER },
	{ "iova-mode", 1, NULL, OPT_OTHER },
	{ "lcores", 1, NULL, OPT_OTHER },
	{ "log-level", 1, NULL, OPT_OTHER },
	{ "trace", 1, NULL, OPT_OTHER },
	{ "trace-dir", 1, NULL, OPT_OTHER },
	{ "trace-bufsz", 1, NULL, OPT_OTHER },
	{ "trace-mode", 1, NULL, OPT_OTHER },
	{ "main-lcore", 1, NULL, OPT_OTHER },
	{ "mbuf-pool-ops-name", 1, NULL, OPT_OTHER },
	{ "no-hpet", 0, NULL, OPT_OTHER },
	{ "no-huge", 0, NULL, OPT_OTHER },
	{ "no-shconf", 0, NULL, OPT_OTHER },
	{ "in-memory", 0, NULL, OPT_OTHER },
	{ "proc-type", 1, NULL, OPT_OTHER },
	{ "socket-mem", 1, NULL, OPT_OTHER },
	{ "socket-limit", 1, NULL, OPT_OTHER },
	{ "syslog", 1, NULL, OPT_OTHER },
	{ "vfio-intr", 1, NULL, OPT_OTHER },
	{ "vfio-vf-token", 1, NULL, OPT_OTHER },
	{ "vmware-tsc-map", 0, NULL, OPT_OTHER },
	{ "legacy-mem", 0, NULL, OPT_OTHER },
	{ "single-file-segments", 0, NULL, OPT_OTHER },
	{ "match-allocations", 0, NULL, OPT_OTHER },
	{ "telemetry", 0, NULL, OPT_OTHER },
	{ "no-telemetry", 0, NULL, OPT_OTHER },
	{ "force-max-simd-bitwidth", 1, NULL, OPT_OTHER },
	{ "huge-worker-stack", 2, NULL, OPT_OTHER },
	{ NULL, 0, NULL, 0 }
};

/* What a devargs key names: nothing we judge, or an interface. */
enum { KEY_PLAIN, KEY_IFACE, KEY_IFACE_NEW };

struct vdev_key {
	const char *name;
	int kind;
};

/* A virtual device driver: its name and alias (name prefixes), its keys. */
struct vdev_drv {
	const char *name, *alias;
	const struct vdev_key *keys;
};

static const struct vdev_key af_packet_keys[] = {
	{ "iface", KEY_IFACE },
	{ "qpairs", KEY_PLAIN },
	{ "blocksz", KEY_PLAIN },
	{ "framesz", KEY_PLAIN },
	{ "framecnt", KEY_PLAIN },
	{ "qdisc_bypass", KEY_PLAIN },
	{ NULL, 0 },
};
static const struct vdev_key af_xdp_keys[] = {
	{ "iface", KEY_IFACE },	      { "start_queue", KEY_PLAIN },
	{ "queue_count", KEY_PLAIN }, { "shared_umem", KEY_PLAIN },
	{ "xdp_prog", KEY_PLAIN },    { "busy_budget", KEY_PLAIN },
	{ "force_copy", KEY_PLAIN },  { NULL, 0 },
};
static const struct vdev_key pcap_keys[] = {
	{ "rx_pcap", KEY_PLAIN },
	{ "tx_pcap", KEY_PLAIN },
	{ "rx_iface", KEY_IFACE },
	{ "rx_iface_in", KEY_IFACE },
	{ "tx_iface", KEY_IFACE },
	{ "iface", KEY_IFACE },
	{ "phy_mac", KEY_PLAIN },
	{ "infinite_rx", KEY_PLAIN },
	{ NULL, 0 },
};
static const struct vdev_key tap_keys[] = {
	{ "iface", KEY_IFACE_NEW },
	{ "remote", KEY_IFACE },
	{ "mac", KEY_PLAIN },
	{ "persist", KEY_PLAIN },
	{ NULL, 0 },
};
static const struct vdev_key tun_keys[] = { { "iface", KEY_IFACE_NEW },
					    { NULL, 0 } };
static const struct vdev_key null_keys[] = { { "size", KEY_PLAIN },
					     { "copy", KEY_PLAIN },
					     { "no-rx", KEY_PLAIN },
					     { NULL, 0 } };
static const struct vdev_key ring_keys[] = { { "nodeaction", KEY_PLAIN },
					     { NULL, 0 } };

static const struct vdev_drv vdev_drvs[] = {
	{ "net_af_packet", "eth_af_packet", af_packet_keys },
	{ "net_af_xdp", NULL, af_xdp_keys },
	{ "net_pcap", "eth_pcap", pcap_keys },
	{ "net_tap", "eth_tap", tap_keys },
	{ "net_tun", NULL, tun_keys },
	{ "net_null", "eth_null", null_keys },
	{ "net_ring", "eth_ring", ring_keys },
};

#define DEV_NAME_MAX 64 /* RTE_DEV_NAME_MAX_LEN */
#define KVARGS_MAX   32 /* RTE_KVARGS_MAX */

/* One walk: who asks, what to call, what the vector holds so far. */
struct walk {
	const char *prog;
	eal_item_fn *fn;
	void *ctx;
	bool no_pci, pci_allowed;
};

/* A one-line refusal of EAL argument arg; -EINVAL. */
static int refuse(const struct walk *w, const char *arg, const char *why)
{
	fprintf(stderr, "%s: refusing EAL argument '%s': %s\n", w->prog, arg,
		why);
	return -EINVAL;
}

/*
 * One hex field of a PCI address as DPDK reads it (strtoul, base 16, no
 * leading ' ' or '-'), up to max, ending in dlm; past it, or NULL.
 */
static const char *pci_field(const char *in, unsigned long max, char dlm,
			     unsigned long *v)
{
	char *end;

	if (!*in || *in == ' ' || *in == '-')
		return NULL;
	errno = 0;
	*v = strtoul(in, &end, 16);
	if (errno || end == in || *end != dlm || *v > max)
		return NULL;
	return end + 1;
}

/* A PCI address, DBDF or BDF as rte_pci_addr_parse() takes it; canonical. */
static bool pci_addr(const char *s, char *buf, size_t len)
{
	unsigned long dom = 0, bus, dev, fn;
	const char *p = pci_field(s, 0xff, ':', &bus);

	if (!p || !(p = pci_field(p, 0xff, '.', &dev)) ||
	    !pci_field(p, 0xff, '\0', &fn)) {
		p = pci_field(s, 0xffffffff, ':', &dom);
		if (!p || !(p = pci_field(p, 0xff, ':', &bus)) ||
		    !(p = pci_field(p, 0xff, '.', &dev)) ||
		    !pci_field(p, 0xff, '\0', &fn))
			return false;
	}
	snprintf(buf, len, "%.4lx:%.2lx:%.2lx.%lx", dom, bus, dev, fn);
	return true;
}

/* The driver whose name or alias begins name (vdev_parse()), or NULL. */
static const struct vdev_drv *vdev_drv(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(vdev_drvs) / sizeof(vdev_drvs[0]); i++)
		if (!strncmp(name, vdev_drvs[i].name,
			     strlen(vdev_drvs[i].name)) ||
		    (vdev_drvs[i].alias &&
		     !strncmp(name, vdev_drvs[i].alias,
			      strlen(vdev_drvs[i].alias))))
			return &vdev_drvs[i];
	return NULL;
}

/*
 * Split devargs s (modified) into keys[] and vals[] as rte_kvargs does:
 * ',' ends a pair outside "[...]", '=' ends a key (a second '=' makes
 * what follows the key), empty pairs are dropped. The pair count, or -1
 * past KVARGS_MAX.
 */
static int kv_split(char *s, char **keys, char **vals)
{
	bool in_list = false, end_key = false, end_val, save, end_pair;
	char *start = s;
	int n = 0;

	for (;; s++) {
		save = end_pair = end_val = false;
		if (*s == '=') {
			end_key = save = true;
		} else if (*s == '[') {
			in_list = true;
		} else if (*s == ']') {
			in_list = false;
		} else if ((*s == ',' && !in_list) || !*s) {
			end_val = end_key;
			end_key = save = end_pair = true;
		}
		if (!save)
			continue;
		if (n >= KVARGS_MAX)
			return -1;
		if (end_val) {
			vals[n] = start;
		} else {
			keys[n] = start;
			vals[n] = NULL;
		}
		if (end_pair) {
			if (end_val || s != start)
				n++;
			end_key = false;
		}
		if (!*s)
			return n;
		*s = '\0';
		start = s + 1;
	}
}

/* Each key of devargs args for driver d: known, and interfaces named. */
static int vdev_keys(const struct walk *w, const char *arg,
		     const struct vdev_drv *d, const char *args)
{
	char *keys[KVARGS_MAX], *vals[KVARGS_MAX], *copy = strdup(args);
	const struct vdev_key *k;
	int n, i, err = 0;

	if (!copy)
		return -ENOMEM;
	n = kv_split(copy, keys, vals);
	if (n < 0)
		err = refuse(w, arg, "more than 32 devargs keys");
	for (i = 0; i < n && !err; i++) {
		for (k = d->keys; k->name && strcmp(k->name, keys[i]); k++)
			;
		if (!k->name) {
			fprintf(stderr,
				"%s: refusing EAL argument '%s': %s takes no "
				"key '%s'\n",
				w->prog, arg, d->name, keys[i]);
			err = -EINVAL;
		} else if (k->kind != KEY_PLAIN && !vals[i]) {
			err = refuse(w, arg,
				     "an interface key without a value");
		} else if (k->kind != KEY_PLAIN) {
			err = w->fn(w->ctx,
				    k->kind == KEY_IFACE ? EAL_IFACE
							 : EAL_IFACE_NEW,
				    vals[i], arg);
		}
	}
	free(copy);
	return err;
}

/*
 * One -a, -b or --vdev value: an optional bus prefix, then a PCI address
 * or a virtual device (rte_devargs_parse()'s legacy syntax).
 */
static int device(struct walk *w, const char *arg, const char *s, int opt)
{
	const char *dev = s, *args;
	char name[DEV_NAME_MAX], pci[32];
	const struct vdev_drv *d;
	size_t n;

	if (!strncmp(s, "bus=", 4) || !strncmp(s, "class=", 6) ||
	    strstr(s, "/bus=") || strstr(s, "/class=") || strstr(s, "/driver="))
		return refuse(w, arg,
			      "the layered devargs syntax is not "
			      "checked: use NAME,key=value");
	/* "pciX<addr>" or "vdevX<name>": one character skipped, any. */
	if (!strncmp(s, "pci", 3) && s[3] && pci_addr(s + 4, pci, sizeof(pci)))
		dev = s + 4;
	else if (!strncmp(s, "vdev", 4) && s[4] && vdev_drv(s + 5))
		dev = s + 5;
	n = strcspn(dev, ",");
	if (n >= sizeof(name))
		return refuse(w, arg, "a device name of 64 characters or more");
	snprintf(name, sizeof(name), "%.*s", (int)n, dev);
	args = dev[n] ? dev + n + 1 : "";
	if (pci_addr(name, pci, sizeof(pci))) {
		if (opt == 'b')
			return w->fn(w->ctx, EAL_PCI_BLOCKED, pci, arg);
		w->pci_allowed = true;
		return w->fn(w->ctx, EAL_PCI, pci, arg);
	}
	d = vdev_drv(name);
	if (!d)
		return refuse(w, arg,
			      "neither a PCI address nor a virtual device "
			      "of net_af_packet, net_af_xdp, net_pcap, "
			      "net_tap, net_tun, net_null or net_ring");
	/* vdevs are made whichever option names them, -b included. */
	return vdev_keys(w, arg, d, args);
}

/* The text of the option getopt_long() just returned, for messages. */
static const char *opt_text(char *const *argv, int argc)
{
	return optind > 0 && optind <= argc ? argv[optind - 1] : "?";
}

int eal_walk(const char *prog, int argc, char *const *argv, eal_item_fn *fn,
	     void *ctx)
{
	struct walk w = { .prog = prog, .fn = fn, .ctx = ctx };
	char **copy = calloc((size_t)argc + 1, sizeof(*copy));
	int opt, err = 0;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	optind = 0; /* glibc: start over, whoever parsed before */
	opterr = 0;
	while (!err && (opt = getopt_long(argc, copy, eal_short, eal_long,
					  NULL)) != -1) {
		if (opt == '?')
			err = refuse(&w, opt_text(copy, argc),
				     "not an option DPDK 22.11 takes, an "
				     "ambiguous abbreviation, or without "
				     "its value");
		else if (opt == 'a' || opt == OPT_ALLOW)
			err = device(&w, opt_text(copy, argc), optarg, 'a');
		else if (opt == 'b' || opt == OPT_BLOCK)
			err = device(&w, opt_text(copy, argc), optarg, 'b');
		else if (opt == OPT_VDEV)
			err = device(&w, opt_text(copy, argc), optarg, 'v');
		else if (opt == OPT_FILE_PREFIX)
			err = fn(ctx, EAL_FILE_PREFIX, optarg,
				 opt_text(copy, argc));
		else if (opt == OPT_NO_PCI)
			w.no_pci = true;
	}
	optind = 1;
	free(copy);
	if (!err && !w.no_pci && !w.pci_allowed) {
		fprintf(stderr,
			"%s: refusing EAL arguments with neither --no-pci "
			"nor -a PCI-ADDRESS: DPDK would take every PCI "
			"device it can drive, ConnectX ports on their kernel "
			"driver too (the management interface's among them)\n",
			prog);
		err = -EINVAL;
	}
	return err;
}
