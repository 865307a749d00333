/* SPDX-License-Identifier: MIT */
/*
 * The EAL argument vector read exactly as DPDK 22.11 reads it, to find
 * every device it names before rte_eal_init() takes them: getopt_long()
 * over DPDK's own option table (so "--vd=", "--allo" and bundled short
 * options mean what they mean to DPDK), each -a, -b and --vdev parsed as
 * rte_devargs_parse() and rte_kvargs do (bus prefixes, ',' between pairs
 * but not inside "[...]", a second '=' starting the key again), of any
 * length. Plain C, no DPDK header: tests/unit/test_eal_guard.c runs it.
 */
#ifndef PATHLAB_EAL_GUARD_H
#define PATHLAB_EAL_GUARD_H

/* What a device argument names, for the caller to judge. */
enum eal_item {
	EAL_PCI,	 /* a PCI device to take (-a), canonical address */
	EAL_PCI_BLOCKED, /* a PCI device kept away from DPDK (-b) */
	EAL_IFACE,	 /* a kernel interface a vdev attaches to */
	EAL_IFACE_NEW,	 /* an interface a vdev creates (net_tap's iface) */
	EAL_FILE_PREFIX, /* --file-prefix */
};

/*
 * Called for every item found; value is the interface, address or
 * prefix, arg the EAL argument it came from. 0 to go on, or -errno after
 * a one-line error (the walk stops there).
 */
typedef int eal_item_fn(void *ctx, enum eal_item kind, const char *value,
			const char *arg);

/*
 * Walk argv[0..argc) (argv[0] the program) as DPDK 22.11 would parse it,
 * calling fn for each item. Refused, with a one-line error naming prog
 * and the argument: an option DPDK does not take, an ambiguous
 * abbreviation or a missing value; a device that is neither a PCI address
 * nor a virtual device of a driver this check knows (net_af_packet,
 * net_af_xdp, net_pcap, net_tap, net_tun, net_null, net_ring); a devargs
 * key that driver does not take; the layered devargs syntax (bus=/class=);
 * a PCI scan of every device (no --no-pci and no -a PCI address).
 * 0 or -errno (-EINVAL for those, or what fn returned). argv is not
 * changed.
 */
int eal_walk(const char *prog, int argc, char *const *argv, eal_item_fn *fn,
	     void *ctx);

#endif
