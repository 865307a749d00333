/* SPDX-License-Identifier: MIT */
/*
 * The management-interface guard. Whatever this machine's default route
 * leaves by is how you reach it (SSH): an XDP program, an AF_XDP socket or a
 * DPDK port there cuts you off. "Leaves by" includes what lies under that
 * interface: the ports of a bridge, the members of a bond, the parent of a
 * VLAN (sysfs lower_* links, followed all the way down, as the doctor's
 * net_lower_ifs does). Every receiver that takes over an interface or a PCI
 * device asks here first; the generator asks before it sends.
 */
#ifndef PATHLAB_MGMT_H
#define PATHLAB_MGMT_H

/*
 * Refuse ifname (or the PCI device pci) with a one-line message naming
 * prog, when it is a management interface: -EPERM, else 0. NULL passes.
 */
int pl_mgmt_refuse_iface(const char *prog, const char *ifname);
int pl_mgmt_refuse_pci(const char *prog, const char *pci);

/* What pl_mgmt_refuse_dst() lets through when told (a bit set). */
enum {
	PL_ALLOW_ROUTED = 1 << 0,    /* through the default route */
	PL_ALLOW_MGMT_LAN = 1 << 1,  /* out of a management interface */
	PL_ALLOW_MULTICAST = 1 << 2, /* multicast and broadcast */
};

/*
 * Refuse to send to dst (IPv4; frames leave by oif when given, else
 * where the routing table says) unless allow lets it: a multicast or
 * broadcast address (every host on the link gets it); a destination the
 * default route leads to (it leaves this network); one whose frames leave
 * by a management interface, its gateway and its LAN included (the hosts
 * you reach this machine through). -EPERM after a one-line error naming
 * prog, else 0 (also when dst has no route at all: the send says so).
 */
int pl_mgmt_refuse_dst(const char *prog, const char *dst, const char *oif,
		       unsigned allow);

#endif
