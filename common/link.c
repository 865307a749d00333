/* SPDX-License-Identifier: MIT */
#include "link.h"

#include <errno.h>
#include <stdbool.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int pl_link_driver(const char *ifname, char *buf, size_t len)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { .ifr_data = (void *)&info };
	int fd, err = 0;

	if (!ifname || strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		err = -errno;
	else
		snprintf(buf, len, "%s", info.driver);
	close(fd);
	return err;
}

/* True when the link's NAPI runs in threads (/sys/class/net/IF/threaded). */
static bool link_threaded(const char *ifname)
{
	char path[128], c = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/threaded", ifname);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fread(&c, 1, 1, f) != 1)
		c = 0;
	fclose(f);
	return c == '1';
}

const char *pl_link_env(const char *ifname, char *buf, size_t len)
{
	char path[128];
	char drv[32];

	if (pl_link_driver(ifname, drv, sizeof(drv)))
		return "unknown";
	if (!strcmp(drv, "veth"))
		return link_threaded(ifname) ? "veth-napi" : "veth";
	/* A PCI (or other bus) device behind the interface: a real NIC. */
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifname);
	if (!access(path, F_OK))
		return "nic";
	snprintf(buf, len, "%s", drv);
	return buf;
}
