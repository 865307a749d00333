/* SPDX-License-Identifier: MIT */
/*
 * Exercise 14, the reference solution: mempool sizing and a forwarding
 * loop that neither leaks nor double-frees.
 */
#include "dx_ex.h"

#include <errno.h>

unsigned dx_pool_size(const struct dx_cfg *c)
{
	unsigned long need, n = 1;

	/* A cache holds up to its flush threshold: (unsigned)(1.5 x size). */
	need = (unsigned long)c->ports *
		       (c->rxq * c->nb_rxd + c->txq * c->nb_txd) +
	       (unsigned long)c->lcores * (c->burst + c->cache * 3ul / 2);
	while (n - 1 < need)
		n *= 2;
	return (unsigned)(n - 1);
}

int dx_cache_ok(unsigned n, unsigned cache)
{
	if (n == 0 || cache > DX_CACHE_MAX || (unsigned long)cache * 3 / 2 > n)
		return -EINVAL;
	return 0;
}

unsigned dx_forward_once(struct dm_port *p, unsigned burst)
{
	struct dm_mbuf *rx[64], *tx[64];
	uint16_t n, i, k = 0, sent;

	n = dm_rx_burst(p, rx, (uint16_t)(burst < 64 ? burst : 64));
	for (i = 0; i < n; i++) {
		if (dm_pkt_ok(rx[i]))
			tx[k++] = rx[i];
		else
			dm_free(p, rx[i]);
	}
	sent = k ? dm_tx_burst(p, tx, k) : 0;
	for (i = sent; i < k; i++)
		dm_free(p, tx[i]);
	return sent;
}
