/* SPDX-License-Identifier: MIT */
/*
 * What every receiver does the same way, whatever its technology: the
 * options that end its table (when to stop, where to run, how to label and
 * report the run), the start-up before its setup, the measured window
 * around its loop, and the end of main(). A receiver keeps only what its
 * path adds: its own options, its setup, its loop, its report.
 *
 *   main()  parse -> pl_rx_begin() -> setup (the window) ->
 *           pl_rx_measure() -> report -> teardown -> pl_rx_end()
 */
#ifndef PATHLAB_RX_H
#define PATHLAB_RX_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opt.h"
#include "run.h"
#include "stats.h"
#include "sysctr.h"
#include "wire.h"

#define PL_RX_NO_CPU UINT_MAX /* --cpu not given: the thread is not pinned */

/* The values of the options every receiver takes. */
struct pl_rx_opts {
	const char *iface; /* the path's own row says what it is for */
	const char *env, *json, *ready;
	uint64_t count;
	double duration_s;
	unsigned idle_ms;
	unsigned cpu;	 /* PL_RX_OPT_CPU; PL_RX_NO_CPU: not pinned */
	unsigned queues; /* PL_RX_OPT_QUEUES; 0 or 1: one */
	bool reflect;	 /* PL_RX_OPT_REFLECT: the rtt workload's far end */
	int workload;	 /* index into pl_workloads[] */
	bool quiet;
	uint64_t extra_work_cycles; /* spun per datagram (calibration) */
	unsigned trace;		    /* PL_RX_OPT_TRACE: units to step through */
	const char *trace_file;	    /* NULL: stderr */
};

/* The macros keep one table row per pair of lines, as the tables do. */
/* clang-format off */

/* The defaults, for the initialiser of a receiver's config: .rx = ... */
#define PL_RX_DEFAULTS { .cpu = PL_RX_NO_CPU }

/* The labels of --workload, NULL-terminated. */
extern const char *const pl_workloads[];

/*
 * The rows of those options, to follow a receiver's own rows in its table
 * (its { 0 } comes after them). o points to its struct pl_rx_opts; unit is
 * what it receives ("datagram"), env_from where the env label comes from
 * when --env is not given. --iface is the receiver's own row: what the
 * interface is for differs on every path.
 */
#define PL_RX_OPTS(o, unit, env_from)					\
	{ "count", PL_OPT_U64, &(o)->count, "N",			\
	  "stop after N " unit "s (0 = no limit)" },			\
	{ "duration", PL_OPT_DOUBLE, &(o)->duration_s, "S",		\
	  "stop after S seconds" },					\
	{ "idle-timeout", PL_OPT_U32, &(o)->idle_ms, "MS",		\
	  "stop MS after the last " unit },				\
	{ "workload", PL_OPT_CHOICE, &(o)->workload, "KIND",		\
	  "label of the run", 0, 0, pl_workloads },			\
	{ "env", PL_OPT_STR, &(o)->env, "LABEL",			\
	  "label of the environment (" env_from ")" },			\
	{ "json", PL_OPT_OUT, &(o)->json, "FILE",			\
	  "write the run's JSON to FILE (- = stdout)" },		\
	{ "ready", PL_OPT_OUT, &(o)->ready, "FILE",			\
	  "create FILE once ready to receive" },			\
	{ "quiet", PL_OPT_FLAG, &(o)->quiet, NULL,			\
	  "no progress lines and no table" },				\
	{ "extra-work-cycles", PL_OPT_U64, &(o)->extra_work_cycles, "K",\
	  "spin K TSC cycles per " unit ": a known cost that the "	\
	  "receive cost must show (calibration; 0)", 0, 1000000000 }

/*
 * The --cpu row of a receiver whose thread pl_rx_begin() pins (DPDK's
 * --cpu is the EAL's lcore instead: its own row and field).
 */
#define PL_RX_OPT_CPU(o)						\
	{ "cpu", PL_OPT_U32, &(o)->cpu, "N", "pin to this CPU", 0, 4095 }

/*
 * The --queues row of a receiver that can receive on many queues, one
 * thread per queue (unit: what one queue is, "RX queue").
 */
#define PL_RX_OPT_QUEUES(o, unit)					\
	{ "queues", PL_OPT_U32, &(o)->queues, "N",			\
	  "receive on N " unit "s, one thread each, queue q on CPU "	\
	  "--cpu + q (1)", 1, PL_MAX_QUEUES }

/*
 * The --reflect row of a receiver that can send every datagram back to
 * its sender, unchanged but for the addresses: the far end of pathlab-gen
 * --pingpong (the rtt workload). how says through what ("sendmmsg").
 */
#define PL_RX_OPT_REFLECT(o, how)					\
	{ "reflect", PL_OPT_FLAG, &(o)->reflect, NULL,			\
	  "send every datagram back to its sender (" how "): the far "	\
	  "end of pathlab-gen --pingpong" }

/*
 * The --trace and --trace-file rows of a receiver with a traced loop
 * (common/trace.h); unit is what one traced step is ("datagram").
 */
#define PL_RX_OPT_TRACE(o, unit)					\
	{ "trace", PL_OPT_U32, &(o)->trace, "N",			\
	  "step through the first N " unit "s", 1, 100000 },		\
	{ "trace-file", PL_OPT_OUT, &(o)->trace_file, "FILE",		\
	  "write the trace to FILE (stderr)" }

/* clang-format on */

struct pl_trace;

/*
 * Open the trace of --trace (units named unit_name, "pkt" or "burst") into
 * --trace-file; a one-line error that names the file. Nothing to do
 * without --trace. 0 or -errno.
 */
int pl_rx_trace_open(const char *prog, const struct pl_rx_opts *o,
		     struct pl_trace *t, const char *unit_name);

/*
 * Start-up before a receiver's setup: pin to --cpu (a one-line error that
 * names it), zero the stats, calibrate the TSC outside the measured window,
 * fill the run control from the options and install its signal handlers,
 * so that a SIGINT or SIGTERM during setup still ends in teardown and a
 * report (of an empty run). 0 or -errno.
 */
int pl_rx_begin(const char *prog, const struct pl_rx_opts *o,
		struct pl_run *run, struct pl_rx_stats *stats);

/*
 * The measured window of one run, handed to pl_rx_measure(): the loop, the
 * path's steps around it, and the snapshots the report reads. The path's
 * setup describes it; main() runs it.
 */
struct pl_rx_window {
	/*
	 * The path's receive loop, until pl_run_done(), over its queues: an
	 * array of structs of stride bytes each at queues (pl_rx_queue()).
	 * One queue: rx_loop(queue 0). Many (--queues N > 1): rx_loop runs
	 * once per queue, queue 0 on the calling thread and every other one
	 * on a thread of its own, pinned to pl_rx_queue_cpu(); each with its
	 * own stats, queue_stats[q], which it passes to pl_run_done(). A
	 * queue's loop ends on its own end marker; the run ends once every
	 * flow seen on any queue has ended, on --count over all queues, on a
	 * stop or a timeout.
	 */
	void (*rx_loop)(void *queue);
	void *queues;
	size_t stride;
	/*
	 * Queue q's stats; queue_stats[0] is also the one loop's stats of
	 * a run on one queue, where the loop's own time goes (stats.h).
	 */
	struct pl_rx_stats *queue_stats[PL_MAX_QUEUES];
	uint64_t queue_sleeps[PL_MAX_QUEUES]; /* out: per queue thread */
	/*
	 * Optional, with many queues: queues 1..N-1 on threads the path
	 * already has (DPDK: its EAL worker lcores, each with its own
	 * mempool cache) instead of new ones. queue_launch(arg, q, fn,
	 * targ) starts fn(targ) on queue q's thread, 0 or -errno;
	 * queue_wait(arg, q) waits for it to return. A stop never signals
	 * those threads: their loop must not block.
	 */
	int (*queue_launch)(void *arg, unsigned q, void *(*fn)(void *),
			    void *targ);
	void (*queue_wait)(void *arg, unsigned q);
	/*
	 * Optional, in place of the "before" snapshot: a path whose sender
	 * starts only when it lets it (verbs: the connection) takes *before
	 * itself at the last step before that. 0 or -errno.
	 */
	int (*open)(void *arg);
	/* Optional: the path's own counters, read right after the loop. */
	void (*after_loop)(void *arg);
	void *arg;	    /* of queue_launch, queue_wait, open, after_loop */
	const char *ifname; /* the link whose counters the snapshots read */
	/* The snapshots; NULL: the window's own (own_before, own_after). */
	struct pl_sysctr *before, *after;
	struct pl_sysctr own_before, own_after;
	uint64_t sleeps; /* out: how often the loop's thread went to sleep */
};

/* Queue q of a window: the q-th struct of w->stride bytes at w->queues. */
static inline void *pl_rx_queue(const struct pl_rx_window *w, unsigned q)
{
	return (char *)w->queues + (size_t)q * w->stride;
}

/*
 * Create the ready file, snapshot the counters, run the loop under the run
 * control; the moment it ends, snapshot them again and call w->after_loop,
 * both before the run control stops: the next end marker is 20 ms behind.
 * The run control watches w->ifname: a run whose link disappears stops
 * and fails with -ENODEV (run->link_lost; pl_rx_end() says so). 0/-errno.
 */
int pl_rx_measure(const struct pl_rx_opts *o, struct pl_run *run,
		  struct pl_rx_window *w);

/* The number of queues of a run: --queues, at least 1. */
unsigned pl_rx_queues(const struct pl_rx_opts *o);

/* The CPU queue q runs on (--cpu + q, wrapped), or PL_RX_NO_CPU. */
unsigned pl_rx_queue_cpu(const struct pl_rx_opts *o, unsigned q);

/*
 * After a run on many queues: merge every queue's stats into total (which
 * pl_rx_begin() set up) for the report's totals.
 */
void pl_rx_merge_queues(const struct pl_rx_opts *o,
			const struct pl_rx_window *w,
			struct pl_rx_stats *total);

struct pl_report;
struct pl_report_queue;

/*
 * After a run on many queues, the report's part that every path shares:
 * every queue's stats merged into total (its totals), and one entry per
 * queue in rq[] (id q, its CPU, its stats). The path adds what it counted
 * per queue (system calls, wake-ups; another id or CPU).
 */
void pl_rx_report_queues(const struct pl_rx_opts *o,
			 const struct pl_rx_window *w,
			 struct pl_rx_stats *total, struct pl_report_queue *rq,
			 struct pl_report *r);

/*
 * The env label of a run: --env, else the kind of the receiving interface
 * (pl_link_env(), into buf), else none when there is no interface.
 */
const char *pl_rx_env(const struct pl_rx_opts *o, const char *none, char *buf,
		      size_t len);

/*
 * Account one frame the parser judged r (*p filled when PL_OK), handed to
 * us at now: good, bad by reason, or other. Returns r.
 */
static inline enum pl_reason pl_rx_account(struct pl_rx_stats *s,
					   enum pl_reason r,
					   const struct pl_pkt *p, uint64_t now)
{
	if (r == PL_OK)
		pl_stats_good(s, p, now);
	else
		pl_stats_reject(s, r);
	return r;
}

/*
 * Parse and account one whole frame of len bytes at buf (the paths that
 * see the link layer: AF_XDP, DPDK), UDP to port; the parse outcome.
 */
static inline enum pl_reason pl_rx_frame(struct pl_rx_stats *s, const void *buf,
					 size_t len, uint16_t port,
					 uint64_t now, struct pl_pkt *p)
{
	return pl_rx_account(s, pl_parse_frame(buf, len, port, p), p, now);
}

/*
 * Parse and account one UDP payload of len bytes at buf (the paths handed
 * the payload only: the socket, verbs); the parse outcome.
 */
static inline enum pl_reason pl_rx_payload(struct pl_rx_stats *s,
					   const void *buf, size_t len,
					   uint64_t now, struct pl_pkt *p)
{
	return pl_rx_account(s, pl_parse_payload(buf, len, p), p, now);
}

/*
 * The end of main(): free the stats, say why the run failed (its link
 * disappeared, or err); the exit code.
 */
int pl_rx_end(const struct pl_run *run, struct pl_rx_stats *stats, int err);

#endif
