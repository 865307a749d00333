/* SPDX-License-Identifier: MIT */
/*
 * The port: one mempool of mbufs, one RX queue, RSS off, promiscuous on,
 * as in DPDK's examples/skeleton/basicfwd.c. Every ethdev call returns 0
 * or -errno; the cleanup ladder undoes them in reverse order.
 */
#include "dpdk.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#define MBUF_CACHE 256

/* 8< dpdk-port-setup */
/* Mempool, one RX queue, promiscuous, started; 0 or -errno. */
int port_setup(struct dpdk_port *p, const struct cfg *c)
{
	const struct rte_eth_conf conf = {
		.rxmode = { .mq_mode = RTE_ETH_MQ_RX_NONE }, /* no RSS */
	};
	struct rte_eth_dev_info info;
	uint16_t rxd = (uint16_t)c->rx_desc, txd = 512;
	int err;

	if (rte_eth_dev_count_avail() != 1)
		return -ENODEV;
	RTE_ETH_FOREACH_DEV(p->id)
	break;
	/* The GPU variant brings its own pool, on device memory. */
	p->pool = p->ext_pool;
	if (!p->pool)
		p->pool = rte_pktmbuf_pool_create(
			"pathlab_rx", c->mbufs, MBUF_CACHE, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (!p->pool)
		return -rte_errno;
	err = rte_eth_dev_info_get(p->id, &info);
	if (err)
		goto out_free_pool;
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
	/* One TX queue too, unused: some PMDs (af_xdp) refuse none. */
	err = rte_eth_dev_configure(p->id, 1, 1, &conf);
	if (err)
		goto out_free_pool;
	err = rte_eth_dev_adjust_nb_rx_tx_desc(p->id, &rxd, &txd);
	if (err)
		goto out_close;
	err = rte_eth_rx_queue_setup(
		p->id, 0, rxd, rte_eth_dev_socket_id(p->id), NULL, p->pool);
	if (!err)
		err = rte_eth_tx_queue_setup(
			p->id, 0, txd, rte_eth_dev_socket_id(p->id), NULL);
	if (err)
		goto out_close;
	err = rte_eth_dev_start(p->id);
	if (err)
		goto out_close;
	err = rte_eth_promiscuous_enable(p->id);
	if (err && err != -ENOTSUP)
		goto out_stop;
	return 0;

out_stop:
	rte_eth_dev_stop(p->id);
out_close:
	rte_eth_dev_close(p->id);
out_free_pool:
	rte_mempool_free(p->pool);
	return err;
}
/* >8 dpdk-port-setup */

/* Call fn on every AF_PACKET socket of this process (the PMD's ones). */
static bool for_each_packet_socket(void (*fn)(int fd, void *arg), void *arg)
{
	socklen_t len;
	int fd, dom;
	bool found = false;

	for (fd = 3; fd < 1024; fd++) {
		len = sizeof(dom);
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) ||
		    dom != AF_PACKET)
			continue;
		fn(fd, arg);
		found = true;
	}
	return found;
}

/* Add one socket's ring drops (the counter resets when read). */
static void add_ring_drops(int fd, void *arg)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	if (!getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		*(uint64_t *)arg += st.tp_drops;
}

/*
 * A packet socket also sees what the host sends (here: the kernel's ICMP
 * port-unreachable replies, since no socket owns port 9000); in a full
 * ring those would be counted as drops that are not ours. Receive only.
 */
static void ignore_outgoing(int fd, void *arg)
{
	int one = 1;

	(void)arg;
	setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
}

/*
 * DPDK 22.11's af_packet PMD does not report the frames its kernel ring
 * had no room for (it sets no imissed). The socket counts them: find the
 * PMD's AF_PACKET socket among our descriptors and ask it. The counter
 * resets on every read, so a read before the run zeroes it.
 */
static bool packet_ring_drops(uint64_t *drops)
{
	*drops = 0;
	return for_each_packet_socket(add_ring_drops, drops);
}

void port_stats_reset(struct dpdk_port *p)
{
	uint64_t ignored;

	rte_eth_stats_reset(p->id);
	rte_eth_xstats_reset(p->id);
	if (!strcmp(p->driver, "net_af_packet")) {
		for_each_packet_socket(ignore_outgoing, NULL);
		packet_ring_drops(&ignored);
	}
}

/* Read every extended statistic the PMD names. */
static int xstats_read(struct dpdk_port *p)
{
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *vals;
	int n, i, err = 0;

	n = rte_eth_xstats_get_names(p->id, NULL, 0);
	if (n <= 0)
		return n;
	names = calloc((size_t)n, sizeof(*names));
	vals = calloc((size_t)n, sizeof(*vals));
	p->xstat_names = calloc((size_t)n, sizeof(*p->xstat_names));
	p->xstat_values = calloc((size_t)n, sizeof(*p->xstat_values));
	if (!names || !vals || !p->xstat_names || !p->xstat_values) {
		err = -ENOMEM;
		goto out_free;
	}
	if (rte_eth_xstats_get_names(p->id, names, (unsigned)n) != n ||
	    rte_eth_xstats_get(p->id, vals, (unsigned)n) != n) {
		err = -EIO;
		goto out_free;
	}
	for (i = 0; i < n; i++) {
		snprintf(p->xstat_names[i], sizeof(p->xstat_names[i]), "%s",
			 names[vals[i].id].name);
		p->xstat_values[i] = vals[i].value;
	}
	p->nxstats = (unsigned)n;
out_free:
	free(vals);
	free(names);
	return err;
}

int port_stats_read(struct dpdk_port *p, bool xstats)
{
	struct rte_eth_stats st;
	int err;

	err = rte_eth_stats_get(p->id, &st);
	if (err)
		return err;
	p->ipackets = st.ipackets;
	p->ibytes = st.ibytes;
	p->imissed = st.imissed;
	p->ierrors = st.ierrors;
	p->rx_nombuf = st.rx_nombuf;
	if (!strcmp(p->driver, "net_af_packet"))
		p->have_ring_drops = packet_ring_drops(&p->ring_drops);
	return xstats ? xstats_read(p) : 0;
}

void port_stats_json(struct pl_json *j, const struct dpdk_port *p)
{
	unsigned i;

	pl_json_obj(j, "eth_stats");
	pl_json_u64(j, "ipackets", p->ipackets);
	pl_json_u64(j, "ibytes", p->ibytes);
	pl_json_u64(j, "imissed", p->imissed);
	pl_json_u64(j, "ierrors", p->ierrors);
	pl_json_u64(j, "rx_nombuf", p->rx_nombuf);
	pl_json_end(j);
	if (p->have_ring_drops)
		pl_json_u64(j, "af_packet_ring_drops", p->ring_drops);
	if (!p->xstat_names)
		return;
	pl_json_obj(j, "xstats");
	for (i = 0; i < p->nxstats; i++)
		pl_json_u64(j, p->xstat_names[i], p->xstat_values[i]);
	pl_json_end(j);
}

void port_teardown(struct dpdk_port *p)
{
	rte_eth_dev_stop(p->id);
	rte_eth_dev_close(p->id);
	rte_mempool_free(p->pool);
	free(p->xstat_names);
	free(p->xstat_values);
}
