/* SPDX-License-Identifier: MIT */
/* The TCP out-of-band exchange (--oob), used by verbs_conn.c only. */
#ifndef PATHLAB_VERBS_OOB_H
#define PATHLAB_VERBS_OOB_H

#include "verbs.h"

int oob_listen(struct verbs_ep *ep, const struct verbs_cfg *c);
int oob_accept(struct verbs_ep *ep, const struct verbs_cfg *c,
	       int (*before_accept)(void *arg), void *arg);
int oob_connect(struct verbs_ep *ep, const struct verbs_cfg *c);
int verbs_wire_check(const struct verbs_wire *w, const struct verbs_cfg *c,
		     bool from_sender);

#endif
