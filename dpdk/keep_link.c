/* SPDX-License-Identifier: MIT */
/*
 * The receiver leaves the lab's link as it found it. rte_eth_dev_start()
 * replays the port's MAC address, and net_af_packet does that with
 * SIOCSIFHWADDR on the kernel interface. The kernel answers even an
 * unchanged address with NETDEV_CHANGEADDR, and ARP then flushes every
 * neighbour entry of the link, the lab's permanent one too: the link's
 * own traffic would stop at ARP, and `pathlab status` says "partial".
 * The address is already the port's, so the receiver refuses itself that
 * one request before it starts the port.
 */
#include "rx_dpdk.h"

#include <errno.h>
#include <endian.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_log.h>

/* The low 32 bits of the ioctl's request (its second argument). */
#if __BYTE_ORDER == __LITTLE_ENDIAN
#define REQUEST_LOW offsetof(struct seccomp_data, args[1])
#else
#define REQUEST_LOW (offsetof(struct seccomp_data, args[1]) + 4)
#endif

/*
 * From now on, in this thread and the threads it starts, ioctl(...,
 * SIOCSIFHWADDR, ...) fails with EPERM. Not a sandbox: one request is
 * refused, on any descriptor; everything else runs as before.
 */
static int refuse_set_hwaddr(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, REQUEST_LOW),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIOCSIFHWADDR, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = RTE_DIM(insns), .filter = insns };

	/* A filter needs no_new_privs (or CAP_SYS_ADMIN); we exec nothing. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return -errno;
	return 0;
}

int port_start_keep_link(uint16_t port)
{
	/* The PMD logs the refused replay as an error: it is ours, expected. */
	int type = rte_log_register("pmd.net.af_packet");
	int level = type >= 0 ? rte_log_get_level((uint32_t)type) : -1;
	int err = refuse_set_hwaddr();

	if (err)
		return err;
	if (level >= 0)
		rte_log_set_level((uint32_t)type, RTE_LOG_CRIT);
	err = rte_eth_dev_start(port);
	if (level >= 0)
		rte_log_set_level((uint32_t)type, (uint32_t)level);
	return err;
}
