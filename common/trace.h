/* SPDX-License-Identifier: MIT */
/*
 * Step-through tracing (--trace N): follow the first N packets (or bursts)
 * down a path and print every step with the real values of that run —
 * where it ran (NIC, kernel, user space, GPU), whether it is one-time setup
 * or per packet, and each system call, copy and ring operation.
 *
 * One mechanism for every path. A path picks a traced variant of its loop
 * at setup; the untraced loop has no trace code at all. Events go into a
 * preallocated buffer and are printed after the run, or whenever the
 * buffer fills, so printing never sits between two packets.
 *
 * Each printed line is readable and machine-checkable:
 *   [pkt     3] kernel  syscall  recvmmsg()  returned=4 call=7
 * "key=value" pairs carry the values; tests read them back.
 */
#ifndef PATHLAB_TRACE_H
#define PATHLAB_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "out.h"

enum pl_where { PL_AT_NIC, PL_AT_KERNEL, PL_AT_USER, PL_AT_GPU };

enum pl_what {
	PL_EV_STEP,    /* something happened (a verdict, a parse) */
	PL_EV_SYSCALL, /* a system call */
	PL_EV_COPY,    /* the CPU copied packet bytes */
	PL_EV_RING,    /* a ring or queue operation (descriptor, CQE) */
	PL_EV_DMA,     /* a device wrote or read memory */
	PL_EV_CHECK,   /* a consumer checked a packet */
};

#define PL_TRACE_VALUES 4

struct pl_trace_ev {
	uint64_t ns;   /* CLOCK_MONOTONIC when recorded */
	uint32_t unit; /* packet or burst number from 1; 0 for setup */
	uint8_t where, what;
	const char *name; /* static text, e.g. "recvmmsg()" */
	const char *keys; /* static, space-separated names of the values */
	uint64_t v[PL_TRACE_VALUES];
};

struct pl_trace {
	struct pl_trace_ev *ev;
	unsigned n, cap;
	unsigned units;	       /* packets or bursts to trace */
	const char *unit_name; /* "pkt" or "burst" */
	uint64_t t0;	       /* time of the first event */
	uint64_t printed;
	FILE *out;
	bool own_out;
	struct pl_out file; /* --trace-file, when own_out */
	const char *prog;   /* who writes it, for an error */
};

/*
 * Trace units packets (or bursts: unit_name) into file (NULL: stderr).
 * Returns 0 or -errno.
 */
int pl_trace_open(struct pl_trace *t, unsigned units, const char *unit_name,
		  const char *file);

/*
 * Record one event. keys names the values in order ("len addr"); values
 * beyond the names are ignored. unit 0 marks one-time setup.
 */
void pl_trace_rec(struct pl_trace *t, uint32_t unit, enum pl_where where,
		  enum pl_what what, const char *name, const char *keys,
		  uint64_t a, uint64_t b, uint64_t c, uint64_t d);

/* The same, for an event that happened at ns (e.g. a kernel stamp). */
void pl_trace_rec_at(struct pl_trace *t, uint64_t ns, uint32_t unit,
		     enum pl_where where, enum pl_what what, const char *name,
		     const char *keys, uint64_t a, uint64_t b, uint64_t c,
		     uint64_t d);

/* Print what is buffered and empty the buffer. */
void pl_trace_flush(struct pl_trace *t);

/*
 * Flush, print the legend line and release everything; a --trace-file
 * that could not be written in full says so (pl_out_error()), which fails
 * the run.
 */
void pl_trace_close(struct pl_trace *t);

#endif
