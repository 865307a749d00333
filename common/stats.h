/* SPDX-License-Identifier: MIT */
/*
 * Run statistics kept by every receiver's hot loop: packets, bytes, frames
 * that were bad (by reason) or not ours, and per flow the sequence
 * accounting that turns sequence numbers into loss, reordering and
 * duplicates. One-way latency goes into a histogram.
 */
#ifndef PATHLAB_STATS_H
#define PATHLAB_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "hist.h"
#include "wire.h"

#define PL_SEQ_WINDOW 4096 /* sequence numbers remembered per flow */
#define PL_MAX_FLOWS  256  /* the flow field is one byte */

/*
 * Sequence accounting for one flow. Sequence numbers are 32 bits on the
 * wire and wrap; they are extended to 64 bits against the highest seen.
 * A bitmap of the last PL_SEQ_WINDOW numbers tells a late packet (fills a
 * gap: reordered) from a second copy (duplicate).
 */
struct pl_seq {
	bool started;
	uint64_t first;	    /* lowest extended sequence number seen */
	uint64_t highest;   /* highest extended sequence number seen */
	uint64_t unique;    /* distinct sequence numbers seen */
	uint64_t reordered; /* arrived after a higher number */
	uint64_t dups;	    /* seen before */
	uint64_t too_late;  /* older than the window: counted unique */
	uint64_t end_count; /* from the end marker: datagrams sent, or 0 */
	uint64_t end_lost;  /* markers lost before the first one seen */
	bool end_seen;
	uint64_t bits[PL_SEQ_WINDOW / 64];
};

/* Account one sequence number; returns false for a duplicate. */
bool pl_seq_account(struct pl_seq *q, uint32_t seq);

/* Sequence numbers in [first, highest] never seen (gaps). */
uint64_t pl_seq_missing(const struct pl_seq *q);

struct pl_rx_stats {
	uint64_t packets; /* good pathlab datagrams, duplicates included */
	uint64_t bytes;	  /* their payload bytes */
	uint64_t other;	  /* frames that were not ours (ARP, ...) */
	uint64_t bad_total;
	uint64_t bad[PL_REASON_MAX];
	uint64_t end_markers;		  /* end-of-train markers seen */
	unsigned flows_seen, flows_ended; /* flows, and those whose end
					   * marker came */
	uint64_t first_ns, last_ns; /* CLOCK_MONOTONIC of first/last good */
	uint64_t end_ns;	  /* when the first end marker arrived, or 0 */
	uint64_t lat_skipped;	  /* rx stamp before tx stamp: not comparable */
	uint16_t payload_len;	  /* of the first good packet */
	struct pl_hist lat;	  /* one-way: TX stamp to the application */
	struct pl_hist lat_stack; /* TX stamp to the kernel's RX stamp */
	struct pl_hist lat_user;  /* kernel RX stamp to the application */
	struct pl_seq *flows[PL_MAX_FLOWS]; /* allocated on first use */
	/*
	 * The receive loop's own time, for the receive cost (rx.c): its
	 * thread's run time over the measured window (schedstat, ns), and,
	 * from loops that count their turns (pl_stats_turn()), the TSC
	 * cycles of turns that brought packets (busy) and of those that
	 * did not (idle: an empty poll). Merged, they add up over queues.
	 */
	uint64_t loop_run_ns;
	unsigned loop_threads;
	/*
	 * The loops' threads' schedstat run_delay over the window: time they
	 * were ready to run while another task held their CPU. loop_cpu: the
	 * CPU the first loop started on (-1: none ran).
	 */
	uint64_t loop_wait_ns;
	int loop_cpu;
	uint64_t busy_tsc, idle_tsc;
	uint64_t turn_tsc;    /* the TSC at the end of the last turn */
	uint64_t turn_frames; /* frames seen by the end of the last turn */
};

/* Zero the stats; flows are allocated lazily. */
void pl_stats_init(struct pl_rx_stats *s);
void pl_stats_free(struct pl_rx_stats *s);

/*
 * Account one parsed datagram received at rx_ns (CLOCK_MONOTONIC). End
 * markers are counted apart and never as data.
 */
void pl_stats_good(struct pl_rx_stats *s, const struct pl_pkt *p,
		   uint64_t rx_ns);

/*
 * --extra-work-cycles: spin this many TSC cycles for every data datagram
 * pl_stats_good() accounts, process-wide (0: none). A known cost to add,
 * so the receive cost's calibration can be checked against it.
 */
void pl_stats_extra_work(uint64_t cycles);

/* The cycles pl_stats_extra_work() set. */
uint64_t pl_stats_extra_work_cycles(void);

/*
 * The end of one turn of a polling receive loop (pl_run_done() calls it
 * when the loop polls): the time since the last turn's end goes to busy
 * when the turn brought frames (good, bad, other or end markers), else to
 * idle, an empty poll. One rdtsc per turn; the first turn counts from the
 * start of the loop (rx.c sets turn_tsc).
 */
static inline void pl_stats_turn(struct pl_rx_stats *s)
{
	uint64_t now = pl_rdtsc();
	uint64_t frames = s->packets + s->other + s->bad_total + s->end_markers;

	if (frames != s->turn_frames)
		s->busy_tsc += now - s->turn_tsc;
	else
		s->idle_tsc += now - s->turn_tsc;
	s->turn_tsc = now;
	s->turn_frames = frames;
}

/*
 * Account n frames refused as r (bad) or passed over (other): by the
 * parser, one at a time, or by a counter elsewhere (an XDP program's).
 */
static inline void pl_stats_reject_n(struct pl_rx_stats *s, enum pl_reason r,
				     uint64_t n)
{
	if (pl_reason_is_bad(r)) {
		s->bad[r] += n;
		s->bad_total += n;
	} else {
		s->other += n;
	}
}

/* Account a frame the parser refused (bad) or passed over (other). */
static inline void pl_stats_reject(struct pl_rx_stats *s, enum pl_reason r)
{
	pl_stats_reject_n(s, r, 1);
}

/* Account the split of one packet's latency at the kernel's RX stamp. */
void pl_stats_split(struct pl_rx_stats *s, uint64_t tx_ns, uint64_t stack_ns,
		    uint64_t user_ns);

/* Totals over all flows. */
struct pl_seq_totals {
	uint64_t unique, missing, reordered, dups, too_late;
	uint64_t end_count; /* sum of the flows' end markers */
	uint64_t end_lost;  /* end markers lost before the first seen */
	unsigned flows, flows_with_end;
};

void pl_stats_totals(const struct pl_rx_stats *s, struct pl_seq_totals *t);

/* Merge src into dst (per-queue stats into a total). */
void pl_stats_merge(struct pl_rx_stats *dst, const struct pl_rx_stats *src);

#endif
