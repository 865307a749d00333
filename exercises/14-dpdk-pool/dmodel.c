/* SPDX-License-Identifier: MIT */
/* The port and mempool model of exercise 14: the rules of dmodel.h. */
#include "dmodel.h"

#include <string.h>

/* An mbuf from the pool, or NULL. */
static struct dm_mbuf *pool_get(struct dm_port *p)
{
	struct dm_mbuf *m;

	if (!p->nfree)
		return NULL;
	m = p->free[--p->nfree];
	m->in_use = 1;
	return m;
}

void dm_free(struct dm_port *p, struct dm_mbuf *m)
{
	if (!m->in_use) {
		p->double_free++;
		return;
	}
	m->in_use = 0;
	p->free[p->nfree++] = m;
}

/* Put mbufs into the empty descriptors, as far as the pool goes. */
static void refill(struct dm_port *p)
{
	struct dm_mbuf *m;

	while (p->rx_filled < p->nb_rxd) {
		m = pool_get(p);
		if (!m) {
			p->rx_nombuf++;
			return;
		}
		m->len = 0;
		p->rxring[p->rx_filled++] = m;
	}
}

void dm_port_init(struct dm_port *p, unsigned n, unsigned nb_rxd)
{
	unsigned i;

	memset(p, 0, sizeof(*p));
	p->n = n < DM_MAX_MBUFS ? n : DM_MAX_MBUFS;
	p->nb_rxd = nb_rxd < 1024 ? nb_rxd : 1024;
	for (i = 0; i < p->n; i++)
		p->free[p->nfree++] = &p->mbufs[i];
	p->seed = 1;
	refill(p);
}

void dm_wire(struct dm_port *p, unsigned k)
{
	unsigned i;

	p->offered += k;
	for (i = 0; i < p->rx_filled && k; i++) {
		if (p->rxring[i]->len)
			continue;
		p->seed = p->seed * 1103515245u + 12345u;
		p->rxring[i]->len = 64 + (p->seed >> 16) % 1400;
		p->rxring[i]->ok = (p->seed >> 8) % 5 != 0;
		k--;
	}
	p->imissed += k;
}

uint16_t dm_rx_burst(struct dm_port *p, struct dm_mbuf **bufs, uint16_t n)
{
	uint16_t got = 0;
	unsigned i, j;

	for (i = 0; i < p->rx_filled && got < n; i++)
		if (p->rxring[i]->len)
			bufs[got++] = p->rxring[i];
	/* Close the ring over the handed-out ones, then refill. */
	for (i = j = 0; i < p->rx_filled; i++) {
		unsigned k, taken = 0;

		for (k = 0; k < got; k++)
			taken |= bufs[k] == p->rxring[i];
		if (!taken)
			p->rxring[j++] = p->rxring[i];
	}
	p->rx_filled = j;
	p->rx_packets += got;
	refill(p);
	return got;
}

uint16_t dm_tx_burst(struct dm_port *p, struct dm_mbuf **bufs, uint16_t n)
{
	uint16_t i, k = n < p->tx_room ? n : (uint16_t)p->tx_room;

	for (i = 0; i < k; i++)
		dm_free(p, bufs[i]); /* sent at once, freed by the driver */
	p->tx_packets += k;
	return k;
}
