/* SPDX-License-Identifier: MIT */
/*
 * What the system counted: a snapshot of the kernel's own counters taken
 * before and after a run, and the difference. Per-namespace files (the SNMP
 * counters, the link's statistics) are read in the namespace the caller runs
 * in, so a receiver reads its own namespace's view.
 */
#ifndef PATHLAB_SYSCTR_H
#define PATHLAB_SYSCTR_H

#include <stdbool.h>
#include <stdint.h>

#include "napi.h"

#define PL_SYSCTR_CPUS 64 /* CPUs whose softirqs are counted one by one */

struct pl_cpu_times {
	/* /proc/stat "cpu" line over ALL CPUs, converted to seconds */
	double user_s, nice_s, sys_s, idle_s, iowait_s, irq_s, softirq_s,
		steal_s;
};

struct pl_sysctr {
	uint64_t mono_ns; /* CLOCK_MONOTONIC when taken */
	unsigned ncpus;	  /* CPUs online */

	struct pl_cpu_times all;  /* /proc/stat */
	uint64_t net_rx_softirqs; /* /proc/softirqs NET_RX, all CPUs */
	uint64_t net_tx_softirqs; /* /proc/softirqs NET_TX, all CPUs */
	/* NET_RX per CPU (the first PL_SYSCTR_CPUS): where receive ran */
	uint64_t net_rx_softirqs_cpu[PL_SYSCTR_CPUS];
	uint64_t interrupts;	  /* /proc/stat "intr" total */
	uint64_t link_irqs;	  /* /proc/interrupts lines naming ifname */
	bool link_has_irqs;	  /* some /proc/interrupts line names it */
	uint64_t softnet_dropped; /* /proc/net/softnet_stat column 2, summed */

	/* /proc/net/snmp and /proc/net/netstat of this namespace */
	uint64_t udp_in_datagrams, udp_no_ports, udp_in_errors,
		udp_rcvbuf_errors, udp_sndbuf_errors, udp_in_csum_errors,
		udp_out_datagrams;
	uint64_t ip_in_receives, ip_in_hdr_errors, ip_in_addr_errors,
		ip_in_truncated_pkts, ip_in_discards, ip_reasm_reqds,
		ip_in_unknown_protos;

	/* /sys/class/net/IF/statistics of the named interface, if any */
	bool have_link;
	uint64_t link_rx_packets, link_rx_bytes, link_rx_dropped,
		link_rx_errors, link_tx_packets, link_tx_dropped;
	/*
	 * The link's NAPI settings (settings, not counters: a delta keeps the
	 * after value): how many times a NAPI poll that found work re-arms a
	 * timer of gro_flush_timeout ns instead of ending, which is what lets
	 * a preferred busy poller keep the NAPI to itself.
	 */
	uint64_t napi_defer_hard_irqs, gro_flush_timeout_ns;

	/*
	 * The link's NAPI instances (napi.h) and their threads' run time.
	 * napi_err: 0, or why they could not be listed (-errno). In a delta,
	 * an instance's run_ns and wait_ns are its thread's over the run, and
	 * napi_changed says a thread came or went in between.
	 */
	unsigned napi_count;
	int napi_err;
	bool napi_changed;
	bool napi_by_name; /* found by thread name (no netlink NAPI_GET) */
	struct pl_napi napi[PL_NAPI_MAX];

	/* this process: getrusage(RUSAGE_SELF) and /proc/self/schedstat */
	double self_user_s, self_sys_s;
	uint64_t self_run_ns; /* every thread's exact time on CPU */
	uint64_t self_nvcsw, self_nivcsw;
};

/*
 * Take a snapshot. ifname may be NULL (no link counters). Files that do not
 * exist on this kernel leave their fields zero; returns 0, or -errno when
 * /proc/stat itself cannot be read.
 */
int pl_sysctr_read(struct pl_sysctr *c, const char *ifname);

/* d = after - before, field by field (times and counters alike). */
void pl_sysctr_delta(const struct pl_sysctr *before,
		     const struct pl_sysctr *after, struct pl_sysctr *d);

/*
 * Busy CPU seconds over all CPUs in a delta: elapsed wall time times CPUs
 * online, minus idle, iowait and steal. The tick-sampled user/sys/softirq
 * split undercounts CPUs that keep sleeping and waking; this does not.
 */
double pl_sysctr_busy_s(const struct pl_sysctr *d);

/*
 * Parse helpers, exposed for the unit tests: find "Proto: ... Name ..." in a
 * two-line-per-protocol file like /proc/net/snmp and return the value of
 * the named field (or 0 when absent).
 */
uint64_t pl_snmp_field(const char *text, const char *proto, const char *name);

#endif
