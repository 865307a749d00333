/* SPDX-License-Identifier: MIT */
/*
 * Run control shared by every receiver: what ends a run (a count, a
 * duration, an idle gap, the sender's end marker, SIGINT or SIGTERM) and the
 * once-a-second progress line. The progress thread does the clock work, so
 * a receiver's hot loop only tests one flag and two counters per burst.
 */
#ifndef PATHLAB_RUN_H
#define PATHLAB_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

#define PL_MAX_QUEUES 16 /* receive queues (threads) one receiver runs */

struct pl_run {
	/* set by the caller */
	const char *prog;  /* name in the progress line */
	uint64_t count;	   /* good packets to receive; 0 = no limit */
	double duration_s; /* 0 = no limit */
	unsigned idle_ms;  /* stop this long after the last packet; 0 = off */
	unsigned frame_bytes_hint; /* for Gbit/s before the first packet */
	bool quiet;		   /* no progress line */
	/*
	 * The loop spins on empty polls (DPDK, AF_XDP busy, verbs poll):
	 * pl_run_done() then times each turn, busy or idle, so that the
	 * receive cost counts only the turns that brought frames.
	 */
	bool polls;
	const struct pl_rx_stats *stats; /* read (racily, for display) */
	/*
	 * Many queues: one stats per queue thread (stats is then unused),
	 * and the threads a stop must wake. count is then checked over the
	 * sum, by the progress thread: set queue_count instead of count.
	 */
	const struct pl_rx_stats *queue_stats[PL_MAX_QUEUES];
	unsigned queues;
	uint64_t queue_count;
	pthread_t queue_thread[PL_MAX_QUEUES];
	bool queue_alive[PL_MAX_QUEUES];
	unsigned queue_threads;
	pthread_mutex_t queue_lock; /* zeroed: a default mutex (glibc) */
	/*
	 * The link the run receives on, or NULL: watched by the progress
	 * thread. If it disappears (deleted, or its namespace torn down,
	 * which deletes the veth pair), the run stops with link_lost set.
	 */
	const char *link;

	/* owned by run.c */
	volatile sig_atomic_t stop;
	volatile sig_atomic_t link_lost; /* link's ifindex gone or changed */
	unsigned link_index;		 /* link's ifindex at the start */
	pthread_t main_thread, thread;
	bool thread_started;
	uint64_t start_ns;
};

/*
 * Install the SIGINT/SIGTERM handler, which stops r, and SIGALRM's, with
 * which a timeout interrupts a receiver blocked in a system call (without
 * SA_RESTART, so the call returns EINTR). Before the receiver's setup: a
 * signal then still ends in its teardown and its report. 0 or -errno.
 */
int pl_run_signals(struct pl_run *r);

/* Start the progress thread (pl_run_signals() came first). 0 or -errno. */
int pl_run_start(struct pl_run *r);

/* Stop the progress thread; safe to call twice. */
void pl_run_finish(struct pl_run *r);

/* Ask the run to end (from any thread). */
void pl_run_request_stop(struct pl_run *r);

/* Pin the calling thread to one CPU; 0 or -errno. */
int pl_pin_cpu(unsigned cpu);

/* Create path (empty) to tell a driver the receiver is ready; 0/-errno. */
int pl_run_ready(const char *path);

/*
 * The test a receiver's loop makes once per burst: a stop, the count, or
 * the end markers of every flow seen (a sender's flows end together).
 * A polling loop's turn is timed here (pl_stats_turn()).
 */
static inline bool pl_run_done(const struct pl_run *r, struct pl_rx_stats *s)
{
	if (r->polls)
		pl_stats_turn(s);
	return r->stop || (s->end_markers && s->flows_ended >= s->flows_seen) ||
	       (r->count && s->packets >= r->count);
}

#endif
