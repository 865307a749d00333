/* SPDX-License-Identifier: MIT */
/*
 * What the files of the DPDK receiver share: the configuration, the EAL
 * arguments built for the lab, the port with its mempool, the queues.
 *
 *   rx_dpdk.c the skeleton: dpdk_setup, dpdk_rx_loop, dpdk_teardown, main
 *   eal.c     EAL arguments: lab defaults, hugepages, the PCI safety rules
 *   port.c    mempool, port setup and teardown, the PMD's counters
 *   report_dpdk.c  the measured window and the report
 *   reflect_dpdk.c --reflect: every good frame back out
 *   gpu_dpdk.c --gpu: the mbuf pool in device memory, the GPU's poll loop
 *   hwstamp_dpdk.c --hw-stamps: the NIC's RX stamps and its clock
 */
#ifndef PATHLAB_RX_DPDK_H
#define PATHLAB_RX_DPDK_H

#include <stdbool.h>
#include <stdint.h>

#include "hwstamp_dpdk.h"
#include "json.h"
#include "report.h"
#include "run.h"
#include "rx.h"
#include "stats.h"
#include "trace.h"
#include "wire.h"

#include <rte_mbuf.h>

#define EAL_MAX_ARGS 32
#define MAX_BURST    512

enum { VDEV_AF_PACKET, VDEV_AF_XDP };

struct cfg {
	struct pl_rx_opts rx; /* the options every receiver takes */
	const char *pci;
	unsigned burst, rx_desc, mbufs;
	/* The EAL's lcore (queue q's: cpu + q, wrapped); the EAL pins it. */
	unsigned cpu;
	int vdev;
	bool xstats;
	int gpu;	     /* enum pl_gpu_kind */
	const char *gpu_pci; /* --gpu-pci, or NULL */
	/* --gpu cuda on a PCI NIC: the GPU's address, for EAL's allow-list
	 * (DPDK's gpu/cuda driver probes only allowed devices), or "". */
	char gpu_allow[16];
	bool hw_stamps; /* --hw-stamps: the timestamp offload (port.c) */
	/* --busy-poll: af_xdp's busy_budget, the PMD's preferred busy
	 * polling (eal.c); without it busy_budget=0, plain polling. */
	bool busy_poll;
};

/* The EAL command line we pass to rte_eal_init() and the facts behind it. */
struct eal_args {
	int argc;
	char *argv[EAL_MAX_ARGS];	 /* rte_eal_init() permutes these */
	const char *shown[EAL_MAX_ARGS]; /* the same, in the order given */
	char store[2048];		 /* the strings argv points into */
	size_t used;
	bool built;	  /* by us from --iface/--pci, not given by the user */
	char prefix[64];  /* --file-prefix in use ("rte" by default) */
	bool prefix_ours; /* pathlab-PID, chosen by us */
	bool huge;	  /* hugepages used */
	uint64_t huge_kb; /* default hugepage size */
	uint64_t huge_free; /* free pages when we started */
	unsigned mem_mb;    /* -m */
	const char *note;   /* why no hugepages, or NULL */
};

/*
 * opts_dpdk.c: the command line into c (its defaults first) and e (EAL
 * arguments given before "--", or built for --iface/--pci), checked: -1
 * to go on, or the exit code (0 after --help, 2 after a bad option).
 */
int dpdk_options(int argc, char **argv, struct cfg *c, struct eal_args *e);

/* EAL arguments for the lab or a real NIC from the options; 0 or -errno. */
int eal_args_build(struct eal_args *e, const struct cfg *c,
		   const char *const *vdevs);

/*
 * Refuse --queues above what the lab's af_xdp vdev can bind: one socket
 * per RX queue of the interface (a one-line error). 0 or -EINVAL.
 */
int eal_check_queues(const struct cfg *c);

/* Refuse a PCI device that is missing or carries a default route (a
 * one-line error); warn about mlx5. 0, -ENODEV or -EPERM. */
int eal_check_pci(const char *pci);

/*
 * Refuse the management interface (common/mgmt.h) wherever the command line
 * names a device: --iface, and every device of the EAL argument vector as
 * DPDK will read it (eal_guard.h: -a, -b, --vdev and their abbreviations,
 * every interface key of a vdev); note its --file-prefix in e->prefix.
 * Run on the vector rte_eal_init() gets, built or given. 0, or -EPERM or
 * -EINVAL after a one-line error.
 */
int eal_check_mgmt(struct eal_args *e, const struct cfg *c);

/* Remove runtime and hugepage files left by receivers that were killed. */
void eal_sweep_stale(void);

/* At exit, remove the runtime directory of the prefix in use. */
void eal_remove_runtime_at_exit(const struct eal_args *e);

/* The port, its pool, and the PMD's counters read at the end of a run. */
struct dpdk_port {
	uint16_t id;
	uint16_t nq; /* RX queues, and as many TX queues (set by ports_setup) */
	uint16_t max_queues; /* what the PMD takes (the lesser, RX or TX) */
	struct rte_mempool *pool;
	/* Set before port_setup(): a pool on device memory to use instead. */
	struct rte_mempool *ext_pool;
	bool pool_borrowed; /* ext_pool is another port's: not freed here */
	bool rss;	    /* mq_mode RSS: the PMD hashes flows to queues */
	uint64_t rss_hf;    /* the hash types asked for (those it offers) */
	char driver[32];
	uint64_t ipackets, ibytes, imissed, ierrors, rx_nombuf;
	/* Per RX queue, as the PMD counts them (rte_eth_stats.q_ipackets). */
	uint64_t q_ipackets[PL_MAX_QUEUES];
	uint64_t ring_drops; /* af_packet: PACKET_STATISTICS tp_drops */
	bool have_ring_drops;
	unsigned nxstats;
	char (*xstat_names)[64];
	uint64_t *xstat_values;
};

/*
 * Mempool (unless ext_pool), p->nq RX and TX queues (RSS over them when
 * more than one), started, promiscuous on a NIC (not on a vdev over a
 * kernel interface); p->id set by the caller. 0/-errno.
 */
int port_setup(struct dpdk_port *p, const struct cfg *c);

/*
 * rte_eth_dev_start() for net_af_packet, without the MAC address replay
 * that flushes the kernel link's neighbour entries (keep_link.c): from
 * then on this thread cannot set a link's hardware address. 0/-errno.
 */
int port_start_keep_link(uint16_t port);

/*
 * The ports of a run on n queues (port.c): one port with n queues (a NIC,
 * the af_packet vdev with qpairs=n), or n ports of one queue each (one
 * af_xdp vdev per kernel queue); port 0 (p) owns the pool, the others
 * (more[0..n-2]) share it. *nports says how many. 0 or -errno.
 */
int ports_setup(struct dpdk_port *p, struct dpdk_port *more, unsigned n,
		unsigned *nports, const struct cfg *c);

/* Reset the PMD's counters (and the socket's) before a run. */
void port_stats_reset(struct dpdk_port *p);

/* Read the PMD's counters (and xstats if asked) after a run; 0/-errno. */
int port_stats_read(struct dpdk_port *p, bool xstats);

/* The counters under "eth_stats" (and "xstats") of the nested object. */
void port_stats_json(struct pl_json *j, const struct dpdk_port *p);

/* Stop and close the port, free the pool; undoes port_setup(). */
void port_teardown(struct dpdk_port *p);

struct dpdk_rx;

struct dpdk_queue;

/*
 * A burst handler: the n frames one poll of queue q returned (q->bufs),
 * handed over at now; it frees them or sends them. The loop calls the one
 * choose_loop() picked once per burst; the per-frame step is inline in it.
 */
typedef void burst_fn(struct dpdk_queue *q, uint16_t n, uint64_t now);

/*
 * One RX queue and the lcore that polls it, with counters of its own: a
 * run on N queues has N of these, each polled on its own lcore.
 */
struct dpdk_queue {
	struct dpdk_rx *rx;	   /* the run: its control, burst, options */
	uint16_t port, queue;	   /* what it polls: port id and RX queue */
	uint16_t burst;		   /* --burst */
	unsigned lcore;		   /* the EAL lcore it runs on */
	struct pl_rx_stats *stats; /* queue 0: &rx->stats, else &own */
	struct pl_rx_stats own;
	burst_fn *on_burst;	      /* chosen at setup (choose_loop()) */
	uint64_t polls[2], cycles[2]; /* as dpdk_rx's, for this queue */
	uint64_t reflected, reflect_errors; /* --reflect */
	uint64_t pmd_ipackets;	    /* what the PMD counted on this queue */
	void *(*launch_fn)(void *); /* what runs on the lcore (queue_launch) */
	void *launch_arg;
	struct rte_mbuf *bufs[MAX_BURST];
	struct rte_mbuf *back[MAX_BURST]; /* --reflect: to send back */
} __attribute__((aligned(64)));

/* The receiver: the port, its EAL arguments, the loop's counters. */
struct dpdk_rx {
	struct dpdk_port port;
	/* One af_xdp vdev per queue: ports 1..N-1 (port is port 0). */
	struct dpdk_port more_ports[PL_MAX_QUEUES - 1];
	unsigned nports;
	struct dpdk_queue queues[PL_MAX_QUEUES]; /* queue 0 too, N = 1 */
	unsigned nqueues;
	bool reflect; /* --reflect: every good frame goes back */
	struct eal_args eal;
	const char *mode; /* af_packet | af_xdp | pci */
	unsigned burst;
	uint64_t polls[2];  /* [0] empty, [1] returned packets; all queues */
	uint64_t cycles[2]; /* TSC cycles of those polls */
	uint64_t wakeups;
	burst_fn *on_burst;    /* queue 0's, chosen at setup (choose_loop()) */
	burst_fn *plain_burst; /* the other queues', and queue 0's after the
				* traced part */
	struct pl_trace trace;
	uint32_t traced;       /* --trace: frames traced so far */
	uint64_t empty_mark;   /* --trace: queue 0's empty polls by then */
	struct gpu_dpdk *gpu;  /* the GPU variant's state, or NULL */
	struct dpdk_hwts hwts; /* --hw-stamps */
	struct pl_run *run;    /* shared by every queue of the run */
	struct pl_rx_stats stats;
};

/* Port i of the run: port 0, or one of the af_xdp vdev's others. */
static inline struct dpdk_port *run_port(struct dpdk_rx *rx, unsigned i)
{
	return i ? &rx->more_ports[i - 1] : &rx->port;
}

/* Parse and account one frame of len bytes at buf handed to queue q at now. */
static inline enum pl_reason rx_one(struct dpdk_queue *q, const void *buf,
				    size_t len, uint64_t now, struct pl_pkt *p)
{
	return pl_rx_frame(q->stats, buf, len, PL_UDP_PORT, now, p);
}

/* The receive loop (rx_dpdk.c): poll queue q, each burst to its handler. */
void dpdk_rx_loop(void *arg);

/* The handlers: plain (rx_dpdk.c), --hw-stamps (hwstamp_dpdk.c),
 * --reflect (reflect_dpdk.c), traced (trace_dpdk.c: queue 0's first
 * --trace N frames, then the plain one). */
burst_fn dpdk_plain_burst, hwts_burst, reflect_dpdk_burst, dpdk_traced_burst;

/*
 * One burst of n frames in a traced handler: trace them while
 * rx->traced < trace.units (poll: this poll's number, empty: empty polls
 * before it) and free them.
 */
typedef void trace_burst_fn(struct dpdk_rx *rx, uint16_t n, uint64_t poll,
			    uint64_t empty, uint64_t now);

/* Queue 0's burst through burst_fn; once --trace N frames are traced,
 * the plain handler: the traced handlers of the CPU and the GPU variant. */
void dpdk_trace_step(struct dpdk_queue *q, uint16_t n, uint64_t now,
		     trace_burst_fn *fn);

/* Free a burst's mbufs, and trace that for the units first..last. */
void dpdk_trace_free(struct dpdk_rx *rx, uint16_t n, uint32_t first,
		     uint32_t last);

/* Record the one-time setup (EAL, pool, port) as trace events. */
void dpdk_trace_setup(struct dpdk_rx *rx, const struct cfg *c);

/* The GPU variant (gpu_dpdk.c): steps 1-4 and its loop, before the port. */
int gpu_dpdk_setup(struct dpdk_rx *rx, const struct cfg *c);

/*
 * Before EAL starts: for --gpu cuda on a PCI NIC, the GPU the run will
 * use (--gpu-pci, else the one nearest the NIC) into c->gpu_allow, for the
 * allow-list. 0, or -EINVAL after a one-line error.
 */
int gpu_dpdk_pick(struct cfg *c);

/*
 * --trace N with --gpu: the GPU's setup as trace events, and its traced
 * loop in place of the CPU's (after dpdk_trace_setup()).
 */
void gpu_dpdk_trace_setup(struct dpdk_rx *rx);

/* Undo gpu_dpdk_setup(), after the port is closed. */
void gpu_dpdk_teardown(struct dpdk_rx *rx);

/* Add the GPU figures to the run's report. */
void gpu_dpdk_report(struct dpdk_rx *rx, struct pl_report *r);

/* The GPU variant's handlers (gpu_dpdk.c): plain and traced. */
burst_fn gpu_dpdk_burst, gpu_dpdk_traced_burst;

/*
 * dpdk_setup.c: EAL, the run's ports (and the GPU's memory, and the NIC's
 * clock); 0 or -errno, undone on failure. Undone by dpdk_close().
 */
int dpdk_open(struct dpdk_rx *rx, struct pl_run *run, const struct cfg *c);
void dpdk_close(struct dpdk_rx *rx);

/*
 * dpdk_setup.c: the run's mode (the vdev kind, or the PMD's name); the
 * queues (each on its lcore, polling its port and queue) and their
 * teardown; one lcore per queue or a one-line error and -EINVAL; why the
 * ports did not come up, in one line; every port stopped and closed.
 */
const char *port_mode(const char *driver);
void queues_setup(struct dpdk_rx *rx, const struct cfg *c);
void dpdk_queue_close(struct dpdk_rx *rx, unsigned q);
int check_lcores(const struct cfg *c);
void ports_error(const struct dpdk_rx *rx, const struct cfg *c, int err);
void ports_teardown(struct dpdk_rx *rx);

/*
 * dpdk_setup.c: the run's other queues on their EAL worker lcores (the
 * window's queue_launch and queue_wait, arg the receiver), and every
 * port's counters reset before the run.
 */
int dpdk_queue_launch(void *arg, unsigned q, void *(*fn)(void *), void *targ);
void dpdk_queue_wait(void *arg, unsigned q);
void ports_stats_reset(struct dpdk_rx *rx);

/*
 * report_dpdk.c: write the report of the run measured in w (the loops of
 * every queue); 0 or -errno.
 */
int dpdk_report(struct dpdk_rx *rx, const struct cfg *c,
		const struct pl_rx_window *w, struct pl_rx_stats *total);

#endif
