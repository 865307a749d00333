/* SPDX-License-Identifier: MIT */
/*
 * A small model of a DPDK port and its mempool, for exercise 14: the
 * rules of rte_eth_rx_burst(), rte_eth_tx_burst() and rte_pktmbuf_free(),
 * no NIC, no hugepages, no EAL.
 *
 * - The RX ring holds one mbuf per descriptor. Each mbuf rx_burst hands
 *   out is replaced from the pool; when the pool is empty the descriptor
 *   stays empty (rx_nombuf) and the packets it would have taken are
 *   dropped (imissed).
 * - tx_burst takes as many as the TX ring has room for (maybe fewer than
 *   asked: maybe none) and frees them itself once sent. The rest are
 *   still the caller's.
 * - Every mbuf goes back to the pool exactly once: freeing a free mbuf
 *   is counted (double_free).
 */
#ifndef PATHLAB_EX_DMODEL_H
#define PATHLAB_EX_DMODEL_H

#include <stdint.h>

#define DM_MAX_MBUFS 4096

struct dm_mbuf {
	uint32_t len;
	uint8_t ok;	/* the packet is one to forward (dm_pkt_ok()) */
	uint8_t in_use; /* out of the pool */
};

/*
 * The port's memory: its mbufs and its pool. Its RX ring and its counters
 * are the device's, kept in dmodel.c: read them with dm_read_counters().
 */
struct dm_port {
	struct dm_mbuf mbufs[DM_MAX_MBUFS];
	struct dm_mbuf *free[DM_MAX_MBUFS]; /* the pool: a stack */
	unsigned nfree, n;
	unsigned tx_room; /* what the next tx_burst accepts (the test sets) */
};

/* What the port counted (its xstats), and what its pool lent out. */
struct dm_counters {
	uint64_t rx_packets, rx_nombuf, imissed, tx_packets, double_free;
	uint64_t offered;   /* packets the wire brought */
	uint64_t in_use;    /* mbufs out of the pool (the RX ring's too) */
	unsigned rx_filled; /* RX descriptors holding an mbuf */
};

/* A port with nb_rxd descriptors and a pool of n mbufs (RX ring filled). */
void dm_port_init(struct dm_port *p, unsigned n, unsigned nb_rxd);
/* Draw the wire's packets (lengths, which to forward) from seed. */
void dm_reseed(unsigned seed);
/* The wire brings k packets: into filled descriptors, else imissed. */
void dm_wire(struct dm_port *p, unsigned k);
/* rte_eth_rx_burst(): up to n received mbufs into bufs, how many. */
uint16_t dm_rx_burst(struct dm_port *p, struct dm_mbuf **bufs, uint16_t n);
/* rte_eth_tx_burst(): how many of bufs[0..n) the port took (and frees). */
uint16_t dm_tx_burst(struct dm_port *p, struct dm_mbuf **bufs, uint16_t n);
/* The counters of the port last initialised. */
void dm_read_counters(struct dm_counters *c);
/* rte_pktmbuf_free(). */
void dm_free(struct dm_port *p, struct dm_mbuf *m);
/* Is this a packet to forward (a valid pathlab datagram, say)? */
static inline int dm_pkt_ok(const struct dm_mbuf *m)
{
	return m->ok;
}

#endif
