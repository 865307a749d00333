/* SPDX-License-Identifier: MIT */
#include "rx.h"
#include "clock.h"
#include "link.h"
#include "trace.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

const char *const pl_workloads[] = { "throughput", "latency", "visibility",
				     NULL };

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
	pl_tsc(); /* calibrate now, not inside the measured window */
	*run = (struct pl_run){ .prog = prog,
				.count = o->count,
				.duration_s = o->duration_s,
				.idle_ms = o->idle_ms,
				.quiet = o->quiet,
				.stats = stats };
	return 0;
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
		fprintf(stderr, "%s: --trace-file %s: %s\n", prog,
			o->trace_file, strerror(-err));
	return err;
}

/* Voluntary context switches of this thread: how often it went to sleep. */
static uint64_t thread_sleeps(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : (uint64_t)ru.ru_nvcsw;
}

int pl_rx_measure(const struct pl_rx_opts *o, struct pl_run *run,
		  struct pl_rx_window *w)
{
	uint64_t sleeps;
	int err;

	if (o->ready && (err = pl_run_ready(o->ready)))
		return err;
	if (!w->open)
		pl_sysctr_read(w->before, w->ifname);
	else if ((err = w->open(w->arg)))
		return err;
	sleeps = thread_sleeps();
	err = pl_run_start(run);
	if (err)
		return err;
	w->loop(w->arg);
	/* Snapshot at once: the next end marker is 20 ms behind this one. */
	pl_sysctr_read(w->after, w->ifname);
	w->sleeps = thread_sleeps() - sleeps;
	if (w->after_loop)
		w->after_loop(w->arg);
	pl_run_finish(run);
	return 0;
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
	if (err) {
		fprintf(stderr, "%s: %s\n", run->prog, strerror(-err));
		return PL_EXIT_FAIL;
	}
	return PL_EXIT_OK;
}
