/* SPDX-License-Identifier: MIT */
/*
 * Live traffic for the graders (exercises 4, 5, 6): a lab of the case's
 * own. The case's process moves into a network namespace of its own
 * (the receiving side, veth plx0, 10.99.0.2) whose peer (plx1, 10.99.0.1)
 * is in a second namespace, where pathlab-gen sends. Both namespaces are
 * held by this process only: when the case ends, for whatever reason,
 * they go, and with them the veth pair and any XDP program on it.
 * Nothing outside them is touched. Needs root: without, a case skips.
 */
#ifndef PATHLAB_EX_LAB_H
#define PATHLAB_EX_LAB_H

#include <stdint.h>

#include "wire.h"

#define GR_LAB_RX_IF   "plx0"
#define GR_LAB_TX_IF   "plx1"
#define GR_LAB_RX_ADDR "10.99.0.2"
#define GR_LAB_TX_ADDR "10.99.0.1"

/* What pathlab-gen says it sent (its JSON summary). */
struct gr_gen {
	uint64_t sent;	       /* good datagrams */
	uint64_t bad_sent;     /* malformed frames (--tx packet --bad-every) */
	uint64_t end_sent;     /* end-of-train markers (good datagrams too) */
	uint64_t send_errors;  /* sends that failed */
	uint64_t link_dropped; /* what the sending veth dropped */
	uint64_t bad[PL_REASON_MAX];
};

/*
 * The lab: plx0 with queues queues here, its peer over there, addresses,
 * no IPv6 (no stray frames), static neighbours. GR_PASS, or GR_SKIP (not
 * root, no veth), or the case fails (a setup step).
 */
int gr_lab_up(unsigned queues);

/* plx0's interface index (in this process's namespace). */
int gr_lab_ifindex(void);

/*
 * Run pathlab-gen on the peer's side, towards plx0, with these options
 * (one string, words apart: "--count 2000 --rate 20000"); its summary.
 */
void gr_lab_gen(struct gr_gen *g, const char *opts);

/*
 * The same in two halves, for a receiver that must run while it sends:
 * start it (a handle), then wait for it and read its summary.
 */
struct gr_gen_run {
	int pid, fd;
	char opts[160];
};
void gr_lab_gen_start(struct gr_gen_run *r, const char *opts);
void gr_lab_gen_wait(struct gr_gen_run *r, struct gr_gen *g);

/* Frames plx0 has received (/proc/net/dev: counted before any XDP). */
uint64_t gr_lab_rx_frames(void);

/* A UDP counter of this namespace (/proc/net/snmp): "InDatagrams", ... */
uint64_t gr_lab_udp(const char *field);

#endif
