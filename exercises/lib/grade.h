/* SPDX-License-Identifier: MIT */
/*
 * The graders of the C exercises: the verdict never shares a process with
 * the code it judges.
 *
 * An exercise is two programs. The worker (worker.h) is the student's
 * file with a small dispatcher: it takes each case's inputs as data and
 * answers with what the student's functions returned, nothing else; it is
 * linked with neither the checks nor the lab's own implementation. The
 * grader (this header) holds the checks and the reference: a table of
 * cases, each with a name, points and a function that sends the worker
 * its inputs (gr_call()), compares the answers with its own model and
 * decides. gr_main() runs every case in a process of its own and prints
 * one line per case on stdout, which labs/pathlab grade reads:
 *
 *	GRADE PASS 3 01-budget/fps_64
 *	GRADE FAIL 2 01-budget/ns_per_frame test_budget.c:40: ns_per_frame ...
 *	GRADE SKIP 4 05-xdp-verdict/redirect needs root (BPF_PROG_TEST_RUN)
 *
 * The worker runs in a sandbox the grader builds (sandbox.c): a user of
 * its own (nobody, when the grader is root), no new privileges, a seccomp
 * allow-list, resource limits, no descriptor but its pipes and what a
 * case hands it, and, where the kernel allows, a mount namespace in which
 * the lab's sources and build are not there. It cannot reach the grader:
 * another user, no ptrace, its own memory; what it prints is relayed with
 * the case's name in front, on stderr.
 *
 * Every case adds inputs drawn from the run's seed (gr_rand()) to its
 * fixed ones: the seed is fresh each run and printed, and --seed N (or
 * GR_SEED=N) replays it.
 *
 * Options: --worker PATH (the worker to grade), --list, --only NAME,
 * --seed N, --no-fork (the grader's side in one process, for a
 * debugger), --wait-debugger (the worker stops after it starts and says
 * its pid). GR_TIMEOUT (seconds, default 30) bounds each case.
 *
 * Exit status: 1 if a case failed, 77 if every case was skipped, else 0.
 */
#ifndef PATHLAB_EX_GRADE_H
#define PATHLAB_EX_GRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "proto.h"

enum { GR_PASS = 0, GR_FAIL = 1, GR_SKIP = 77 };

struct gr_case {
	const char *name; /* short, no blanks: "fps_10g_64" */
	unsigned points;  /* what passing it is worth */
	const char *what; /* one line: what it checks */
	int (*run)(void); /* GR_PASS, GR_FAIL or GR_SKIP */
};

/* What the worker may do beyond computing (sandbox.c). */
enum gr_sandbox_flags {
	GR_SB_DYNAMIC = 1 << 0,	 /* dynamically linked: its loader opens
				  * and maps libraries read-only */
	GR_SB_SOCKETS = 1 << 1,	 /* receive and send on the sockets it is
				  * given, poll them */
	GR_SB_THREADS = 1 << 2,	 /* start threads (DPDK's EAL) */
	GR_SB_DEVICES = 1 << 3,	 /* open devices read-write, ioctl, and
				  * what DPDK's EAL and verbs need */
	GR_SB_HOST_NET = 1 << 4, /* keep the network namespace (verbs) */
};

/* A system call the grader counts: nr, on descriptor fd (-1: any). */
struct gr_count {
	int nr;
	int fd;
};

struct gr_sandbox {
	unsigned flags;
	const struct gr_count *count; /* calls the grader counts */
	unsigned ncount;	      /* how many (gr_syscalls()) */
	unsigned mem_mib;	      /* address space limit, MiB (0: 1024) */
	unsigned nofile;	      /* descriptor limit (0: 64) */
};

/* Failed checks so far in this case (each case runs in a fresh process). */
extern unsigned gr_failures;

/* Run the cases of one exercise (the table ends with a { 0 } entry). */
int gr_main(int argc, char **argv, const char *exercise,
	    const struct gr_case *cases);

/* How the exercise's worker is sandboxed: once, before gr_main(). */
void gr_sandbox(const struct gr_sandbox *sb);

/*
 * Send request op with inlen bytes to the worker (started at the first
 * call of a case) and wait for its answer: its length (at most cap bytes
 * are kept in out). A worker that dies, hangs past the case's time or
 * answers more than cap bytes fails the case, which ends here.
 */
size_t gr_call(unsigned op, const void *in, size_t inlen, void *out,
	       size_t cap);

/* gr_call() whose answer must be exactly len bytes (else the case fails). */
void gr_call_exact(unsigned op, const void *in, size_t inlen, void *out,
		   size_t len);

/*
 * Hand descriptor fd to the worker of this case (before its first call):
 * the number it will have there (WK_FD_GIVEN, WK_FD_GIVEN + 1, ...). The
 * case keeps fd: the worker gets a copy.
 */
int gr_give_fd(int fd);

/*
 * Memory the grader and the worker share, as the kernel and an AF_XDP
 * receiver share their rings: len bytes, zeroed, mapped here (returned)
 * and in the worker (before its first call). What the worker writes there
 * is data like its answers: read it, never trust it.
 */
void *gr_share(size_t len);

/* Where the worker sees shared byte p (the worker starts if need be). */
uint64_t gr_waddr(const void *p);

/* The worker's descriptor of the shared memory p is in (a memfd). */
int gr_wfd(const void *p);

/*
 * The device model the worker's calls reach (exercises 12, 14): fn gets
 * call n with its data and writes its answer to out; it returns the
 * answer's length, or -1 for a malformed call (the case fails).
 */
typedef long (*gr_device_fn)(unsigned n, const void *in, size_t len, void *out,
			     size_t cap);
void gr_device(gr_device_fn fn);

/* System call nr made by this case's worker so far (gr_sandbox count). */
uint64_t gr_syscalls(int nr);

/* End this case's worker now (it is ended when a case returns anyway). */
void gr_worker_stop(void);

/* Report a failed check at file:line. */
void gr_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Say what the case is doing now: a worker that dies, dies while that. */
void gr_context(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Say why a case is skipped, and return GR_SKIP. */
int gr_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Fail the case for what its setup could not do, and end it here. */
void gr_setup_failed(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/*
 * Take option name (with its value) out of argv before gr_main(): its
 * value, or NULL when it is not there.
 */
const char *gr_take_option(int *argc, char **argv, const char *name);

/*
 * The answer to key in an answers file ("key = value" lines, # comments):
 * lower case, blanks and thousands commas gone; "" when not answered.
 */
const char *gr_answer(const char *file, const char *key);

/* The next number of this case's random stream (from the run's seed). */
uint64_t gr_rand(void);

/* A random number in [0, n) (0 when n is 0). */
static inline uint64_t gr_below(uint64_t n)
{
	return n ? gr_rand() % n : 0;
}

/* The verdict of a case: GR_FAIL if a check failed, else GR_PASS. */
static inline int gr_verdict(void)
{
	return gr_failures ? GR_FAIL : GR_PASS;
}

/* Check cond; on failure say what was expected, and go on. */
#define GR_CHECK(cond, ...)                                                    \
	do {                                                                   \
		if (!(cond))                                                   \
			gr_fail_at(__FILE__, __LINE__, __VA_ARGS__);           \
	} while (0)

/* Check two unsigned values for equality. */
#define GR_EQ_U(got, want)                                                     \
	do {                                                                   \
		unsigned long long got_ = (unsigned long long)(got);           \
		unsigned long long want_ = (unsigned long long)(want);         \
		if (got_ != want_)                                             \
			gr_fail_at(__FILE__, __LINE__,                         \
				   "%s is %llu, expected %llu", #got, got_,    \
				   want_);                                     \
	} while (0)

/* Check a double within a relative tolerance. */
#define GR_NEAR(got, want, rel)                                                \
	do {                                                                   \
		double got_ = (double)(got), want_ = (double)(want);           \
		double d_ = got_ > want_ ? got_ - want_ : want_ - got_;        \
		if (!(d_ <= (rel) * (want_ < 0 ? -want_ : want_)))             \
			gr_fail_at(__FILE__, __LINE__,                         \
				   "%s is %.6g, expected %.6g", #got, got_,    \
				   want_);                                     \
	} while (0)

/* Stop the case here if a check failed (later checks would only crash). */
#define GR_STOP_IF_FAILED()                                                    \
	do {                                                                   \
		if (gr_failures)                                               \
			return GR_FAIL;                                        \
	} while (0)

#endif
