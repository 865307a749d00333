/* SPDX-License-Identifier: MIT */
/*
 * Each program's options are one table: name, placeholder, help, default
 * and where the value goes. The usage text is generated from the table and
 * every value is range-checked at parse time, so main() stays a few lines.
 */
#ifndef PATHLAB_OPT_H
#define PATHLAB_OPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum pl_opt_kind {
	PL_OPT_FLAG,   /* bool, no argument */
	PL_OPT_U64,    /* uint64_t, k/M/G suffixes, [min, max] */
	PL_OPT_U32,    /* unsigned, k/M/G suffixes, [min, max] */
	PL_OPT_DOUBLE, /* double, [min, max]; max 0 = PL_OPT_DOUBLE_MAX */
	PL_OPT_STR,    /* const char * */
	PL_OPT_CHOICE, /* int index into choices[] */
	PL_OPT_RATE,   /* uint64_t bits per second: "10G" */
	PL_OPT_HZ,     /* double Hz: "3GHz" */
	PL_OPT_OUT,    /* const char *: a file to write, checked now (out.h) */
	PL_OPT_IFACE,  /* const char *: an interface here, by its name */
};

struct pl_opt {
	const char *name; /* long name, without "--" */
	enum pl_opt_kind kind;
	void *dst;
	const char *arg; /* placeholder in usage, e.g. "N" */
	const char *help;
	uint64_t min, max; /* numeric kinds, rates, clocks; max 0 = no limit */
	const char *const *choices; /* PL_OPT_CHOICE, NULL-terminated */
};

/*
 * The largest PL_OPT_DOUBLE when the table gives no max: a million (seconds:
 * 11 days). Larger values overflow the nanosecond clocks they end up in.
 */
#define PL_OPT_DOUBLE_MAX 1000000

/* Result of pl_opt_parse() other than 0 and -EINVAL. */
#define PL_OPT_HELP 1

/*
 * Parse argv against the table (terminated by an entry with name NULL).
 * "--name value" and "--name=value" are both accepted; "--" ends options
 * and *first_arg is set to the index of the first non-option argument.
 * Returns 0, PL_OPT_HELP after printing usage for --help, or -EINVAL after
 * printing a one-line error that names the option.
 */
int pl_opt_parse(int argc, char **argv, const struct pl_opt *opts,
		 const char *synopsis, int *first_arg);

/* Print the usage text generated from the table. */
void pl_opt_usage(FILE *f, const char *prog, const char *synopsis,
		  const struct pl_opt *opts);

/* Exit codes shared by every pathlab program. */
enum {
	PL_EXIT_OK = 0,
	PL_EXIT_FAIL = 1,
	PL_EXIT_USAGE = 2,
	PL_EXIT_SKIP = 77, /* no NIC, no RDMA device, no GPU, no privilege */
	PL_EXIT_HARNESS = 99,
};

#endif
