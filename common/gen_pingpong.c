/* SPDX-License-Identifier: MIT */
/*
 * pathlab-gen --pingpong: the sender side of the round-trip workload.
 *
 * One ping at a time: send a datagram flagged PL_FLAG_PING, wait for the
 * receiver (in reflect mode) to send the same payload back to our address
 * and port, take the round trip on our own clock, then send the next. The
 * TX stamp travels in the payload and comes back, so both ends of the
 * measurement are stamps of this process: no two clocks are compared.
 *
 * sockperf and perftest report half of the round trip as "latency"; we
 * report the whole round trip and say so in the JSON.
 *
 * As in sockperf's ping-pong, the start of the run is a warm-up that is
 * not measured (cold caches, the first wake-ups of both sides): --warmup
 * pings. A ping without a reply within --reply-timeout is lost and the
 * next one goes; a reply that turns up later is counted late, apart from
 * replies that match no ping of ours at all (mismatched).
 */
#include "gen.h"
#include "clock.h"
#include "json.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>

/* What became of one ping. */
/* The ping in flight: what its reflection must carry. */
struct ping {
	uint8_t flow;
	uint32_t seq;
	uint64_t t0, t1; /* before and after the send: our stamp is between */
};

/*
 * Classify a datagram read while p is in flight. True for p's reply (its
 * TX stamp in *tx_ns); otherwise counted as late or mismatched.
 */
static bool is_reply(const void *buf, size_t len, const struct ping *p,
		     struct pl_rtt *r, uint64_t *tx_ns)
{
	struct pl_pkt pkt;

	if (pl_parse_payload(buf, len, &pkt) != PL_OK ||
	    !(pkt.flags & PL_FLAG_PING) || pkt.flow != p->flow) {
		r->mismatched++;
		return false;
	}
	if (pkt.seq == p->seq && pkt.tx_ns >= p->t0 && pkt.tx_ns <= p->t1) {
		*tx_ns = pkt.tx_ns;
		return true;
	}
	if ((int32_t)(p->seq - pkt.seq) > 0)
		r->late++; /* an earlier ping's reply, after its timeout */
	else
		r->mismatched++;
	return false;
}

/* Sleep in poll() until fd is readable or deadline; false when it passed. */
static bool wait_readable(int fd, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t now = pl_now_ns(), left;
	struct timespec ts;

	if (now >= deadline)
		return false;
	left = deadline - now;
	ts.tv_sec = (time_t)(left / 1000000000ull);
	ts.tv_nsec = (long)(left % 1000000000ull);
	ppoll(&pfd, 1, &ts, NULL); /* EINTR: the caller looks at stop */
	return true;
}

/* Wait until deadline for p's reply on fd; its round trip in *rtt_ns. */
static enum pl_pong await_reply(int fd, const struct ping *p, uint64_t deadline,
				struct pl_rtt *r, uint64_t *rtt_ns,
				volatile sig_atomic_t *stop)
{
	uint8_t buf[PL_MAX_FRAME];
	uint64_t t_rx, tx_ns;
	ssize_t len;

	while (!*stop) {
		len = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		t_rx = pl_now_ns();
		if (len >= 0 && is_reply(buf, (size_t)len, p, r, &tx_ns)) {
			*rtt_ns = t_rx - tx_ns;
			return PL_PONG_OK;
		}
		if (len < 0 && errno != EAGAIN && errno != EINTR)
			r->recv_errors++; /* ECONNREFUSED: nobody reflects */
		if (len < 0 && errno == EAGAIN && !wait_readable(fd, deadline))
			return PL_PONG_TIMEOUT;
		if (len >= 0 && t_rx >= deadline)
			return PL_PONG_TIMEOUT;
	}
	return PL_PONG_STOPPED;
}

/* A progress line once a second on long runs. */
static void pp_progress(const struct gen_cfg *c, const struct gen_result *res,
			const struct pl_rtt *r, uint64_t now, uint64_t *next)
{
	if (c->quiet || now < *next)
		return;
	fprintf(stderr,
		"pathlab-gen: %6.1f s  pings %llu  rtt p50 %.1f us  p99 "
		"%.1f us  timeouts %llu\n",
		(double)(now - res->start_ns) / 1e9,
		(unsigned long long)res->sent,
		(double)pl_hist_percentile(&r->hist, 50) / 1e3,
		(double)pl_hist_percentile(&r->hist, 99) / 1e3,
		(unsigned long long)r->timeouts);
	*next += 1000000000ull;
}

/* Send one ping on flow; fills p. Returns what the back end returned. */
static int send_ping(const struct gen_tx_ops *ops, void *ctx,
		     struct gen_result *res, unsigned flow, struct ping *p)
{
	struct gen_msg m = { .flow = (uint8_t)flow,
			     .seq = (uint32_t)res->seq[flow],
			     .ping = true };
	int sent;

	*p = (struct ping){ .flow = m.flow, .seq = m.seq };
	p->t0 = pl_now_ns();
	sent = ops->send(ctx, &m, 1);
	p->t1 = pl_now_ns();
	if (sent == 1) {
		res->sent++;
		res->seq[flow]++;
	} else {
		res->errors++;
		res->last_errno = sent < 0 ? -sent : EAGAIN;
	}
	res->batches++;
	return sent;
}

void gen_pingpong(const struct gen_cfg *c, const struct gen_tx_ops *ops,
		  void *ctx, struct gen_result *res, struct pl_rtt *rtt,
		  volatile sig_atomic_t *stop)
{
	uint64_t period = c->rate ? 1000000000ull / c->rate : 0;
	uint64_t timeout = (uint64_t)c->reply_timeout_ms * 1000000ull;
	uint64_t deadline, end_ns = 0, next_report, now, rtt_ns = 0, k;
	unsigned flow = 0;
	struct ping p;
	enum pl_pong got;

	pl_hist_init(&rtt->hist);
	res->start_ns = deadline = pl_now_ns();
	next_report = res->start_ns + 1000000000ull;
	if (c->duration_s > 0)
		end_ns = res->start_ns + (uint64_t)(c->duration_s * 1e9);
	while (!*stop && (!c->count || res->sent < c->count)) {
		if (period) {
			pl_wait_until(deadline, GEN_SPIN_NS);
			deadline += period;
		}
		k = res->sent; /* this ping's number */
		if (send_ping(ops, ctx, res, flow, &p) != 1) {
			if (res->errors > 1000)
				break; /* a persistent error: report it */
			continue;
		}
		got = await_reply(gen_udp_fd(ctx, flow), &p, p.t1 + timeout,
				  rtt, &rtt_ns, stop);
		pl_rtt_account(rtt, k < c->warmup, got, rtt_ns);
		flow = (flow + 1) % c->flows;
		now = pl_now_ns();
		if (deadline < now)
			deadline = now; /* behind (a slow reply): no burst */
		pp_progress(c, res, rtt, now, &next_report);
		if (end_ns && now >= end_ns)
			break;
	}
	res->end_ns = pl_now_ns();
}
