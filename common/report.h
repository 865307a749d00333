/* SPDX-License-Identifier: MIT */
/*
 * The end of every run on every path: one readable table on stderr and one
 * JSON object, the run contract that labs/pathlab compare collects into
 * results.json (documented in common/results.schema.json). Fields are added,
 * never renamed.
 */
#ifndef PATHLAB_REPORT_H
#define PATHLAB_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "stats.h"
#include "sysctr.h"

#define PL_REPORT_MAX_DROPS 16

/* System counters that are loss points of a path (a bit set). */
enum {
	PL_LOSS_LINK = 1 << 0,	  /* the receiving link's rx_dropped */
	PL_LOSS_BACKLOG = 1 << 1, /* the per-CPU backlog (softnet_stat) */
	PL_LOSS_SOCKET = 1 << 2,  /* Udp RcvbufErrors: socket queue full */
};

/* A named counter of the path's own, e.g. XDP_STATISTICS rx_dropped. */
struct pl_drop {
	const char *name;
	uint64_t count;
	bool link; /* the link's rx_dropped, or part of it: not ours too */
};

/* One receive queue of a run on many queues. */
struct pl_report_queue {
	unsigned id;  /* the queue's number on its device */
	unsigned cpu; /* the CPU its thread ran on, or PL_RX_NO_CPU (~0u) */
	const struct pl_rx_stats *stats;
	uint64_t syscalls, wakeups;
};

struct pl_report {
	const char *tool;	  /* "pathlab-rx-socket" */
	const char *path;	  /* socket | xdp | afxdp | dpdk | verbs */
	const char *mode;	  /* path-specific word, e.g. "recvmmsg" */
	const char *gpu;	  /* none | sim | cuda */
	const char *workload;	  /* throughput | latency | visibility | rtt */
	const char *env;	  /* veth | nic | vm-softroce | ... */
	const char *ifname;	  /* receiving interface, or NULL */
	const char *latency_kind; /* "one-way" or "rtt" */
	double copies_per_packet;
	const char *copies_source; /* by_design | measured | modelled */
	const char *copies_note;   /* what the copies are, one line */
	/* The clock of the RX stamps that split the latency: "software"
	 * (the kernel's), "hardware" (the NIC's); NULL: "none". */
	const char *rx_stamp_source;
	/*
	 * The receiver drives the link's NAPI from its own calls (preferred
	 * busy polling: SO_PREFER_BUSY_POLL, or DPDK af_xdp's busy_budget).
	 */
	bool busy_poll;
	/* The NAPI id such a poller's socket has (pl_xsk_napi_id()); 0: its
	 * busy polls run no NAPI. */
	unsigned busy_poll_napi_id;
	uint64_t syscalls;    /* data-path system calls the receiver made */
	uint64_t wakeups;     /* blocking returns, poll() returns, events */
	unsigned loss_points; /* PL_LOSS_* bits */
	struct pl_drop drops[PL_REPORT_MAX_DROPS]; /* the path's own */
	unsigned ndrops;
	const struct pl_rx_stats *stats; /* the whole run (queues merged) */
	/*
	 * --reflect: datagrams sent back to their sender, and sends that
	 * failed (reflect is false: no "reflect" object in the JSON).
	 */
	bool reflect;
	uint64_t reflected, reflect_errors;
	/* Many queues: one entry per queue; 0: the run had one. */
	const struct pl_report_queue *queues;
	unsigned nqueues;
	/*
	 * Where no user-space loop sees the packets (an XDP program that
	 * drops them), received comes from a count made elsewhere: set
	 * received_source (e.g. "xdp_map"), received_count and, when known,
	 * sent_count. NULL: received is the sequence accounting of stats.
	 */
	const char *received_source;
	uint64_t received_count, sent_count;
	/*
	 * Frames that were not the generator's and went on into the kernel's
	 * stack, where one dropped for want of a protocol (a garbage
	 * EtherType, QinQ) counts in the link's rx_dropped as a datagram of
	 * ours would: the link's loss counters are ours only past them. A
	 * path whose frames do not all reach the stack says how many
	 * (not_ours_set: the XDP program's passes, 0 for DPDK's af_xdp);
	 * otherwise they are the link's frames that never reached IPv4
	 * (rx_packets - Ip InReceives).
	 */
	bool not_ours_set;
	uint64_t not_ours_to_kernel;
	const char *not_ours_source;
	const struct pl_sysctr *before, *after;
	/* Writes the path's nested object (named after the path), or NULL. */
	void (*extra_json)(struct pl_json *j, void *arg);
	void *extra_arg;
	/*
	 * GPU variants (gpu other than "none"): packets the consumer checked
	 * good and bad, PCIe crossings per packet and how that figure was
	 * obtained (by_design | modelled), and a writer of "gpu_detail".
	 */
	uint64_t gpu_verified, gpu_bad;
	double pcie_crossings_per_packet;
	const char *pcie_source;
	void (*gpu_json)(struct pl_json *j, void *arg);
	void *gpu_arg;
};

/* Add one of the path's own loss counters to the report. */
void pl_report_drop(struct pl_report *r, const char *name, uint64_t count);

/*
 * Add a loss counter that is the link's rx_dropped (or what is left of it
 * once the path's own counters are taken off): it counts frames that were
 * not ours as well, which the report keeps out of the loss (not_ours).
 */
void pl_report_link_drop(struct pl_report *r, const char *name, uint64_t count);

/* Write the run as one JSON object. */
void pl_report_json(FILE *f, const struct pl_report *r);

/* Write the run as a readable table. */
void pl_report_table(FILE *f, const struct pl_report *r);

/*
 * Write the JSON to path ("-" = stdout) as common/out.h writes a file: all
 * of it or nothing, never through a link; 0 or -errno after a one-line
 * error that names the file.
 */
int pl_report_write(const char *path, const struct pl_report *r);

/*
 * The end of a run: the table on stderr (unless quiet) and the JSON to
 * json_path (NULL: none, "-": stdout). 0 or -errno.
 */
int pl_report_emit(const struct pl_report *r, const char *json_path,
		   bool quiet);

#endif
