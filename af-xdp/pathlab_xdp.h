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

#endif
