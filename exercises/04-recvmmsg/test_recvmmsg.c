/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 4: recvmmsg() batching. A sender socket on
 * loopback queues datagrams on the receiver's socket; the exercise's
 * functions receive them. This program defines recvmmsg(), recvfrom(),
 * recvmsg() and recv() itself: they count the calls and make the system
 * call, so the tests know how many system calls a batch took.
 */
#include "grade.h"
#include "recvmmsg_ex.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct {
	unsigned recvmmsg, other;
} calls;

int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags,
	     struct timespec *t)
{
	calls.recvmmsg++;
	return (int)syscall(SYS_recvmmsg, fd, v, n, flags, t);
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
		 struct sockaddr *addr, socklen_t *alen)
{
	calls.other++;
	return syscall(SYS_recvfrom, fd, buf, len, flags, addr, alen);
}

ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	calls.other++;
	return syscall(SYS_recvmsg, fd, m, flags);
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	calls.other++;
	return syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
}

static struct sock_rx rx;
static int tx_fd;
static uint32_t next_seq;

/* A receiver on 127.0.0.1 (any port) with batch n, and a sender to it. */
static void setup(unsigned batch)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int big = 4 << 20;

	pl_stats_init(&rx.stats);
	rx.batch = batch;
	rx.flags = MSG_DONTWAIT;
	rx.bufs = calloc(batch, BUF_LEN);
	rx.fd = socket(AF_INET, SOCK_DGRAM, 0);
	tx_fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (!rx.bufs || rx.fd < 0 || tx_fd < 0 ||
	    setsockopt(rx.fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big)) ||
	    bind(rx.fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(rx.fd, (struct sockaddr *)&a, &alen) ||
	    connect(tx_fd, (struct sockaddr *)&a, sizeof(a))) {
		gr_fail_at(__FILE__, __LINE__, "test setup: %s",
			   strerror(errno));
		exit(GR_FAIL);
	}
	/* What a careless init leaves behind must not look right. */
	memset(rx.msgs, 0xa5, sizeof(rx.msgs));
	memset(rx.iov, 0xa5, sizeof(rx.iov));
	ex_init_msgs(&rx);
}

/* Queue n pathlab datagrams of size bytes (0: 18 to 1400) on the socket. */
static uint64_t send_n(unsigned n, size_t size)
{
	uint8_t buf[1400];
	uint64_t bytes = 0;
	size_t len;
	unsigned i;

	for (i = 0; i < n; i++) {
		len = size ? size : 18 + (size_t)(rand() % (1400 - 18));
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
	return rx.stats.flows[1] ? rx.stats.flows[1]->unique : 0;
}

/* Each message points at its own buffer through one iovec. */
static int init_msgs(void)
{
	unsigned i;

	setup(64);
	for (i = 0; i < 64 && !gr_failures; i++) {
		const struct msghdr *m = &rx.msgs[i].msg_hdr;

		GR_CHECK(m->msg_iov == &rx.iov[i] && m->msg_iovlen == 1,
			 "message %u: msg_iov %p (len %zu), expected "
			 "&rx->iov[%u] (len 1)",
			 i, (void *)m->msg_iov, (size_t)m->msg_iovlen, i);
		GR_CHECK(rx.iov[i].iov_base == rx.bufs[i] &&
				 rx.iov[i].iov_len == BUF_LEN,
			 "iov %u: %p + %zu, expected rx->bufs[%u] + %u", i,
			 rx.iov[i].iov_base, rx.iov[i].iov_len, i, BUF_LEN);
		GR_CHECK(!m->msg_name && !m->msg_namelen && !m->msg_control &&
				 !m->msg_controllen,
			 "message %u: msg_name/msg_control not cleared", i);
	}
	return gr_verdict();
}

/* 64 datagrams waiting, batch 64: one call takes them all. */
static int one_call(void)
{
	int n;

	setup(64);
	send_n(64, 64);
	n = ex_recv_batch(&rx);
	GR_EQ_U(n, 64);
	GR_EQ_U(calls.recvmmsg, 1);
	GR_EQ_U(calls.other, 0);
	GR_EQ_U(rx.syscalls, 1);
	GR_EQ_U(rx.stats.packets, 64);
	GR_EQ_U(unique(), 64);
	GR_EQ_U(rx.stats.bad_total, 0);
	return gr_verdict();
}

/* Mixed sizes: every datagram parsed with its own length. */
static int lengths(void)
{
	uint64_t bytes;
	int n;

	srand(4);
	setup(64);
	bytes = send_n(64, 0);
	n = ex_recv_batch(&rx);
	GR_EQ_U(n, 64);
	GR_EQ_U(rx.stats.bad_total, 0);
	GR_EQ_U(rx.stats.packets, 64);
	GR_EQ_U(rx.stats.bytes, bytes);
	return gr_verdict();
}

/* Nothing there: 0, counted as an empty call; then one arrives. */
static int empty(void)
{
	setup(16);
	GR_EQ_U(ex_recv_batch(&rx), 0);
	GR_EQ_U(rx.empty, 1);
	GR_EQ_U(rx.syscalls, 1);
	send_n(1, 100);
	GR_EQ_U(ex_recv_batch(&rx), 1);
	GR_EQ_U(rx.stats.packets, 1);
	GR_EQ_U(rx.empty, 1);
	GR_EQ_U(rx.syscalls, 2);
	return gr_verdict();
}

/* 10,000 datagrams, batch 32: a system call per batch, not per packet. */
static int many(void)
{
	unsigned chunk, got, tries;
	int n;

	setup(32);
	for (chunk = 0; chunk < 50; chunk++) {
		send_n(200, 64);
		for (got = 0, tries = 0; got < 200 && tries < 1000; tries++) {
			n = ex_recv_batch(&rx);
			got += n > 0 ? (unsigned)n : 0;
		}
	}
	GR_EQ_U(rx.stats.packets, 10000);
	GR_EQ_U(unique(), 10000);
	GR_CHECK(calls.recvmmsg <= 50 * 8,
		 "%u recvmmsg() calls for 10000 datagrams in batches of 32",
		 calls.recvmmsg);
	GR_EQ_U(calls.other, 0);
	GR_EQ_U(rx.syscalls, calls.recvmmsg);
	return gr_verdict();
}

/* Datagrams that are not good pathlab ones are counted by reason. */
static int bad_datagrams(void)
{
	uint8_t buf[64];
	unsigned i;

	setup(64);
	send_n(10, 64);
	pl_build_payload(buf, sizeof(buf), 1, 999, 0);
	buf[0] ^= 0xff; /* magic */
	for (i = 0; i < 3; i++)
		send(tx_fd, buf, sizeof(buf), 0);
	for (i = 0; i < 2; i++)
		send(tx_fd, buf, 10, 0); /* shorter than a header */
	GR_EQ_U(ex_recv_batch(&rx), 15);
	GR_EQ_U(rx.stats.packets, 10);
	GR_EQ_U(rx.stats.bad[PL_BAD_MAGIC], 3);
	GR_EQ_U(rx.stats.bad[PL_BAD_HDR_TRUNC], 2);
	GR_EQ_U(rx.stats.bad_total, 5);
	return gr_verdict();
}

/* A datagram longer than its buffer is cut: a reject, never parsed. */
static int truncated(void)
{
	static uint8_t big[BUF_LEN + 1000]; /* loopback carries it whole */
	unsigned i;

	setup(64);
	pl_build_payload(big, sizeof(big), 1, 4242, 0);
	send_n(2, 100);
	for (i = 0; i < 2; i++)
		GR_CHECK(send(tx_fd, big, sizeof(big), 0) == sizeof(big),
			 "send of a %zu-byte datagram: %s", sizeof(big),
			 strerror(errno));
	send_n(1, 100);
	GR_EQ_U(ex_recv_batch(&rx), 5);
	GR_EQ_U(rx.stats.packets, 3);
	GR_EQ_U(rx.stats.bad[PL_BAD_UDP_LEN], 2);
	GR_EQ_U(rx.stats.bad_total, 2);
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
	{ 0 }
};

int main(int argc, char **argv)
{
	return gr_main(argc, argv, "04-recvmmsg", cases);
}
