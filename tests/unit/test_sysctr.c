/* SPDX-License-Identifier: MIT */
/* Unit tests for the kernel counter snapshots: parsers, deltas, real reads. */
#include "check.h"
#include "sysctr.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define NSEND 16

/* The real order: Udp before UdpLite, Ip before IpExt, a signed MaxConn. */
static const char snmp_text[] =
	"Ip: Forwarding DefaultTTL InReceives InHdrErrors\n"
	"Ip: 1 64 12345678901 7\n"
	"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens\n"
	"Tcp: 1 200 120000 -1 13\n"
	"Udp: InDatagrams NoPorts InErrors OutDatagrams InCsumErrors\n"
	"Udp: 26 3 5 27 9\n"
	"UdpLite: InDatagrams NoPorts InErrors OutDatagrams InCsumErrors\n"
	"UdpLite: 100 200 300 400 500\n";

/* The look-alikes first, so a prefix match would find the wrong block. */
static const char swapped_text[] = "UdpLite: InDatagrams NoPorts\n"
				   "UdpLite: 1 2\n"
				   "Udp: InDatagrams NoPorts\n"
				   "Udp: 3 4\n"
				   "IpExt: InNoRoutes InTruncatedPkts\n"
				   "IpExt: 8 9\n"
				   "Ip: InReceives InTruncatedPkts\n"
				   "Ip: 10 11\n"
				   "Sctp: CurrEstab ActiveEstabs\n"
				   "Sctp: 5\n"
				   "Icmp: InMsgs\n";

/* pl_snmp_field picks the right block and column, or gives 0. */
static void test_snmp_field(void)
{
	CHECK_EQ_U(pl_snmp_field(snmp_text, "Udp", "InDatagrams"), 26);
	CHECK_EQ_U(pl_snmp_field(snmp_text, "Udp:", "InDatagrams"), 26);
	CHECK_EQ_U(pl_snmp_field(snmp_text, "Udp", "InErrors"), 5);
	CHECK_EQ_U(pl_snmp_field(snmp_text, "Udp", "InCsumErrors"), 9);
	CHECK_EQ_U(pl_snmp_field(snmp_text, "UdpLite", "InDatagrams"), 100);
	CHECK_EQ_U(pl_snmp_field(snmp_text, "UdpLite", "InCsumErrors"), 500);
	CHECK_EQ_U(pl_snmp_field(snmp_text, "Ip", "InReceives"),
		   12345678901ull);
	CHECK_EQ_U(pl_snmp_field(snmp_text, "Ip", "InHdrErrors"), 7);
	CHECK_EQ_U(pl_snmp_field(snmp_text, "Tcp", "MaxConn"), 0);
	CHECK_EQ_U(pl_snmp_field(snmp_text, "Tcp", "ActiveOpens"), 13);
	CHECK_EQ_U(pl_snmp_field(snmp_text, "Udp", "MemErrors"), 0);
	CHECK_EQ_U(pl_snmp_field(snmp_text, "Udp", "Datagrams"), 0);
	CHECK_EQ_U(pl_snmp_field(snmp_text, "IpExt", "InReceives"), 0);
	CHECK_EQ_U(pl_snmp_field(snmp_text, "U", "InDatagrams"), 0);

	CHECK_EQ_U(pl_snmp_field(swapped_text, "Udp", "InDatagrams"), 3);
	CHECK_EQ_U(pl_snmp_field(swapped_text, "UdpLite", "NoPorts"), 2);
	CHECK_EQ_U(pl_snmp_field(swapped_text, "Ip", "InTruncatedPkts"), 11);
	CHECK_EQ_U(pl_snmp_field(swapped_text, "IpExt", "InTruncatedPkts"), 9);
	/* A short value line, and a header with no value line at all. */
	CHECK_EQ_U(pl_snmp_field(swapped_text, "Sctp", "CurrEstab"), 5);
	CHECK_EQ_U(pl_snmp_field(swapped_text, "Sctp", "ActiveEstabs"), 0);
	CHECK_EQ_U(pl_snmp_field(swapped_text, "Icmp", "InMsgs"), 0);
	CHECK_EQ_U(pl_snmp_field("", "Udp", "InDatagrams"), 0);
	CHECK_EQ_U(pl_snmp_field(NULL, "Udp", "InDatagrams"), 0);
}

/* Deltas subtract, clamp reset counters, and copy the state of after. */
static void test_delta(void)
{
	struct pl_sysctr b = {
		.mono_ns = 1000000000,
		.ncpus = 2,
		.all = { .user_s = 1.0, .idle_s = 5.0, .steal_s = 1.0 },
		.udp_in_datagrams = 10,
		.link_rx_packets = 50,
		.self_run_ns = 7,
	};
	struct pl_sysctr a = {
		.mono_ns = 2000000000,
		.ncpus = 4,
		.all = { .user_s = 3.0,
			 .idle_s = 5.5,
			 .iowait_s = 0.25,
			 .steal_s = 1.25 },
		.udp_in_datagrams = 25,
		.link_rx_packets = 40,
		.have_link = true,
		.link_has_irqs = true,
		.self_run_ns = 9,
	};
	struct pl_sysctr d;

	pl_sysctr_delta(&b, &a, &d);
	CHECK_EQ_U(d.mono_ns, 1000000000);
	CHECK_EQ_U(d.ncpus, 4);
	CHECK_EQ_U(d.udp_in_datagrams, 15);
	CHECK_EQ_U(d.link_rx_packets, 0);
	CHECK_EQ_U(d.self_run_ns, 2);
	CHECK(d.have_link && d.link_has_irqs);
	CHECK(fabs(d.all.user_s - 2.0) < 1e-9);
	CHECK(fabs(d.all.idle_s - 0.5) < 1e-9);
	/* 1 s on 4 CPUs, 0.5 + 0.25 + 0.25 s of it idle, waiting or stolen. */
	CHECK(fabs(pl_sysctr_busy_s(&d) - 3.0) < 1e-9);

	d.all.idle_s = 10.0;
	CHECK(pl_sysctr_busy_s(&d) == 0.0);

	/* The result may overwrite one of the inputs. */
	pl_sysctr_delta(&b, &a, &a);
	CHECK_EQ_U(a.udp_in_datagrams, 15);
	CHECK_EQ_U(a.mono_ns, 1000000000);
}

/* Two real snapshots succeed, hold real values, and never go backwards. */
static void test_real_read(void)
{
	struct pl_sysctr a, b;

	CHECK_EQ_U(pl_sysctr_read(&a, "lo"), 0);
	CHECK_EQ_U(pl_sysctr_read(&b, "lo"), 0);
	CHECK(a.ncpus >= 1);
	CHECK(a.mono_ns > 0 && b.mono_ns > a.mono_ns);
	CHECK(a.interrupts > 0);
	CHECK(a.all.user_s + a.all.sys_s + a.all.idle_s > 0);
	CHECK(a.self_run_ns > 0);
	CHECK(a.have_link);
	CHECK(b.interrupts >= a.interrupts);
	CHECK(b.net_rx_softirqs >= a.net_rx_softirqs);
	CHECK(b.net_tx_softirqs >= a.net_tx_softirqs);
	CHECK(b.all.user_s >= a.all.user_s);
	CHECK(b.all.sys_s >= a.all.sys_s);
	CHECK(b.udp_in_datagrams >= a.udp_in_datagrams);
	CHECK(b.ip_in_receives >= a.ip_in_receives);
	CHECK(b.link_rx_packets >= a.link_rx_packets);
	CHECK(b.self_run_ns >= a.self_run_ns);
	CHECK(b.self_user_s + b.self_sys_s >= a.self_user_s + a.self_sys_s);
}

/* This process's CPU time in seconds, all threads together. */
static double cpu_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spin in user space until this process has run about 200 ms. */
static void spin_200ms(void)
{
	double start = cpu_now_s();
	time_t give_up = time(NULL) + 10;
	volatile unsigned x = 1;

	/* Counted in CPU time, so a loaded machine cannot shorten the run. */
	while (cpu_now_s() - start < 0.2 && time(NULL) < give_up) {
		for (int i = 0; i < 100000; i++)
			x = x * 1103515245u + 12345u;
	}
}

/* A busy loop shows up as busy CPU time and as this process's time. */
static void test_busy(void)
{
	struct pl_sysctr a, b, d;

	CHECK_EQ_U(pl_sysctr_read(&a, NULL), 0);
	spin_200ms();
	CHECK_EQ_U(pl_sysctr_read(&b, NULL), 0);
	pl_sysctr_delta(&a, &b, &d);
	printf("busy loop: busy %.3f s, self run %.3f s, user %.3f s\n",
	       pl_sysctr_busy_s(&d), d.self_run_ns / 1e9, d.self_user_s);
	CHECK(d.mono_ns >= 100000000);
	CHECK(pl_sysctr_busy_s(&d) >= 0.1);
	CHECK(d.self_run_ns >= 100000000);
	CHECK(d.self_user_s >= 0.1);
	CHECK(!d.have_link);
}

/* Spin 200 ms in a second thread, say so on fds[1], wait on fds[0]. */
static void *spinner(void *arg)
{
	int *fds = arg;
	char c = 0;
	ssize_t n;

	spin_200ms();
	/* Stay alive until the snapshot is taken: exited threads drop out. */
	n = write(fds[1], &c, 1);
	if (n == 1)
		n = read(fds[0], &c, 1);
	return n == 1 ? arg : NULL;
}

/* Another thread's CPU time counts, while the main thread only waits. */
static void test_threads(void)
{
	int up[2], down[2], fds[2];
	struct pl_sysctr a, b, d;
	pthread_t t;
	void *ret = NULL;
	char c = 0;

	if (pipe(up) || pipe(down)) {
		CHECK(!"pipe");
		return;
	}
	fds[0] = down[0];
	fds[1] = up[1];
	CHECK_EQ_U(pl_sysctr_read(&a, NULL), 0);
	if (pthread_create(&t, NULL, spinner, fds)) {
		CHECK(!"pthread_create");
		return;
	}
	CHECK_EQ_U(read(up[0], &c, 1), 1);
	CHECK_EQ_U(pl_sysctr_read(&b, NULL), 0);
	CHECK_EQ_U(write(down[1], &c, 1), 1);
	pthread_join(t, &ret);
	CHECK(ret == fds);
	pl_sysctr_delta(&a, &b, &d);
	CHECK(d.self_run_ns >= 100000000);
	CHECK(d.self_user_s >= 0.1);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}

/* Send NSEND datagrams to a socket on 127.0.0.1 and read them back. */
static int udp_loop(int *received)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = 1 };
	socklen_t len = sizeof(sin);
	char buf[32] = "pathlab";
	int fd, sent = 0;

	*received = 0;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return 0;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		close(fd);
		return 0;
	}
	for (int i = 0; i < NSEND; i++)
		sent += sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&sin,
			       sizeof(sin)) == sizeof(buf);
	/* Udp InDatagrams counts a datagram when it is received. */
	for (int i = 0; i < sent; i++)
		*received += recv(fd, buf, sizeof(buf), 0) == sizeof(buf);
	close(fd);
	return sent;
}

/* Datagrams over lo show in lo's link counters and in the UDP MIB. */
static void test_lo_udp(void)
{
	struct pl_sysctr a, b, d;
	int sent, received;

	CHECK_EQ_U(pl_sysctr_read(&a, "lo"), 0);
	sent = udp_loop(&received);
	CHECK_EQ_U(pl_sysctr_read(&b, "lo"), 0);
	pl_sysctr_delta(&a, &b, &d);
	CHECK_EQ_U(sent, NSEND);
	CHECK_EQ_U(received, NSEND);
	CHECK(d.have_link);
	CHECK(d.link_rx_packets >= NSEND);
	CHECK(d.link_tx_packets >= NSEND);
	CHECK(d.link_rx_bytes >= NSEND * 32);
	CHECK(d.udp_in_datagrams >= NSEND);
	CHECK(d.udp_out_datagrams >= NSEND);
	CHECK(d.ip_in_receives >= NSEND);
	/* lo has no IRQ, and "lo" must not match inside other IRQ names. */
	CHECK(!b.link_has_irqs);
	CHECK_EQ_U(b.link_irqs, 0);
}

/* Unknown or unsafe interface names give no link, and no error. */
static void test_bad_links(void)
{
	static const char *const bad[] = {
		"pl-nosuch0", "../lo", "lo/", "lo/../lo",
		"..",	      ".",     "",    "a-name-longer-than-ifnamsiz",
	};
	struct pl_sysctr c;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ_U(pl_sysctr_read(&c, bad[i]), 0);
		CHECK(!c.have_link);
		CHECK(!c.link_has_irqs);
		CHECK_EQ_U(c.link_rx_packets, 0);
		CHECK(c.ncpus >= 1);
	}
}

/*
 * IRQ names match whole words only. No interface is called "edge", but on
 * x86 most /proc/interrupts lines say "N-edge", so it stands in for one.
 */
static void test_irq_words(void)
{
	static char text[1 << 16];
	struct pl_sysctr c;
	FILE *f = fopen("/proc/interrupts", "r");
	size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;

	if (f)
		fclose(f);
	text[n] = '\0';
	if (strstr(text, "-edge ")) {
		CHECK_EQ_U(pl_sysctr_read(&c, "edge"), 0);
		CHECK(c.link_has_irqs);
		CHECK(!c.have_link);
	}
	CHECK_EQ_U(pl_sysctr_read(&c, "dge"), 0);
	CHECK(!c.link_has_irqs);
	CHECK_EQ_U(pl_sysctr_read(&c, "edg"), 0);
	CHECK(!c.link_has_irqs);
}

/* Print what one snapshot costs, and which counters read zero here. */
static void report_cost(void)
{
	struct timespec t0, t1;
	struct pl_sysctr c;
	const int n = 200;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < n; i++)
		CHECK_EQ_U(pl_sysctr_read(&c, "lo"), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("pl_sysctr_read: %.1f us per call\n",
	       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n /
		       1e3);
	printf("zero here:%s%s%s%s%s%s\n", c.all.irq_s ? "" : " irq_s",
	       c.all.steal_s ? "" : " steal_s",
	       c.all.softirq_s ? "" : " softirq_s",
	       c.net_tx_softirqs ? "" : " net_tx_softirqs",
	       c.softnet_dropped ? "" : " softnet_dropped",
	       c.ip_in_truncated_pkts ? "" : " ip_in_truncated_pkts");
}

int main(void)
{
	test_snmp_field();
	test_delta();
	test_real_read();
	test_busy();
	test_threads();
	test_lo_udp();
	test_bad_links();
	test_irq_words();
	report_cost();
	return CHECK_DONE();
}
