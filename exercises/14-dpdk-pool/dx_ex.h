/* SPDX-License-Identifier: MIT */
/*
 * Exercise 14: the DPDK mempool and the forwarding loop. The port is the
 * model of dmodel.h.
 */
#ifndef PATHLAB_EX_DX_H
#define PATHLAB_EX_DX_H

#include "dmodel.h"

#define DX_CACHE_MAX 512 /* RTE_MEMPOOL_CACHE_MAX_SIZE */

/* An application's configuration, for sizing its one mempool. */
struct dx_cfg {
	unsigned ports;		 /* ports, each with its queues */
	unsigned rxq, txq;	 /* queues per port */
	unsigned nb_rxd, nb_txd; /* descriptors per RX, TX queue */
	unsigned lcores;	 /* worker lcores, each with a mempool cache */
	unsigned burst;		 /* mbufs per rx_burst */
	unsigned cache;		 /* per-lcore cache size */
};

/*
 * The mbufs one mempool needs so that rx_burst never finds it empty, as
 * the smallest 2^q - 1 that is enough. Where mbufs are at the worst
 * moment: every RX descriptor holds one; every TX descriptor may hold one
 * not yet freed; every lcore may hold a burst in its hands, and its cache
 * may hold up to its flush threshold, (unsigned)(1.5 x its size), before
 * it flushes to the pool (DPDK 22.11: a put that would go past the
 * threshold flushes the cache first). A pool of 2^q - 1 mbufs is the one
 * that fits its ring of 2^q slots with no waste.
 */
unsigned dx_pool_size(const struct dx_cfg *c);

/*
 * 0 when rte_mempool_create() accepts a pool of n mbufs with a per-lcore
 * cache of cache, else -EINVAL. DPDK 22.11 refuses an empty pool, a cache
 * over DX_CACHE_MAX, and a cache whose flush threshold,
 * (unsigned)(cache * 1.5), is over n. A cache of 0 is allowed.
 */
int dx_cache_ok(unsigned n, unsigned cache);

/*
 * One turn of a forwarding loop on port p: receive up to burst mbufs
 * (burst <= 64), send the packets dm_pkt_ok() accepts back out in one
 * tx_burst, keep the others from leaking, and whatever the TX ring did
 * not take too. Returns the packets sent.
 */
unsigned dx_forward_once(struct dm_port *p, unsigned burst);

#endif
