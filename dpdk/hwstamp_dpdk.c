/* SPDX-License-Identifier: MIT */
/*
 * --hw-stamps on the DPDK path: ask the port for the timestamp offload
 * (dev_info.rx_offload_capa), find the mbuf field the PMD writes the stamp
 * into, and relate the NIC's clock to CLOCK_MONOTONIC with
 * rte_eth_read_clock() (hwstamp_dpdk.h says how). The offload itself is
 * switched on in port_setup() (rxmode.offloads).
 */
#define ALLOW_EXPERIMENTAL_API /* rte_eth_read_clock() is, in DPDK 22.11 */

#include "rx_dpdk.h"
#include "clock.h"
#include "json.h"
#include "nicclock.h"

#include <errno.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf_dyn.h>

int hwts_check(struct dpdk_rx *rx)
{
	struct rte_eth_dev_info info;
	uint16_t id;

	RTE_ETH_FOREACH_DEV(id)
	{
		if (rte_eth_dev_info_get(id, &info))
			return 0; /* port_setup() says why */
		if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP)
			return 0;
		fprintf(stderr,
			"pathlab-rx-dpdk: --hw-stamps: %s has no RX timestamp "
			"offload: hardware stamps need a NIC that offers it "
			"(mlx5, ice, ...)\n",
			info.driver_name);
		rx->hwts.refused = true;
		return -ENOTSUP;
	}
	return 0; /* no port: ports_setup() says so */
}

/* rte_eth_read_clock() as a pl_clock_read_fn (ctx: the hwts). */
static int read_clock(void *ctx, uint64_t *raw)
{
	const struct dpdk_hwts *h = ctx;

	return rte_eth_read_clock(h->port, raw);
}

/* One sample of the NIC's clock against CLOCK_MONOTONIC (nicclock.h). */
static int hwts_sample(struct dpdk_hwts *h, uint64_t *raw, uint64_t *mono)
{
	return pl_clock_sample(read_clock, h, ~0ull, raw, mono,
			       &h->clk.window_ns);
}

/* Say that the port stamps but cannot read its clock; -ENOTSUP. */
static int no_read_clock(struct dpdk_rx *rx)
{
	fprintf(stderr,
		"pathlab-rx-dpdk: --hw-stamps: %s stamps RX frames but has no "
		"rte_eth_read_clock(): its stamps cannot be related to "
		"CLOCK_MONOTONIC\n",
		rx->port.driver);
	rx->hwts.refused = true;
	return -ENOTSUP;
}

/* Say what the stamps count, in one line. */
static void hwts_note(const struct dpdk_rx *rx)
{
	const struct dpdk_hwts *h = &rx->hwts;

	fprintf(stderr,
		"pathlab-rx-dpdk: --hw-stamps: %s stamps in %s of a %.3f MHz "
		"clock (rte_eth_read_clock against CLOCK_MONOTONIC over "
		"%d ms)\n",
		rx->port.driver, hwts_in_ns(h) ? "nanoseconds" : "ticks",
		hwts_hz(h) / 1e6, HWTS_CALIBRATE_MS);
}

int hwts_begin(struct dpdk_rx *rx)
{
	struct dpdk_hwts *h = &rx->hwts;
	uint64_t raw, mono;
	int err;

	h->port = rx->port.id;
	if (rte_mbuf_dyn_rx_timestamp_register(&h->field, &h->flag)) {
		err = -rte_errno;
		fprintf(stderr,
			"pathlab-rx-dpdk: --hw-stamps: the mbuf timestamp "
			"field: %s\n",
			rte_strerror(rte_errno));
		return err;
	}
	err = hwts_sample(h, &raw, &mono);
	if (err == -ENOTSUP)
		return no_read_clock(rx);
	if (!err) {
		hwts_anchor(h, raw, mono);
		rte_delay_us_sleep(HWTS_CALIBRATE_MS * 1000);
		err = hwts_sample(h, &raw, &mono);
	}
	if (!err && !hwts_fit(h, raw, mono))
		err = -EIO; /* the clock did not move */
	if (err) {
		fprintf(stderr,
			"pathlab-rx-dpdk: --hw-stamps: rte_eth_read_clock on "
			"port %u: %s\n",
			h->port,
			err == -EIO ? "the clock did not advance"
				    : rte_strerror(-err));
		return err;
	}
	h->next_ns = mono + HWTS_RESYNC_NS;
	hwts_note(rx);
	return 0;
}

void hwts_resync(struct dpdk_hwts *h, uint64_t now)
{
	uint64_t raw, mono;

	h->next_ns = now + HWTS_RESYNC_NS;
	if (hwts_sample(h, &raw, &mono)) {
		/* Skip, rather than guess, until it reads again. */
		h->clk.valid = false;
		h->resync_failures++;
		return;
	}
	if (hwts_fit(h, raw, mono))
		h->resyncs++;
	else
		h->resync_failures++; /* a new span, from this sample */
}

void hwts_json(struct pl_json *j, const struct dpdk_hwts *h)
{
	pl_json_obj(j, "hw_stamps");
	pl_json_str(j, "offload", "RTE_ETH_RX_OFFLOAD_TIMESTAMP");
	pl_json_str(j, "units", hwts_in_ns(h) ? "ns" : "ticks");
	pl_json_dbl(j, "clock_hz", hwts_hz(h));
	pl_json_str(j, "clock_source",
		    "rte_eth_read_clock against CLOCK_MONOTONIC");
	pl_json_u64(j, "resync_ns", HWTS_RESYNC_NS);
	pl_json_u64(j, "stamped", h->stamped);
	pl_json_u64(j, "unstamped", h->unstamped);
	pl_json_u64(j, "after_receipt", h->after_receipt);
	pl_json_u64(j, "resyncs", h->resyncs);
	pl_json_u64(j, "resync_failures", h->resync_failures);
	pl_json_end(j);
}

/* The NIC's stamp of one good frame (hwts_frame()): what the PMD wrote. */
static inline uint64_t hwts_stamp(struct dpdk_hwts *h, const struct rte_mbuf *m,
				  uint64_t now)
{
	bool stamped = (m->ol_flags & h->flag) != 0;
	uint64_t raw = 0;

	if (stamped)
		raw = *RTE_MBUF_DYNFIELD(m, h->field,
					 const rte_mbuf_timestamp_t *);
	return hwts_frame(h, stamped, raw, now);
}

/* 8< dpdk-hwts-loop */
/*
 * --hw-stamps: as the plain handler, and each good frame's latency split at
 * the NIC's stamp: sender to NIC (latency_to_stack_ns) and NIC to this
 * loop (latency_stack_to_user_ns: the RX ring and the wait for a poll). A
 * handler of its own, chosen once at setup: the plain one carries none.
 */
void hwts_burst(struct dpdk_queue *q, uint16_t n, uint64_t now)
{
	struct dpdk_hwts *h = &q->rx->hwts;
	struct pl_pkt p;
	uint16_t i;

	hwts_due(h, now); /* the clock's offset, every 10 ms */
	for (i = 0; i < n; i++)
		if (rx_one(q, rte_pktmbuf_mtod(q->bufs[i], const void *),
			   q->bufs[i]->data_len, now, &p) == PL_OK)
			pl_stats_split(q->stats, p.tx_ns,
				       hwts_stamp(h, q->bufs[i], now), now);
	rte_pktmbuf_free_bulk(q->bufs, n);
}
/* >8 dpdk-hwts-loop */
