/* SPDX-License-Identifier: MIT */
#include "ifname.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int pl_ifname_check(const char *name, const char **why)
{
	size_t n = strlen(name);

	*why = NULL;
	if (!n || n > PL_IFNAME_MAX)
		*why = "is not 1 to 127 characters long";
	else if (strspn(name, "abcdefghijklmnopqrstuvwxyz"
			      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+") != n)
		*why = "is not an interface name (letters, digits and ._-+)";
	else if (!strcmp(name, ".") || !strcmp(name, ".."))
		*why = "is not an interface name";
	return *why ? -EINVAL : 0;
}

void pl_nl_attr(struct nlmsghdr *nh, unsigned short type, const void *v,
		unsigned short len)
{
	struct rtattr *a =
		(struct rtattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(a), v, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(a->rta_len);
}

int pl_nl_ask(const struct nlmsghdr *req, struct nlmsghdr *ans, size_t cap)
{
	int fd, n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	n = send(fd, req, req->nlmsg_len, 0) < 0 ? -errno
						 : (int)recv(fd, ans, cap, 0);
	if (n == -1)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	if (!NLMSG_OK(ans, (unsigned)n))
		return -EIO;
	if (ans->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(ans))->error ?: -EIO;
	return 0;
}

/*
 * RTM_GETLINK by name: the kernel looks IFLA_ALT_IFNAME up among names
 * and alternative names alike (Linux 5.5 and later).
 */
static int getlink(const char *name, char *primary, size_t len)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attrs[RTA_SPACE(PL_IFNAME_MAX + 1)];
	} req = {
		.nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
			.nlmsg_type = RTM_GETLINK,
			.nlmsg_flags = NLM_F_REQUEST },
		.ifi = { .ifi_family = AF_UNSPEC },
	};
	union {
		struct nlmsghdr nh;
		char buf[16384];
	} ans;
	struct ifinfomsg *ifi;
	struct rtattr *a;
	int err, alen;

	pl_nl_attr(&req.nh, IFLA_ALT_IFNAME, name,
		   (unsigned short)(strlen(name) + 1));
	err = pl_nl_ask(&req.nh, &ans.nh, sizeof(ans));
	if (err)
		return err;
	ifi = NLMSG_DATA(&ans.nh);
	alen = (int)IFLA_PAYLOAD(&ans.nh);
	for (a = IFLA_RTA(ifi); RTA_OK(a, alen); a = RTA_NEXT(a, alen))
		if (a->rta_type == IFLA_IFNAME)
			snprintf(primary, len, "%s", (char *)RTA_DATA(a));
	return ifi->ifi_index > 0 ? ifi->ifi_index : -ENODEV;
}

int pl_ifname_resolve(const char *name, char *primary, size_t len)
{
	const char *why;
	unsigned idx;
	int err;

	if (pl_ifname_check(name, &why))
		return -EINVAL;
	err = getlink(name, primary, len);
	if (err != -EINVAL && err != -EOPNOTSUPP)
		return err;
	/* A kernel without alternative names: the name itself. */
	idx = strlen(name) < IF_NAMESIZE ? if_nametoindex(name) : 0;
	if (!idx)
		return -ENODEV;
	snprintf(primary, len, "%s", name);
	return (int)idx;
}
