/* SPDX-License-Identifier: MIT */
/*
 * The port: one mempool of mbufs, one RX queue per lcore (RSS over them
 * when there are more than one, where the PMD offers it), promiscuous on
 * a NIC of its own, as in DPDK's examples/skeleton/basicfwd.c. Every
 * ethdev call returns 0 or -errno; the cleanup ladder undoes them in
 * reverse order.
 */
#include "rx_dpdk.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#define MBUF_CACHE 256

/*
 * RSS on a port of many queues: the NIC hashes each frame's addresses and
 * ports and picks a queue through its redirection table (RETA), so one
 * flow stays on one queue. Only the hash types the PMD offers may be
 * asked for; the lab's vdevs offer none (their "RSS" is the kernel's:
 * see ports_setup()), and then the mode stays NONE.
 */
static void port_rss(struct dpdk_port *p, const struct rte_eth_dev_info *info,
		     struct rte_eth_conf *conf)
{
	p->rss_hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP) &
		    info->flow_type_rss_offloads;
	p->rss = p->nq > 1 && p->rss_hf;
	if (!p->rss)
		return;
	conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf->rx_adv_conf.rss_conf.rss_hf = p->rss_hf;
}

/*
 * True when the port is a vdev over a kernel interface (the lab's veth):
 * its packet socket or XDP program sees every frame the link gets, so it
 * needs no promiscuous mode, whose flag would outlive the receiver.
 */
static bool port_on_kernel_link(const struct dpdk_port *p)
{
	return !strcmp(p->driver, "net_af_packet") ||
	       !strcmp(p->driver, "net_af_xdp");
}

/* 8< dpdk-port-setup */
/* Mempool, nq RX and TX queues, started, promiscuous on a NIC; 0/-errno. */
int port_setup(struct dpdk_port *p, const struct cfg *c)
{
	struct rte_eth_conf conf = {
		.rxmode = { .mq_mode = RTE_ETH_MQ_RX_NONE }, /* no RSS */
	};
	struct rte_eth_dev_info info;
	uint16_t rxd = (uint16_t)c->rx_desc, txd = 512, q, nq = p->nq;
	int err, node = rte_eth_dev_socket_id(p->id);

	/* The GPU variant brings its own pool, on device memory. */
	p->pool = p->ext_pool;
	if (!p->pool) /* --mbufs for each of the run's queues */
		p->pool = rte_pktmbuf_pool_create(
			"pathlab_rx", c->mbufs * pl_rx_queues(&c->rx),
			MBUF_CACHE, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
			rte_socket_id());
	if (!p->pool)
		return -rte_errno;
	err = rte_eth_dev_info_get(p->id, &info);
	if (err)
		goto out_free_pool;
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
	p->max_queues = RTE_MIN(info.max_rx_queues, info.max_tx_queues);
	if (nq > p->max_queues) {
		err = -ERANGE; /* the caller says so, with max_queues */
		goto out_free_pool;
	}
	port_rss(p, &info, &conf);
	/* --hw-stamps: hwts_check() saw the offload offered. */
	if (c->hw_stamps)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
	/* As many TX queues: --reflect sends on them (af_xdp needs one). */
	err = rte_eth_dev_configure(p->id, nq, nq, &conf);
	if (err)
		goto out_free_pool;
	err = rte_eth_dev_adjust_nb_rx_tx_desc(p->id, &rxd, &txd);
	if (err)
		goto out_close;
	for (q = 0; q < nq && !err; q++) {
		err = rte_eth_rx_queue_setup(p->id, q, rxd, node, NULL,
					     p->pool);
		if (!err)
			err = rte_eth_tx_queue_setup(p->id, q, txd, node, NULL);
	}
	if (err)
		goto out_close;
	/* af_packet's start would flush the link's neighbours: keep_link.c */
	if (!strcmp(p->driver, "net_af_packet"))
		err = port_start_keep_link(p->id);
	else
		err = rte_eth_dev_start(p->id);
	if (err)
		goto out_close;
	if (port_on_kernel_link(p))
		return 0;
	err = rte_eth_promiscuous_enable(p->id);
	if (err && err != -ENOTSUP)
		goto out_stop;
	return 0;

out_stop:
	rte_eth_dev_stop(p->id);
out_close:
	rte_eth_dev_close(p->id);
out_free_pool:
	if (!p->pool_borrowed)
		rte_mempool_free(p->pool);
	return err;
}
/* >8 dpdk-port-setup */

/*
 * The ports a run on n queues polls. A NIC, or the af_packet vdev with
 * qpairs=n, is one port with n queues: the NIC's RSS, or the kernel's
 * PACKET_FANOUT hash over n packet sockets, picks one queue per flow.
 * DPDK 22.11's af_xdp vdev takes queue_count=n only on a device with n
 * combined channels, which veth lacks (it has RX and TX channels), so the
 * lab gives it one vdev per kernel RX queue instead: n ports of one queue
 * each, sharing port 0's pool. There the kernel picks the queue: veth
 * delivers a frame on the RX queue of the TX queue it was sent on.
 */
int ports_setup(struct dpdk_port *p, struct dpdk_port *more, unsigned n,
		unsigned *nports, const struct cfg *c)
{
	unsigned avail = rte_eth_dev_count_avail(), i = 0;
	uint16_t id;
	int err = -ENODEV;

	if (avail != 1 && avail != n)
		return avail ? -EXDEV : -ENODEV;
	RTE_ETH_FOREACH_DEV(id)
	{
		struct dpdk_port *pi = i ? &more[i - 1] : p;

		pi->id = id;
		pi->nq = (uint16_t)(avail == 1 ? n : 1);
		if (i) {
			pi->ext_pool = p->pool;
			pi->pool_borrowed = true;
		}
		err = port_setup(pi, c);
		if (err)
			break;
		if (++i == avail)
			break;
	}
	*nports = i;
	if (i == avail)
		return 0;
	while (i-- > 0)
		port_teardown(i ? &more[i - 1] : p);
	return err;
}

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
	unsigned q;
	int err;

	err = rte_eth_stats_get(p->id, &st);
	if (err)
		return err;
	for (q = 0; q < p->nq && q < RTE_ETHDEV_QUEUE_STAT_CNTRS; q++)
		p->q_ipackets[q] = st.q_ipackets[q];
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
	if (!p->pool_borrowed)
		rte_mempool_free(p->pool);
	free(p->xstat_names);
	free(p->xstat_values);
}
