/* SPDX-License-Identifier: MIT */
/*
 * The verbs receiver's state and the helpers every loop uses (the
 * completion decode, the repost), shared by rx_verbs.c (the skeleton:
 * setup, loop, teardown, main) and its feature files: report_verbs.c,
 * reflect_verbs.c, hwstamp_verbs.c, trace_verbs.c, gpu_verbs.c.
 *
 * The modes (--mode):
 *   ud            unreliable datagram: SEND into posted buffers, a 40-byte
 *                 GRH in front of each; no receive buffer, message dropped
 *   rc            reliable connection: SEND; no receive buffer, the sender
 *                 is told "receiver not ready" (RNR) and retries
 *   rc_write_imm  RDMA WRITE with immediate into our ring: the data lands
 *                 without a receive buffer; the immediate (the slot index)
 *                 consumes one and is all our CPU sees
 */
#ifndef PATHLAB_RX_VERBS_H
#define PATHLAB_RX_VERBS_H

#include "nicclock.h"
#include "report.h"
#include "run.h"
#include "rx.h"
#include "stats.h"
#include "trace.h"
#include "verbs.h"
#include "wire.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum { RX_CQ_POLL, RX_CQ_EVENT };

struct cfg {
	struct pl_rx_opts rx; /* the options every receiver takes */
	struct verbs_cfg v;
	unsigned gid_index;
	int cq;
	int gpu;	     /* enum pl_gpu_kind */
	const char *gpu_pci; /* --gpu-pci, or NULL */
	bool hw_stamps;	     /* split each latency at the completion's stamp */
};

/*
 * opts_verbs.c: the command line into c, its defaults first, checked: -1
 * to go on, or the exit code (0 after --help, 2 after a bad option).
 */
int verbs_options(int argc, char **argv, struct cfg *c);

struct gpu_verbs;
struct verbs_rx;

/*
 * A burst handler: the n completions one poll returned (wc[0..n-1]),
 * handed over at now; it reposts their buffers. The loop calls the one
 * choose_loop() picked once per burst; the per-message step is inline in
 * it.
 */
typedef void burst_fn(struct verbs_rx *rx, int n, uint64_t now);

/* What the loop does when the CQ is empty (--cq event: arm, sleep). */
typedef void idle_fn(struct verbs_rx *rx);

/*
 * --hw-stamps (hwstamp_verbs.c): the receive CQ's completion stamps,
 * converted to CLOCK_MONOTONIC. Ticks of the NIC's free-running clock
 * (hca_core_clock kHz) go through a reading of that clock taken between
 * two reads of CLOCK_MONOTONIC, again every HWSTAMP_VERBS_RESYNC_NS; a
 * device that stamps in nanoseconds of its real-time clock goes through
 * the offset CLOCK_REALTIME - CLOCK_MONOTONIC instead.
 */
struct verbs_hwconv {
	bool wallclock; /* stamps in ns of the NIC's real-time clock */
	uint64_t mask;	/* completion_timestamp_mask: the stamp's bits */
	uint64_t khz;	/* hca_core_clock: the tick rate */
	struct pl_nicclock clk; /* the stamp's clock against CLOCK_MONOTONIC */
	uint64_t next_ns;	/* when to read it again */
	uint64_t stamped, unstamped, after_poll, resyncs, resync_errors;
};

/*
 * A send's wr_id: the receive slot it reflects, with this bit set, so a
 * completion tells a reflection (the slot is free again) from a receive.
 */
#define VERBS_SEND_TAG	(1ull << 32)
#define REFLECT_MAX_AHS 8 /* UD: address handles of distinct sources */

/* --reflect on UD: where one source's messages go back to. */
struct reflect_peer {
	uint32_t qpn;
	uint8_t gid[16];
	struct ibv_ah *ah;
};

/*
 * One QP of the receiver, with its own CQ, ring and counters; a run on
 * many queues (--queues N) has N of them, one thread each. The first
 * holds what is the run's: the snapshots and the report's figures.
 */
struct verbs_rx {
	const struct cfg *cfg;
	struct verbs_ep ep;
	unsigned depth, batch, grh; /* grh: bytes before the payload */
	bool write_imm;
	bool reflect;		 /* --reflect: send every ping back */
	struct gpu_verbs *gpu;	 /* the GPU variant's state, or NULL */
	struct verbs_hwconv hw;	 /* --hw-stamps */
	unsigned queue, nqueues; /* this QP's index, and how many */
	struct verbs_rx *queues; /* all of the run's: queues[0] is the first */
	/* counted by the loops */
	uint64_t completions, polls, empty, arms, waits, reads, events;
	uint64_t wc_errors, recv_posts, post_errors;
	uint64_t imm_completions, imm_bad_slot;
	uint64_t reflected, reflect_errors, reflect_posts, reflect_wrs;
	uint64_t reflect_cqes; /* sends completed, well or not */
	uint32_t imm_last;
	int last_wc_status;
	unsigned unacked;
	struct reflect_peer peers[REFLECT_MAX_AHS];
	unsigned npeers;
	/* counted around the run */
	const char *ifname;
	uint64_t leftover, after_end, ud_dropped; /* after the run */
	struct pl_sysctr before, after;
	struct verbs_hwctr hw_before, hw_after;
	bool stamped_cq;       /* --hw-stamps: poll the extended CQ */
	burst_fn *on_burst;    /* chosen at setup (choose_loop()) */
	burst_fn *plain_burst; /* after the traced part */
	idle_fn *on_idle;      /* NULL: spin */
	bool armed;	       /* --cq event: the CQ is armed */
	struct pl_trace trace;
	uint32_t traced;    /* --trace: messages traced so far */
	struct pl_run *run; /* shared by every queue of the run */
	struct pl_rx_stats stats;
	struct ibv_recv_wr wr[VERBS_MAX_BATCH];
	struct ibv_sge sge[VERBS_MAX_BATCH];
	struct ibv_wc wc[VERBS_MAX_BATCH];
	uint64_t stamp[VERBS_MAX_BATCH]; /* --hw-stamps: wc[i]'s, in ns */
	struct ibv_send_wr swr[VERBS_MAX_BATCH]; /* --reflect */
	struct ibv_sge ssge[VERBS_MAX_BATCH];
};

/* 8< verbs-decode */
/* Why a completed message may not be read (VERBS_OK: it may). */
enum verbs_fault { VERBS_OK, VERBS_BAD_SLOT, VERBS_TOO_LONG, VERBS_CUT };

/*
 * Where the message of one successful receive completion lies: *len bytes
 * from byte *off of the ring. SEND: in the slot it was posted for (wr_id),
 * UD's 40-byte GRH first. WRITE with immediate (write_imm): where the peer
 * wrote it, the slot its immediate names (imm_be, network order). All of
 * it comes from the peer, so it is checked before a byte is read: an
 * immediate past the ring, a length past the slot, a length that does not
 * even cover the GRH. Nothing is counted here.
 */
static inline enum verbs_fault verbs_locate(const struct verbs_rx *rx,
					    bool write_imm, uint64_t wr_id,
					    uint32_t byte_len, uint32_t imm_be,
					    size_t *off, uint32_t *len)
{
	uint32_t slot = write_imm ? ntohl(imm_be) : (uint32_t)wr_id;

	if (slot >= rx->ep.slots)
		return VERBS_BAD_SLOT;
	if (byte_len > VERBS_SLOT)
		return VERBS_TOO_LONG;
	if (byte_len < rx->grh)
		return VERBS_CUT;
	*off = (size_t)slot * VERBS_SLOT + rx->grh;
	*len = byte_len - rx->grh;
	return VERBS_OK;
}

/*
 * verbs_locate(), counted: an immediate past the ring in imm_bad_slot, a
 * length past the slot as a bad message (too_long), one short of the GRH
 * as a cut-off header (ip_trunc). True when the message may be read; the
 * posted slot goes back to the ring either way.
 */
static inline bool verbs_decode(struct verbs_rx *rx, bool write_imm,
				uint64_t wr_id, uint32_t byte_len,
				uint32_t imm_be, size_t *off, uint32_t *len)
{
	enum verbs_fault f =
		verbs_locate(rx, write_imm, wr_id, byte_len, imm_be, off, len);

	if (write_imm) {
		rx->imm_last = ntohl(imm_be);
		rx->imm_completions++;
		rx->imm_bad_slot += f == VERBS_BAD_SLOT;
	}
	if (f == VERBS_TOO_LONG || f == VERBS_CUT)
		pl_stats_reject(&rx->stats, f == VERBS_TOO_LONG
						    ? PL_BAD_TOO_LONG
						    : PL_BAD_IP_TRUNC);
	return f == VERBS_OK;
}
/* >8 verbs-decode */

/* Parse and account one message of len bytes at buf handed to us at now. */
static inline enum pl_reason rx_one(struct verbs_rx *rx, const void *buf,
				    size_t len, uint64_t now, struct pl_pkt *p)
{
	return pl_rx_payload(&rx->stats, buf, len, now, p);
}

/* A ping (flagged PL_FLAG_PING, not an end marker): --reflect sends it back. */
static inline bool verbs_is_ping(const struct pl_pkt *p)
{
	return (p->flags & (PL_FLAG_PING | PL_FLAG_END)) == PL_FLAG_PING;
}

/* verbs_decode() of a plain work completion. */
static inline bool verbs_decode_wc(struct verbs_rx *rx, const struct ibv_wc *wc,
				   size_t *off, uint32_t *len)
{
	return verbs_decode(rx, wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM,
			    wc->wr_id, wc->byte_len, wc->imm_data, off, len);
}

/* 8< verbs-post-recv */
/*
 * Post receive work requests for n slots in one call, chained: every loop
 * gives its slots back to the ring this way. 0 or -errno.
 */
static inline int verbs_post(struct verbs_rx *rx, const uint32_t *slot, int n)
{
	struct ibv_recv_wr *bad;
	int i;

	for (i = 0; i < n; i++) {
		rx->sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)(rx->ep.buf + slot[i] * VERBS_SLOT),
			.length = VERBS_SLOT,
			.lkey = rx->ep.mr->lkey,
		};
		rx->wr[i] = (struct ibv_recv_wr){
			.wr_id = slot[i],
			.next = i + 1 < n ? &rx->wr[i + 1] : NULL,
			/* WRITE with immediate: the data is placed already,
			 * the receive only carries the immediate. */
			.sg_list = rx->write_imm ? NULL : &rx->sge[i],
			.num_sge = rx->write_imm ? 0 : 1,
		};
	}
	rx->recv_posts++;
	return n ? -ibv_post_recv(rx->ep.qp, rx->wr, &bad) : 0;
}
/* >8 verbs-post-recv */

/*
 * verbs_setup.c: queue q's device, CQ, registered ring and stats, in the
 * run; the QP too unless rdma_cm makes it later. 0 or -errno. Undone by
 * verbs_queue_close(), which undoes the connection too.
 */
int verbs_queue_open(struct verbs_rx *rxq, unsigned q, struct pl_run *run,
		     const struct cfg *c);
void verbs_queue_close(struct verbs_rx *rxq, unsigned q);

/*
 * verbs_setup.c, the window's first step (arg the queues): let the sender
 * connect once we said we are ready, every queue's QP in turn, each on
 * its own port; the last one takes the "before" snapshots. 0 or -errno.
 */
int verbs_accept_sender(void *arg);

/*
 * verbs_setup.c, the receive loop's idle step with --cq event: arm the
 * empty CQ, poll once more, then sleep on the completion channel.
 */
idle_fn event_wait;

/* rx_verbs.c: poll the CQ from user space, each burst to the handler. */
void verbs_rx_loop(void *arg);

/* rx_verbs.c: the plain handler: account, reflect, repost. */
burst_fn verbs_plain_burst;

/* trace_verbs.c: the traced handler, --trace N messages, then plain. */
burst_fn verbs_traced_burst;

/* One burst of n completions in a traced handler: trace them while *unit <
 * trace.units, repost their buffers; non-zero ends the run. */
typedef int verbs_trace_burst_fn(struct verbs_rx *rx, int n, uint64_t now,
				 uint32_t *unit);

/* A burst through fn; once --trace N messages are traced, the plain
 * handler: the traced handlers of the CPU and the GPU variant. */
void verbs_trace_step(struct verbs_rx *rx, int n, uint64_t now,
		      verbs_trace_burst_fn *fn);

/* trace_verbs.c: device, PD, CQ, MR (and QP with --oob) as setup events. */
void verbs_trace_setup(struct verbs_rx *rx);

/* trace_verbs.c: the QP and the receives posted, just before the accept. */
void verbs_trace_posted(struct verbs_rx *rx);

/* trace_verbs.c: record the QP's number, type and state now, as name. */
void verbs_trace_qp(struct verbs_rx *rx, const char *name);

/*
 * gpu_verbs.c: the GPU variant, between verbs_ep_open() and the objects:
 * refuses a CPU-copying device (exit 77), opens the GPU, places the ring
 * in device memory and chooses its loop; 0 or -errno.
 */
int gpu_verbs_setup(struct verbs_rx *rx, const struct cfg *c);

/* gpu_verbs.c: with --trace, record the registered device memory. */
void gpu_verbs_trace_setup(struct verbs_rx *rx);

/* gpu_verbs.c: the GPU variant's handlers, plain and traced. */
burst_fn gpu_verbs_burst, gpu_verbs_traced_burst;

/* gpu_verbs.c: undo gpu_verbs_setup(), once the MR is gone. */
void gpu_verbs_teardown(struct verbs_rx *rx);

/* gpu_verbs.c: the GPU figures into the report. */
void gpu_verbs_report(struct verbs_rx *rx, struct pl_report *r);

/*
 * reflect_verbs.c (--reflect): queue a SEND of the message at buf (the
 * slot's start; UD: its GRH first) back to its source as the i-th send of
 * this burst; false when there is no address to send it to.
 */
bool reflect_queue(struct verbs_rx *rx, const struct ibv_wc *wc, uint8_t *buf,
		   unsigned i);

/*
 * reflect_verbs.c: post the burst's n queued sends in one call. The slots
 * of sends that did not go are appended to slot[*k] to be reposted.
 */
void reflect_post(struct verbs_rx *rx, unsigned n, uint32_t *slot, int *k);

/*
 * reflect_verbs.c: account a send's completion; true when it went (its
 * buffer, the slot in the wr_id, may be posted again).
 */
bool reflect_done(struct verbs_rx *rx, const struct ibv_wc *wc);

/* reflect_verbs.c: destroy the address handles, before the PD goes. */
void reflect_teardown(struct verbs_rx *rx);

/*
 * hwstamp_verbs.c (--hw-stamps), between verbs_ep_open() and the objects:
 * checks that the device stamps completions (exit 77 with the reason
 * where it does not: rxe), chooses the stamp and asks for it in the CQ;
 * 0 or -errno.
 */
int hwstamp_verbs_setup(struct verbs_rx *rx);

/*
 * hwstamp_verbs.c: poll the extended CQ, up to --batch completions into
 * rx->wc[] and their stamps into rx->stamp[]; how many.
 */
int hwstamp_verbs_poll(struct verbs_rx *rx);

/* hwstamp_verbs.c: the handler that splits each latency at its stamp. */
burst_fn hwstamp_verbs_burst;

/* hwstamp_verbs.c: the "hw_stamps" object of the verbs JSON. */
void hwstamp_verbs_json(struct pl_json *j, const struct verbs_rx *rx);

/* hwstamp_verbs.c: its line under the table. */
void hwstamp_verbs_table(FILE *f, const struct verbs_rx *rx);

/*
 * report_verbs.c: write the report of the run measured in w (the loop of
 * every queue of rx); 0 or -errno.
 */
int verbs_report(struct verbs_rx *rx, const struct cfg *c,
		 const struct pl_rx_window *w, struct pl_rx_stats *total);

/*
 * report_verbs.c: the moment the loops end (arg the queues): drain the
 * CQs, then read rxe's counters.
 */
void verbs_after_loop(void *arg);

/* report_verbs.c: its parts */
const char *rx_env_label(const struct verbs_where *w);
uint64_t rx_verbs_syscalls(const struct verbs_rx *rx);
void rx_verbs_account(struct verbs_rx *rx, struct pl_report *r);
void rx_verbs_json(struct pl_json *j, void *arg);
void rx_verbs_table(FILE *f, const struct verbs_rx *rx, const struct cfg *c);

/* Send queue room: one per buffer with --reflect, else none is used. */
static inline unsigned send_depth(const struct verbs_rx *rx)
{
	return rx->reflect ? rx->depth : 1;
}

#endif
