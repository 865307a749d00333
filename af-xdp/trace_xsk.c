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
 */
#include "rx_xsk.h"
#include "clock.h"
#include "pathlab.skel.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <poll.h>
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

/* The program, the UMEM, the rings and the socket, as setup events. */
void xsk_trace_setup(struct xsk_rx *rx, const struct xsk_cfg *c)
{
	struct pl_trace *t = &rx->trace;
	int prog_fd = bpf_program__fd(rx->skel->progs.pathlab_xdp);
	int map_fd = bpf_map__fd(rx->skel->maps.xsks);

	pl_trace_rec(t, 0, PL_AT_KERNEL, PL_EV_SYSCALL,
		     "load program: verifier", "prog_id port", obj_id(prog_fd),
		     c->port, 0, 0);
	pl_trace_rec(t, 0, PL_AT_KERNEL, PL_EV_SYSCALL, "attach to driver hook",
		     "ifindex link_id skb_mode", (uint64_t)rx->ifindex,
		     obj_id(rx->link_fd), c->attach == ATTACH_SKB, 0);
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

/* Lab datagrams the program has seen so far (its lab map), or 0. */
static uint64_t prog_seen(struct xsk_rx *rx)
{
	if (xdp_read_lab(rx))
		return 0;
	return rx->xdp.lab.data + rx->xdp.lab.end_markers;
}

/*
 * One burst off the RX ring, frames traced while *unit < t->units, handled
 * as rx_burst() does; returns how many frames there were.
 */
static unsigned traced_burst(struct xsk_rx *rx, uint32_t *unit)
{
	struct pl_trace *t = &rx->trace;
	uint32_t idx_rx, idx_fq, i, n, first = *unit + 1, traced;
	const struct xdp_desc *d;
	uint64_t now, seen, xdp_ns;
	enum pl_reason r;
	struct pl_pkt p;
	bool wake;

	n = xsk_ring_cons__peek(&rx->rx, rx->batch, &idx_rx);
	if (!n)
		return 0;
	now = pl_now_ns();
	seen = prog_seen(rx);
	for (i = 0; i < n; i++) {
		d = xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i);
		memset(&p, 0, sizeof(p));
		r = xsk_account(rx, xsk_umem__get_data(rx->area, d->addr),
				d->len, now, &p);
		if (*unit >= t->units)
			continue;
		++*unit;
		/* The program's last stamp is this frame's if it came last. */
		xdp_ns = i == n - 1 && seen == idx_rx + n ? rx->xdp.lab.last_ns
							  : 0;
		pl_trace_rec_at(
			t, xdp_ns ? xdp_ns : now, *unit, PL_AT_KERNEL,
			PL_EV_STEP, "XDP: redirect to socket",
			"redirected queue after_tx_ns", seen, rx->queue,
			r == PL_OK && xdp_ns > p.tx_ns ? xdp_ns - p.tx_ns : 0,
			0);
		if (rx->zerocopy)
			pl_trace_rec(t, *unit, PL_AT_NIC, PL_EV_DMA,
				     "DMA frame into UMEM", "len addr", d->len,
				     d->addr, 0, 0);
		else
			pl_trace_rec(t, *unit, PL_AT_KERNEL, PL_EV_COPY,
				     "copy frame into UMEM", "len addr", d->len,
				     d->addr, 0, 0);
		pl_trace_rec(t, *unit, PL_AT_USER, PL_EV_RING,
			     "peek RX ring: descriptor",
			     "index addr len peeked", idx_rx + i, d->addr,
			     d->len, n);
		pl_trace_rec(t, *unit, PL_AT_USER, PL_EV_STEP, "parse in place",
			     "reason seq flow one_way_ns", r, p.seq, p.flow,
			     r == PL_OK && now > p.tx_ns ? now - p.tx_ns : 0);
	}
	traced = *unit + 1 - first;
	while (xsk_ring_prod__reserve(&rx->fq, n, &idx_fq) != n)
		rx->fill_short++;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&rx->fq, idx_fq + i) =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i)->addr &
			rx->frame_mask;
	xsk_ring_prod__submit(&rx->fq, n);
	xsk_ring_cons__release(&rx->rx, n);
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
	return n;
}

/* Nothing on the RX ring: what the plain loop does, the first time traced. */
static void traced_empty(struct xsk_rx *rx, uint32_t unit, bool *told)
{
	struct pollfd pfd = { .fd = rx->fd, .events = POLLIN };
	ssize_t ret;
	int n;

	rx->empty++;
	if (rx->cfg->loop == LOOP_POLL) {
		rx->syscalls++;
		n = poll(&pfd, 1, 1000);
		if (n > 0)
			rx->wakeups++;
		if (unit && !*told)
			pl_trace_rec(&rx->trace, unit, PL_AT_USER,
				     PL_EV_SYSCALL, "wakeup: poll()",
				     "call returned", rx->syscalls,
				     (uint64_t)(n > 0 ? n : 0), 0, 0);
		*told = true;
		return;
	}
	if (!xsk_ring_prod__needs_wakeup(&rx->fq))
		return;
	ret = recvfrom(rx->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	rx->syscalls++;
	if (unit && !*told)
		pl_trace_rec(&rx->trace, unit, PL_AT_USER, PL_EV_SYSCALL,
			     "wakeup: recvfrom()", "call returned",
			     rx->syscalls, (uint64_t)(ret > 0 ? ret : 0), 0, 0);
	*told = true;
}

/* Trace the first frames, then hand over to the plain loop. */
void xsk_traced_loop(struct xsk_rx *rx)
{
	struct pl_trace *t = &rx->trace;
	uint32_t unit = 0;
	bool told = true;

	while (unit < t->units && !pl_run_done(&rx->run, &rx->stats)) {
		if (traced_burst(rx, &unit)) {
			told = false;
			continue;
		}
		traced_empty(rx, unit, &told);
	}
	pl_trace_close(t);
	rx->rx_plain(rx);
}
