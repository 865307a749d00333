/* SPDX-License-Identifier: MIT */
/*
 * Connecting two ends. By default through librdmacm: addresses are IP
 * addresses, the receiver listens like a TCP server, and the connection
 * manager exchanges QP numbers in CM messages (REQ/REP for RC, SIDR for UD)
 * and walks the QPs through their states. Our own facts (the ring's address
 * and rkey, the mode) ride along as private data. With --oob, a TCP
 * connection carries the same facts (verbs_oob.c).
 *
 * Every wait is bounded by --timeout: a wrong address or a missing peer
 * ends in an error, never a hang.
 */
#include "verbs.h"
#include "verbs_oob.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

/* Wait up to ms for the next CM event, which must be want. */
static int cm_wait(struct verbs_ep *ep, enum rdma_cm_event_type want,
		   unsigned ms, struct rdma_cm_event **out)
{
	struct pollfd p = { .fd = ep->cm_ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int n, err;

	n = poll(&p, 1, (int)ms);
	if (n == 0)
		fprintf(stderr, "%s: rdma_cm: no %s within %u ms\n",
			program_invocation_short_name, rdma_event_str(want),
			ms);
	if (n <= 0)
		return n ? -errno : -ETIMEDOUT;
	if (rdma_get_cm_event(ep->cm_ch, &ev))
		return -errno;
	if (ev->event == want) {
		*out = ev;
		return 0;
	}
	fprintf(stderr, "%s: rdma_cm: %s (status %d) instead of %s\n",
		program_invocation_short_name, rdma_event_str(ev->event),
		ev->status, rdma_event_str(want));
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		err = -ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		err = -EHOSTUNREACH;
		break;
	default:
		err = -EPROTO;
	}
	rdma_ack_cm_event(ev);
	return err;
}

/* librdmacm opened the device for us: it must be the one we chose. */
static int cm_check_device(struct verbs_ep *ep, struct ibv_context *ctx)
{
	const char *got = ctx ? ibv_get_device_name(ctx->device) : "none";

	if (!ctx || strcmp(got, ep->where.dev)) {
		fprintf(stderr, "%s: rdma_cm bound %s to device %s, not %s\n",
			program_invocation_short_name,
			inet_ntoa(ep->where.addr), got, ep->where.dev);
		return -EXDEV;
	}
	ep->ctx = ctx;
	return 0;
}

/* The sender: resolve the receiver's address and route from ours. */
static int cm_resolve(struct verbs_ep *ep, const struct verbs_cfg *c)
{
	struct sockaddr_in src = { .sin_family = AF_INET,
				   .sin_addr = ep->where.addr };
	struct sockaddr_in dst = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)(c->port + ep->queue)),
	};
	struct rdma_cm_event *ev;
	int err;

	if (inet_pton(AF_INET, c->peer, &dst.sin_addr) != 1)
		return -EINVAL;
	if (rdma_resolve_addr(ep->id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst, (int)c->timeout_ms))
		return -errno;
	err = cm_wait(ep, RDMA_CM_EVENT_ADDR_RESOLVED, c->timeout_ms, &ev);
	if (err)
		return err;
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(ep->id, (int)c->timeout_ms))
		return -errno;
	err = cm_wait(ep, RDMA_CM_EVENT_ROUTE_RESOLVED, c->timeout_ms, &ev);
	if (err)
		return err;
	rdma_ack_cm_event(ev);
	return cm_check_device(ep, ep->id->verbs);
}

/* The receiver: listen on our GID's IPv4 address. */
static int cm_listen(struct verbs_ep *ep, const struct verbs_cfg *c)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)(c->port + ep->queue)),
		.sin_addr = ep->where.addr,
	};

	if (rdma_bind_addr(ep->listen_id, (struct sockaddr *)&a) ||
	    rdma_listen(ep->listen_id, 1))
		return -errno;
	return cm_check_device(ep, ep->listen_id->verbs);
}

/* Open the device with --oob, or the CM's channel and id; by role. */
static int open_cm(struct verbs_ep *ep, const struct verbs_cfg *c, bool passive)
{
	enum rdma_port_space ps =
		c->mode == VERBS_UD ? RDMA_PS_UDP : RDMA_PS_TCP;
	struct rdma_cm_id **id = passive ? &ep->listen_id : &ep->id;

	ep->cm_ch = rdma_create_event_channel();
	if (!ep->cm_ch)
		return -errno;
	if (rdma_create_id(ep->cm_ch, id, NULL, ps))
		return -errno;
	return passive ? cm_listen(ep, c) : cm_resolve(ep, c);
}

/* Open the named device ourselves (--oob). */
static int open_device(struct verbs_ep *ep)
{
	struct ibv_device **list;
	int i, n = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return -errno;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), ep->where.dev))
			ep->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ep->ctx)
		return -ENODEV;
	ep->own_ctx = true;
	return 0;
}

/*
 * Choose device, port and GID, then reach the point where objects can be
 * created: listening (passive) or with the route resolved (active), for
 * QP number queue of the end, on port + queue. On error the caller still
 * calls verbs_ep_close().
 */
int verbs_ep_open(struct verbs_ep *ep, const struct verbs_cfg *c, bool passive,
		  unsigned queue)
{
	int err;

	*ep = (struct verbs_ep){ .oob_fd = -1,
				 .oob_listen = -1,
				 .queue = queue };
	err = verbs_pick(c, &ep->where);
	if (err)
		return err;
	if (!c->oob)
		return open_cm(ep, c, passive);
	err = open_device(ep);
	if (!err && passive)
		err = oob_listen(ep, c);
	return err;
}

/* The peer's facts from a CM event's private data. */
static int cm_remote(struct verbs_ep *ep, const struct verbs_cfg *c,
		     const void *data, uint8_t len, bool from_sender)
{
	if (!data || len < sizeof(ep->remote)) {
		fprintf(stderr, "%s: the peer sent no pathlab private data\n",
			program_invocation_short_name);
		return -EPROTO;
	}
	memcpy(&ep->remote, data, sizeof(ep->remote));
	return verbs_wire_check(&ep->remote, c, from_sender);
}

/* 8< verbs-cm-accept */
/* The receiver's side of rdma_cm: take the request, make the QP, accept. */
static int cm_accept(struct verbs_ep *ep, const struct verbs_cfg *c,
		     unsigned send_wr, unsigned recv_wr,
		     int (*before_accept)(void *arg), void *arg)
{
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1,
				     .retry_count = 7,
				     .rnr_retry_count = 7 };
	struct ibv_qp_attr rnr = { .min_rnr_timer = 1 };
	struct rdma_cm_event *ev;
	struct verbs_wire mine;
	int err;

	err = cm_wait(ep, RDMA_CM_EVENT_CONNECT_REQUEST, c->timeout_ms, &ev);
	if (err)
		return err;
	ep->id = ev->id;
	err = c->mode == VERBS_UD
		      ? cm_remote(ep, c, ev->param.ud.private_data,
				  ev->param.ud.private_data_len, true)
		      : cm_remote(ep, c, ev->param.conn.private_data,
				  ev->param.conn.private_data_len, true);
	rdma_ack_cm_event(ev);
	if (err) {
		rdma_reject(ep->id, NULL, 0);
		return err;
	}
	err = verbs_qp_create(ep, c, send_wr, recv_wr);
	if (!err)
		err = before_accept(arg);
	if (err)
		return err;
	verbs_wire_fill(ep, c, &mine);
	p.private_data = &mine;
	p.private_data_len = sizeof(mine);
	if (rdma_accept(ep->id, &p))
		return -errno;
	if (c->mode == VERBS_UD) /* SIDR: nothing more comes back */
		return 0;
	err = cm_wait(ep, RDMA_CM_EVENT_ESTABLISHED, c->timeout_ms, &ev);
	if (err)
		return err;
	rdma_ack_cm_event(ev);
	/* The CM set the RNR back-off to its default, 655 ms: shorten it. */
	return -ibv_modify_qp(ep->qp, &rnr, IBV_QP_MIN_RNR_TIMER);
}
/* >8 verbs-cm-accept */

/*
 * The receiver: wait for one sender (bounded by --timeout), create or
 * finish the QP, call before_accept(arg) (post the receives), and only
 * then let the sender start.
 */
int verbs_accept(struct verbs_ep *ep, const struct verbs_cfg *c,
		 unsigned send_wr, unsigned recv_wr,
		 int (*before_accept)(void *arg), void *arg)
{
	if (c->oob)
		return oob_accept(ep, c, before_accept, arg);
	return cm_accept(ep, c, send_wr, recv_wr, before_accept, arg);
}

/* The sender's side of rdma_cm: connect and learn the receiver's QP. */
static int cm_connect(struct verbs_ep *ep, const struct verbs_cfg *c)
{
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1,
				     .retry_count = 7,
				     .rnr_retry_count = 7 };
	struct rdma_cm_event *ev;
	struct verbs_wire mine;
	int err;

	verbs_wire_fill(ep, c, &mine);
	p.private_data = &mine;
	p.private_data_len = sizeof(mine);
	if (rdma_connect(ep->id, &p))
		return -errno;
	err = cm_wait(ep, RDMA_CM_EVENT_ESTABLISHED, c->timeout_ms, &ev);
	if (err)
		return err;
	if (c->mode != VERBS_UD) {
		err = cm_remote(ep, c, ev->param.conn.private_data,
				ev->param.conn.private_data_len, false);
		rdma_ack_cm_event(ev);
		return err;
	}
	err = cm_remote(ep, c, ev->param.ud.private_data,
			ev->param.ud.private_data_len, false);
	ep->remote.qpn = htonl(ev->param.ud.qp_num);
	ep->remote.qkey = htonl(ev->param.ud.qkey);
	if (!err) {
		ep->ah = ibv_create_ah(ep->pd, &ev->param.ud.ah_attr);
		err = ep->ah ? 0 : -errno;
	}
	rdma_ack_cm_event(ev);
	return err;
}

/* The sender: create the QP if librdmacm manages it, then connect. */
int verbs_connect(struct verbs_ep *ep, const struct verbs_cfg *c,
		  unsigned send_wr, unsigned recv_wr)
{
	int err = 0;

	if (!ep->qp)
		err = verbs_qp_create(ep, c, send_wr, recv_wr);
	if (err)
		return err;
	return c->oob ? oob_connect(ep, c) : cm_connect(ep, c);
}

/* Say goodbye on an RC connection made by rdma_cm. */
void verbs_disconnect(struct verbs_ep *ep)
{
	if (ep->id && ep->qp && ep->id->qp)
		rdma_disconnect(ep->id);
}
