/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 4: recvmmsg() batching. The grader binds a
 * socket on loopback, hands the worker (wk_recvmmsg.c) a copy of it, and
 * queues datagrams on it from a sender socket of its own; the student's
 * functions receive them in the worker. The grader counts the worker's
 * receive calls on that socket itself, from outside: every recvmmsg(),
 * recvfrom(), recvmsg(), read() and readv() stops at the grader first
 * (seccomp's user notification), whatever the code calls them with.
 */
#include "grade.h"
#include "clock.h"
#include "lab.h"
#include "recvmmsg_rpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BUF_LEN 9216 /* kernel-stack/rx_socket.h */

/* What the grader counts, on the socket (the worker's descriptor 4). */
static const struct gr_count counted[] = {
	{ SYS_recvmmsg, WK_FD_GIVEN }, { SYS_recvfrom, WK_FD_GIVEN },
	{ SYS_recvmsg, WK_FD_GIVEN },  { SYS_read, WK_FD_GIVEN },
	{ SYS_readv, WK_FD_GIVEN },
};

/* The worker's receive calls so far: recvmmsg(), and any other. */
static struct {
	uint64_t recvmmsg, other;
} calls;

/* Read the counts the grader keeps. */
static void count_calls(void)
{
	calls.recvmmsg = gr_syscalls(SYS_recvmmsg);
	calls.other = gr_syscalls(SYS_recvfrom) + gr_syscalls(SYS_recvmsg) +
		      gr_syscalls(SYS_read) + gr_syscalls(SYS_readv);
}

static struct rx_counts rx; /* the worker's counters, after a batch */
static struct rx_msg_view view[1024];
static int tx_fd;
static uint32_t next_seq;

/* A receiver on 127.0.0.1 (any port) with batch n, and a sender to it. */
static void setup(unsigned batch)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct rx_setup_in q = { batch, MSG_DONTWAIT };
	socklen_t alen = sizeof(a);
	int big = 4 << 20, fd;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	tx_fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || tx_fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) ||
	    connect(tx_fd, (struct sockaddr *)&a, sizeof(a)))
		gr_setup_failed("sockets: %s", strerror(errno));
	gr_give_fd(fd);
	memset(&rx, 0, sizeof(rx));
	memset(&calls, 0, sizeof(calls));
	gr_context("ex_init_msgs() of a batch of %u", batch);
	gr_call_exact(RX_SETUP, &q, sizeof(q), view, batch * sizeof(view[0]));
	gr_context("%s", "");
}

/* The student's ex_recv_batch() once: what it returned. One call, one
 * recvmmsg() (the exercise), counted by the grader. */
static int ex_recv_batch(void)
{
	uint64_t before = calls.recvmmsg, other = calls.other;

	gr_call_exact(RX_BATCH, NULL, 0, &rx, sizeof(rx));
	count_calls();
	GR_CHECK(calls.recvmmsg == before + 1 && calls.other == other,
		 "one ex_recv_batch() made %llu recvmmsg() and %llu other "
		 "receive calls on the socket, expected 1 and 0",
		 (unsigned long long)(calls.recvmmsg - before),
		 (unsigned long long)(calls.other - other));
	return rx.ret;
}

/* Queue n pathlab datagrams of size bytes (0: 18 to 1400) on the socket. */
static uint64_t send_n(unsigned n, size_t size)
{
	uint8_t buf[1400];
	uint64_t bytes = 0;
	size_t len;
	unsigned i;

	for (i = 0; i < n; i++) {
		len = size ? size : 18 + gr_below(1400 - 18);
		pl_build_payload(buf, len, 1, next_seq++, pl_now_ns());
		if (send(tx_fd, buf, len, 0) != (ssize_t)len) {
			gr_fail_at(__FILE__, __LINE__, "test send: %s",
				   strerror(errno));
			exit(GR_FAIL);
		}
		bytes += len;
	}
	return bytes;
}

/* Unique sequence numbers the stats saw in flow 1. */
static uint64_t unique(void)
{
	return rx.unique;
}

/* Check what ex_init_msgs() left for a batch of n. */
static void check_msgs(unsigned n)
{
	unsigned i;

	for (i = 0; i < n && !gr_failures; i++) {
		GR_CHECK(view[i].iov == (int32_t)i && view[i].iovlen == 1,
			 "message %u: msg_iov at iov[%d] (len %u), expected "
			 "&rx->iov[%u] (len 1)",
			 i, view[i].iov, view[i].iovlen, i);
		GR_CHECK(view[i].buf == (int32_t)i &&
				 view[i].iov_len == BUF_LEN,
			 "iov %u: buffer %d + %u, expected rx->bufs[%u] + %u",
			 i, view[i].buf, view[i].iov_len, i, BUF_LEN);
		GR_CHECK(!view[i].extras,
			 "message %u: msg_name/msg_control not cleared", i);
	}
}

/* Each message points at its own buffer through one iovec. */
static int init_msgs(void)
{
	unsigned n = 1 + 2 * (unsigned)gr_below(512); /* odd: not the lab's */

	setup(64);
	check_msgs(64);
	gr_worker_stop();
	setup(n); /* and a drawn batch */
	check_msgs(n);
	return gr_verdict();
}

/* 64 datagrams waiting, batch 64: one call takes them all. */
static int one_call(void)
{
	int n;

	setup(64);
	send_n(64, 64);
	n = ex_recv_batch();
	GR_EQ_U(n, 64);
	GR_EQ_U(calls.recvmmsg, 1);
	GR_EQ_U(calls.other, 0);
	GR_EQ_U(rx.syscalls, 1);
	GR_EQ_U(rx.packets, 64);
	GR_EQ_U(unique(), 64);
	GR_EQ_U(rx.bad_total, 0);
	{
		unsigned b = 1 + (unsigned)gr_below(256);

		gr_worker_stop();
		setup(b); /* a drawn batch, as many waiting */
		send_n(b, 18 + gr_below(1000));
		GR_EQ_U(ex_recv_batch(), b);
		GR_EQ_U(calls.recvmmsg, 1);
		GR_EQ_U(calls.other, 0);
		GR_EQ_U(rx.packets, b);
	}
	return gr_verdict();
}

/* Mixed sizes: every datagram parsed with its own length. */
static int lengths(void)
{
	uint64_t bytes;
	int n;

	setup(65 + 2 * (unsigned)gr_below(480)); /* odd: not the lab's */
	bytes = send_n(64, 0);
	n = ex_recv_batch();
	GR_EQ_U(n, 64);
	GR_EQ_U(rx.bad_total, 0);
	GR_EQ_U(rx.packets, 64);
	GR_EQ_U(rx.bytes, bytes);
	return gr_verdict();
}

/* Nothing there: 0, counted as an empty call; then one arrives. */
static int empty(void)
{
	setup(1 + 2 * (unsigned)gr_below(512)); /* odd: not the lab's */
	GR_EQ_U(ex_recv_batch(), 0);
	GR_EQ_U(rx.empty, 1);
	GR_EQ_U(rx.syscalls, 1);
	send_n(1, 100);
	GR_EQ_U(ex_recv_batch(), 1);
	GR_EQ_U(rx.packets, 1);
	GR_EQ_U(rx.empty, 1);
	GR_EQ_U(rx.syscalls, 2);
	return gr_verdict();
}

/* 10,000 datagrams, batch 32: a system call per batch, not per packet. */
static int many(void)
{
	unsigned chunk, got, tries,
		b = 17 + 2 * (unsigned)gr_below(24); /* odd */
	int n;

	setup(b);
	for (chunk = 0; chunk < 50; chunk++) {
		send_n(200, 18 + gr_below(200));
		for (got = 0, tries = 0; got < 200 && tries < 1000; tries++) {
			n = ex_recv_batch();
			got += n > 0 ? (unsigned)n : 0;
		}
	}
	GR_EQ_U(rx.packets, 10000);
	GR_EQ_U(unique(), 10000);
	GR_CHECK(calls.recvmmsg <= 50 * ((200 + b - 1) / b + 1),
		 "%llu recvmmsg() calls for 10000 datagrams in batches of %u",
		 (unsigned long long)calls.recvmmsg, b);
	GR_EQ_U(calls.other, 0);
	GR_EQ_U(rx.syscalls, calls.recvmmsg);
	return gr_verdict();
}

/* Datagrams that are not good pathlab ones are counted by reason. */
static int bad_datagrams(void)
{
	uint8_t buf[64];
	unsigned i;

	setup(65 + 2 * (unsigned)gr_below(480)); /* odd: not the lab's */
	send_n(10, 64);
	pl_build_payload(buf, sizeof(buf), 1, 999, 0);
	buf[0] ^= 0xff; /* magic */
	for (i = 0; i < 3; i++)
		send(tx_fd, buf, sizeof(buf), 0);
	for (i = 0; i < 2; i++)
		send(tx_fd, buf, 10, 0); /* shorter than a header */
	GR_EQ_U(ex_recv_batch(), 15);
	GR_EQ_U(rx.packets, 10);
	GR_EQ_U(rx.bad[PL_BAD_MAGIC], 3);
	GR_EQ_U(rx.bad[PL_BAD_HDR_TRUNC], 2);
	GR_EQ_U(rx.bad_total, 5);
	{ /* drawn: how many of each, and which byte is wrong */
		unsigned good = (unsigned)gr_below(20),
			 magic = (unsigned)gr_below(20),
			 shorts = (unsigned)gr_below(20);
		uint64_t p0 = rx.packets, b0 = rx.bad_total;

		send_n(good, 18 + gr_below(500));
		for (i = 0; i < magic; i++) {
			pl_build_payload(buf, sizeof(buf), 1, 2000 + i, 0);
			buf[gr_below(2)] ^= (uint8_t)(1 + gr_below(255));
			send(tx_fd, buf, sizeof(buf), 0);
		}
		for (i = 0; i < shorts; i++)
			send(tx_fd, buf, gr_below(18), 0);
		GR_EQ_U(ex_recv_batch(), good + magic + shorts);
		GR_EQ_U(rx.packets - p0, good);
		GR_EQ_U(rx.bad_total - b0, magic + shorts);
	}
	return gr_verdict();
}

/* A datagram longer than its buffer is cut: a reject, never parsed. */
static int truncated(void)
{
	static uint8_t big[BUF_LEN + 1000]; /* loopback carries it whole */
	unsigned i;

	setup(17 + 2 * (unsigned)gr_below(504)); /* odd: not the lab's */
	pl_build_payload(big, sizeof(big), 1, 4242, 0);
	send_n(2, 100);
	for (i = 0; i < 2; i++)
		GR_CHECK(send(tx_fd, big, sizeof(big), 0) == sizeof(big),
			 "send of a %zu-byte datagram: %s", sizeof(big),
			 strerror(errno));
	send_n(1, 100);
	GR_EQ_U(ex_recv_batch(), 5);
	GR_EQ_U(rx.packets, 3);
	GR_EQ_U(rx.bad[PL_BAD_UDP_LEN], 2);
	GR_EQ_U(rx.bad_total, 2);
	{ /* drawn: how many, how long */
		unsigned k = 1 + (unsigned)gr_below(5),
			 n = (unsigned)gr_below(10);
		static uint8_t huge[60000];

		for (i = 0; i < k; i++) {
			size_t len = BUF_LEN + 1 +
				     gr_below(sizeof(huge) - BUF_LEN - 1);

			pl_build_payload(huge, len, 1, 5000 + i, 0);
			GR_CHECK(send(tx_fd, huge, len, 0) == (ssize_t)len,
				 "send of a %zu-byte datagram: %s", len,
				 strerror(errno));
		}
		send_n(n, 18 + gr_below(1400));
		GR_EQ_U(ex_recv_batch(), k + n);
		GR_EQ_U(rx.packets, 3 + n);
		GR_EQ_U(rx.bad[PL_BAD_UDP_LEN], 2 + k);
	}
	return gr_verdict();
}

/*
 * Live: pathlab-gen's stream over the lab's veth to a socket there, as
 * fast as it sends; then the student's batches, in a loop, take what
 * the kernel delivered: every datagram accounted, one recvmmsg() a
 * batch (counted by the grader), no more calls than the batches need.
 */
static int live_stream(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(PL_UDP_PORT) };
	unsigned n = 1000 + (unsigned)gr_below(2000),
		 b = 9 + 2 * (unsigned)gr_below(28);
	struct rx_setup_in q = { b, MSG_DONTWAIT };
	uint64_t in0, err0, delivered;
	uint32_t idle = 300;
	struct gr_gen g;
	char opts[128];
	int big = 16 << 20, fd, v;

	if ((v = gr_lab_up(1)) != GR_PASS)
		return v;
	inet_pton(AF_INET, GR_LAB_RX_ADDR, &a.sin_addr);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)))
		gr_setup_failed("a socket on %s: %s", GR_LAB_RX_ADDR,
				strerror(errno));
	gr_give_fd(fd);
	gr_call_exact(RX_SETUP, &q, sizeof(q), view, b * sizeof(view[0]));
	in0 = gr_lab_udp("InDatagrams");
	err0 = gr_lab_udp("RcvbufErrors");
	snprintf(opts, sizeof(opts), "--count %u --payload %u", n,
		 18 + (unsigned)gr_below(1400));
	gr_context("pathlab-gen %s", opts);
	gr_lab_gen(&g, opts);
	if (gr_lab_udp("RcvbufErrors") != err0 || g.link_dropped)
		return gr_skip("the lab lost datagrams before the receiver ran "
			       "(a busy machine)");
	gr_context("the receive loop, batches of %u", b);
	gr_call_exact(RX_LOOP, &idle, sizeof(idle), &rx, sizeof(rx));
	gr_context("%s", "");
	count_calls();
	/* UDP counts a datagram in when it is read. */
	delivered = gr_lab_udp("InDatagrams") - in0;
	GR_EQ_U(delivered, g.sent + g.end_sent);
	GR_CHECK(rx.packets == g.sent && rx.end_markers == g.end_sent,
		 "%llu datagrams and %llu end markers accounted; pathlab-gen "
		 "sent %llu and %llu, the kernel delivered %llu",
		 (unsigned long long)rx.packets,
		 (unsigned long long)rx.end_markers, (unsigned long long)g.sent,
		 (unsigned long long)g.end_sent, (unsigned long long)delivered);
	GR_EQ_U(unique(), g.sent);
	GR_EQ_U(calls.other, 0);
	GR_CHECK(calls.recvmmsg == (uint64_t)rx.ret,
		 "%d calls of ex_recv_batch() made %llu recvmmsg()", rx.ret,
		 (unsigned long long)calls.recvmmsg);
	GR_CHECK(calls.recvmmsg - rx.empty <= (delivered + b - 1) / b + 1,
		 "%llu datagrams waiting, batches of %u: %llu calls brought "
		 "something",
		 (unsigned long long)delivered, b,
		 (unsigned long long)(calls.recvmmsg - rx.empty));
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "init_msgs", 2, "each message points at its own buffer", init_msgs },
	{ "one_call", 3, "one call takes a whole batch", one_call },
	{ "lengths", 2, "each datagram parsed with its own length", lengths },
	{ "empty", 1, "an empty socket: 0, counted", empty },
	{ "many", 2, "10,000 datagrams: one system call per batch", many },
	{ "bad_datagrams", 1, "bad datagrams counted by reason",
	  bad_datagrams },
	{ "truncated", 2, "a datagram cut to the buffer (MSG_TRUNC): udp_len",
	  truncated },
	{ "live_stream", 3, "pathlab-gen's stream: batched, all accounted",
	  live_stream },
	{ 0 }
};

int main(int argc, char **argv)
{
	gr_sandbox(&(struct gr_sandbox){
		.flags = GR_SB_SOCKETS,
		.count = counted,
		.ncount = sizeof(counted) / sizeof(counted[0]),
	});
	return gr_main(argc, argv, "04-recvmmsg", cases);
}
