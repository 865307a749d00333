/* SPDX-License-Identifier: MIT */
/*
 * Exercise 14's worker side of the port: a copy of its mbufs, and the
 * port's calls as calls to the grader's model (dx_rpc.h).
 */
#include "dx_rpc.h"
#include "worker.h"

#include <string.h>

struct dm_port wk_port;

/* The model's name for an mbuf (its index), or DD_NONE. */
static uint32_t idx_of(const struct dm_port *p, const struct dm_mbuf *m)
{
	if (p != &wk_port || m < p->mbufs || m >= p->mbufs + DM_MAX_MBUFS)
		return DD_NONE;
	return (uint32_t)(m - p->mbufs);
}

/* One call to the model with c; its answer in a. */
static void port_call(unsigned n, const struct dd_call *c, struct dd_ans *a)
{
	memset(a, 0, sizeof(*a));
	wk_device(n, c, sizeof(*c), a, sizeof(*a));
}

uint16_t dm_rx_burst(struct dm_port *p, struct dm_mbuf **bufs, uint16_t n)
{
	static struct dd_call c;
	static struct dd_ans a;
	uint32_t i;

	c.port = p == &wk_port ? 0 : DD_NONE;
	c.n = n;
	port_call(DD_RX_BURST, &c, &a);
	for (i = 0; i < a.n && i < n && i < DD_MAX; i++) {
		struct dm_mbuf *m = &wk_port.mbufs[a.idx[i] % DM_MAX_MBUFS];

		m->len = a.len[i];
		m->ok = a.ok[i];
		m->in_use = 1;
		bufs[i] = m;
	}
	return (uint16_t)i;
}

uint16_t dm_tx_burst(struct dm_port *p, struct dm_mbuf **bufs, uint16_t n)
{
	static struct dd_call c;
	static struct dd_ans a;
	uint32_t i;

	c.port = p == &wk_port ? 0 : DD_NONE;
	c.n = n < DD_MAX ? n : DD_MAX;
	for (i = 0; i < c.n; i++)
		c.idx[i] = idx_of(p, bufs[i]);
	port_call(DD_TX_BURST, &c, &a);
	return (uint16_t)a.n;
}

void dm_free(struct dm_port *p, struct dm_mbuf *m)
{
	static struct dd_call c;
	static struct dd_ans a;

	c.port = p == &wk_port ? 0 : DD_NONE;
	c.n = 1;
	c.idx[0] = idx_of(p, m);
	port_call(DD_FREE, &c, &a);
}
