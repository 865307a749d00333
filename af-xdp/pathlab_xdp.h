/* SPDX-License-Identifier: MIT */
/*
 * What the XDP program and its loader share: the action it takes on the
 * lab's datagrams and the layout of its counters. Compiled both by clang
 * for BPF and by the C compiler for user space, so only <linux/types.h>.
 */
#ifndef PATHLAB_XDP_H
#define PATHLAB_XDP_H

#include <linux/types.h>

/* What the program does with a good datagram to the lab port. */
enum pl_xdp_action {
	PL_XDP_REDIRECT, /* to the AF_XDP socket of the queue, if any */
	PL_XDP_DROP,	 /* XDP_DROP: the cheapest place to discard */
	PL_XDP_PASS,	 /* XDP_PASS: on into the kernel stack */
};

#define PL_XDP_VERDICTS 5  /* XDP_ABORTED .. XDP_REDIRECT */
#define PL_XSKS_MAX	64 /* queues the xsks map can hold */
#define PL_XDP_FLOWS	256

/* Bytes of the --trace ring buffer: thousands of records. */
#define PL_XDP_TRACE_RING (256 * 1024)

/* Packets and bytes of one verdict (per CPU). */
struct pl_xdp_count {
	__u64 packets;
	__u64 bytes;
};

/* The lab port's good datagrams as the program saw them (per CPU). */
struct pl_xdp_lab {
	__u64 data;	   /* pathlab datagrams, end markers not included */
	__u64 end_markers; /* end-of-train markers */
	__u64 no_socket;   /* redirect asked, no socket on the queue (data) */
	__u64 first_ns;	   /* bpf_ktime_get_ns(), i.e. CLOCK_MONOTONIC */
	__u64 last_ns;
	__u64 payload_len; /* UDP payload of the last datagram */
};

/*
 * One traced frame (--action drop|pass --trace N), written by the program
 * to its BPF ring buffer and read by the receiver after the run.
 */
struct pl_xdp_trace {
	__u64 ns;	/* bpf_ktime_get_ns(), i.e. CLOCK_MONOTONIC */
	__u32 ifindex;	/* the receiving interface */
	__u32 rx_queue; /* its RX queue */
	__u32 len;	/* frame bytes, without the FCS */
	__u32 verdict;	/* XDP_DROP, XDP_PASS, ... */
	__u32 reason;	/* enum pl_reason of the parse */
	__u32 seq;	/* the datagram's sequence number */
	__u32 flow;
	__u32 cpu; /* the CPU the program ran on */
};

/* The tracing state of one CPU: frames traced, records lost (ring full). */
struct pl_xdp_trace_state {
	__u64 traced;
	__u64 lost;
};

#endif
