/* SPDX-License-Identifier: MIT */
/*
 * The XDP / AF_XDP receiver's state, shared by rx_xsk.c (the skeleton:
 * setup, loop, teardown, main) and its other files: xsk_setup.c (the
 * program, the UMEM and its rings, the socket, and their teardown),
 * report_xsk.c, reflect_xsk.c, trace_xsk.c, gpu_xsk.c.
 */
#ifndef PATHLAB_RX_XSK_H
#define PATHLAB_RX_XSK_H

#include <linux/if_xdp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <xdp/xsk.h>

#include "pathlab_xdp.h"
#include "run.h"
#include "rx.h"
#include "stats.h"
#include "trace.h"
#include "wire.h"

#define MAX_BATCH 1024

enum { ATTACH_NATIVE, ATTACH_SKB };
enum { BIND_COPY, BIND_ZEROCOPY, BIND_AUTO };
enum { LOOP_BUSY, LOOP_POLL };
enum { GPU_XSK_MAPPED, GPU_XSK_COPY };

struct cfg {
	struct pl_rx_opts rx; /* the options every receiver takes */
	unsigned port, frames, frame_size, headroom, ring, batch, queue;
	int action; /* enum pl_xdp_action */
	int attach, bind, loop;
	bool need_wakeup;
	bool busy_poll; /* --busy-poll: preferred busy polling (xsk_setup.c) */
	int gpu, gpu_mode;   /* enum pl_gpu_kind, GPU_XSK_* */
	const char *gpu_pci; /* --gpu-pci, or NULL */
};

/*
 * opts_xsk.c: the command line into c, its defaults first, checked: -1
 * to go on, or the exit code (0 after --help, 2 after a bad option).
 */
int xsk_options(int argc, char **argv, struct cfg *c);

/* What the XDP program counted, summed over CPUs. */
struct xdp_totals {
	struct pl_xdp_count verdict[PL_XDP_VERDICTS];
	__u64 reason[PL_REASON_MAX];
	__u64 passed[PL_REASON_MAX]; /* on to the kernel, by reason */
	struct pl_xdp_lab lab; /* first_ns the earliest, last_ns the latest */
	uint64_t end_count;    /* sum over flows of their end markers' seq */
};

struct xsk_rx;

/*
 * A burst handler: the n frames peeked off the RX ring at idx_rx, handed
 * over at now; it gives them back (fill ring, or TX ring). The loop calls
 * the one choose_loop() picked once per burst; the per-frame step is
 * inline in it.
 */
typedef void burst_fn(struct xsk_rx *rx, uint32_t idx_rx, uint32_t n,
		      uint64_t now);

/* What the loop does when the RX ring is empty: spin, kick or sleep. */
typedef void idle_fn(struct xsk_rx *rx);

/* The choices of --action, --attach, --bind, --loop (opts_xsk.c). */
extern const char *const xsk_actions[],
	*const xsk_attaches[], *const xsk_binds[], *const xsk_loops[];

struct xsk_rx {
	const struct cfg *cfg;
	struct pathlab *skel;
	int ifindex;
	int link_fd; /* the bpf_link: closing it detaches the program */
	unsigned queue;

	/*
	 * AF_XDP only. With --queues N there is one struct xsk_rx per queue,
	 * each with its own UMEM, rings and socket; the program (skel) and
	 * its counters (xdp) belong to the first, the others share its skel.
	 */
	void *area; /* the UMEM: frames * frame_size bytes */
	size_t area_len;
	uint64_t frame_mask;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq; /* fill: free frames, user to kernel */
	struct xsk_ring_cons cq; /* completion: sent frames back to us */
	struct xsk_ring_cons rx; /* rx: filled frames, kernel to user */
	struct xsk_ring_prod tx; /* tx (--reflect): frames to send */
	int fd;
	bool zerocopy, need_wakeup, busy_poll;
	unsigned batch;
	uint16_t port;

	uint64_t syscalls, wakeups, empty, fill_short, map_reads;
	/*
	 * --reflect: descriptors put on the TX ring, frames not reflected
	 * for want of room on it, sends the kernel dropped (sendto() said
	 * EBUSY), and completions taken back onto the fill ring.
	 */
	uint64_t tx_queued, tx_no_room, tx_dropped, tx_completed;
	uint64_t link_dropped; /* the link's rx_dropped over the run */
	burst_fn *on_burst;    /* chosen at setup (choose_loop()) */
	burst_fn *plain_burst; /* after the traced part */
	idle_fn *on_idle;      /* chosen at setup (choose_loop()) */
	idle_fn *plain_idle;   /* after the traced part */
	struct pl_trace trace;
	uint32_t traced;    /* --trace: frames traced so far */
	bool told;	    /* --trace: the last wake-up is traced */
	struct pl_run *run; /* shared by every queue of the run */
	struct pl_rx_stats stats;
	struct xdp_statistics xs0, xs; /* XDP_STATISTICS before and after */
	struct xdp_totals xdp;
	struct gpu_xsk *gpu; /* the GPU variant's state, or NULL */
};

/* Parse and account one frame of len bytes at buf handed to us at now. */
static inline enum pl_reason rx_one(struct xsk_rx *rx, const void *buf,
				    size_t len, uint64_t now, struct pl_pkt *p)
{
	return pl_rx_frame(&rx->stats, buf, len, rx->port, now, p);
}

/* 8< xsk-refill */
/*
 * Give the n frames peeked off the RX ring at idx_rx back to the fill
 * ring, and release them from the RX ring: the frames are ours until they
 * are on the fill ring again. Returns where on the fill ring they went.
 */
static inline uint32_t xsk_refill(struct xsk_rx *rx, uint32_t idx_rx,
				  uint32_t n)
{
	uint32_t idx_fq, i;

	while (xsk_ring_prod__reserve(&rx->fq, n, &idx_fq) != n)
		rx->fill_short++;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&rx->fq, idx_fq + i) =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i)->addr &
			rx->frame_mask;
	xsk_ring_prod__submit(&rx->fq, n);
	xsk_ring_cons__release(&rx->rx, n);
	return idx_fq;
}
/* >8 xsk-refill */

/* 8< xsk-kick */
/*
 * True when the RX side needs a system call: the kernel asked for one
 * (need_wakeup: the driver found the fill ring empty), or we busy poll:
 * then the call itself runs the link's NAPI, here on our core, and
 * nothing else moves frames onto the RX ring (xsk_setup.c).
 */
static inline bool xsk_rx_wants_kick(const struct xsk_rx *rx)
{
	return rx->busy_poll || xsk_ring_prod__needs_wakeup(&rx->fq);
}

/* Make that call when it is needed: a recvfrom() that returns at once. */
static inline void xsk_kick_rx(struct xsk_rx *rx)
{
	if (!xsk_rx_wants_kick(rx))
		return;
	recvfrom(rx->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	rx->syscalls++;
}
/* >8 xsk-kick */

/*
 * xsk_setup.c: the receiver's settings and our program; 0 or -errno.
 * Undone by xsk_close().
 */
int xsk_open(struct xsk_rx *rx, struct pl_run *run, const struct cfg *c);
void xsk_close(struct xsk_rx *rx);

/* Load our program with the action and port set, attach it; 0/-errno. */
int xdp_prog_setup(struct xsk_rx *rx, const struct cfg *c);

/* Detach and unload the program. */
void xdp_prog_teardown(struct xsk_rx *rx);

/*
 * UMEM, fill ring, socket on RX queue rx->queue (with a TX ring for
 * --reflect), entry in our xsks map at that queue; 0/-errno.
 */
int xsk_socket_open(struct xsk_rx *rx, const struct cfg *c);

/* The RX queues the interface has now (ethtool -l), or -errno. */
int xsk_link_rx_queues(const char *ifname);

/* Undo xsk_socket_open(). */
void xsk_socket_close(struct xsk_rx *rx);

/*
 * Queue q's socket and stats (xsk_setup.c), on RX queue --queue + q, with
 * the first queue's program, in the run; 0 or -errno. Undone by
 * xsk_queue_close(); every queue's by sockets_teardown().
 */
int xsk_queue_open(struct xsk_rx *rxq, unsigned q, struct pl_run *run,
		   const struct cfg *c);
void xsk_queue_close(struct xsk_rx *rxq, unsigned q);
void sockets_teardown(struct xsk_rx *rxq, const struct cfg *c);

/*
 * Why setup failed with err, in the words a student needs (xsk_setup.c):
 * *hint, to follow the error ("" when there is nothing to add); the exit
 * code.
 */
int xsk_setup_why(const struct cfg *c, int err, const char **hint);

/* Read the socket's XDP_STATISTICS into *st; 0/-errno. */
int xsk_read_stats(const struct xsk_rx *rx, struct xdp_statistics *st);

/* Read the program's lab-port entry (cheap: one lookup); 0/-errno. */
int xdp_read_lab(struct xsk_rx *rx);

/* Sum all of the program's per-CPU counters into rx->xdp; 0/-errno. */
int xdp_read_totals(struct xsk_rx *rx);

/* The receive loop (rx_xsk.c): a burst off the RX ring to the handler. */
void xsk_rx_loop(void *arg);

/* XDP alone (xsk_setup.c): no socket; watch the program's counters. */
void xdp_watch_loop(void *arg);

/*
 * The moment the loops end (xsk_setup.c), arg the queues: send what waits
 * on a TX ring, read every socket's XDP_STATISTICS.
 */
void xsk_after_loop(void *arg);

/* The plain handler (rx_xsk.c): parse in place, back to the fill ring. */
burst_fn xsk_plain_burst;

/* The idle step (xsk_setup.c): sleep in poll() (--loop poll). */
idle_fn xsk_poll_wait;

/* XDP alone (xsk_setup.c): the program's lab counters into the stats. */
void xdp_sync_stats(struct xsk_rx *rx);

/* The traced handlers (trace_xsk.c): --trace N frames, then the plain. */
burst_fn xsk_traced_burst;
idle_fn xsk_traced_idle;

/* After the last traced frame: close the trace, hand over to the plain. */
void xsk_trace_end(struct xsk_rx *rx);

/* --reflect (reflect_xsk.c): good frames back out through the TX ring. */
burst_fn reflect_xsk_burst;
idle_fn reflect_xsk_idle;

/* After the loop: send what still waits on the TX ring, take it back. */
void tx_flush(struct xsk_rx *rx);

struct pl_json;

/* --reflect: the "tx" object of the path's JSON. */
void tx_json(struct pl_json *j, const struct xsk_rx *rx);

/* Record the one-time setup of the program and the socket as events. */
void xsk_trace_setup(struct xsk_rx *rx, const struct cfg *c);

/* Record the program's load and attach (--action drop|pass --trace N). */
void xdp_trace_setup(struct xsk_rx *rx, const struct cfg *c);

/*
 * After the run: read the program's trace records (its ring buffer) into
 * trace events, no_ports being the run's Udp NoPorts, and print them.
 */
void xdp_trace_consume(struct xsk_rx *rx, uint64_t no_ports);

struct pl_report;

/* "mapped", "copy": the choices of --gpu-mode. */
extern const char *const gpu_xsk_modes[];

/* The GPU variant (gpu_xsk.c): UMEM registration and loops; 0/-errno. */
int gpu_xsk_setup(struct xsk_rx *rx, const struct cfg *c);

/* --trace N with --gpu: the GPU's setup as trace events. */
void gpu_xsk_trace_setup(struct xsk_rx *rx);

/* Undo gpu_xsk_setup(), before the UMEM goes. */
void gpu_xsk_teardown(struct xsk_rx *rx);

/* Add the GPU figures to the run's report. */
void gpu_xsk_report(struct xsk_rx *rx, struct pl_report *r);

/* The GPU variant's handlers (gpu_xsk.c): plain and traced. */
burst_fn gpu_xsk_burst, gpu_xsk_traced_burst;

/* --reflect: what was sent back, into the report (reflect_xsk.c). */
void reflect_report(const struct xsk_rx *rx, struct pl_report *r);

/*
 * report_xsk.c: write the report of the run measured in w (the loop of
 * every queue of rxq); 0 or -errno.
 */
int xsk_report(struct xsk_rx *rxq, const struct cfg *c,
	       const struct pl_rx_window *w, struct pl_rx_stats *total);

#endif
