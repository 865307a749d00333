/* SPDX-License-Identifier: MIT */
/*
 * --hw-stamps on the verbs path: the NIC stamps each completion it writes.
 *
 * A device that can says so in ibv_query_device_ex(): a non-zero
 * completion_timestamp_mask (the bits of a stamp) and hca_core_clock (the
 * rate of the clock it counts, in kHz). We ask for the stamp when the
 * receive CQ is made (ibv_create_cq_ex with IBV_WC_EX_WITH_COMPLETION_
 * TIMESTAMP) and read it per completion (ibv_wc_read_completion_ts) in a
 * loop of our own over ibv_start_poll / ibv_end_poll: the plain loop's
 * ibv_poll_cq() and struct ibv_wc have no room for it.
 *
 * The stamp counts ticks of a free-running clock on the NIC, neither
 * nanoseconds nor CLOCK_MONOTONIC. ibv_query_rt_values_ex() reads that
 * clock now; read between two reads of CLOCK_MONOTONIC (the best of three)
 * it ties a tick count to a time, and hca_core_clock turns the ticks since
 * into nanoseconds. The rate is nominal and the clocks drift apart (tens of
 * ppm), so the reading is taken again every HWSTAMP_VERBS_RESYNC_NS: at
 * 100 ppm that bounds the error to 1 us. A device that offers only the
 * real-time variant (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
 * nanoseconds of its PTP clock) goes through CLOCK_REALTIME -
 * CLOCK_MONOTONIC instead, which is right only where that clock follows
 * CLOCK_REALTIME (phc2sys).
 *
 * The stamp marks the completion: the message is in our buffer already, so
 * the split is sender -> NIC's completion, completion -> our poll.
 * Soft-RoCE (rxe) and siw stamp nothing: --hw-stamps exits 77 there.
 */
#include "clock.h"
#include "nicclock.h"
#include "opt.h"
#include "rx_verbs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HWSTAMP_VERBS_RESYNC_NS 10000000ull /* 10 ms */

/* What every stamped CQ's completions carry, besides the stamp. */
#define HWSTAMP_WC_FLAGS (IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM)

/* The NIC's free-running clock now (a pl_clock_read_fn; ctx: the device). */
static int read_raw(void *ctx, uint64_t *raw)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	int err = ibv_query_rt_values_ex(ctx, &v);

	if (err)
		return -err;
	if (!(v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK))
		return -EOPNOTSUPP;
	/* mlx4/mlx5 give the ticks in tv_nsec, tv_sec 0 */
	*raw = pl_timespec_ns(&v.raw_clock);
	return 0;
}

/* CLOCK_REALTIME now: what a real-time stamp is taken to follow. */
static int read_wall(void *ctx, uint64_t *raw)
{
	struct timespec rt;

	(void)ctx;
	if (clock_gettime(CLOCK_REALTIME, &rt))
		return -errno;
	*raw = pl_timespec_ns(&rt);
	return 0;
}

/* Measure the reference again (every HWSTAMP_VERBS_RESYNC_NS from now). */
static void resync(struct verbs_rx *rx, uint64_t now)
{
	struct verbs_hwconv *h = &rx->hw;

	if (!pl_nicclock_resync(&h->clk, h->wallclock ? read_wall : read_raw,
				rx->ep.ctx))
		h->resyncs++;
	else
		h->resync_errors++;
	h->next_ns = now + HWSTAMP_VERBS_RESYNC_NS;
}

/*
 * The current completion's stamp in CLOCK_MONOTONIC ns, or 0 when there
 * is none (a zero stamp, or no valid reference): the split then skips the
 * message rather than guess.
 */
static inline uint64_t stamp_ns(struct verbs_hwconv *h, struct ibv_cq_ex *cq)
{
	uint64_t t;

	if (!h->clk.valid)
		return 0;
	t = h->wallclock ? ibv_wc_read_completion_wallclock_ns(cq)
			 : ibv_wc_read_completion_ts(cq);
	return t ? pl_nicclock_ns(&h->clk, t) : 0;
}

/* Split one good message's latency at the NIC's stamp (p: the message). */
static inline void split(struct verbs_rx *rx, const struct pl_pkt *p,
			 uint64_t nic, uint64_t now)
{
	struct verbs_hwconv *h = &rx->hw;

	if (p->flags & PL_FLAG_END)
		return; /* not data: no latency either */
	if (!nic) {
		h->unstamped++;
		return;
	}
	h->stamped++;
	if (nic > now)
		h->after_poll++; /* a conversion error: the split skips it */
	pl_stats_split(&rx->stats, p->tx_ns, nic, now);
}

/* 8< verbs-hwstamp-loop */
/*
 * Poll the extended CQ. ibv_start_poll() opens the oldest completion
 * (ENOENT: none), read in place with ibv_wc_read_*() into rx->wc[i] and
 * its stamp into rx->stamp[i]; ibv_end_poll() hands it back. One
 * completion per start and end: ibv_next_poll() would step to the next,
 * but providers disagree on what ibv_end_poll() must do once it ran dry
 * (rxe's has closed the poll itself then). Up to --batch completions are
 * taken in a row.
 */
int hwstamp_verbs_poll(struct verbs_rx *rx)
{
	struct ibv_poll_cq_attr attr = { 0 };
	struct ibv_cq_ex *cq = rx->ep.cqx;
	struct ibv_wc *wc;
	uint64_t now;
	bool imm;
	int n = 0;

	if (ibv_start_poll(cq, &attr))
		return 0;
	now = pl_now_ns();
	if (now >= rx->hw.next_ns)
		resync(rx, now);
	do {
		wc = &rx->wc[n];
		*wc = (struct ibv_wc){ .wr_id = cq->wr_id,
				       .status = cq->status };
		rx->stamp[n] = 0;
		if (cq->status == IBV_WC_SUCCESS) {
			imm = ibv_wc_read_opcode(cq) ==
			      IBV_WC_RECV_RDMA_WITH_IMM;
			wc->opcode =
				imm ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
			wc->byte_len = ibv_wc_read_byte_len(cq);
			wc->imm_data = imm ? ibv_wc_read_imm_data(cq) : 0;
			rx->stamp[n] = stamp_ns(&rx->hw, cq);
		}
		ibv_end_poll(cq);
	} while (++n < (int)rx->batch && !ibv_start_poll(cq, &attr));
	return n;
}

/*
 * The --hw-stamps handler: account each message, split its latency at its
 * stamp, post the slots again in one call; as the plain handler does for
 * a plain work completion.
 */
void hwstamp_verbs_burst(struct verbs_rx *rx, int n, uint64_t now)
{
	uint32_t slot[VERBS_MAX_BATCH], len;
	const struct ibv_wc *wc;
	struct pl_pkt p;
	size_t off;
	int i, k = 0;

	for (i = 0; i < n; i++) {
		wc = &rx->wc[i];
		rx->completions++;
		if (wc->status != IBV_WC_SUCCESS) {
			rx->wc_errors++; /* the QP is broken: no repost */
			rx->last_wc_status = wc->status;
			continue;
		}
		slot[k++] = (uint32_t)wc->wr_id;
		if (!verbs_decode_wc(rx, wc, &off, &len))
			continue;
		if (rx_one(rx, rx->ep.buf + off, len, now, &p) == PL_OK)
			split(rx, &p, rx->stamp[i], now);
	}
	if (verbs_post(rx, slot, k))
		rx->post_errors++;
}
/* >8 verbs-hwstamp-loop */

/* Can this device make a CQ whose completions carry flags? */
static int probe_cq(struct ibv_context *ctx, uint64_t flags)
{
	struct ibv_cq_init_attr_ex a = { .cqe = 16, .wc_flags = flags };
	struct ibv_cq_ex *cq = ibv_create_cq_ex(ctx, &a);

	if (!cq)
		return errno ? -errno : -EOPNOTSUPP;
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	return 0;
}

/* Stop with the reason: this device gives no stamps we can use. */
static void refuse(const char *dev, const char *why)
{
	fprintf(stderr,
		"pathlab-rx-verbs: --hw-stamps: %s %s: hardware stamps need "
		"a NIC that does (ConnectX, mlx4/mlx5: ibv_devinfo -v shows "
		"a non-zero completion_timestamp_mask and hca_core_clock)\n",
		dev, why);
	exit(PL_EXIT_SKIP); /* setup of a tool: nothing to undo at exit */
}

/*
 * Choose the stamp: ticks of hca_core_clock where the CQ takes them and
 * the clock can be read, else the real-time variant; or refuse.
 */
static void choose(struct verbs_rx *rx, const char *dev)
{
	struct verbs_hwconv *h = &rx->hw;
	struct ibv_context *ctx = rx->ep.ctx;
	char why[160];
	int err;

	err = -EOPNOTSUPP;
	if (h->khz) {
		h->clk = (struct pl_nicclock){ .mask = h->mask,
					       .ns_per_tick = 1e6 / h->khz };
		err = probe_cq(ctx,
			       HWSTAMP_WC_FLAGS |
				       IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
		if (!err && pl_nicclock_resync(&h->clk, read_raw, ctx))
			err = -EOPNOTSUPP; /* no ibv_query_rt_values_ex */
	}
	if (!err)
		return;
	h->wallclock = true;
	h->clk = (struct pl_nicclock){ .mask = ~0ull, .ns_per_tick = 1 };
	err = probe_cq(ctx,
		       HWSTAMP_WC_FLAGS |
			       IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	if (!err)
		return;
	snprintf(why, sizeof(why),
		 "has completion_timestamp_mask %#llx but makes no stamped "
		 "CQ (ibv_create_cq_ex: %s)",
		 (unsigned long long)h->mask, strerror(-err));
	refuse(dev, why);
}

int hwstamp_verbs_setup(struct verbs_rx *rx)
{
	struct ibv_device_attr_ex a = { 0 };
	struct verbs_hwconv *h = &rx->hw;
	const char *dev = ibv_get_device_name(rx->ep.ctx->device);
	int err;

	err = ibv_query_device_ex(rx->ep.ctx, NULL, &a);
	if (err) {
		fprintf(stderr,
			"pathlab-rx-verbs: --hw-stamps: ibv_query_device_ex "
			"on %s: %s\n",
			dev, strerror(err));
		return -err;
	}
	*h = (struct verbs_hwconv){ .mask = a.completion_timestamp_mask,
				    .khz = a.hca_core_clock };
	if (!h->mask)
		refuse(dev, "gives no completion timestamps "
			    "(completion_timestamp_mask 0)");
	choose(rx, dev);
	rx->ep.cq_wc_flags =
		HWSTAMP_WC_FLAGS |
		(h->wallclock ? IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK
			      : IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
	h->next_ns = 0; /* measured afresh at the first completion */
	return 0;
}

void hwstamp_verbs_json(struct pl_json *j, const struct verbs_rx *rx)
{
	const struct verbs_hwconv *h = &rx->hw;

	pl_json_obj(j, "hw_stamps");
	pl_json_str(j, "wc_flag",
		    h->wallclock
			    ? "IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK"
			    : "IBV_WC_EX_WITH_COMPLETION_TIMESTAMP");
	pl_json_str(j, "conversion",
		    h->wallclock
			    ? "the NIC's real-time ns minus CLOCK_REALTIME - "
			      "CLOCK_MONOTONIC (right where the NIC's clock "
			      "follows CLOCK_REALTIME: phc2sys)"
			    : "ticks since a raw clock reading "
			      "(ibv_query_rt_values_ex between two "
			      "CLOCK_MONOTONIC reads) / hca_core_clock");
	pl_json_u64(j, "hca_core_clock_khz", h->khz);
	pl_json_u64(j, "completion_timestamp_mask", h->mask);
	pl_json_dbl(j, "resync_every_ms", HWSTAMP_VERBS_RESYNC_NS / 1e6);
	pl_json_u64(j, "resyncs", h->resyncs);
	pl_json_u64(j, "resync_errors", h->resync_errors);
	pl_json_u64(j, "reference_window_ns", h->clk.window_ns);
	pl_json_u64(j, "stamped", h->stamped);
	pl_json_u64(j, "unstamped", h->unstamped);
	pl_json_u64(j, "stamp_after_poll", h->after_poll);
	pl_json_end(j);
}

void hwstamp_verbs_table(FILE *f, const struct verbs_rx *rx)
{
	const struct verbs_hwconv *h = &rx->hw;

	fprintf(f,
		"  hw stamp  %s, %llu kHz: stamped %llu, unstamped %llu, "
		"after the poll %llu; clock read %llu times (window %llu ns)\n",
		h->wallclock ? "completion wallclock ns" : "completion ticks",
		(unsigned long long)h->khz, (unsigned long long)h->stamped,
		(unsigned long long)h->unstamped,
		(unsigned long long)h->after_poll,
		(unsigned long long)h->resyncs,
		(unsigned long long)h->clk.window_ns);
}
