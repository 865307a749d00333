/* SPDX-License-Identifier: MIT */
#include "rx.h"
#include "clock.h"
#include "link.h"
#include "napi.h"
#include "out.h"
#include "report.h"
#include "trace.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

const char *const pl_workloads[] = { "throughput", "latency", "visibility",
				     "rtt", NULL };

int pl_rx_begin(const char *prog, const struct pl_rx_opts *o,
		struct pl_run *run, struct pl_rx_stats *stats)
{
	int err;

	if (o->cpu != PL_RX_NO_CPU && (err = pl_pin_cpu(o->cpu))) {
		fprintf(stderr, "%s: --cpu %u: %s\n", prog, o->cpu,
			strerror(-err));
		return err;
	}
	pl_stats_init(stats);
	pl_stats_extra_work(o->extra_work_cycles);
	pl_tsc(); /* calibrate now, not inside the measured window */
	*run = (struct pl_run){ .prog = prog,
				.count = o->count,
				.duration_s = o->duration_s,
				.idle_ms = o->idle_ms,
				.quiet = o->quiet,
				.stats = stats };
	return pl_run_signals(run);
}

/* Open --trace's buffer and file, or say which file failed. */
int pl_rx_trace_open(const char *prog, const struct pl_rx_opts *o,
		     struct pl_trace *t, const char *unit_name)
{
	int err;

	if (!o->trace)
		return 0;
	err = pl_trace_open(t, o->trace, unit_name, o->trace_file);
	if (err)
		pl_out_error(prog, "--trace-file", o->trace_file, err);
	t->prog = prog;
	return err;
}

/* Voluntary context switches of this thread: how often it went to sleep. */
static uint64_t thread_sleeps(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : (uint64_t)ru.ru_nvcsw;
}

unsigned pl_rx_queues(const struct pl_rx_opts *o)
{
	return o->queues > 1 ? o->queues : 1;
}

unsigned pl_rx_queue_cpu(const struct pl_rx_opts *o, unsigned q)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (o->cpu == PL_RX_NO_CPU)
		return PL_RX_NO_CPU;
	return n > 0 ? (o->cpu + q) % (unsigned)n : o->cpu;
}

/* One queue thread of a run on many queues. */
struct queue_thread {
	const struct pl_rx_opts *o;
	struct pl_run *run;
	struct pl_rx_window *w;
	unsigned q;
};

/*
 * True once every flow seen on any queue has had its end marker. Reads
 * the other queues' flows while they run: a flow is allocated once and
 * end_seen only ever turns true, so a stale read only delays the end.
 */
static bool all_flows_ended(const struct pl_rx_window *w, unsigned n)
{
	const struct pl_seq *f;
	bool any = false;
	unsigned q, i;

	for (q = 0; q < n; q++) {
		for (i = 0; i < PL_MAX_FLOWS; i++) {
			f = __atomic_load_n(&w->queue_stats[q]->flows[i],
					    __ATOMIC_ACQUIRE);
			if (!f)
				continue;
			if (!__atomic_load_n(&f->end_seen, __ATOMIC_ACQUIRE))
				return false;
			any = true;
		}
	}
	return any;
}

/*
 * Start the clocks of a loop's own time (stats.h) on the thread that runs
 * it; loop_done() stops them.
 */
static struct pl_sched loop_start(struct pl_rx_stats *s)
{
	if (s) {
		s->turn_tsc = pl_rdtsc();
		if (s->loop_cpu < 0)
			s->loop_cpu = sched_getcpu();
	}
	return pl_thread_sched();
}

/*
 * Add the thread's run time and its wait for a CPU since loop_start() to
 * the loop's stats.
 */
static void loop_done(struct pl_rx_stats *s, struct pl_sched start)
{
	struct pl_sched now = pl_thread_sched();

	if (!s)
		return;
	s->loop_run_ns +=
		now.run_ns > start.run_ns ? now.run_ns - start.run_ns : 0;
	s->loop_wait_ns +=
		now.wait_ns > start.wait_ns ? now.wait_ns - start.wait_ns : 0;
	s->loop_threads++;
}

/* Run queue q's loop; the queue that ends the last flow ends the run. */
static void run_queue(struct queue_thread *t)
{
	struct pl_rx_stats *s = t->w->queue_stats[t->q];
	uint64_t sleeps = thread_sleeps();
	struct pl_sched start = loop_start(s);

	t->w->rx_loop(pl_rx_queue(t->w, t->q));
	loop_done(s, start);
	t->w->queue_sleeps[t->q] = thread_sleeps() - sleeps;
	if (!t->run->stop && all_flows_ended(t->w, pl_rx_queues(t->o)))
		pl_run_request_stop(t->run);
}

/* A queue thread: pin to its CPU, run its loop, leave the signal list. */
static void *queue_main(void *arg)
{
	struct queue_thread *t = arg;
	unsigned cpu = pl_rx_queue_cpu(t->o, t->q);
	int err;

	if (cpu != PL_RX_NO_CPU && (err = pl_pin_cpu(cpu))) {
		fprintf(stderr, "%s: queue %u: CPU %u: %s\n", t->run->prog,
			t->q, cpu, strerror(-err));
		pl_run_request_stop(t->run);
	} else {
		run_queue(t);
	}
	pthread_mutex_lock(&t->run->queue_lock);
	t->run->queue_alive[t->q - 1] = false;
	pthread_mutex_unlock(&t->run->queue_lock);
	return NULL;
}

/* Start queue t->q's thread: a new one, or the path's (queue_launch). */
static int start_queue(struct pl_run *run, struct pl_rx_window *w,
		       struct queue_thread *t)
{
	int err;

	if (w->queue_launch)
		return w->queue_launch(w->arg, t->q, queue_main, t);
	err = -pthread_create(&run->queue_thread[t->q - 1], NULL, queue_main,
			      t);
	if (!err)
		run->queue_alive[t->q - 1] = true;
	return err;
}

/*
 * The loops of a run on many queues: queue 0 here, the others on threads
 * of their own; every one joined before the caller's "after" snapshot.
 */
static int run_queues(const struct pl_rx_opts *o, struct pl_run *run,
		      struct pl_rx_window *w)
{
	struct queue_thread t[PL_MAX_QUEUES];
	unsigned q, n = pl_rx_queues(o);
	int err = 0;

	for (q = 0; q < n; q++)
		t[q] = (struct queue_thread){ o, run, w, q };
	pthread_mutex_lock(&run->queue_lock);
	for (q = 1; q < n && !err; q++) {
		err = start_queue(run, w, &t[q]);
		if (!err)
			run->queue_threads = q;
	}
	pthread_mutex_unlock(&run->queue_lock);
	if (err)
		pl_run_request_stop(run);
	else
		run_queue(&t[0]);
	for (q = 0; q < run->queue_threads; q++)
		if (w->queue_wait)
			w->queue_wait(w->arg, q + 1);
		else
			pthread_join(run->queue_thread[q], NULL);
	return err;
}

/*
 * Before the run control starts: its progress thread sums the queues, and
 * --count applies to the sum (each queue's loop tests only its own end).
 */
static void queues_prepare(const struct pl_rx_opts *o, struct pl_run *run,
			   struct pl_rx_window *w)
{
	unsigned q, n = pl_rx_queues(o);

	if (n < 2)
		return;
	for (q = 0; q < n; q++)
		run->queue_stats[q] = w->queue_stats[q];
	run->queues = n;
	run->queue_count = run->count;
	run->count = 0;
}

int pl_rx_measure(const struct pl_rx_opts *o, struct pl_run *run,
		  struct pl_rx_window *w)
{
	uint64_t sleeps;
	struct pl_sched start;
	int err;

	if (!w->before)
		w->before = &w->own_before;
	if (!w->after)
		w->after = &w->own_after;
	/* A stop before ready (a signal in setup): an empty run, reported. */
	if (o->ready && (err = pl_run_ready(o->ready)) && !run->stop) {
		pl_out_error(run->prog, "--ready", o->ready, err);
		return err;
	}
	if (!w->open)
		pl_sysctr_read(w->before, w->ifname);
	else if ((err = w->open(w->arg)))
		return err;
	sleeps = thread_sleeps();
	queues_prepare(o, run, w);
	run->link = w->ifname;
	err = pl_run_start(run);
	if (err)
		return err;
	/* In two terminals, the line that says the sender may start now. */
	if (!o->quiet)
		fprintf(stderr, "%s: ready on %s, waiting for traffic\n",
			run->prog, w->ifname ? w->ifname : "its device");
	if (pl_rx_queues(o) > 1) {
		err = run_queues(o, run, w);
	} else {
		start = loop_start(w->queue_stats[0]);
		w->rx_loop(pl_rx_queue(w, 0));
		loop_done(w->queue_stats[0], start);
	}
	/* Snapshot at once: the next end marker is 20 ms behind this one. */
	pl_sysctr_read(w->after, w->ifname);
	w->sleeps = thread_sleeps() - sleeps;
	if (w->after_loop)
		w->after_loop(w->arg);
	pl_run_finish(run);
	/* A run whose link went away measured nothing: no report. */
	return run->link_lost ? -ENODEV : err;
}

void pl_rx_merge_queues(const struct pl_rx_opts *o,
			const struct pl_rx_window *w, struct pl_rx_stats *total)
{
	unsigned q, n = pl_rx_queues(o);

	if (n < 2)
		return;
	for (q = 0; q < n; q++)
		pl_stats_merge(total, w->queue_stats[q]);
}

const char *pl_rx_env(const struct pl_rx_opts *o, const char *none, char *buf,
		      size_t len)
{
	if (o->env)
		return o->env;
	return o->iface ? pl_link_env(o->iface, buf, len) : none;
}

int pl_rx_end(const struct pl_run *run, struct pl_rx_stats *stats, int err)
{
	pl_stats_free(stats);
	if (run->link_lost) {
		fprintf(stderr,
			"%s: %s disappeared during the run (deleted, or its "
			"namespace torn down): no report, the run is void\n",
			run->prog, run->link);
		return PL_EXIT_FAIL;
	}
	/* An output file that failed said so, naming itself. */
	if (err && !pl_out_failed())
		fprintf(stderr, "%s: %s\n", run->prog, strerror(-err));
	return err || pl_out_failed() ? PL_EXIT_FAIL : PL_EXIT_OK;
}

void pl_rx_report_queues(const struct pl_rx_opts *o,
			 const struct pl_rx_window *w,
			 struct pl_rx_stats *total, struct pl_report_queue *rq,
			 struct pl_report *r)
{
	unsigned q, n = pl_rx_queues(o);

	pl_rx_merge_queues(o, w, total);
	r->stats = total;
	r->queues = rq;
	r->nqueues = n;
	for (q = 0; q < n; q++)
		rq[q] = (struct pl_report_queue){
			.id = q,
			.cpu = pl_rx_queue_cpu(o, q),
			.stats = w->queue_stats[q],
		};
}
