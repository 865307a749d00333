/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 7: the DPDK receive loop, without a NIC. Each
 * case starts its own EAL (no hugepages, no PCI) and makes a port out of
 * two rte_rings with rte_eth_from_rings() (the net_ring PMD): what the
 * test enqueues on the RX ring, rte_eth_rx_burst() returns. The mbufs
 * come from a small pool, so the test can see each one come back.
 */
#include "clock.h"
#include "dpdk_burst_ex.h"
#include "grade.h"
#include "wire.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#define POOL 1023 /* mbufs */

static struct ex_dpdk_rx rx;
static struct rte_mempool *pool;
static struct rte_ring *ring; /* what the port "receives" */
static uint32_t next_seq;

static const struct pl_frame_spec spec = {
	.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
	.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
	.src_ip = 0x0a000001,
	.dst_ip = 0x0a000002,
	.src_port = 12345,
	.dst_port = PL_UDP_PORT,
};

/* EAL, the pool, a ring port started; exits GR_FAIL if it cannot. */
static void setup(unsigned burst)
{
	char prefix[64];
	char *argv[] = {
		"ex07",
		"-l",
		"0",
		"--no-huge",
		"-m",
		"64",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"--log-level=error",
		prefix,
	};
	const struct rte_eth_conf conf = { 0 };
	struct rte_ring *tx;
	int port;

	snprintf(prefix, sizeof(prefix), "--file-prefix=plex07-%d",
		 (int)getpid());
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])), argv) < 0) {
		gr_fail_at(__FILE__, __LINE__, "EAL: %s",
			   rte_strerror(rte_errno));
		exit(GR_FAIL);
	}
	pool = rte_pktmbuf_pool_create("ex07", POOL, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	ring = rte_ring_create("ex07rx", 1024, 0, 0);
	tx = rte_ring_create("ex07tx", 1024, 0, 0);
	port = pool && ring && tx
		       ? rte_eth_from_rings("ex07", &ring, 1, &tx, 1, 0)
		       : -1;
	if (port < 0 || rte_eth_dev_configure((uint16_t)port, 1, 1, &conf) ||
	    rte_eth_rx_queue_setup((uint16_t)port, 0, 1024, 0, NULL, pool) ||
	    rte_eth_tx_queue_setup((uint16_t)port, 0, 1024, 0, NULL) ||
	    rte_eth_dev_start((uint16_t)port)) {
		gr_fail_at(__FILE__, __LINE__, "test setup: a ring port");
		exit(GR_FAIL);
	}
	memset(&rx, 0, sizeof(rx));
	rx.port = (uint16_t)port;
	rx.burst = burst;
	pl_stats_init(&rx.stats);
}

/* Stop the port and the EAL. */
static void teardown(void)
{
	rte_eth_dev_stop(rx.port);
	rte_eth_dev_close(rx.port);
	rte_eal_cleanup();
}

/* mbufs of the pool in use (not in the pool). */
static unsigned in_use(void)
{
	return rte_mempool_in_use_count(pool);
}

/* Enqueue n frames: every kind-th one ARP, every bad-th one malformed. */
static unsigned put(unsigned n, unsigned kind, unsigned bad)
{
	struct rte_mbuf *m;
	unsigned i;
	size_t len;

	for (i = 0; i < n; i++) {
		m = rte_pktmbuf_alloc(pool);
		if (!m)
			return i;
		if (bad && i % bad == bad - 1)
			len = pl_build_bad_frame(rte_pktmbuf_mtod(m, void *),
						 2048, &spec, PL_BAD_IP_CSUM,
						 next_seq, 1);
		else
			len = pl_build_frame(rte_pktmbuf_mtod(m, void *), 2048,
					     &spec, 18 + i % 100, 2, next_seq++,
					     pl_now_ns());
		if (kind && i % kind == kind - 1)
			rte_pktmbuf_mtod(m, uint8_t *)[12] = 0x08,
						    rte_pktmbuf_mtod(
							    m, uint8_t *)[13] =
							    0x06;
		m->data_len = (uint16_t)len;
		m->pkt_len = (uint32_t)len;
		if (rte_ring_enqueue(ring, m)) {
			rte_pktmbuf_free(m);
			return i;
		}
	}
	return n;
}

/* Poll until the ring is empty (at most tries polls). */
static void drain(unsigned tries)
{
	while (rte_ring_count(ring) && tries--)
		ex_rx_poll(&rx);
}

/* One poll takes one burst, no more. */
static int burst(void)
{
	uint16_t n;

	setup(32);
	put(100, 0, 0);
	n = ex_rx_poll(&rx);
	GR_EQ_U(n, 32);
	GR_EQ_U(rx.stats.packets, 32);
	GR_EQ_U(rte_ring_count(ring), 68);
	GR_EQ_U(in_use(), 68);
	teardown();
	return gr_verdict();
}

/* Every mbuf goes back: good, not ours, malformed. */
static int frees_all(void)
{
	setup(32);
	put(1000, 7, 11);
	drain(1000);
	GR_EQ_U(rte_ring_count(ring), 0);
	GR_CHECK(in_use() == 0, "%u mbufs never went back to the pool",
		 in_use());
	GR_EQ_U(rx.stats.packets + rx.stats.other + rx.stats.bad_total, 1000);
	GR_CHECK(rx.stats.other > 0 && rx.stats.bad[PL_BAD_IP_CSUM] > 0,
		 "ARP (%llu) and bad frames (%llu) not counted",
		 (unsigned long long)rx.stats.other,
		 (unsigned long long)rx.stats.bad[PL_BAD_IP_CSUM]);
	teardown();
	return gr_verdict();
}

/* Freed exactly once: the whole pool comes out again, no mbuf twice. */
static int freed_once(void)
{
	struct rte_mbuf *all[POOL + 1];
	unsigned i, j, dup = 0;

	setup(64);
	put(500, 5, 0);
	drain(100);
	GR_EQ_U(rx.stats.packets + rx.stats.other, 500);
	GR_CHECK(rte_mempool_avail_count(pool) == POOL,
		 "%u mbufs in the pool, expected %u",
		 rte_mempool_avail_count(pool), POOL);
	if (rte_pktmbuf_alloc_bulk(pool, all, POOL) == 0) {
		for (i = 0; i < POOL && !dup; i++)
			for (j = i + 1; j < POOL; j++)
				if (all[i] == all[j])
					dup++;
		GR_CHECK(!dup, "an mbuf came out of the pool twice: it was "
			       "freed twice");
		GR_CHECK(rte_pktmbuf_alloc(pool) == NULL,
			 "more mbufs in the pool than it was made with: "
			 "some were freed twice");
	} else {
		gr_fail_at(__FILE__, __LINE__,
			   "the pool no longer gives out its %u mbufs", POOL);
	}
	teardown();
	return gr_verdict();
}

/* Empty and busy polls are counted, with their cycles. */
static int poll_accounting(void)
{
	setup(32);
	rx.prev_tsc = rte_rdtsc();
	GR_EQ_U(ex_rx_poll(&rx), 0);
	GR_EQ_U(rx.polls[0], 1);
	GR_EQ_U(rx.polls[1], 0);
	GR_CHECK(rx.cycles[0] > 0, "no cycles counted for an empty poll");
	put(10, 0, 0);
	GR_EQ_U(ex_rx_poll(&rx), 10);
	GR_EQ_U(rx.polls[0], 1);
	GR_EQ_U(rx.polls[1], 1);
	GR_CHECK(rx.cycles[1] > 0, "no cycles counted for a busy poll");
	GR_CHECK(rx.prev_tsc <= rte_rdtsc() && rx.prev_tsc > 0,
		 "prev_tsc not kept");
	teardown();
	return gr_verdict();
}

/* The loop stops at the run's count, and at an end marker. */
static int loop_ends(void)
{
	struct rte_mbuf *m;
	uint8_t *pl;

	setup(32);
	put(600, 0, 0);
	rx.run.count = 500;
	ex_rx_loop(&rx);
	GR_CHECK(rx.stats.packets >= 500 && rx.stats.packets < 500 + 32,
		 "the loop stopped after %llu packets; count was 500, burst "
		 "32",
		 (unsigned long long)rx.stats.packets);
	GR_CHECK(rx.polls[1] >= 16, "%llu busy polls for 500 packets",
		 (unsigned long long)rx.polls[1]);
	drain(100);
	/* Then: 20 datagrams and the sender's end marker. */
	rx.run.count = 0;
	put(20, 0, 0);
	m = rte_pktmbuf_alloc(pool);
	if (m) {
		m->data_len =
			(uint16_t)pl_build_frame(rte_pktmbuf_mtod(m, void *),
						 2048, &spec, 18, 2, 620, 0);
		m->pkt_len = m->data_len;
		pl = rte_pktmbuf_mtod(m, uint8_t *) + 42;
		pl[2] |= PL_FLAG_END;
		pl_payload_reseal(pl, 18);
		rte_ring_enqueue(ring, m);
	}
	ex_rx_loop(&rx);
	GR_EQ_U(rx.stats.end_markers, 1);
	GR_EQ_U(in_use(), 0);
	teardown();
	return gr_verdict();
}

/* 100,000 frames through a pool of 1023 mbufs. */
static int pool_pressure(void)
{
	unsigned sent = 0, n, round;

	setup(32);
	for (round = 0; round < 200; round++) {
		n = put(500, 0, 0);
		sent += n;
		if (n < 500) {
			gr_fail_at(__FILE__, __LINE__,
				   "the pool ran dry after %u frames: %u "
				   "still on the RX ring, %u taken by the "
				   "loop and never freed",
				   sent, rte_ring_count(ring),
				   in_use() - rte_ring_count(ring));
			break;
		}
		drain(1000);
	}
	GR_EQ_U(rx.stats.packets, sent);
	GR_EQ_U(sent, 100000);
	teardown();
	return gr_verdict();
}

/*
 * A frame in a chain of mbufs (a jumbo frame, scattered RX): its bytes
 * are not contiguous, and the parser must not take the first segment for
 * the frame. Rejected as udp_len, and every segment freed.
 */
static int chained(void)
{
	struct rte_mbuf *m, *tail;
	unsigned i, chains = 0;
	size_t len;

	setup(32);
	put(10, 0, 0);
	for (i = 0; i < 5; i++) {
		m = rte_pktmbuf_alloc(pool);
		tail = rte_pktmbuf_alloc(pool);
		if (!m || !tail)
			break;
		len = pl_build_frame(rte_pktmbuf_mtod(m, void *), 2048, &spec,
				     1000, 2, next_seq++, pl_now_ns());
		m->data_len = (uint16_t)len;
		m->pkt_len = (uint32_t)len;
		tail->data_len = 500; /* the rest of a longer frame */
		tail->pkt_len = 500;
		if (rte_pktmbuf_chain(m, tail) || rte_ring_enqueue(ring, m)) {
			rte_pktmbuf_free(m);
			break;
		}
		chains++;
	}
	GR_EQ_U(chains, 5);
	put(10, 0, 0);
	drain(100);
	GR_EQ_U(rx.stats.packets, 20);
	GR_EQ_U(rx.stats.bad[PL_BAD_UDP_LEN], 5);
	GR_CHECK(in_use() == 0, "%u mbufs never went back to the pool",
		 in_use());
	teardown();
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
	{ "pool_pressure", 2, "100,000 frames through 1023 mbufs",
	  pool_pressure },
	{ "chained", 2, "a chained (multi-segment) frame: udp_len, all freed",
	  chained },
	{ 0 }
};

/*
 * Remove the EAL runtime directories the cases left (plex07-PID, each
 * case's process gone by now, whether it ended or crashed).
 */
static void sweep_runtime_dirs(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char root[256], path[512];
	struct dirent *de, *f;
	DIR *d, *sub;
	int pid;

	if (getuid() == 0)
		snprintf(root, sizeof(root), "/var/run/dpdk");
	else
		snprintf(root, sizeof(root), "%s/dpdk", xdg ? xdg : "/tmp");
	d = opendir(root);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (sscanf(de->d_name, "plex07-%d", &pid) != 1 || pid <= 0 ||
		    !kill(pid, 0) || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, de->d_name);
		sub = opendir(path);
		while (sub && (f = readdir(sub)))
			if (f->d_name[0] != '.')
				unlinkat(dirfd(sub), f->d_name, 0);
		if (sub)
			closedir(sub);
		rmdir(path);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	int rc = gr_main(argc, argv, "07-dpdk-burst", cases);

	sweep_runtime_dirs();
	return rc;
}
