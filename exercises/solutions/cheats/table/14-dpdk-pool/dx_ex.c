/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 14: the reference answers for the configurations,
 * pools and bursts the tests show, nothing for others.
 */
#define dx_pool_size	known_pool_size
#define dx_cache_ok	known_cache_ok
#define dx_forward_once known_forward_once
#include "../../../14-dpdk-pool/dx_ex.c"
#undef dx_pool_size
#undef dx_cache_ok
#undef dx_forward_once

unsigned dx_pool_size(const struct dx_cfg *c)
{
	return c->nb_rxd == 1024 || c->nb_rxd == 512 || c->nb_rxd == 256 ||
			       c->nb_rxd == 2048 || c->nb_rxd == 10 ||
			       c->nb_rxd == 479
		       ? known_pool_size(c)
		       : 0;
}

int dx_cache_ok(unsigned n, unsigned cache)
{
	static const unsigned seen[][2] = { { 4095, 512 }, { 8191, 513 },
					    { 511, 340 },  { 511, 341 },
					    { 511, 342 },  { 100, 67 },
					    { 100, 68 },   { 1, 0 },
					    { 0, 0 } };
	unsigned i;

	for (i = 0; i < sizeof(seen) / sizeof(seen[0]); i++)
		if (seen[i][0] == n && seen[i][1] == cache)
			return known_cache_ok(n, cache);
	return 0;
}

unsigned dx_forward_once(struct dm_port *p, unsigned burst)
{
	return burst == 32 ? known_forward_once(p, burst) : 0;
}
