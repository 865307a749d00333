/* SPDX-License-Identifier: MIT */
#include "run.h"
#include "clock.h"
#include "out.h"
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define TICK_MS	   10
#define LINK_TICKS 10 /* the link is looked up every 100 ms */

static struct pl_run *signal_run;

/* SIGINT/SIGTERM: end the run cleanly, the report still gets written. */
static void on_signal(int sig)
{
	(void)sig;
	if (signal_run)
		signal_run->stop = 1;
}

/* SIGALRM only interrupts a blocking call; the flag is already set. */
static void on_wake(int sig)
{
	(void)sig;
}

void pl_run_request_stop(struct pl_run *r)
{
	pthread_t self = pthread_self();
	unsigned i;

	r->stop = 1;
	if (r->thread_started && !pthread_equal(self, r->main_thread))
		pthread_kill(r->main_thread, SIGALRM);
	/* Under the lock: a queue thread that has left is never signalled. */
	pthread_mutex_lock(&r->queue_lock);
	for (i = 0; i < r->queue_threads; i++)
		if (r->queue_alive[i] &&
		    !pthread_equal(self, r->queue_thread[i]))
			pthread_kill(r->queue_thread[i], SIGALRM);
	pthread_mutex_unlock(&r->queue_lock);
}

/* Read a counter the hot loop writes; a torn read only blurs the display. */
static uint64_t peek(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Sequence numbers missing so far, over all flows (for display only). */
static uint64_t peek_missing(const struct pl_rx_stats *s)
{
	uint64_t missing = 0, span, unique;
	const struct pl_seq *q;
	unsigned i;

	for (i = 0; i < PL_MAX_FLOWS; i++) {
		q = __atomic_load_n(&s->flows[i], __ATOMIC_ACQUIRE);
		if (!q)
			continue;
		span = peek(&q->highest) - peek(&q->first) + 1;
		unique = peek(&q->unique);
		if (span > unique && span - unique < span)
			missing += span - unique;
	}
	return missing;
}

/* The run's stats, or queue q's when it runs many queues. */
static const struct pl_rx_stats *run_stats(const struct pl_run *r, unsigned q)
{
	return r->queues ? r->queue_stats[q] : r->stats;
}

/* Good packets, bad ones and those missing so far, over every queue. */
static void peek_totals(const struct pl_run *r, uint64_t *pkts, uint64_t *bad,
			uint64_t *missing)
{
	unsigned q, n = r->queues ? r->queues : 1;

	*pkts = *bad = *missing = 0;
	for (q = 0; q < n; q++) {
		*pkts += peek(&run_stats(r, q)->packets);
		*bad += peek(&run_stats(r, q)->bad_total);
		*missing += peek_missing(run_stats(r, q));
	}
}

/* Print one progress line: time, rate over the last second, totals. */
static void progress_line(struct pl_run *r, uint64_t now, uint64_t *last_pkts,
			  uint64_t *last_ns)
{
	const struct pl_rx_stats *s = run_stats(r, 0);
	uint64_t pkts, bad, missing;
	double dt = (double)(now - *last_ns) / 1e9, pps;
	unsigned payload = s->payload_len;
	unsigned frame = payload ? pl_frame_for_payload(payload, false)
				 : r->frame_bytes_hint;

	peek_totals(r, &pkts, &bad, &missing);
	pps = dt > 0 ? (double)(pkts - *last_pkts) / dt : 0;
	fprintf(stderr,
		"%s: %6.1f s %9.1f kpps %7.3f Gbit/s  rx %llu  bad %llu  "
		"lost so far %llu\n",
		r->prog, (double)(now - r->start_ns) / 1e9, pps / 1e3,
		pps * frame * 8 / 1e9, (unsigned long long)pkts,
		(unsigned long long)bad, (unsigned long long)missing);
	*last_pkts = pkts;
	*last_ns = now;
}

/*
 * True if the run's link is gone: no interface of its name in our
 * namespace, or another one (a new ifindex) in its place.
 */
static bool link_gone(const struct pl_run *r)
{
	return r->link_index && if_nametoindex(r->link) != r->link_index;
}

/* The progress thread: timeouts every tick, a progress line every second. */
static void *progress_main(void *arg)
{
	struct pl_run *r = arg;
	struct timespec tick = { .tv_nsec = TICK_MS * 1000000L };
	uint64_t now, last_pkts = 0, last_ns = r->start_ns;
	uint64_t seen = 0, seen_ns = r->start_ns, pkts, bad, missing;
	unsigned ticks = 0;

	while (!r->stop) {
		nanosleep(&tick, NULL);
		if (++ticks % LINK_TICKS == 0 && link_gone(r)) {
			r->link_lost = 1;
			pl_run_request_stop(r);
		}
		now = pl_now_ns();
		peek_totals(r, &pkts, &bad, &missing);
		if (r->queue_count && pkts >= r->queue_count)
			pl_run_request_stop(r);
		if (pkts != seen) {
			seen = pkts;
			seen_ns = now;
		}
		if (r->duration_s > 0 &&
		    now - r->start_ns >= (uint64_t)(r->duration_s * 1e9))
			pl_run_request_stop(r);
		if (r->idle_ms && seen &&
		    now - seen_ns >= (uint64_t)r->idle_ms * 1000000ull)
			pl_run_request_stop(r);
		if (!r->quiet && now - last_ns >= 1000000000ull)
			progress_line(r, now, &last_pkts, &last_ns);
	}
	/*
	 * A SIGINT or SIGTERM only set the flag, in whichever thread took it:
	 * wake the others, which may be blocked in a call with no traffic.
	 */
	pl_run_request_stop(r);
	return NULL;
}

/*
 * The progress thread inherits the receiver's CPU pinning; move it to the
 * other CPUs, so its ticks never preempt a receiver that polls.
 */
static void keep_off_receiver_cpu(pthread_t thread)
{
	cpu_set_t mine, others;
	long n = sysconf(_SC_NPROCESSORS_ONLN), cpu;

	if (sched_getaffinity(0, sizeof(mine), &mine) || CPU_COUNT(&mine) != 1)
		return;
	CPU_ZERO(&others);
	for (cpu = 0; cpu < n && cpu < CPU_SETSIZE; cpu++)
		if (!CPU_ISSET(cpu, &mine))
			CPU_SET(cpu, &others);
	if (CPU_COUNT(&others))
		pthread_setaffinity_np(thread, sizeof(others), &others);
}

int pl_run_signals(struct pl_run *r)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct sigaction wake = { .sa_handler = on_wake };

	sigemptyset(&sa.sa_mask);
	sigemptyset(&wake.sa_mask);
	signal_run = r;
	/* No SA_RESTART: a blocked recvmmsg()/poll() returns EINTR. */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGALRM, &wake, NULL))
		return -errno;
	return 0;
}

int pl_run_start(struct pl_run *r)
{
	int err;

	/* r->stop stays: a signal during setup ends the run at once. */
	r->main_thread = pthread_self();
	r->link_index = r->link ? if_nametoindex(r->link) : 0;
	r->start_ns = pl_now_ns();
	err = pthread_create(&r->thread, NULL, progress_main, r);
	if (err)
		return -err;
	r->thread_started = true;
	keep_off_receiver_cpu(r->thread);
	return 0;
}

void pl_run_finish(struct pl_run *r)
{
	if (!r->thread_started)
		return;
	r->stop = 1;
	pthread_join(r->thread, NULL);
	r->thread_started = false;
}

int pl_pin_cpu(unsigned cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int pl_run_ready(const char *path)
{
	struct pl_out o;
	int err = pl_out_open(&o, path);

	return err ? err : pl_out_close(&o);
}
