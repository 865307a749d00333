// SPDX-License-Identifier: MIT
/*
 * --reflect on the AF_XDP path, the far end of the rtt workload
 * (pathlab-gen --pingpong): a good frame goes from the RX ring to the TX
 * ring in place (same UMEM address, addresses swapped, UDP checksum
 * computed afresh); the kernel sends it out of the queue it came in on,
 * and the completion ring hands the address back, for the fill ring. We
 * copy no frame and lose none: each is on exactly one ring or in flight.
 */
#include "rx_xsk.h"
#include "clock.h"
#include "report.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

/* Sent frames, from the completion ring back onto the fill ring. */
static void tx_reclaim(struct xsk_rx *rx)
{
	uint32_t idx_cq, idx_fq, i, n;

	n = xsk_ring_cons__peek(&rx->cq, MAX_BATCH, &idx_cq);
	if (!n)
		return;
	while (xsk_ring_prod__reserve(&rx->fq, n, &idx_fq) != n)
		rx->fill_short++;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&rx->fq, idx_fq + i) =
			*xsk_ring_cons__comp_addr(&rx->cq, idx_cq + i) &
			rx->frame_mask;
	xsk_ring_prod__submit(&rx->fq, n);
	xsk_ring_cons__release(&rx->cq, n);
	rx->tx_completed += n;
}

/*
 * Have the kernel send what is on the TX ring. In copy mode only this
 * system call sends, a limited batch per call (EAGAIN: some are left, or
 * the device was busy: the next call goes on). EBUSY: the device dropped
 * a frame; its address still comes back on the completion ring.
 */
static void tx_kick(struct xsk_rx *rx)
{
	if (rx->need_wakeup && !xsk_ring_prod__needs_wakeup(&rx->tx))
		return;
	rx->syscalls++;
	if (sendto(rx->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
	    errno == EBUSY)
		rx->tx_dropped++;
}

/* True while descriptors wait on the TX ring for the kernel to take. */
static bool tx_waiting(struct xsk_rx *rx)
{
	return xsk_prod_nb_free(&rx->tx, rx->cfg->ring) < rx->cfg->ring;
}

/* Room for n descriptors on the TX ring, after one kick if it is full. */
static bool tx_reserve(struct xsk_rx *rx, uint32_t n, uint32_t *idx)
{
	if (xsk_ring_prod__reserve(&rx->tx, n, idx) == n)
		return true;
	tx_kick(rx);
	tx_reclaim(rx);
	return xsk_ring_prod__reserve(&rx->tx, n, idx) == n;
}

/*
 * The reflecting handler: the completions back onto the fill ring, then
 * the burst's good frames turned around onto the TX ring, the others (and
 * all of them when it has no room) back to the fill ring; then one kick.
 */
void reflect_xsk_burst(struct xsk_rx *rx, uint32_t idx_rx, uint32_t n,
		       uint64_t now)
{
	uint32_t idx_tx = 0, idx_fq = 0, i, good = 0;
	bool ok[MAX_BATCH];
	struct pl_pkt p;

	tx_reclaim(rx);
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i);
		void *frame = xsk_umem__get_data(rx->area, d->addr);

		ok[i] = pl_rx_frame(&rx->stats, frame, d->len, rx->port, now,
				    &p) == PL_OK;
		if (ok[i]) {
			pl_frame_reflect(frame, &p);
			/* The sender's may be partial (veth): a whole one. */
			pl_frame_udp_csum(frame, &p);
			good++;
		}
	}
	if (good && !tx_reserve(rx, good, &idx_tx)) {
		rx->tx_no_room += good;
		good = 0;
		memset(ok, 0, n * sizeof(ok[0]));
	}
	while (n > good &&
	       xsk_ring_prod__reserve(&rx->fq, n - good, &idx_fq) != n - good)
		rx->fill_short++;
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d =
			xsk_ring_cons__rx_desc(&rx->rx, idx_rx + i);

		if (ok[i])
			*xsk_ring_prod__tx_desc(&rx->tx, idx_tx++) =
				(struct xdp_desc){ .addr = d->addr,
						   .len = d->len };
		else
			*xsk_ring_prod__fill_addr(&rx->fq, idx_fq++) =
				d->addr & rx->frame_mask;
	}
	xsk_ring_prod__submit(&rx->tx, good);
	xsk_ring_prod__submit(&rx->fq, n - good);
	xsk_ring_cons__release(&rx->rx, n);
	rx->tx_queued += good;
	if (good)
		tx_kick(rx);
}

/*
 * The reflecting idle step, the RX ring empty: take the completions, kick
 * what waits on the TX ring, else spin or sleep in poll() as --loop says.
 */
void reflect_xsk_idle(struct xsk_rx *rx)
{
	tx_reclaim(rx);
	if (tx_waiting(rx))
		tx_kick(rx);
	else if (rx->cfg->loop == LOOP_POLL)
		xsk_poll_wait(rx);
	else
		xsk_kick_rx(rx);
}

/* After the loop: send what still waits on the TX ring, take it back. */
void tx_flush(struct xsk_rx *rx)
{
	unsigned i;

	for (i = 0; i < 64 && tx_waiting(rx); i++)
		tx_kick(rx);
	tx_reclaim(rx);
}

/*
 * --reflect: sent back is what went on the TX ring less what the device
 * dropped or the kernel found invalid; those and the frames the full TX
 * ring had no room for are the errors.
 */
void reflect_report(const struct xsk_rx *rx, struct pl_report *r)
{
	uint64_t invalid = rx->xs.tx_invalid_descs - rx->xs0.tx_invalid_descs;
	uint64_t lost = rx->tx_dropped + invalid;

	r->reflect = true;
	r->reflected = rx->tx_queued > lost ? rx->tx_queued - lost : 0;
	r->reflect_errors = rx->tx_no_room + lost;
}

/* --reflect: what went through the TX ring. */
void tx_json(struct pl_json *j, const struct xsk_rx *rx)
{
	pl_json_obj(j, "tx");
	pl_json_u64(j, "tx_ring", rx->cfg->ring);
	pl_json_u64(j, "queued", rx->tx_queued);
	pl_json_u64(j, "completed", rx->tx_completed);
	pl_json_u64(j, "ring_full", rx->tx_no_room);
	pl_json_u64(j, "send_dropped", rx->tx_dropped);
	pl_json_u64(j, "invalid_descs",
		    rx->xs.tx_invalid_descs - rx->xs0.tx_invalid_descs);
	pl_json_end(j);
}
