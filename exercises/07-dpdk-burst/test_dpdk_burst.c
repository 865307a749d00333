/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 7: the DPDK receive loop, without a NIC. The
 * worker (wk_dpdk.c) starts its own EAL (no hugepages, no PCI) and makes
 * a port out of two rte_rings with rte_eth_from_rings() (the net_ring
 * PMD): what it enqueues on the RX ring, rte_eth_rx_burst() returns to
 * the student's loop. The grader builds the frames (which to enqueue,
 * malformed, not ours, chained), sends them as data, and reads after
 * every poll what the loop counted and how many mbufs are back in the
 * pool of 1023.
 */
#include "clock.h"
#include "dpdk_rpc.h"
#include "grade.h"
#include "wire.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define POOL DP_POOL

static struct dp_state st; /* after the last request */
static uint32_t next_seq;

static const struct pl_frame_spec spec = {
	.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
	.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
	.src_ip = 0x0a000001,
	.dst_ip = 0x0a000002,
	.src_port = 12345,
	.dst_port = PL_UDP_PORT,
};

/* Send request op to the worker; the state after it. */
static void ask(unsigned op, const void *in, size_t len)
{
	gr_call_exact(op, in, len, &st, sizeof(st));
}

/* The worker's EAL, pool and port; the loop's burst. */
static void setup(unsigned burst)
{
	struct dp_setup q = { burst };

	gr_context("the worker's EAL and ring port");
	ask(DP_SETUP, &q, sizeof(q));
	gr_context("%s", "");
}

/* Enqueue frames f[0..n) (in rounds the worker takes); how many went. */
static unsigned put_frames(const struct dp_frame *f, unsigned n)
{
	unsigned done = 0, k;

	while (done < n) {
		k = n - done < DP_BATCH ? n - done : DP_BATCH;
		ask(DP_PUT, f + done, k * sizeof(*f));
		done += (unsigned)st.ret;
		if ((unsigned)st.ret < k)
			break;
	}
	return done;
}

/* Enqueue n frames: every kind-th one ARP, every bad-th one malformed. */
static unsigned put(unsigned n, unsigned kind, unsigned bad)
{
	static struct dp_frame f[DP_BATCH];
	unsigned i, done = 0, k;

	while (done < n) {
		k = n - done < DP_BATCH ? n - done : DP_BATCH;
		for (i = 0; i < k; i++) {
			unsigned j = done + i;
			size_t len;

			if (bad && j % bad == bad - 1)
				len = pl_build_bad_frame(f[i].bytes, DP_MAXF,
							 &spec, PL_BAD_IP_CSUM,
							 next_seq, 1);
			else
				len = pl_build_frame(f[i].bytes, DP_MAXF, &spec,
						     18 + j % 100, 2,
						     next_seq++, pl_now_ns());
			if (kind && j % kind == kind - 1)
				f[i].bytes[12] = 0x08, f[i].bytes[13] = 0x06;
			f[i].len = (uint16_t)len;
			f[i].tail = 0;
		}
		if (put_frames(f, k) < k)
			return done + (unsigned)st.ret;
		done += k;
	}
	return n;
}

/* The student's ex_rx_poll() once: what it returned. */
static uint16_t ex_rx_poll(void)
{
	ask(DP_POLL, NULL, 0);
	return (uint16_t)st.ret;
}

/* Poll until the ring is empty (at most tries polls). */
static void drain(uint32_t tries)
{
	ask(DP_DRAIN, &tries, sizeof(tries));
}

/* The student's ex_rx_loop() until count packets (0: an end marker). */
static void ex_rx_loop(uint64_t count)
{
	gr_context("ex_rx_loop() with count %llu", (unsigned long long)count);
	ask(DP_LOOP, &count, sizeof(count));
	gr_context("%s", "");
}

/* One poll takes one burst, no more. */
static int burst(void)
{
	/* An odd burst: never one of the sizes the lab itself uses. */
	unsigned b = 1 + 2 * (unsigned)gr_below(64),
		 w = b + 1 + (unsigned)gr_below(300);

	setup(32);
	put(100, 0, 0);
	GR_EQ_U(ex_rx_poll(), 32);
	GR_EQ_U(st.packets, 32);
	GR_EQ_U(st.ring, 68);
	GR_EQ_U(st.in_use, 68);
	gr_worker_stop();
	setup(b); /* a drawn burst, more waiting */
	put(w, 0, 0);
	GR_EQ_U(ex_rx_poll(), b);
	GR_EQ_U(st.packets, b);
	GR_EQ_U(st.ring, w - b);
	GR_EQ_U(st.in_use, w - b);
	return gr_verdict();
}

/* Every mbuf goes back: good, not ours, malformed. */
static int frees_all(void)
{
	unsigned n = 100 + (unsigned)gr_below(900);

	setup(17 + 2 * (unsigned)gr_below(24));
	put(1000, 7, 11);
	drain(1000);
	GR_EQ_U(st.ring, 0);
	GR_CHECK(st.in_use == 0, "%u mbufs never went back to the pool",
		 st.in_use);
	GR_EQ_U(st.packets + st.other + st.bad_total, 1000);
	GR_CHECK(st.other > 0 && st.bad[PL_BAD_IP_CSUM] > 0,
		 "ARP (%llu) and bad frames (%llu) not counted",
		 (unsigned long long)st.other,
		 (unsigned long long)st.bad[PL_BAD_IP_CSUM]);
	put(n, 2 + (unsigned)gr_below(9), 2 + (unsigned)gr_below(9));
	drain(2000);
	GR_CHECK(st.in_use == 0, "%u mbufs never went back to the pool",
		 st.in_use);
	GR_EQ_U(st.packets + st.other + st.bad_total, 1000 + n);
	return gr_verdict();
}

/* Freed exactly once: the whole pool comes out again, no mbuf twice. */
static int freed_once(void)
{
	unsigned n = 100 + (unsigned)gr_below(900);

	setup(33 + 2 * (unsigned)gr_below(48));
	put(500, 5, 0);
	drain(100);
	put(n, 3 + (unsigned)gr_below(5), 0);
	drain(200);
	GR_EQ_U(st.packets + st.other, 500 + n);
	GR_CHECK(st.avail == POOL, "%u mbufs in the pool, expected %u",
		 st.avail, POOL);
	ask(DP_TAKE_ALL, NULL, 0);
	GR_CHECK(st.dups != ~0u, "the pool no longer gives out its %u mbufs",
		 POOL);
	GR_CHECK(!st.dups || st.dups == ~0u,
		 "an mbuf came out of the pool twice: it was freed twice");
	GR_CHECK(!st.extra, "more mbufs in the pool than it was made with: "
			    "some were freed twice");
	return gr_verdict();
}

/* Empty and busy polls are counted, with their cycles. */
static int poll_accounting(void)
{
	unsigned b = 33 + 2 * (unsigned)gr_below(48),
		 n = 1 + (unsigned)gr_below(32);

	setup(b);
	GR_EQ_U(ex_rx_poll(), 0);
	GR_EQ_U(st.polls[0], 1);
	GR_EQ_U(st.polls[1], 0);
	GR_CHECK(st.cycles[0] > 0, "no cycles counted for an empty poll");
	put(n, 0, 0);
	GR_EQ_U(ex_rx_poll(), n);
	GR_EQ_U(st.polls[0], 1);
	GR_EQ_U(st.polls[1], 1);
	GR_CHECK(st.cycles[1] > 0, "no cycles counted for a busy poll");
	GR_CHECK(st.prev_tsc <= st.tsc_now && st.prev_tsc > 0,
		 "prev_tsc not kept");
	GR_EQ_U(ex_rx_poll(), 0);
	GR_EQ_U(st.polls[0], 2);
	return gr_verdict();
}

/* The loop stops at the run's count, and at an end marker. */
static int loop_ends(void)
{
	struct dp_frame f = { 0 };
	unsigned count = 100 + (unsigned)gr_below(400), k,
		 b = 9 + 2 * (unsigned)gr_below(28);
	uint8_t *pl;

	setup(b);
	put(count + 100, 0, 0);
	ex_rx_loop(count);
	GR_CHECK(st.packets >= count && st.packets < count + b,
		 "the loop stopped after %llu packets; count was %u, burst "
		 "%u",
		 (unsigned long long)st.packets, count, b);
	GR_CHECK(st.polls[1] >= count / b, "%llu busy polls for %u packets",
		 (unsigned long long)st.polls[1], count);
	drain(100);
	/* Then: some datagrams and the sender's end marker. */
	k = (unsigned)gr_below(40);
	put(k, 0, 0);
	f.len = (uint16_t)pl_build_frame(f.bytes, DP_MAXF, &spec, 18, 2,
					 next_seq++, 0);
	pl = f.bytes + 42;
	pl[2] |= PL_FLAG_END;
	pl_payload_reseal(pl, 18);
	put_frames(&f, 1);
	ex_rx_loop(0);
	GR_EQ_U(st.end_markers, 1);
	GR_EQ_U(st.in_use, 0);
	return gr_verdict();
}

/* 100,000 frames through a pool of 1023 mbufs. */
static int pool_pressure(void)
{
	unsigned sent = 0, n, round, want;

	setup(9 + 2 * (unsigned)gr_below(28));
	for (round = 0; round < 200; round++) {
		want = 1 + (unsigned)gr_below(1000);
		n = put(want, 0, 0);
		sent += n;
		if (n < want) {
			gr_fail_at(__FILE__, __LINE__,
				   "the pool ran dry after %u frames: %u "
				   "still on the RX ring, %u taken by the "
				   "loop and never freed",
				   sent, st.ring, st.in_use - st.ring);
			break;
		}
		drain(2000);
	}
	GR_EQ_U(st.packets, sent);
	return gr_verdict();
}

/*
 * A frame in a chain of mbufs (a jumbo frame, scattered RX): its bytes
 * are not contiguous, and the parser must not take the first segment for
 * the frame. Rejected as udp_len, and every segment freed.
 */
static int chained(void)
{
	static struct dp_frame f[60];
	unsigned i, n = 10 + (unsigned)gr_below(50), chains = 0;

	setup(9 + 2 * (unsigned)gr_below(28));
	for (i = 0; i < n; i++) {
		f[i].len = (uint16_t)pl_build_frame(f[i].bytes, DP_MAXF, &spec,
						    18 + gr_below(1400), 2,
						    next_seq++, pl_now_ns());
		f[i].tail = i < 5 || gr_below(3) == 0
				    ? (uint16_t)(1 + gr_below(1000))
				    : 0;
		chains += f[i].tail != 0;
	}
	GR_EQ_U(put_frames(f, n), n);
	drain(100);
	GR_EQ_U(st.packets, n - chains);
	GR_EQ_U(st.bad[PL_BAD_UDP_LEN], chains);
	GR_CHECK(st.in_use == 0, "%u mbufs never went back to the pool",
		 st.in_use);
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "burst", 3, "one poll takes one burst", burst },
	{ "frees_all", 4, "every mbuf back to the pool, bad ones too",
	  frees_all },
	{ "freed_once", 2, "no mbuf freed twice", freed_once },
	{ "poll_accounting", 2, "empty and busy polls and their cycles",
	  poll_accounting },
	{ "loop_ends", 2, "the loop stops at the count and at an end marker",
	  loop_ends },
	{ "pool_pressure", 2, "drawn rounds through 1023 mbufs",
	  pool_pressure },
	{ "chained", 2, "a chained (multi-segment) frame: udp_len, all freed",
	  chained },
	{ 0 }
};

int main(int argc, char **argv)
{
	gr_sandbox(&(struct gr_sandbox){
		.flags = GR_SB_DYNAMIC | GR_SB_THREADS | GR_SB_DEVICES,
		.mem_mib = ~0u,
		.nofile = 1024,
	});
	return gr_main(argc, argv, "07-dpdk-burst", cases);
}
