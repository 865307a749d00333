/* SPDX-License-Identifier: MIT */
/* Facts about a network interface that label a run: its driver, its kind. */
#ifndef PATHLAB_LINK_H
#define PATHLAB_LINK_H

#include <stddef.h>

/* The interface's driver name ("veth", "mlx5_core") via ethtool; 0/-errno. */
int pl_link_driver(const char *ifname, char *buf, size_t len);

/*
 * The env label of a run on this interface: "veth" for veth ("veth-napi"
 * when its receive work runs in NAPI threads, as the lab sets it up: on
 * the receive core, not the sender's), "nic" for an
 * interface backed by a PCI device, otherwise the driver's name ("dummy",
 * "tun"), or "unknown".
 */
const char *pl_link_env(const char *ifname, char *buf, size_t len);

#endif
