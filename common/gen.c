/* SPDX-License-Identifier: MIT */
/*
 * pathlab-gen: send pathlab UDP datagrams, as fast as possible or paced,
 * and report exactly what was sent so a receiver's loss is exact.
 *
 * The loop owns sequence numbers, pacing and accounting; a back end
 * (gen_udp.c: sendmmsg on UDP sockets, gen_packet.c: raw frames on
 * AF_PACKET) only puts a batch on the wire.
 *
 * --threads N runs N such loops, each pinned to its own CPU with its own
 * flows, back end and counts, and sums them at the end. --pingpong
 * (gen_pingpong.c) replaces the train by round trips, one ping at a time.
 */
#include "gen.h"
#include "budget.h"
#include "clock.h"
#include "json.h"
#include "mgmt.h"
#include "opt.h"
#include "out.h"
#include "run.h"
#include "sysctr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const tx_names[] = { "udp", "packet", "udp-gso", NULL };
static const struct gen_tx_ops *const tx_ops[] = { &gen_tx_udp, &gen_tx_packet,
						   &gen_tx_udp_gso };

/*
 * One sender thread: its share of the run, its own back end (sockets),
 * its own result. Thread 0 runs on main's thread, the others are spawned.
 */
struct gen_thread {
	struct gen_cfg cfg;
	const struct gen_tx_ops *ops;
	void *ctx;
	struct gen_result res;
	struct pl_rtt *rtt; /* --pingpong: thread 0's round trips */
	pthread_t tid;
	int err; /* pinning failed: -errno */
};

static volatile sig_atomic_t stop;
static struct gen_thread *threads;
static unsigned nthreads;
/* All threads pinned; all trains sent (end markers only after both). */
static pthread_barrier_t all_pinned, trains_done;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

void gen_fill_payload(void *buf, unsigned len, const struct gen_msg *m)
{
	struct pl_hdr *h = buf;

	pl_build_payload(buf, len, m->flow, m->seq, pl_now_ns());
	if (m->end)
		h->ver_flags |= PL_FLAG_END | (uint8_t)(m->round << 6);
	if (m->ping)
		h->ver_flags |= PL_FLAG_PING;
	if (m->end || m->ping)
		pl_payload_reseal(buf, len);
}

/* The next malformation of the --bad-every train, cycling through all. */
static enum pl_reason next_bad(struct gen_result *res)
{
	enum pl_reason why;

	if (res->bad_next < PL_BAD_ETH_TRUNC)
		res->bad_next = PL_BAD_ETH_TRUNC;
	why = res->bad_next;
	res->bad_next = res->bad_next + 1 < PL_REASON_FRAME_MAX
				? res->bad_next + 1
				: PL_BAD_ETH_TRUNC;
	return why;
}

/* Fill a batch for one flow; every bad_every-th message is malformed. */
static unsigned fill_batch(const struct gen_cfg *c, struct gen_result *res,
			   struct gen_msg *m, unsigned n, uint8_t flow)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		m[i] = (struct gen_msg){ .flow = flow, .bad = PL_OK };
		if (c->bad_every && ++res->bad_k % c->bad_every == 0)
			m[i].bad = next_bad(res);
		else
			m[i].seq = (uint32_t)res->seq[flow]++;
	}
	return n;
}

/* Undo the sequence numbers of messages the back end did not send. */
static void account(struct gen_result *res, const struct gen_msg *m, unsigned n,
		    int sent)
{
	unsigned i, ok = sent > 0 ? (unsigned)sent : 0;

	for (i = 0; i < n; i++) {
		if (i >= ok) {
			if (m[i].bad == PL_OK)
				res->seq[m[i].flow]--;
			continue;
		}
		if (m[i].bad != PL_OK) {
			res->bad[m[i].bad]++;
			res->bad_sent++;
		} else {
			res->sent++;
		}
	}
	/*
	 * A refused send (an error returned, or a short sendmmsg(): the next
	 * message was refused, the error dropped) is sent again: not a loss.
	 * UDP counts it in SndbufErrors when the socket was short of buffer
	 * (ENOBUFS, or any error while it waited for space: an ICMP-refused
	 * send at full speed), so write_json() takes these out of that count.
	 */
	res->enobufs += sent < 0 || (unsigned)sent < n;
	if (sent < 0) {
		res->errors++;
		res->last_errno = -sent;
	}
}

/* Make this thread's counts visible to thread 0's progress line. */
static void publish(struct gen_result *r)
{
	__atomic_store_n(&r->shown[0], r->sent, __ATOMIC_RELAXED);
	__atomic_store_n(&r->shown[1], r->errors, __ATOMIC_RELAXED);
}

/* Print a progress line once a second on long runs: thread 0, all threads. */
static void progress(const struct gen_cfg *c, const struct gen_result *r,
		     uint64_t now, uint64_t *next, uint64_t *last_sent)
{
	uint64_t sent = 0, errors = 0;
	unsigned i;
	double pps;

	if (c->quiet || c->thread || now < *next)
		return;
	for (i = 0; i < nthreads; i++) {
		sent += __atomic_load_n(&threads[i].res.shown[0],
					__ATOMIC_RELAXED);
		errors += __atomic_load_n(&threads[i].res.shown[1],
					  __ATOMIC_RELAXED);
	}
	pps = (double)(sent - *last_sent);
	fprintf(stderr,
		"pathlab-gen: %6.1f s %9.1f kpps %7.3f Gbit/s  sent %llu"
		"  errors %llu\n",
		(double)(now - r->start_ns) / 1e9, pps / 1e3,
		pps * c->frame_bytes * 8 / 1e9, (unsigned long long)sent,
		(unsigned long long)errors);
	*last_sent = sent;
	*next += 1000000000ull;
}

/*
 * Send the train: batches round-robin over this thread's flows, paced when
 * rate is set.
 */
static void send_train(const struct gen_cfg *c, const struct gen_tx_ops *ops,
		       void *ctx, struct gen_result *res)
{
	struct gen_msg m[GEN_MAX_BATCH];
	uint64_t next_report, last_sent = 0, deadline, end_ns = 0;
	unsigned n, flow = c->thread;
	int sent;

	res->start_ns = deadline = pl_now_ns();
	next_report = res->start_ns + 1000000000ull;
	if (c->duration_s > 0)
		end_ns = res->start_ns + (uint64_t)(c->duration_s * 1e9);
	while (!stop && (!c->count || res->sent < c->count)) {
		n = c->batch;
		if (c->count && c->count - res->sent < n)
			n = (unsigned)(c->count - res->sent);
		if (c->rate) {
			pl_wait_until(deadline, GEN_SPIN_NS);
			deadline += (uint64_t)n * 1000000000ull / c->rate;
		}
		fill_batch(c, res, m, n, (uint8_t)flow);
		sent = ops->send(ctx, m, n);
		account(res, m, n, sent);
		res->batches++;
		flow += c->threads;
		if (flow >= c->flows)
			flow = c->thread;
		if (sent < 0 && sent != -ENOBUFS && sent != -EAGAIN &&
		    sent != -EINTR && sent != -ECONNREFUSED &&
		    res->errors > 1000)
			break; /* a persistent error: stop and report it */
		if ((res->batches & 63) == 0) {
			uint64_t now = pl_now_ns();

			publish(res);
			progress(c, res, now, &next_report, &last_sent);
			if (end_ns && now >= end_ns)
				break;
		}
	}
	res->end_ns = pl_now_ns();
	publish(res);
}

/*
 * One end marker, sent again (1 ms apart, a few times) when the socket
 * refuses it. Each refusal is counted with the train's (enobufs): once the
 * sender has waited for buffer space, UDP counts any failed send in
 * SndbufErrors, the ECONNREFUSED of a receiver that has already gone
 * (its port answered an earlier marker with ICMP) included, and the drop
 * report must not take that for a datagram the socket lost. A refused
 * connection is not retried: nobody is listening.
 */
static void end_send(const struct gen_tx_ops *ops, void *ctx, struct gen_msg *m,
		     struct gen_result *res)
{
	struct timespec ms = { .tv_nsec = 1000000L };
	unsigned tries;
	int sent;

	for (tries = 0; tries < 20; tries++) {
		sent = ops->send(ctx, m, 1);
		if (sent == 1) {
			res->end_sent++;
			return;
		}
		res->enobufs++;
		if (sent == -ECONNREFUSED)
			return;
		nanosleep(&ms, NULL);
	}
}

/* End markers per flow of this thread, 20 ms apart: seq carries the count. */
static void send_end(const struct gen_cfg *c, const struct gen_tx_ops *ops,
		     void *ctx, struct gen_result *res)
{
	struct timespec gap = { .tv_nsec = 20000000L };
	struct gen_msg m;
	unsigned round, f;

	for (round = 0; round < PL_END_ROUNDS; round++) {
		for (f = c->thread; f < c->flows; f += c->threads) {
			m = (struct gen_msg){ .flow = (uint8_t)f,
					      .seq = (uint32_t)res->seq[f],
					      .end = true,
					      .round = (uint8_t)round };
			end_send(ops, ctx, &m, res);
		}
		if (round + 1 < PL_END_ROUNDS)
			nanosleep(&gap, NULL);
	}
}

/*
 * One sender thread: pin to its CPU, send its train (or the ping-pong),
 * then, once every thread's train is out, its flows' end markers. The
 * receivers stop at the first end marker they see, so no marker may
 * overtake another thread's data.
 */
static void *sender(void *arg)
{
	struct gen_thread *t = arg;
	unsigned i;
	bool ok = true;

	if (t->res.cpu >= 0)
		t->err = pl_pin_cpu((unsigned)t->res.cpu);
	pthread_barrier_wait(&all_pinned);
	for (i = 0; i < nthreads; i++)
		ok = ok && !threads[i].err;
	if (ok && t->cfg.pingpong)
		gen_pingpong(&t->cfg, t->ops, t->ctx, &t->res, t->rtt, &stop);
	else if (ok)
		send_train(&t->cfg, t->ops, t->ctx, &t->res);
	pthread_barrier_wait(&trains_done);
	if (ok && !t->cfg.no_end)
		send_end(&t->cfg, t->ops, t->ctx, &t->res);
	return NULL;
}

/*
 * Cut the run into the threads' shares: count and rate exactly (the
 * remainders to the first threads), flows by f % threads; thread t runs
 * on CPU (--cpu + t) mod ncpu, or t when --cpu is not given and there is
 * more than one thread.
 */
static void split_run(const struct gen_cfg *c, unsigned ncpu)
{
	unsigned t, n = c->threads;

	for (t = 0; t < n; t++) {
		struct gen_thread *g = &threads[t];

		g->cfg = *c;
		g->cfg.thread = t;
		g->cfg.count = c->count / n + (t < c->count % n);
		g->cfg.rate = c->rate / n + (t < c->rate % n);
		g->ops = tx_ops[c->tx];
		if (c->cpu >= 0) /* --cpu as given for one thread */
			g->res.cpu =
				n > 1 ? (int)(((unsigned)c->cpu + t) % ncpu)
				      : c->cpu;
		else
			g->res.cpu = n > 1 ? (int)(t % ncpu) : -1;
	}
}

/* Open every thread's back end; on failure close the ones opened. */
static int open_all(void)
{
	unsigned t;
	int err;

	for (t = 0; t < nthreads; t++) {
		err = threads[t].ops->open(&threads[t].cfg, &threads[t].ctx);
		if (err) {
			while (t--)
				threads[t].ops->close(threads[t].ctx);
			return err;
		}
	}
	return 0;
}

/*
 * Run all sender threads (thread 0 on this one) and wait for them.
 * Returns 0, or -errno when a thread could not be pinned (reported).
 */
static int run_threads(void)
{
	unsigned t, started = 1;
	int err = 0;

	pthread_barrier_init(&all_pinned, NULL, nthreads);
	pthread_barrier_init(&trains_done, NULL, nthreads);
	for (t = 1; t < nthreads; t++) {
		err = -pthread_create(&threads[t].tid, NULL, sender,
				      &threads[t]);
		if (err)
			break;
		started++;
	}
	if (err) {
		/* The barriers expect every thread: too few would hang. */
		fprintf(stderr, "pathlab-gen: starting thread %u: %s\n", t,
			strerror(-err));
		exit(PL_EXIT_FAIL);
	}
	sender(&threads[0]);
	for (t = 1; t < started; t++)
		pthread_join(threads[t].tid, NULL);
	pthread_barrier_destroy(&all_pinned);
	pthread_barrier_destroy(&trains_done);
	for (t = 0; t < nthreads; t++) {
		if (!threads[t].err)
			continue;
		fprintf(stderr,
			"pathlab-gen: thread %u: pinning to CPU %d: %s\n", t,
			threads[t].res.cpu, strerror(-threads[t].err));
		err = threads[t].err;
	}
	return err;
}

/* Sum the threads' results into tot (the run's totals). */
static void sum_threads(struct gen_result *tot)
{
	const struct gen_result *r;
	unsigned t, i;

	for (t = 0; t < nthreads; t++) {
		r = &threads[t].res;
		tot->sent += r->sent;
		tot->errors += r->errors;
		tot->enobufs += r->enobufs;
		tot->batches += r->batches;
		tot->bad_sent += r->bad_sent;
		tot->end_sent += r->end_sent;
		for (i = 0; i < PL_REASON_MAX; i++)
			tot->bad[i] += r->bad[i];
		if (r->last_errno)
			tot->last_errno = r->last_errno;
		if (!t || r->start_ns < tot->start_ns)
			tot->start_ns = r->start_ns;
		if (r->end_ns > tot->end_ns)
			tot->end_ns = r->end_ns;
	}
}

/* The threads' part of the JSON: how many, and what each one sent. */
static void write_threads(struct pl_json *j)
{
	const struct gen_thread *g;
	unsigned t, f, flows;

	pl_json_u64(j, "threads", nthreads);
	pl_json_arr(j, "per_thread");
	for (t = 0; t < nthreads; t++) {
		g = &threads[t];
		for (f = 0, flows = 0; f < g->cfg.flows; f++)
			flows += gen_flow_mine(&g->cfg, f);
		pl_json_obj(j, NULL);
		pl_json_u64(j, "thread", t);
		pl_json_i64(j, "cpu", g->res.cpu);
		pl_json_u64(j, "sent", g->res.sent);
		pl_json_u64(j, "send_errors", g->res.errors);
		pl_json_u64(j, "end_markers_sent", g->res.end_sent);
		pl_json_u64(j, "flows", flows);
		pl_json_end(j);
	}
	pl_json_endarr(j);
}

/*
 * The datagrams the sending link dropped after a successful send. A packet
 * socket hears of a drop on veth (NET_XMIT_DROP becomes ENOBUFS) and the
 * frame is sent again: the link counted those refusals too, and they are
 * not lost. UDP never hears of one (it counts it in SndbufErrors).
 */
static uint64_t link_dropped_after_send(const struct gen_cfg *c,
					const struct gen_result *r,
					const struct pl_sysctr *d)
{
	uint64_t refused = c->tx == GEN_TX_PACKET ? r->enobufs : 0;

	return d->link_tx_dropped > refused ? d->link_tx_dropped - refused : 0;
}

/* The generator's JSON: what it sent, and what its side of the link lost. */
static void write_json(FILE *f, const struct gen_cfg *c,
		       const struct gen_result *r, const struct pl_rtt *rtt)
{
	struct pl_sysctr d;
	struct pl_json j;
	double secs = (double)(r->end_ns - r->start_ns) / 1e9;
	double pps = secs > 0 ? (double)r->sent / secs : 0;
	unsigned i;

	pl_sysctr_delta(&r->before, &r->after, &d);
	pl_json_init(&j, f, true);
	pl_json_obj(&j, NULL);
	pl_json_str(&j, "tool", "pathlab-gen");
	pl_json_str(&j, "tx", tx_names[c->tx]);
	pl_json_str(&j, "dst", c->dst);
	pl_json_u64(&j, "port", c->port);
	pl_json_u64(&j, "flows", c->flows);
	pl_json_u64(&j, "batch", c->batch);
	pl_json_u64(&j, "frame_bytes", c->frame_bytes);
	pl_json_u64(&j, "payload_bytes", c->payload_bytes);
	pl_json_u64(&j, "rate_target_pps", c->rate);
	pl_json_u64(&j, "count_requested", c->count);
	pl_json_u64(&j, "sent", r->sent);
	pl_json_u64(&j, "send_errors", r->errors);
	pl_json_str(&j, "last_error",
		    r->last_errno ? strerror(r->last_errno) : "");
	pl_json_u64(&j, "bad_sent", r->bad_sent);
	pl_json_obj(&j, "bad_sent_by_reason");
	for (i = PL_BAD_ETH_TRUNC; i < PL_REASON_MAX; i++)
		pl_json_u64(&j, pl_reason_name(i), r->bad[i]);
	pl_json_end(&j);
	pl_json_u64(&j, "end_markers_sent", r->end_sent);
	write_threads(&j);
	if (rtt)
		pl_rtt_json(
			&j, rtt,
			"whole round trip on the sender's clock (ping sent to "
			"reflection read); sockperf and perftest report half "
			"of it as latency");
	pl_json_dbl(&j, "duration_s", secs);
	pl_json_dbl(&j, "pps", pps);
	pl_json_dbl(&j, "gbps", pps * c->frame_bytes * 8 / 1e9);
	/*
	 * Losses on the sender's side after sendmmsg() reported success. A
	 * device that drops a datagram on transmit (veth, its peer's NAPI
	 * ring full) returns NET_XMIT_DROP, which UDP counts in SndbufErrors
	 * too, as it does a send that returned ENOBUFS (sent again, so not
	 * lost): the socket's own share is what those do not explain, so no
	 * datagram is attributed twice. counters has both raw counts.
	 */
	pl_json_obj(&j, "drops");
	pl_json_u64(&j, "tx_udp_sndbuf_errors",
		    d.udp_sndbuf_errors > d.link_tx_dropped + r->enobufs
			    ? d.udp_sndbuf_errors - d.link_tx_dropped -
				      r->enobufs
			    : 0);
	pl_json_u64(&j, "tx_link_dropped", link_dropped_after_send(c, r, &d));
	pl_json_end(&j);
	pl_json_obj(&j, "counters");
	pl_json_u64(&j, "udp_sndbuf_errors", d.udp_sndbuf_errors);
	pl_json_u64(&j, "udp_out_datagrams", d.udp_out_datagrams);
	pl_json_u64(&j, "link_tx_packets", d.link_tx_packets);
	pl_json_u64(&j, "link_tx_dropped", d.link_tx_dropped);
	pl_json_end(&j);
	pl_json_obj(&j, "cpu");
	pl_json_dbl(&j, "user_s", d.self_user_s);
	pl_json_dbl(&j, "sys_s", d.self_sys_s);
	pl_json_dbl(&j, "run_s", (double)d.self_run_ns / 1e9);
	pl_json_dbl(&j, "all_busy_s", pl_sysctr_busy_s(&d));
	pl_json_end(&j);
	pl_json_end(&j);
	pl_json_done(&j);
}

/* --threads: defaults and limits; a one-line error and -EINVAL. */
static int check_threads(struct gen_cfg *c)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (!c->flows)
		c->flows = c->threads;
	if (c->flows < c->threads) {
		fprintf(stderr,
			"pathlab-gen: --flows %u is less than --threads %u "
			"(each thread sends flows of its own)\n",
			c->flows, c->threads);
		return -EINVAL;
	}
	if (c->count && c->count < c->threads) {
		fprintf(stderr,
			"pathlab-gen: --count %llu is less than --threads %u\n",
			(unsigned long long)c->count, c->threads);
		return -EINVAL;
	}
	if (c->rate && c->rate < c->threads) {
		fprintf(stderr,
			"pathlab-gen: --rate %llu is less than --threads %u "
			"(the rate is shared by the threads)\n",
			(unsigned long long)c->rate, c->threads);
		return -EINVAL;
	}
	if (c->threads > 1 && c->cpu >= 0 && ncpu > 0 && c->cpu >= ncpu) {
		fprintf(stderr,
			"pathlab-gen: --cpu %d with --threads: only %ld CPUs "
			"online\n",
			c->cpu, ncpu);
		return -EINVAL;
	}
	return 0;
}

/* --pingpong: UDP only, one thread, a warm-up shorter than the run. */
static int check_pingpong(struct gen_cfg *c)
{
	if (c->tx != GEN_TX_UDP) {
		fprintf(stderr, "pathlab-gen: --pingpong needs --tx udp\n");
		return -EINVAL;
	}
	if (c->threads > 1) {
		fprintf(stderr, "pathlab-gen: --pingpong runs one thread "
				"(--threads 1)\n");
		return -EINVAL;
	}
	if (!c->flows)
		c->flows = 1;
	if (c->warmup == UINT_MAX) /* 100, or a tenth of a short run */
		c->warmup = c->count && c->count < 1000
				    ? (unsigned)c->count / 10
				    : 100;
	if (c->count && c->warmup >= c->count) {
		fprintf(stderr,
			"pathlab-gen: --warmup %u leaves nothing of --count "
			"%llu to measure\n",
			c->warmup, (unsigned long long)c->count);
		return -EINVAL;
	}
	c->batch = 1;
	return 0;
}

/* Resolve sizes and defaults; a one-line error and -EINVAL when invalid. */
static int check_cfg(struct gen_cfg *c, unsigned size, unsigned payload)
{
	struct in_addr addr;
	int err;

	if (size && payload) {
		fprintf(stderr, "pathlab-gen: --size and --payload exclude "
				"each other\n");
		return -EINVAL;
	}
	if (payload) {
		c->payload_bytes = payload;
		c->frame_bytes = pl_frame_for_payload(payload, false);
	} else {
		c->frame_bytes = size ? size : PL_MIN_FRAME;
		c->payload_bytes = pl_payload_for_frame(c->frame_bytes, false);
	}
	if (c->payload_bytes < PL_HDR_LEN || c->frame_bytes > 1518) {
		fprintf(stderr,
			"pathlab-gen: frame of %u bytes: the lab sends "
			"64..1518 (payload %d..1472)\n",
			c->frame_bytes, PL_HDR_LEN);
		return -EINVAL;
	}
	if (!c->count && c->duration_s <= 0) {
		fprintf(stderr, "pathlab-gen: --count 0 needs --duration\n");
		return -EINVAL;
	}
	if (inet_pton(AF_INET, c->dst, &addr) != 1) {
		fprintf(stderr,
			"pathlab-gen: --dst: '%s' is not an IPv4 address\n",
			c->dst);
		return -EINVAL;
	}
	if (c->tx == GEN_TX_PACKET && !c->iface) {
		fprintf(stderr, "pathlab-gen: --tx packet needs --iface (the "
				"interface its frames leave by)\n");
		return -EINVAL;
	}
	if (c->bad_every && c->tx != GEN_TX_PACKET) {
		fprintf(stderr, "pathlab-gen: --bad-every needs --tx packet\n");
		return -EINVAL;
	}
	if (!c->batch)
		c->batch = c->rate ? 1 : 64;
	err = c->pingpong ? check_pingpong(c) : check_threads(c);
	/* Flow i sends from src_port + i: no wrap to port 0 (any port). */
	if (!err && c->src_port + c->flows - 1 > 65535) {
		fprintf(stderr,
			"pathlab-gen: --src-port %u with %u flows runs past "
			"port 65535\n",
			c->src_port, c->flows);
		return -EINVAL;
	}
	return err;
}

/* Print the one-line summary of the run on stderr. */
static void print_summary(const struct gen_cfg *c, const struct gen_result *r,
			  const struct pl_rtt *rtt)
{
	struct pl_sysctr d;

	if (c->quiet)
		return;
	pl_sysctr_delta(&r->before, &r->after, &d);
	fprintf(stderr,
		"pathlab-gen: sent %llu datagrams of %u B "
		"frames in %.3f s, %llu send errors%s%s\n",
		(unsigned long long)r->sent, c->frame_bytes,
		(double)(r->end_ns - r->start_ns) / 1e9,
		(unsigned long long)r->errors, r->last_errno ? ", last: " : "",
		r->last_errno ? strerror(r->last_errno) : "");
	/*
	 * A send that returned success can still be dropped by the sending
	 * link (veth: its peer's ring was full). The receiver cannot count
	 * those: its "unattributed" holds them when it runs on its own.
	 */
	if (link_dropped_after_send(c, r, &d))
		fprintf(stderr,
			"pathlab-gen: %llu of them dropped by the sending link "
			"after the send (TX dropped): a receiver run on its "
			"own counts them as unattributed\n",
			(unsigned long long)link_dropped_after_send(c, r, &d));
	if (rtt)
		pl_rtt_print(stderr, "pathlab-gen", rtt);
}

/* Write the JSON summary to path (- = stdout), all or nothing; PL_EXIT_* */
static int save_json(const char *path, const struct gen_cfg *c,
		     const struct gen_result *r, const struct pl_rtt *rtt)
{
	struct pl_out o;
	int err = pl_out_open(&o, path);

	if (!err) {
		write_json(o.f, c, r, rtt);
		err = pl_out_close(&o);
	}
	if (err)
		pl_out_error("pathlab-gen", "--json", path, err);
	return err ? PL_EXIT_FAIL : PL_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct gen_cfg c = { .dst = "198.18.0.2",
			     .port = PL_UDP_PORT,
			     .src_port = 10000,
			     .count = 100000,
			     .cpu = -1,
			     .threads = 1,
			     .warmup = UINT_MAX,
			     .reply_timeout_ms = 100 };
	const char *json = NULL;
	unsigned size = 0, payload = 0, cpu = UINT_MAX, t;
	struct gen_result res = { 0 };
	struct pl_rtt *rtt = NULL;
	long ncpu;
	int err;
	const struct pl_opt opts[] = {
		{ "dst", PL_OPT_STR, &c.dst, "ADDR",
		  "receiver IPv4 address (198.18.0.2)" },
		{ "port", PL_OPT_U32, &c.port, "N", "UDP port (9000)", 1,
		  65535 },
		{ "src-port", PL_OPT_U32, &c.src_port, "N",
		  "first source port; flow i uses N+i (10000)", 1, 65535 },
		{ "size", PL_OPT_U32, &size, "BYTES",
		  "Ethernet frame size incl. FCS (64)", 64, 1518 },
		{ "payload", PL_OPT_U32, &payload, "BYTES",
		  "UDP payload size instead of --size", PL_HDR_LEN, 1472 },
		{ "count", PL_OPT_U64, &c.count, "N",
		  "datagrams (pings) to send in all, 0 = until --duration "
		  "(100000)" },
		{ "duration", PL_OPT_DOUBLE, &c.duration_s, "S",
		  "stop after S seconds" },
		{ "rate", PL_OPT_U64, &c.rate, "PPS",
		  "datagrams (pings) per second in all, paced; 0 = as fast as "
		  "possible" },
		{ "batch", PL_OPT_U32, &c.batch, "N",
		  "datagrams per sendmmsg (64; 1 when paced)", 1,
		  GEN_MAX_BATCH },
		{ "flows", PL_OPT_U32, &c.flows, "N",
		  "flows (source ports) to spread over (1; --threads N: N)", 1,
		  GEN_MAX_FLOWS },
		{ "threads", PL_OPT_U32, &c.threads, "N",
		  "sender threads; thread t sends flows f % N == t, on CPU "
		  "(--cpu + t) mod CPUs (1)",
		  1, GEN_MAX_THREADS },
		{ "tx", PL_OPT_CHOICE, &c.tx, "MODE", "transmit through", 0, 0,
		  tx_names },
		{ "iface", PL_OPT_IFACE, &c.iface, "IF",
		  "sending interface: counters, and --tx packet" },
		{ "allow-routed", PL_OPT_FLAG, &c.allow_routed, NULL,
		  "send to a --dst reached through the default route too "
		  "(refused: it leaves this network)" },
		{ "allow-mgmt-lan", PL_OPT_FLAG, &c.allow_mgmt_lan, NULL,
		  "send out of the management interface too, to its gateway "
		  "or LAN (refused: the hosts you reach this one through)" },
		{ "allow-multicast", PL_OPT_FLAG, &c.allow_multicast, NULL,
		  "send to a multicast or broadcast --dst (refused: every "
		  "host on the link receives it)" },
		{ "bad-every", PL_OPT_U32, &c.bad_every, "N",
		  "with --tx packet, every Nth frame is malformed", 2,
		  1000000 },
		PL_RTT_OPTS(&c.pingpong, &c.warmup, &c.reply_timeout_ms,
			    " (--tx udp)"),
		{ "cpu", PL_OPT_U32, &cpu, "N",
		  "pin to this CPU (thread t: N + t)", 0, 4095 },
		{ "no-end", PL_OPT_FLAG, &c.no_end, NULL,
		  "send no end-of-train markers" },
		{ "json", PL_OPT_OUT, &json, "FILE",
		  "write the JSON summary to FILE (- = stdout)" },
		{ "quiet", PL_OPT_FLAG, &c.quiet, NULL, "no progress lines" },
		{ 0 }
	};

	err = pl_opt_parse(argc, argv, opts, "[options]", NULL);
	if (err)
		return err == PL_OPT_HELP ? PL_EXIT_OK : PL_EXIT_USAGE;
	c.cpu = cpu == UINT_MAX ? -1 : (int)cpu;
	if (check_cfg(&c, size, payload))
		return PL_EXIT_USAGE;
	/* --tx packet leaves by --iface; the others wherever routes say */
	if (pl_mgmt_refuse_dst(
		    "pathlab-gen", c.dst,
		    c.tx == GEN_TX_PACKET ? c.iface : NULL,
		    (c.allow_routed ? PL_ALLOW_ROUTED : 0) |
			    (c.allow_mgmt_lan ? PL_ALLOW_MGMT_LAN : 0) |
			    (c.allow_multicast ? PL_ALLOW_MULTICAST : 0)))
		return PL_EXIT_USAGE;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	nthreads = c.threads;
	threads = calloc(nthreads, sizeof(*threads));
	if (c.pingpong)
		rtt = calloc(1, sizeof(*rtt));
	if (!threads || (c.pingpong && !rtt)) {
		perror("pathlab-gen");
		return PL_EXIT_FAIL;
	}
	split_run(&c, ncpu > 0 ? (unsigned)ncpu : 1);
	threads[0].rtt = rtt;
	err = open_all();
	if (err == -EHOSTUNREACH && c.tx == GEN_TX_PACKET) {
		fprintf(stderr,
			"pathlab-gen: --dst %s: no neighbour entry on %s, so "
			"no "
			"MAC address to send to (ip neigh replace %s lladdr "
			"MAC dev %s)\n",
			c.dst, c.iface, c.dst, c.iface);
		return PL_EXIT_USAGE;
	}
	if (err) {
		fprintf(stderr, "pathlab-gen: %s to %s on %s: %s\n",
			tx_ops[c.tx]->name, c.dst,
			c.iface ? c.iface : "any interface", strerror(-err));
		return err == -EINVAL ? PL_EXIT_USAGE : PL_EXIT_FAIL;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	pl_sysctr_read(&res.before, c.iface);
	err = run_threads();
	pl_sysctr_read(&res.after, c.iface);
	for (t = 0; t < nthreads; t++)
		threads[t].ops->close(threads[t].ctx);
	if (err)
		return PL_EXIT_FAIL;
	sum_threads(&res);
	print_summary(&c, &res, rtt);
	if (json && save_json(json, &c, &res, rtt))
		return PL_EXIT_FAIL;
	if (rtt && res.sent && !rtt->hist.count) {
		fprintf(stderr, "pathlab-gen: no ping was answered: is the "
				"receiver reflecting?\n");
		return PL_EXIT_FAIL;
	}
	return res.sent || !c.count ? PL_EXIT_OK : PL_EXIT_FAIL;
}
