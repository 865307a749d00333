/* SPDX-License-Identifier: MIT */
/*
 * pathlab-gen: send pathlab UDP datagrams, as fast as possible or paced,
 * and report exactly what was sent so a receiver's loss is exact.
 *
 * The loop owns sequence numbers, pacing and accounting; a back end
 * (gen_udp.c: sendmmsg on UDP sockets, gen_packet.c: raw frames on
 * AF_PACKET) only puts a batch on the wire.
 */
#include "gen.h"
#include "budget.h"
#include "clock.h"
#include "json.h"
#include "opt.h"
#include "run.h"
#include "sysctr.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define SPIN_NS 50000 /* paced mode: sleep until this close, then spin */

static const char *const tx_names[] = { "udp", "packet", "udp-gso", NULL };
static const struct gen_tx_ops *const tx_ops[] = { &gen_tx_udp, &gen_tx_packet,
						   &gen_tx_udp_gso };

struct gen_result {
	uint64_t sent, errors, batches, bad_sent, end_sent;
	uint64_t bad[PL_REASON_MAX];
	uint64_t seq[GEN_MAX_FLOWS];
	uint64_t start_ns, end_ns;
	int last_errno;
	struct pl_sysctr before, after;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

void gen_fill_payload(void *buf, unsigned len, const struct gen_msg *m)
{
	struct pl_hdr *h = buf;

	pl_build_payload(buf, len, m->flow, m->seq, pl_now_ns());
	if (m->end) {
		h->ver_flags |= PL_FLAG_END | (uint8_t)(m->round << 6);
		pl_payload_reseal(buf, len);
	}
}

/* The next malformation of the --bad-every train, cycling through all. */
static enum pl_reason next_bad(void)
{
	static unsigned r = PL_BAD_ETH_TRUNC;
	enum pl_reason why = r;

	r = r + 1 < PL_REASON_MAX ? r + 1 : PL_BAD_ETH_TRUNC;
	return why;
}

/* Fill a batch for one flow; every bad_every-th message is malformed. */
static unsigned fill_batch(const struct gen_cfg *c, struct gen_result *res,
			   struct gen_msg *m, unsigned n, uint8_t flow)
{
	static uint64_t k;
	unsigned i;

	for (i = 0; i < n; i++) {
		m[i] = (struct gen_msg){ .flow = flow, .bad = PL_OK };
		if (c->bad_every && ++k % c->bad_every == 0)
			m[i].bad = next_bad();
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
	if (sent < 0) {
		res->errors++;
		res->last_errno = -sent;
	}
}

/* Print a progress line once a second on long runs. */
static void progress(const struct gen_cfg *c, const struct gen_result *r,
		     uint64_t now, uint64_t *next, uint64_t *last_sent)
{
	double pps = (double)(r->sent - *last_sent);

	if (c->quiet || now < *next)
		return;
	fprintf(stderr,
		"pathlab-gen: %6.1f s %9.1f kpps %7.3f Gbit/s  sent %llu"
		"  errors %llu\n",
		(double)(now - r->start_ns) / 1e9, pps / 1e3,
		pps * c->frame_bytes * 8 / 1e9, (unsigned long long)r->sent,
		(unsigned long long)r->errors);
	*last_sent = r->sent;
	*next += 1000000000ull;
}

/* Send the train: batches round-robin over flows, paced when rate is set. */
static void send_train(const struct gen_cfg *c, const struct gen_tx_ops *ops,
		       void *ctx, struct gen_result *res)
{
	struct gen_msg m[GEN_MAX_BATCH];
	uint64_t total = 0, next_report, last_sent = 0, deadline, end_ns = 0;
	unsigned n, flow = 0;
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
			pl_wait_until(deadline, SPIN_NS);
			deadline += (uint64_t)n * 1000000000ull / c->rate;
		}
		fill_batch(c, res, m, n, (uint8_t)flow);
		sent = ops->send(ctx, m, n);
		account(res, m, n, sent);
		res->batches++;
		total += n;
		flow = (flow + 1) % c->flows;
		if (sent < 0 && sent != -ENOBUFS && sent != -EAGAIN &&
		    sent != -EINTR && sent != -ECONNREFUSED &&
		    res->errors > 1000)
			break; /* a persistent error: stop and report it */
		if ((res->batches & 63) == 0) {
			uint64_t now = pl_now_ns();

			progress(c, res, now, &next_report, &last_sent);
			if (end_ns && now >= end_ns)
				break;
		}
	}
	res->end_ns = pl_now_ns();
}

/* End markers per flow, 20 ms apart: seq carries the count sent. */
static void send_end(const struct gen_cfg *c, const struct gen_tx_ops *ops,
		     void *ctx, struct gen_result *res)
{
	struct timespec gap = { .tv_nsec = 20000000L };
	struct gen_msg m;
	unsigned round, f;

	for (round = 0; round < PL_END_ROUNDS; round++) {
		for (f = 0; f < c->flows; f++) {
			m = (struct gen_msg){ .flow = (uint8_t)f,
					      .seq = (uint32_t)res->seq[f],
					      .end = true,
					      .round = (uint8_t)round };
			if (ops->send(ctx, &m, 1) == 1)
				res->end_sent++;
		}
		if (round + 1 < PL_END_ROUNDS)
			nanosleep(&gap, NULL);
	}
}

/* The generator's JSON: what it sent, and what its side of the link lost. */
static void write_json(FILE *f, const struct gen_cfg *c,
		       const struct gen_result *r)
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
	pl_json_dbl(&j, "duration_s", secs);
	pl_json_dbl(&j, "pps", pps);
	pl_json_dbl(&j, "gbps", pps * c->frame_bytes * 8 / 1e9);
	/* Losses on the sender's side after sendmmsg() reported success. */
	pl_json_obj(&j, "drops");
	pl_json_u64(&j, "tx_udp_sndbuf_errors", d.udp_sndbuf_errors);
	pl_json_u64(&j, "tx_link_dropped", d.link_tx_dropped);
	pl_json_end(&j);
	pl_json_obj(&j, "counters");
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

/* Resolve sizes and defaults; a one-line error and -EINVAL when invalid. */
static int check_cfg(struct gen_cfg *c, unsigned size, unsigned payload)
{
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
	if (c->bad_every && c->tx != GEN_TX_PACKET) {
		fprintf(stderr, "pathlab-gen: --bad-every needs --tx packet\n");
		return -EINVAL;
	}
	if (!c->batch)
		c->batch = c->rate ? 1 : 64;
	return 0;
}

int main(int argc, char **argv)
{
	struct gen_cfg c = { .dst = "198.18.0.2",
			     .port = PL_UDP_PORT,
			     .src_port = 10000,
			     .flows = 1,
			     .count = 100000,
			     .cpu = -1 };
	const char *json = NULL;
	unsigned size = 0, payload = 0, cpu = UINT_MAX;
	struct gen_result res = { 0 };
	const struct gen_tx_ops *ops;
	void *ctx;
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
		  "datagrams to send, 0 = until --duration (100000)" },
		{ "duration", PL_OPT_DOUBLE, &c.duration_s, "S",
		  "stop after S seconds" },
		{ "rate", PL_OPT_U64, &c.rate, "PPS",
		  "datagrams per second, paced; 0 = as fast as possible" },
		{ "batch", PL_OPT_U32, &c.batch, "N",
		  "datagrams per sendmmsg (64; 1 when paced)", 1,
		  GEN_MAX_BATCH },
		{ "flows", PL_OPT_U32, &c.flows, "N",
		  "flows (source ports) to spread over (1)", 1, GEN_MAX_FLOWS },
		{ "tx", PL_OPT_CHOICE, &c.tx, "MODE", "transmit through", 0, 0,
		  tx_names },
		{ "iface", PL_OPT_STR, &c.iface, "IF",
		  "sending interface: counters, and --tx packet" },
		{ "bad-every", PL_OPT_U32, &c.bad_every, "N",
		  "with --tx packet, every Nth frame is malformed", 2,
		  1000000 },
		{ "cpu", PL_OPT_U32, &cpu, "N", "pin to this CPU", 0, 4095 },
		{ "no-end", PL_OPT_FLAG, &c.no_end, NULL,
		  "send no end-of-train markers" },
		{ "json", PL_OPT_STR, &json, "FILE",
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
	ops = tx_ops[c.tx];
	err = c.cpu >= 0 ? pl_pin_cpu((unsigned)c.cpu) : 0;
	if (!err)
		err = ops->open(&c, &ctx);
	if (err) {
		fprintf(stderr, "pathlab-gen: %s to %s on %s: %s\n", ops->name,
			c.dst, c.iface ? c.iface : "any interface",
			strerror(-err));
		return err == -EINVAL ? PL_EXIT_USAGE : PL_EXIT_FAIL;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	pl_sysctr_read(&res.before, c.iface);
	send_train(&c, ops, ctx, &res);
	if (!c.no_end)
		send_end(&c, ops, ctx, &res);
	pl_sysctr_read(&res.after, c.iface);
	ops->close(ctx);
	if (!c.quiet)
		fprintf(stderr,
			"pathlab-gen: sent %llu datagrams of %u B "
			"frames in %.3f s, %llu send errors%s%s\n",
			(unsigned long long)res.sent, c.frame_bytes,
			(double)(res.end_ns - res.start_ns) / 1e9,
			(unsigned long long)res.errors,
			res.last_errno ? ", last: " : "",
			res.last_errno ? strerror(res.last_errno) : "");
	if (json) {
		FILE *f = strcmp(json, "-") ? fopen(json, "w") : stdout;

		if (!f) {
			perror(json);
			return PL_EXIT_FAIL;
		}
		write_json(f, &c, &res);
		if (f != stdout)
			fclose(f);
	}
	return res.sent || !c.count ? PL_EXIT_OK : PL_EXIT_FAIL;
}
