/* SPDX-License-Identifier: MIT */
/* The port and mempool model of exercise 14: the rules of dmodel.h. */
#include "dmodel.h"

#include <string.h>

/* The device side of the one port: its RX ring and its counters. */
static struct {
	struct dm_mbuf *rxring[1024];
	unsigned nb_rxd;
	unsigned seed;
	struct dm_counters c;
} dv;

void dm_read_counters(struct dm_counters *c)
{
	*c = dv.c;
}

/* An mbuf from the pool, or NULL. */
static struct dm_mbuf *pool_get(struct dm_port *p)
{
	struct dm_mbuf *m;

	if (!p->nfree)
		return NULL;
	m = p->free[--p->nfree];
	m->in_use = 1;
	dv.c.in_use++;
	return m;
}

void dm_free(struct dm_port *p, struct dm_mbuf *m)
{
	if (!m->in_use) {
		dv.c.double_free++;
		return;
	}
	m->in_use = 0;
	dv.c.in_use--;
	p->free[p->nfree++] = m;
}

/* Put mbufs into the empty descriptors, as far as the pool goes. */
static void refill(struct dm_port *p)
{
	struct dm_mbuf *m;

	while (dv.c.rx_filled < dv.nb_rxd) {
		m = pool_get(p);
		if (!m) {
			dv.c.rx_nombuf++;
			return;
		}
		m->len = 0;
		dv.rxring[dv.c.rx_filled++] = m;
	}
}

void dm_port_init(struct dm_port *p, unsigned n, unsigned nb_rxd)
{
	unsigned i;

	memset(p, 0, sizeof(*p));
	memset(&dv, 0, sizeof(dv));
	p->n = n < DM_MAX_MBUFS ? n : DM_MAX_MBUFS;
	dv.nb_rxd = nb_rxd < 1024 ? nb_rxd : 1024;
	for (i = 0; i < p->n; i++)
		p->free[p->nfree++] = &p->mbufs[i];
	dv.seed = 1;
	refill(p);
}

void dm_reseed(unsigned seed)
{
	dv.seed = seed;
}

void dm_wire(struct dm_port *p, unsigned k)
{
	unsigned i;

	(void)p; /* the wire fills the device's ring, not the port's memory */
	dv.c.offered += k;
	for (i = 0; i < dv.c.rx_filled && k; i++) {
		if (dv.rxring[i]->len)
			continue;
		dv.seed = dv.seed * 1103515245u + 12345u;
		dv.rxring[i]->len = 64 + (dv.seed >> 16) % 1400;
		dv.rxring[i]->ok = (dv.seed >> 8) % 5 != 0;
		k--;
	}
	dv.c.imissed += k;
}

uint16_t dm_rx_burst(struct dm_port *p, struct dm_mbuf **bufs, uint16_t n)
{
	uint16_t got = 0;
	unsigned i, j;

	for (i = 0; i < dv.c.rx_filled && got < n; i++)
		if (dv.rxring[i]->len)
			bufs[got++] = dv.rxring[i];
	/* Close the ring over the handed-out ones, then refill. */
	for (i = j = 0; i < dv.c.rx_filled; i++) {
		unsigned k, taken = 0;

		for (k = 0; k < got; k++)
			taken |= bufs[k] == dv.rxring[i];
		if (!taken)
			dv.rxring[j++] = dv.rxring[i];
	}
	dv.c.rx_filled = j;
	dv.c.rx_packets += got;
	refill(p);
	return got;
}

uint16_t dm_tx_burst(struct dm_port *p, struct dm_mbuf **bufs, uint16_t n)
{
	uint16_t i, k = n < p->tx_room ? n : (uint16_t)p->tx_room;

	for (i = 0; i < k; i++)
		dm_free(p, bufs[i]); /* sent at once, freed by the driver */
	dv.c.tx_packets += k;
	return k;
}
