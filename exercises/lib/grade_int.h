/* SPDX-License-Identifier: MIT */
/* What grade.c and sandbox.c, the grader's two halves, share. */
#ifndef PATHLAB_EX_GRADE_INT_H
#define PATHLAB_EX_GRADE_INT_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define GR_MSG_LEN 240

struct gr_run {
	const char *exercise; /* "01-budget" */
	const char *worker;   /* the worker's path (--worker) */
	uint64_t seed;
	unsigned timeout;     /* seconds a case may take */
	time_t deadline;      /* when this case's time is up */
	bool wait_debugger;   /* the worker stops at its start */
	char context[256];    /* what the case is doing (gr_context()) */
	jmp_buf *no_fork_jmp; /* --no-fork: where gr_end_case() goes */
};

extern struct gr_run gr_run;

/* End the case with this verdict (its worker ended first). */
void gr_end_case(int verdict) __attribute__((noreturn));

#endif
