/* SPDX-License-Identifier: MIT */
/*
 * pathlab-gen's transmit back ends. Each one sends a batch of datagrams
 * and says how many went; the generator's loop (gen.c) owns pacing,
 * sequence numbers, stamps and accounting, so adding a TX mode (AF_XDP,
 * verbs) means adding one of these, not a second generator.
 */
#ifndef PATHLAB_GEN_H
#define PATHLAB_GEN_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "wire.h"

#define GEN_MAX_BATCH 256
#define GEN_MAX_FLOWS 64

struct gen_cfg {
	const char *dst, *iface;
	unsigned port, src_port, flows, batch, bad_every;
	unsigned frame_bytes, payload_bytes;
	uint64_t count, rate;
	double duration_s;
	int cpu;
	bool quiet, no_end;
	int tx; /* enum gen_tx */
};

enum gen_tx { GEN_TX_UDP, GEN_TX_PACKET, GEN_TX_UDP_GSO };

/* One datagram to send: payload built by the loop, frame by the back end. */
struct gen_msg {
	uint8_t flow;
	uint32_t seq;
	bool end;	    /* end marker: seq carries the count sent */
	uint8_t round;	    /* end marker: which of the PL_END_ROUNDS */
	enum pl_reason bad; /* PL_OK, or the malformation to send */
};

struct gen_tx_ops {
	const char *name;
	int (*open)(const struct gen_cfg *cfg, void **ctx);
	/* Send n messages; returns how many were sent or -errno. */
	int (*send)(void *ctx, const struct gen_msg *msgs, unsigned n);
	void (*close)(void *ctx);
};

/* Write the pathlab payload of one message, stamped now. */
void gen_fill_payload(void *buf, unsigned len, const struct gen_msg *m);

extern const struct gen_tx_ops gen_tx_udp, gen_tx_packet, gen_tx_udp_gso;

#endif
