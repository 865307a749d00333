// SPDX-License-Identifier: MIT
/*
 * Setting up and tearing down the XDP / AF_XDP path: our XDP program
 * (loaded through its libbpf skeleton and attached with a bpf_link, so it
 * goes away with the process even after kill -9), the UMEM with its fill
 * and completion rings, the socket with its RX ring, and the entry that
 * puts the socket into the program's xsks map; a socket per queue of a run
 * on many queues. Each setup returns 0 or -errno and undoes itself on
 * failure; each teardown mirrors its setup. And the run's edges: what
 * happens the moment the loops end, the receive loop's idle step with
 * --loop poll, and XDP alone's watch loop (no socket, nothing to receive:
 * it reads the program's counters).
 */
#include "rx_xsk.h"
#include "opt.h"
#include "pathlab.skel.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
 * The receiver's settings (queue 0's, and XDP alone's: its run too), then
 * our program. 0 or -errno. Undone by xsk_close().
 */
int xsk_open(struct xsk_rx *rx, struct pl_run *run, const struct cfg *c)
{
	rx->cfg = c;
	rx->run = run;
	rx->port = (uint16_t)c->port;
	rx->batch = c->batch;
	rx->queue = c->queue;
	return xdp_prog_setup(rx, c);
}

/* Undo xsk_open(), once the sockets left the program's map. */
void xsk_close(struct xsk_rx *rx)
{
	xdp_prog_teardown(rx);
}

/* 8< xdp-prog-setup */
int xdp_prog_setup(struct xsk_rx *rx, const struct cfg *c)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts,
		    .flags = c->attach == ATTACH_SKB ? XDP_FLAGS_SKB_MODE
						     : XDP_FLAGS_DRV_MODE);
	int err;

	rx->ifindex = (int)if_nametoindex(c->rx.iface);
	if (!rx->ifindex)
		return -ENODEV;
	rx->skel = pathlab__open();
	if (!rx->skel)
		return -errno;
	/* .rodata is frozen at load: the verifier sees constants. */
	rx->skel->rodata->lab_port = (__u16)c->port;
	rx->skel->rodata->lab_action = (__u32)c->action;
	/* The AF_XDP trace follows the frames in user space instead. */
	if (c->action != PL_XDP_REDIRECT)
		rx->skel->rodata->trace_n = c->rx.trace;
	err = pathlab__load(rx->skel);
	if (err)
		goto out_destroy;
	rx->link_fd =
		bpf_link_create(bpf_program__fd(rx->skel->progs.pathlab_xdp),
				rx->ifindex, BPF_XDP, &opts);
	if (rx->link_fd < 0) {
		err = -errno;
		goto out_destroy;
	}
	return 0;

out_destroy:
	pathlab__destroy(rx->skel);
	rx->skel = NULL;
	return err;
}
/* >8 xdp-prog-setup */

/* Detach the program (close its link) and unload it with its maps. */
void xdp_prog_teardown(struct xsk_rx *rx)
{
	close(rx->link_fd);
	pathlab__destroy(rx->skel);
	rx->skel = NULL;
}

/* 8< umem-create */
/* Register the UMEM and create its fill and completion rings. */
static int umem_create(struct xsk_rx *rx, const struct cfg *c)
{
	const struct xsk_umem_config ucfg = {
		/* Room for every frame: refilling can never fall short. */
		.fill_size = c->frames,
		.comp_size = XSK_RING_CONS__DEFAULT_NUM_DESCS,
		.frame_size = c->frame_size,
		.frame_headroom = c->headroom,
	};

	return xsk_umem__create(&rx->umem, rx->area, rx->area_len, &rx->fq,
				&rx->cq, &ucfg);
}
/* >8 umem-create */

/* 8< xsk-create */
/*
 * A UMEM and a socket on the queue, zero-copy or copy: an RX ring, and a
 * TX ring of the same size only with --reflect (a receiver sends nothing).
 */
static int socket_create(struct xsk_rx *rx, const struct cfg *c, bool zerocopy)
{
	const struct xsk_socket_config scfg = {
		.rx_size = c->ring,
		.tx_size = c->rx.reflect ? c->ring : 0,
		/* Our program, not libxdp's default that steals ARP. */
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = (zerocopy ? XDP_ZEROCOPY : XDP_COPY) |
			      (c->need_wakeup ? XDP_USE_NEED_WAKEUP : 0),
	};
	int err;

	err = umem_create(rx, c);
	if (err)
		return err;
	err = xsk_socket__create(&rx->xsk, c->rx.iface, rx->queue, rx->umem,
				 &rx->rx, c->rx.reflect ? &rx->tx : NULL,
				 &scfg);
	if (err) {
		xsk_umem__delete(rx->umem);
		rx->umem = NULL;
	}
	return err;
}
/* >8 xsk-create */

/* 8< fill-all */
/* Hand every frame of the UMEM to the kernel through the fill ring. */
static int fill_all(struct xsk_rx *rx, unsigned frames, unsigned frame_size)
{
	uint32_t idx, i;

	if (xsk_ring_prod__reserve(&rx->fq, frames, &idx) != frames)
		return -ENOSPC;
	for (i = 0; i < frames; i++)
		*xsk_ring_prod__fill_addr(&rx->fq, idx + i) =
			(uint64_t)i * frame_size;
	xsk_ring_prod__submit(&rx->fq, frames);
	return 0;
}
/* >8 fill-all */

/* 8< xsk-busy-poll */
/*
 * Preferred busy polling: the socket's own calls (recvfrom, sendto, poll)
 * run the link's NAPI for up to 20 us, budget frames at a time, and the
 * kernel leaves that NAPI to them: with the link's napi_defer_hard_irqs
 * and gro_flush_timeout set (the lab's busy-poll placement), no interrupt
 * and no NAPI thread takes it back while we keep calling. The receive
 * work then runs on our core, inside our loop, instead of in a thread the
 * scheduler must fit beside a loop that never sleeps.
 */
static int busy_poll_setup(int fd, unsigned budget)
{
	int on = 1, usec = 20, b = (int)budget;

	if (setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &on, sizeof(on)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &usec, sizeof(usec)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &b, sizeof(b)))
		return -errno;
	return 0;
}
/* >8 xsk-busy-poll */

/* Bind as asked: copy, zero-copy, or zero-copy with a fallback to copy. */
static int socket_bind(struct xsk_rx *rx, const struct cfg *c)
{
	int err;

	if (c->bind == BIND_COPY)
		return socket_create(rx, c, false);
	err = socket_create(rx, c, true);
	rx->zerocopy = !err;
	if (err && c->bind == BIND_AUTO)
		err = socket_create(rx, c, false);
	return err;
}

int xsk_socket_open(struct xsk_rx *rx, const struct cfg *c)
{
	int map_fd = bpf_map__fd(rx->skel->maps.xsks);
	int err;

	rx->area_len = (size_t)c->frames * c->frame_size;
	rx->area = mmap(NULL, rx->area_len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rx->area == MAP_FAILED)
		return -errno;
	rx->frame_mask = ~((uint64_t)c->frame_size - 1);
	err = socket_bind(rx, c);
	if (err)
		goto out_unmap;
	err = fill_all(rx, c->frames, c->frame_size);
	if (err)
		goto out_delete_socket;
	/* 8< xskmap-insert */
	err = xsk_socket__update_xskmap(rx->xsk, map_fd);
	/* >8 xskmap-insert */
	if (err)
		goto out_delete_socket;
	rx->fd = xsk_socket__fd(rx->xsk);
	rx->need_wakeup = c->need_wakeup;
	rx->busy_poll = c->busy_poll;
	if (c->busy_poll && (err = busy_poll_setup(rx->fd, c->batch)))
		goto out_delete_socket;
	return xsk_read_stats(rx, &rx->xs0);

out_delete_socket:
	xsk_socket__delete(rx->xsk);
	xsk_umem__delete(rx->umem);
out_unmap:
	munmap(rx->area, rx->area_len);
	return err;
}

void xsk_socket_close(struct xsk_rx *rx)
{
	/* Out of the map first: the program stops redirecting to us. */
	bpf_map_delete_elem(bpf_map__fd(rx->skel->maps.xsks), &rx->queue);
	xsk_socket__delete(rx->xsk);
	xsk_umem__delete(rx->umem);
	munmap(rx->area, rx->area_len);
}

int xsk_link_rx_queues(const char *ifname)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr = { .ifr_data = (void *)&ch };
	int fd, err = 0;

	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return -ENAMETOOLONG;
	strcpy(ifr.ifr_name, ifname);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		err = -errno;
	close(fd);
	/* A NIC counts its queue pairs as combined, veth as rx. */
	return err ? err : (int)(ch.rx_count + ch.combined_count);
}

int xsk_read_stats(const struct xsk_rx *rx, struct xdp_statistics *st)
{
	socklen_t len = sizeof(*st);

	memset(st, 0, sizeof(*st));
	return getsockopt(rx->fd, SOL_XDP, XDP_STATISTICS, st, &len) ? -errno
								     : 0;
}

/* Sum a per-CPU array entry of u64 fields (n of them) over ncpu CPUs. */
static int sum_percpu(int fd, uint32_t key, __u64 *out, unsigned n, int ncpu)
{
	__u64 v[ncpu * n];
	int cpu;
	unsigned i;

	if (bpf_map_lookup_elem(fd, &key, v))
		return -errno;
	for (cpu = 0; cpu < ncpu; cpu++)
		for (i = 0; i < n; i++)
			out[i] += v[cpu * n + i];
	return 0;
}

/* The lab entry: sums, but the earliest first_ns and the latest last_ns. */
static int read_lab(int fd, int ncpu, struct pl_xdp_lab *t)
{
	struct pl_xdp_lab v[ncpu];
	uint32_t key = 0;
	int cpu;

	if (bpf_map_lookup_elem(fd, &key, v))
		return -errno;
	memset(t, 0, sizeof(*t));
	for (cpu = 0; cpu < ncpu; cpu++) {
		t->data += v[cpu].data;
		t->end_markers += v[cpu].end_markers;
		t->no_socket += v[cpu].no_socket;
		if (v[cpu].first_ns &&
		    (!t->first_ns || v[cpu].first_ns < t->first_ns))
			t->first_ns = v[cpu].first_ns;
		if (v[cpu].last_ns > t->last_ns) {
			t->last_ns = v[cpu].last_ns;
			t->payload_len = v[cpu].payload_len;
		}
	}
	return 0;
}

int xdp_read_lab(struct xsk_rx *rx)
{
	rx->map_reads++;
	return read_lab(bpf_map__fd(rx->skel->maps.lab),
			libbpf_num_possible_cpus(), &rx->xdp.lab);
}

int xdp_read_totals(struct xsk_rx *rx)
{
	const struct pathlab *s = rx->skel;
	struct xdp_totals *t = &rx->xdp;
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	uint32_t k;
	uint64_t v;

	memset(t->verdict, 0, sizeof(t->verdict));
	memset(t->reason, 0, sizeof(t->reason));
	memset(t->passed, 0, sizeof(t->passed));
	t->end_count = 0;
	for (k = 0; k < PL_XDP_VERDICTS && !err; k++)
		err = sum_percpu(bpf_map__fd(s->maps.verdicts), k,
				 &t->verdict[k].packets, 2, ncpu);
	for (k = 0; k < PL_REASON_MAX && !err; k++)
		err = sum_percpu(bpf_map__fd(s->maps.reasons), k, &t->reason[k],
				 1, ncpu)
			      ?: sum_percpu(bpf_map__fd(s->maps.passed), k,
					    &t->passed[k], 1, ncpu);
	for (k = 0; k < PL_XDP_FLOWS && !err; k++) {
		err = bpf_map_lookup_elem(bpf_map__fd(s->maps.end_counts), &k,
					  &v)
			      ? -errno
			      : 0;
		t->end_count += err ? 0 : v; /* v is unset on failure */
	}
	return err ? err : xdp_read_lab(rx);
}

/*
 * The moment the loops end: send the reflections still on a TX ring, then
 * read every socket's XDP_STATISTICS.
 */
void xsk_after_loop(void *arg)
{
	struct xsk_rx *rxq = arg;
	unsigned q, n = pl_rx_queues(&rxq[0].cfg->rx);

	for (q = 0; q < n; q++) {
		if (rxq[q].cfg->rx.reflect)
			tx_flush(&rxq[q]);
		xsk_read_stats(&rxq[q], &rxq[q].xs);
	}
}

/* 8< xsk-queues */
/*
 * Queue q's socket, on RX queue --queue + q, in the xsks map at that index:
 * the program redirects each frame by ctx->rx_queue_index, so a frame
 * reaches the socket of the queue it arrived on. Each queue has a UMEM of
 * its own, not one UMEM shared (XDP_SHARED_UMEM) with a fill and a
 * completion ring per queue: a frame then never leaves its queue's thread,
 * so no two threads hand out frames of one pool and no lock is needed.
 * Sharing pays where frames move between queues or devices (forwarding
 * without a copy); a receiver moves none. The cost: --frames per queue.
 */
int xsk_queue_open(struct xsk_rx *rxq, unsigned q, struct pl_run *run,
		   const struct cfg *c)
{
	struct xsk_rx *rx = &rxq[q];
	int err;

	if (q) { /* the program and its settings: queue 0's */
		rx->cfg = c;
		rx->port = rxq[0].port;
		rx->batch = rxq[0].batch;
		rx->skel = rxq[0].skel;
		rx->ifindex = rxq[0].ifindex;
		rx->link_fd = -1;
		pl_stats_init(&rx->stats);
	}
	rx->run = run;
	rx->queue = c->queue + q;
	err = xsk_socket_open(rx, c);
	if (err) {
		if (q)
			pl_stats_free(&rx->stats);
		return err;
	}
	return 0;
}
/* >8 xsk-queues */

/* Undo xsk_queue_open(): out of the map, socket and UMEM gone. */
void xsk_queue_close(struct xsk_rx *rxq, unsigned q)
{
	xsk_socket_close(&rxq[q]);
	if (q)
		pl_stats_free(&rxq[q].stats);
}

/* Every queue's socket closed, the last queue first. */
void sockets_teardown(struct xsk_rx *rxq, const struct cfg *c)
{
	unsigned q;

	for (q = pl_rx_queues(&c->rx); q-- > 0;)
		xsk_queue_close(rxq, q);
}

/* Mirror the program's lab-port counters into the run's stats. */
void xdp_sync_stats(struct xsk_rx *rx)
{
	const struct pl_xdp_lab *l = &rx->xdp.lab;

	if (xdp_read_lab(rx))
		return;
	rx->stats.packets = l->data;
	rx->stats.end_markers = l->end_markers;
	rx->stats.first_ns = l->first_ns;
	rx->stats.last_ns = l->last_ns;
	rx->stats.payload_len = (uint16_t)l->payload_len;
}

/* 8< xdp-watch-loop */
/*
 * XDP alone: nothing reaches user space; watch the program's counters.
 * A loop of its own: there is no socket, no ring, nothing to receive.
 */
void xdp_watch_loop(void *arg)
{
	struct xsk_rx *rx = arg;
	const struct timespec tick = { .tv_nsec = 1000000 };

	while (!pl_run_done(rx->run, &rx->stats)) {
		nanosleep(&tick, NULL);
		xdp_sync_stats(rx);
	}
}
/* >8 xdp-watch-loop */

int xsk_setup_why(const struct cfg *c, int err, const char **hint)
{
	*hint = "";
	if (err == -EOPNOTSUPP && c->bind == BIND_ZEROCOPY) {
		*hint = ": zero-copy needs a NIC driver with AF_XDP zero-copy "
			"support; veth has none; use --bind copy or auto";
		return PL_EXIT_SKIP;
	}
	if (err == -EPERM || err == -EACCES) {
		*hint = ": needs root (CAP_BPF, CAP_NET_ADMIN, CAP_NET_RAW)";
		return PL_EXIT_SKIP;
	}
	if (err == -EBUSY)
		*hint = ": another XDP program is attached (one per interface "
			"here)";
	return err == -ENODEV || err == -EINVAL ? PL_EXIT_USAGE : PL_EXIT_FAIL;
}

/* --loop poll: sleep in poll() until the RX ring has frames. */
void xsk_poll_wait(struct xsk_rx *rx)
{
	struct pollfd pfd = { .fd = rx->fd, .events = POLLIN };

	rx->syscalls++;
	if (poll(&pfd, 1, 1000) > 0)
		rx->wakeups++;
}
