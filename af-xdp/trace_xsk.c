// SPDX-License-Identifier: MIT
/*
 * --trace N on the AF_XDP path: the first N frames step by step, with the
 * values of this run: how many lab datagrams the XDP program had redirected
 * (its own map; and its stamp of the frame, when the frame was the last
 * it saw), the copy (or DMA) into a UMEM frame, the RX ring
 * descriptor we peeked {index, addr, len}, what the parser found, the
 * frame going back on the fill ring and the RX ring slot released, with
 * the kernel's need_wakeup flag at that moment. A wake-up or poll() system
 * call after a traced frame is recorded too. Then the plain loop takes
 * over: tracing costs nothing once it is done.
 *
 * With XDP alone (--action drop|pass) nothing reaches user space: the
 * program itself writes its first N lab frames to a BPF ring buffer, and
 * after the run we turn each record into the frame's steps.
 */
#include "rx_xsk.h"
#include "clock.h"
#include "pathlab.skel.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/* The kernel's id of the BPF object (program, map or link) behind fd, or 0. */
static uint32_t obj_id(int fd)
{
	/* Every kind of info starts with its type and its id. */
	union {
		struct bpf_prog_info prog;
		struct bpf_map_info map;
		struct bpf_link_info link;
	} info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.prog.id;
}

/* The program's load (with its trace limit) and attach, as setup events. */
static void prog_trace_setup(struct xsk_rx *rx, const struct cfg *c)
{
	struct pl_trace *t = &rx->trace;
	int prog_fd = bpf_program__fd(rx->skel->progs.pathlab_xdp);

	pl_trace_rec(t, 0, PL_AT_KERNEL, PL_EV_SYSCALL,
		     "load program: verifier", "prog_id port trace_n",
		     obj_id(prog_fd), c->port, rx->skel->rodata->trace_n, 0);
	pl_trace_rec(t, 0, PL_AT_KERNEL, PL_EV_SYSCALL, "attach to driver hook",
		     "ifindex link_id skb_mode", (uint64_t)rx->ifindex,
		     obj_id(rx->link_fd), c->attach == ATTACH_SKB, 0);
}

/* XDP alone (--action drop|pass): the program's setup is all there is. */
void xdp_trace_setup(struct xsk_rx *rx, const struct cfg *c)
{
	prog_trace_setup(rx, c);
}

/* The program, the UMEM, the rings and the socket, as setup events. */
void xsk_trace_setup(struct xsk_rx *rx, const struct cfg *c)
{
	struct pl_trace *t = &rx->trace;
	int map_fd = bpf_map__fd(rx->skel->maps.xsks);

	prog_trace_setup(rx, c);
	pl_trace_rec(t, 0, PL_AT_KERNEL, PL_EV_SYSCALL,
		     "UMEM: register (XDP_UMEM_REG)", "addr bytes frames size",
		     (uintptr_t)rx->area, rx->area_len, c->frames,
		     c->frame_size);
	pl_trace_rec(t, 0, PL_AT_USER, PL_EV_RING, "fill ring: free frames",
		     "count producer entries", c->frames, *rx->fq.producer,
		     rx->fq.size, 0);
	pl_trace_rec(t, 0, PL_AT_KERNEL, PL_EV_SYSCALL, "AF_XDP socket: bind",
		     "queue zerocopy need_wakeup fd", rx->queue, rx->zerocopy,
		     rx->need_wakeup, (uint64_t)rx->fd);
	pl_trace_rec(t, 0, PL_AT_USER, PL_EV_RING, "RX ring: mapped",
		     "entries addr", rx->rx.size, (uintptr_t)rx->rx.ring, 0, 0);
	pl_trace_rec(t, 0, PL_AT_KERNEL, PL_EV_SYSCALL,
		     "xsks map: insert socket", "queue map_id", rx->queue,
		     obj_id(map_fd), 0, 0);
}

/* What one ring buffer record turns into, and the run's NoPorts. */
struct xdp_trace_ctx {
	struct xsk_rx *rx;
	uint32_t unit;
	uint64_t no_ports;
};

/* The name of a verdict's step; static text, as the trace keeps it. */
static const char *verdict_step(uint32_t verdict)
{
	switch (verdict) {
	case XDP_DROP:
		return "XDP: verdict XDP_DROP";
	case XDP_PASS:
		return "XDP: verdict XDP_PASS";
	case XDP_TX:
		return "XDP: verdict XDP_TX";
	case XDP_REDIRECT:
		return "XDP: verdict XDP_REDIRECT";
	default:
		return "XDP: verdict XDP_ABORTED";
	}
}

/* One record of the program: the frame's steps, stamped by the program. */
static int xdp_trace_record(void *arg, void *data, size_t size)
{
	struct xdp_trace_ctx *x = arg;
	struct pl_trace *t = &x->rx->trace;
	const struct pl_xdp_trace *r = data;
	uint32_t u;

	/* Each CPU traces its first N: the first N of all come first. */
	if (size < sizeof(*r) || x->unit >= t->units)
		return 0;
	u = ++x->unit;
	pl_trace_rec_at(t, r->ns, u, PL_AT_NIC, PL_EV_STEP,
			"NIC/veth: frame arrives", "len queue ifindex", r->len,
			r->rx_queue, r->ifindex, 0);
	pl_trace_rec_at(t, r->ns, u, PL_AT_KERNEL, PL_EV_STEP, "XDP: parse",
			"reason seq flow", r->reason, r->seq, r->flow, 0);
	pl_trace_rec_at(t, r->ns, u, PL_AT_KERNEL, PL_EV_STEP,
			verdict_step(r->verdict), "verdict cpu", r->verdict,
			r->cpu, 0, 0);
	/* On up to UDP, which finds no socket: the run's Udp NoPorts. */
	if (r->verdict == XDP_PASS)
		pl_trace_rec_at(t, r->ns, u, PL_AT_KERNEL, PL_EV_STEP,
				"kernel: handed to the stack",
				"len run_udp_no_ports", r->len, x->no_ports, 0,
				0);
	return 0;
}

/* Read the program's records after the run, then print the trace. */
void xdp_trace_consume(struct xsk_rx *rx, uint64_t no_ports)
{
	struct xdp_trace_ctx x = { .rx = rx, .no_ports = no_ports };
	int ncpu = libbpf_num_possible_cpus(), cpu;
	struct ring_buffer *rb;
	uint64_t lost = 0;
	uint32_t zero = 0;

	rb = ring_buffer__new(bpf_map__fd(rx->skel->maps.trace_ring),
			      xdp_trace_record, &x, NULL);
	if (!rb) {
		fprintf(stderr, "pathlab-rx-xsk: trace ring buffer: %s\n",
			strerror(errno));
	} else {
		ring_buffer__consume(rb);
		ring_buffer__free(rb);
	}
	if (ncpu > 0) {
		struct pl_xdp_trace_state st[ncpu];

		if (!bpf_map_lookup_elem(
			    bpf_map__fd(rx->skel->maps.trace_state), &zero, st))
			for (cpu = 0; cpu < ncpu; cpu++)
				lost += st[cpu].lost;
	}
	if (lost)
		fprintf(stderr,
			"pathlab-rx-xsk: trace: %llu records lost (ring "
			"buffer of %u bytes full)\n",
			(unsigned long long)lost, PL_XDP_TRACE_RING);
	pl_trace_close(&rx->trace);
}

/* Lab datagrams the program has seen so far (its lab map), or 0. */
static uint64_t prog_seen(struct xsk_rx *rx)
{
	if (xdp_read_lab(rx))
		return 0;
	return rx->xdp.lab.data + rx->xdp.lab.end_markers;
}

/*
 * The traced handler: the burst handled as the plain one does, its frames
 * traced while fewer than --trace N are; then the plain handlers take over.
 */
void xsk_traced_burst(struct xsk_rx *rx, uint32_t idx_rx, uint32_t n,
		      uint64_t now)
{
	struct pl_trace *t = &rx->trace;
	uint32_t idx_fq, i, first = rx->traced + 1, traced;
	const struct xdp_desc *d;
	uint64_t seen, xdp_ns;
	enum pl_reason r;
	struct pl_pkt p;
	bool wake;

	rx->told = false;
	seen = prog_seen(rx);
	for (i = 0; i < n; i++) {
		d = xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i);
		memset(&p, 0, sizeof(p));
		r = pl_rx_frame(&rx->stats,
				xsk_umem__get_data(rx->area, d->addr), d->len,
				rx->port, now, &p);
		if (rx->traced >= t->units)
			continue;
		++rx->traced;
		/* The program's last stamp is this frame's if it came last. */
		xdp_ns = i == n - 1 && seen == idx_rx + n ? rx->xdp.lab.last_ns
							  : 0;
		pl_trace_rec_at(
			t, xdp_ns ? xdp_ns : now, rx->traced, PL_AT_KERNEL,
			PL_EV_STEP, "XDP: redirect to socket",
			"redirected queue after_tx_ns", seen, rx->queue,
			r == PL_OK && xdp_ns > p.tx_ns ? xdp_ns - p.tx_ns : 0,
			0);
		if (rx->zerocopy)
			pl_trace_rec(t, rx->traced, PL_AT_NIC, PL_EV_DMA,
				     "DMA frame into UMEM", "len addr", d->len,
				     d->addr, 0, 0);
		else
			pl_trace_rec(t, rx->traced, PL_AT_KERNEL, PL_EV_COPY,
				     "copy frame into UMEM", "len addr", d->len,
				     d->addr, 0, 0);
		pl_trace_rec(t, rx->traced, PL_AT_USER, PL_EV_RING,
			     "peek RX ring: descriptor",
			     "index addr len peeked", idx_rx + i, d->addr,
			     d->len, n);
		pl_trace_rec(t, rx->traced, PL_AT_USER, PL_EV_STEP,
			     "parse in place", "reason seq flow one_way_ns", r,
			     p.seq, p.flow,
			     r == PL_OK && now > p.tx_ns ? now - p.tx_ns : 0);
	}
	traced = rx->traced + 1 - first;
	idx_fq = xsk_refill(rx, idx_rx, n);
	wake = xsk_ring_prod__needs_wakeup(&rx->fq);
	for (i = 0; i < traced; i++) {
		pl_trace_rec(
			t, first + i, PL_AT_USER, PL_EV_RING,
			"fill ring: frame back", "index addr count", idx_fq + i,
			*xsk_ring_prod__fill_addr(&rx->fq, idx_fq + i), n, 0);
		pl_trace_rec(t, first + i, PL_AT_USER, PL_EV_RING,
			     "RX ring: release", "consumer count need_wakeup",
			     idx_rx + n, n, wake, 0);
	}
	if (rx->traced >= t->units)
		xsk_trace_end(rx);
}

/*
 * The traced idle step, the RX ring empty: what the plain one does, the
 * first time after a traced frame traced too.
 */
void xsk_traced_idle(struct xsk_rx *rx)
{
	struct pollfd pfd = { .fd = rx->fd, .events = POLLIN };
	uint32_t unit = rx->traced;
	ssize_t ret;
	int n;

	if (rx->cfg->loop == LOOP_POLL) {
		rx->syscalls++;
		n = poll(&pfd, 1, 1000);
		if (n > 0)
			rx->wakeups++;
		if (unit && !rx->told)
			pl_trace_rec(&rx->trace, unit, PL_AT_USER,
				     PL_EV_SYSCALL, "wakeup: poll()",
				     "call returned", rx->syscalls,
				     (uint64_t)(n > 0 ? n : 0), 0, 0);
		rx->told = true;
		return;
	}
	if (!xsk_rx_wants_kick(rx))
		return;
	ret = recvfrom(rx->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	rx->syscalls++;
	if (unit && !rx->told)
		pl_trace_rec(&rx->trace, unit, PL_AT_USER, PL_EV_SYSCALL,
			     "wakeup: recvfrom()", "call returned",
			     rx->syscalls, (uint64_t)(ret > 0 ? ret : 0), 0, 0);
	rx->told = true;
}

void xsk_trace_end(struct xsk_rx *rx)
{
	pl_trace_close(&rx->trace);
	rx->on_burst = rx->plain_burst;
	rx->on_idle = rx->plain_idle;
}
