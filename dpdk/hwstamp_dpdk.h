/* SPDX-License-Identifier: MIT */
/*
 * Hardware RX stamps for the DPDK receiver (--hw-stamps). A PMD that
 * offers RTE_ETH_RX_OFFLOAD_TIMESTAMP writes the NIC's stamp of each frame
 * into a dynamic mbuf field and sets a dynamic flag in ol_flags. What the
 * stamp counts is the PMD's business: ticks of a free-running counter
 * (mlx5 by default) or nanoseconds of the NIC's PTP clock (mlx5 in
 * real-time mode, ice). rte_eth_read_clock() reads the same clock now.
 *
 * So nothing is assumed: samples of that clock between two reads of
 * CLOCK_MONOTONIC give its rate (over the whole run, since the first
 * sample, so the rate's error shrinks as the run goes on) and its offset
 * (again every HWTS_RESYNC_NS, as the socket path's hwstamp_socket.h does: a
 * drift of 100 ppm then costs at most 1 us). The conversion below is plain
 * arithmetic, without DPDK, so that a unit test can check it.
 */
#ifndef PATHLAB_HWSTAMP_DPDK_H
#define PATHLAB_HWSTAMP_DPDK_H

#include "nicclock.h"

#include <stdbool.h>
#include <stdint.h>

#define HWTS_RESYNC_NS	  10000000ull /* 10 ms, as hwstamp_socket.h */
#define HWTS_CALIBRATE_MS 20	      /* the first span, at setup */

/* The NIC's clock against CLOCK_MONOTONIC, and what the stamps gave. */
struct dpdk_hwts {
	bool on;       /* --hw-stamps */
	bool refused;  /* the port cannot: the receiver exits 77 */
	uint16_t port; /* whose clock (rte_eth_read_clock) */
	int field;     /* offset of the timestamp dynfield in the mbuf */
	uint64_t flag; /* ol_flags bit: the PMD stamped this mbuf */
	uint64_t anchor_raw, anchor_mono; /* the rate's first sample */
	struct pl_nicclock clk;		  /* the latest sample, the rate */
	uint64_t next_ns;		  /* when to sample again */
	/* Good frames with a stamp, without one, stamped after we had
	 * them (the clocks disagree: the split skips those), samples. */
	uint64_t stamped, unstamped, after_receipt, resyncs, resync_failures;
};

/* Start over from one sample (raw ticks, mono ns); the rate is kept. */
static inline void hwts_anchor(struct dpdk_hwts *h, uint64_t raw, uint64_t mono)
{
	h->anchor_raw = h->clk.base_raw = raw;
	h->anchor_mono = h->clk.base_mono = mono;
	h->clk.mask = ~0ull;
	h->clk.valid = h->clk.ns_per_tick > 0;
}

/*
 * Fold in a later sample: the rate over the span since the anchor, the
 * offset at this sample. A clock that did not move forward (reset, or
 * stepped back by PTP) starts a new span; false then.
 */
static inline bool hwts_fit(struct dpdk_hwts *h, uint64_t raw, uint64_t mono)
{
	if (raw <= h->anchor_raw || mono <= h->anchor_mono) {
		hwts_anchor(h, raw, mono);
		return false;
	}
	h->clk.ns_per_tick =
		(double)(mono - h->anchor_mono) / (double)(raw - h->anchor_raw);
	h->clk.base_raw = raw;
	h->clk.base_mono = mono;
	h->clk.valid = true;
	return true;
}

/* A raw stamp in CLOCK_MONOTONIC ns, or 0 when no conversion is known. */
static inline uint64_t hwts_ns(const struct dpdk_hwts *h, uint64_t raw)
{
	return pl_nicclock_ns(&h->clk, raw);
}

/*
 * One good frame's stamp in CLOCK_MONOTONIC ns, counted; 0 when the PMD
 * did not stamp it (stamped false) or no conversion is known: the split
 * then skips the frame rather than guess. now: when we had the frame.
 */
static inline uint64_t hwts_frame(struct dpdk_hwts *h, bool stamped,
				  uint64_t raw, uint64_t now)
{
	uint64_t ns;

	if (!stamped) {
		h->unstamped++;
		return 0;
	}
	h->stamped++;
	ns = hwts_ns(h, raw);
	h->after_receipt += ns > now;
	return ns;
}

/* The clock's rate in Hz (1e9: the stamps are nanoseconds), 0 unknown. */
static inline double hwts_hz(const struct dpdk_hwts *h)
{
	return h->clk.ns_per_tick > 0 ? 1e9 / h->clk.ns_per_tick : 0;
}

/* True when the stamps count nanoseconds (the rate within 0.1% of 1 GHz). */
static inline bool hwts_in_ns(const struct dpdk_hwts *h)
{
	return h->clk.ns_per_tick > 0.999 && h->clk.ns_per_tick < 1.001;
}

struct dpdk_rx;
struct pl_json;

/*
 * Before the port is configured: does it offer the timestamp offload? 0,
 * or -ENOTSUP after one line naming the driver (the caller exits 77).
 */
int hwts_check(struct dpdk_rx *rx);

/*
 * After the port started with the offload: find the mbuf field and flag,
 * and measure the clock's rate over HWTS_CALIBRATE_MS. 0, or -ENOTSUP
 * (the PMD cannot read its clock: exit 77) or -errno after one line.
 */
int hwts_begin(struct dpdk_rx *rx);

/* Sample the clock again (the offset, and the rate since the anchor). */
void hwts_resync(struct dpdk_hwts *h, uint64_t now);

/* Sample again once the last sample is HWTS_RESYNC_NS old. */
static inline void hwts_due(struct dpdk_hwts *h, uint64_t now)
{
	if (now >= h->next_ns)
		hwts_resync(h, now);
}

/* The "hw_stamps" object of the dpdk JSON. */
void hwts_json(struct pl_json *j, const struct dpdk_hwts *h);

#endif
