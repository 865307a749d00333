/* SPDX-License-Identifier: MIT */
/*
 * Exercise 14: what the grader and the worker say. The port and its pool
 * (the model of dmodel.c) are the grader's, as a NIC and its driver's
 * memory are not the application's to rewrite: the worker has a copy of
 * the port's mbufs, which rx_burst fills in, and its dm_rx_burst(),
 * dm_tx_burst() and dm_free() are calls to the grader's model (an mbuf
 * named by its index in the port; dm_stub.c).
 */
#ifndef PATHLAB_EX_DX_RPC_H
#define PATHLAB_EX_DX_RPC_H

#include <stdint.h>

#include "dx_ex.h"
#include "proto.h"

enum { DX_POOL_SIZE = WK_OP_FIRST, DX_CACHE_OK, DX_FORWARD };
enum { DD_RX_BURST, DD_TX_BURST, DD_FREE };

#define DX_BATCH 1000
#define DD_MAX	 1024
#define DD_NONE	 0xffffffffu /* not an mbuf of the port */

/* DX_POOL_SIZE: configurations; a uint32_t each. */
/* DX_CACHE_OK: pairs; an int32_t each. */
struct dx_cache_in {
	uint32_t n, cache;
};

/* DX_FORWARD: one turn; the answer: what it returned (uint32_t). */
struct dx_forward_in {
	uint32_t burst;
	uint32_t nmbufs; /* the port's mbufs, for the copy */
};

/* A call to the port: up to n mbufs (rx), or these mbufs (tx, free). */
struct dd_call {
	uint32_t port; /* 0, or DD_NONE for a port the model does not know */
	uint32_t n;
	uint32_t idx[DD_MAX];
};

struct dd_ans {
	uint32_t n;
	uint32_t idx[DD_MAX];
	uint32_t len[DD_MAX];
	uint8_t ok[DD_MAX];
};

/* The worker's copy of the port. */
extern struct dm_port wk_port;

#endif
