/* SPDX-License-Identifier: MIT */
/*
 * Interface names as the user types them, checked and resolved once: a
 * name is letters, digits and "._-+" only (nothing a DPDK devargs string,
 * a sysfs path or a shell would read as something else), the interface
 * exists in this network namespace, and its alternative names (ip link
 * property add ... altname, up to 127 characters) resolve to the same
 * interface as its name. The guards compare interfaces by index, never by
 * the name typed. The netlink request helpers here serve common/mgmt.c
 * as well.
 */
#ifndef PATHLAB_IFNAME_H
#define PATHLAB_IFNAME_H

#include <linux/netlink.h>
#include <stddef.h>

/* The longest name the kernel takes: an alternative name (ALTIFNAMSIZ-1). */
#define PL_IFNAME_MAX 127

/*
 * 0 when name is a name we accept (see above); else -EINVAL, with *why
 * set to the rule it breaks, in words.
 */
int pl_ifname_check(const char *name, const char **why);

/*
 * Resolve name (or one of its alternative names) in this namespace: its
 * index (> 0), its name into primary (len bytes, IF_NAMESIZE is enough);
 * -ENODEV when there is no such interface, -EINVAL for a name
 * pl_ifname_check() refuses, else -errno.
 */
int pl_ifname_resolve(const char *name, char *primary, size_t len);

/* Append one attribute to a netlink request (its buffer must have room). */
void pl_nl_attr(struct nlmsghdr *nh, unsigned short type, const void *v,
		unsigned short len);

/*
 * Send one NETLINK_ROUTE request and read its answer into ans (cap
 * bytes): 0, or -errno (an NLMSG_ERROR answer's error included).
 */
int pl_nl_ask(const struct nlmsghdr *req, struct nlmsghdr *ans, size_t cap);

#endif
