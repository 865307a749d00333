/* SPDX-License-Identifier: MIT */
/* The grader's sandbox for the worker: its seccomp filter (seccomp.c). */
#ifndef PATHLAB_EX_SANDBOX_H
#define PATHLAB_EX_SANDBOX_H

#include <sys/types.h>

#include "grade.h"

#define SB_MAX_GIVEN 8
#define SB_MAX_COUNT 16
#define SB_MAX_SHARE 8

/* This case's worker, as the grader sees it. */
struct sb_worker {
	pid_t pid;
	int req, rep, out, listener; /* its pipes, output, counter */
	int given[SB_MAX_GIVEN];     /* descriptors a case hands it (its own) */
	unsigned ngiven, nshare, ncount;
	struct {
		void *p;
		size_t len;
		int gfd, fd; /* the memfd here, its number there */
		uint64_t waddr;
	} share[SB_MAX_SHARE];
	struct gr_count count[SB_MAX_COUNT];
	uint64_t counted[SB_MAX_COUNT];
	gr_device_fn dev;
};

extern struct sb_worker sb_w;

/* Start the worker of this case (sandbox.c). */
void sb_start(void);

/* Map the shared regions in the worker just started (call.c). */
void sb_map_shares(void);

/*
 * Install the worker's filter in this process (the worker to be): flags
 * as in gr_sandbox, count[] the calls the grader counts (through a
 * listener returned in *listener, or -1), self this process's pid,
 * exec_fd the descriptor of the one exec allowed. 0 or -1 (errno).
 */
int sb_seccomp(unsigned flags, const struct gr_count *count, unsigned ncount,
	       pid_t self, int exec_fd, int *listener);

#endif
