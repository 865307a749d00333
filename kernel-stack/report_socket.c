/* SPDX-License-Identifier: MIT */
/*
 * The socket receiver's report, from what the run left: the run's
 * figures, the path's own under "socket" in the JSON.
 */
#include "rx_socket.h"
#include "report.h"
#include "rx.h"
#include "sysctr.h"

/* The socket path's own figures, nested under "socket" in the JSON. */
static void socket_json(struct pl_json *j, void *arg)
{
	const struct sock_rx *rx = arg;

	pl_json_obj(j, "socket");
	pl_json_u64(j, "batch", rx->batch);
	pl_json_u64(j, "rcvbuf_bytes", (uint64_t)rx->rcvbuf);
	pl_json_bool(j, "busy_poll_loop", rx->flags & MSG_DONTWAIT);
	pl_json_u64(j, "syscalls", rx->syscalls);
	pl_json_u64(j, "empty_syscalls", rx->empty);
	pl_json_u64(j, "thread_wakeups", rx->wakeups);
	pl_json_end(j);
}

/*
 * The run's totals over its queues: the merged stats, system calls and
 * wake-ups, and one report entry per queue.
 */
static void socket_queues_report(struct sock_rx *rxq, const struct cfg *c,
				 const struct pl_rx_window *w,
				 struct pl_rx_stats *total,
				 struct pl_report_queue *rq,
				 struct pl_report *r)
{
	unsigned q, n = pl_rx_queues(&c->rx);

	pl_rx_report_queues(&c->rx, w, total, rq, r);
	r->syscalls = r->wakeups = 0;
	for (q = 0; q < n; q++) {
		rxq[q].wakeups = w->queue_sleeps[q];
		rq[q].syscalls = rxq[q].syscalls;
		rq[q].wakeups = rxq[q].wakeups;
		r->syscalls += rxq[q].syscalls;
		r->wakeups += rxq[q].wakeups;
	}
}

/* Write the report of the run measured in w; 0 or -errno. */
int socket_report(struct sock_rx *rxq, const struct cfg *c,
		  const struct pl_rx_window *w, struct pl_rx_stats *total)
{
	struct sock_rx *rx = &rxq[0];
	struct pl_report_queue rq[PL_MAX_QUEUES];
	char envbuf[32];
	struct pl_report r = {
		.tool = "pathlab-rx-socket",
		.path = "socket",
		.mode = c->mode == MODE_RECVFROM ? "recvfrom" : "recvmmsg",
		.gpu = "none",
		.workload = pl_workloads[c->rx.workload],
		.env = pl_rx_env(&c->rx, "unknown", envbuf, sizeof(envbuf)),
		.ifname = c->rx.iface,
		.latency_kind = "one-way",
		.copies_per_packet = 1,
		.copies_source = "by_design",
		.rx_stamp_source = c->hw_stamps ? "hardware"
				   : c->stamps	? "software"
						: "none",
		.copies_note =
			"kernel skb to the user buffer in the system call",
		.loss_points = PL_LOSS_LINK | PL_LOSS_BACKLOG | PL_LOSS_SOCKET,
		.stats = &rx->stats,
		.before = w->before,
		.after = w->after,
		.extra_json = socket_json,
		.extra_arg = rx,
	};
	unsigned q;

	rx->wakeups = w->sleeps;
	r.syscalls = rx->syscalls;
	r.wakeups = rx->wakeups;
	if (pl_rx_queues(&c->rx) > 1)
		socket_queues_report(rxq, c, w, total, rq, &r);
	r.reflect = c->rx.reflect;
	for (q = 0; q < pl_rx_queues(&c->rx); q++) {
		r.reflected += rxq[q].reflected;
		r.reflect_errors += rxq[q].reflect_errors;
	}
	if (rx->gpu)
		gpu_socket_report(rx, &r);
	return pl_report_emit(&r, c->rx.json, c->rx.quiet);
}
