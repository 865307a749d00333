/* SPDX-License-Identifier: MIT */
/*
 * Where a link's receive work runs. A NIC queue's interrupt schedules its
 * NAPI instance, and the NAPI poll does the kernel's part of receiving:
 * the driver, XDP, GRO, the packet taps, IP and UDP. By default that poll
 * runs in a softirq on whichever CPU took the interrupt; with threaded NAPI
 * (/sys/class/net/IF/threaded) every instance has a kernel thread of its
 * own, napi/IF-ID, which can be pinned and whose CPU time can be read from
 * /proc/PID/schedstat like any task's. That is how a run charges the
 * kernel's receive work to the core that did it.
 *
 * The instances and their threads come from the kernel's "netdev" generic
 * netlink family (NAPI_GET, Linux 6.9 and later for the thread's PID).
 */
#ifndef PATHLAB_NAPI_H
#define PATHLAB_NAPI_H

#include <stdint.h>
#include <sys/types.h>

#define PL_NAPI_MAX 16 /* instances one snapshot follows */

/* One NAPI instance of a link. */
struct pl_napi {
	uint32_t id;	  /* the kernel's NAPI id */
	pid_t pid;	  /* its thread; 0 when the instance is not threaded */
	int irq;	  /* its interrupt, or -1 (veth has none) */
	uint64_t run_ns;  /* the thread's schedstat run time, 0 without one */
	uint64_t wait_ns; /* its schedstat run_delay: runnable, not running */
	int cpu;	  /* the CPU the thread last ran on, or -1 */
};

/*
 * The NAPI instances of interface ifname in this network namespace, sorted
 * by id (the order a driver creates them in: its queue order), at most
 * max, each with its thread's run time and CPU when it has a thread.
 * Returns how many, or -errno: -ENODEV for no such link, -EOPNOTSUPP for a
 * kernel without the netdev family's NAPI_GET.
 */
int pl_napi_list(const char *ifname, struct pl_napi *out, unsigned max);

/*
 * The same for a kernel without NAPI_GET (before 6.9), from the threads'
 * names: threaded NAPI (5.12 and later) names an instance's thread
 * napi/IF-ID, so /proc lists them. Only for a link whose
 * /sys/class/net/IF/threaded says 1, and only where "napi/IF-" fits a
 * thread's 15-character name; otherwise -EOPNOTSUPP. irq is -1 (unknown);
 * the id comes from the name and is cut short when the name is.
 * Simplification: kernel threads are not in any network namespace, so a
 * link of the same name in another namespace would be counted too.
 */
int pl_napi_list_by_name(const char *ifname, struct pl_napi *out, unsigned max);

/*
 * A task's schedstat: run_ns on a CPU, wait_ns runnable but waiting for
 * one (run_delay: the time another task held the CPU it wanted).
 */
struct pl_sched {
	uint64_t run_ns, wait_ns;
};

/* The schedstat of task tid (zeros if it cannot be read). */
struct pl_sched pl_task_sched(pid_t tid);

/* The CPU task tid last ran on (/proc/TID/stat), or -1. */
int pl_task_cpu(pid_t tid);

/* The run time of the calling thread in ns (/proc/thread-self/schedstat). */
uint64_t pl_thread_run_ns(void);

/* The calling thread's schedstat (/proc/thread-self/schedstat). */
struct pl_sched pl_thread_sched(void);

/*
 * The NAPI id of this process's first AF_XDP socket that has one
 * (SO_INCOMING_NAPI_ID), or 0: the NAPI a busy poll on the socket runs.
 * Since Linux 6.13 a socket gets it at bind, and only a zero-copy one,
 * from its queue's NAPI; veth has no zero-copy, so there busy polling an
 * AF_XDP socket polls nothing and the NAPI thread still does the work.
 */
unsigned pl_xsk_napi_id(void);

#endif
