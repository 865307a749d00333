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
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "hist.h"
#include "rtt.h"
#include "sysctr.h"
#include "wire.h"

#define GEN_MAX_BATCH	256
#define GEN_MAX_FLOWS	64
#define GEN_MAX_THREADS GEN_MAX_FLOWS /* each thread needs a flow */
#define GEN_SPIN_NS	50000 /* paced mode: sleep until this close, spin */

/*
 * What to send. With --threads, each sender thread gets its own copy with
 * thread set and count and rate cut to its share; it sends the flows f
 * with f % threads == thread, so no two threads share a flow's sequence
 * numbers or a source port.
 */
struct gen_cfg {
	const char *dst, *iface;
	unsigned port, src_port, flows, batch, bad_every;
	unsigned frame_bytes, payload_bytes;
	uint64_t count, rate;
	double duration_s;
	int cpu;
	bool quiet, no_end;
	bool allow_routed; /* --dst may be reached through the default route */
	bool allow_mgmt_lan;  /* ... or out of a management interface */
	bool allow_multicast; /* --dst may be multicast or broadcast */
	int tx;		      /* enum gen_tx */
	unsigned threads, thread;
	bool pingpong;		   /* round trips: send, await the reply */
	unsigned warmup;	   /* ping-pong: first pings not measured */
	unsigned reply_timeout_ms; /* ping-pong: wait this long, then next */
};

/* True if flow f is sent by the thread this configuration is for. */
static inline bool gen_flow_mine(const struct gen_cfg *c, unsigned f)
{
	return f % c->threads == c->thread;
}

/* What one sender thread sent; the generator's JSON sums the threads. */
struct gen_result {
	uint64_t sent, errors, batches, bad_sent, end_sent;
	uint64_t enobufs; /* refused or short sends (sent again) */
	uint64_t bad[PL_REASON_MAX];
	uint64_t seq[GEN_MAX_FLOWS];
	uint64_t start_ns, end_ns;
	int last_errno;
	int cpu;	   /* pinned to, or -1 */
	uint64_t bad_k;	   /* --bad-every: messages counted so far */
	unsigned bad_next; /* --bad-every: the next malformation */
	uint64_t shown[2]; /* sent, errors: published for the progress line */
	struct pl_sysctr before, after;
};

/* Round trips of a --pingpong run, on the sender's own clock. */
enum gen_tx { GEN_TX_UDP, GEN_TX_PACKET, GEN_TX_UDP_GSO };

/* One datagram to send: payload built by the loop, frame by the back end. */
struct gen_msg {
	uint8_t flow;
	uint32_t seq;
	bool end;	    /* end marker: seq carries the count sent */
	bool ping;	    /* ping-pong: PL_FLAG_PING, reflect me */
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

/* The UDP back end's connected socket of a flow (ping-pong reads it). */
int gen_udp_fd(void *ctx, unsigned flow);

/*
 * Ping-pong (gen_pingpong.c): send one ping on the udp back end, wait for
 * its reflection, then the next; fills res like a train and rtt.
 */
void gen_pingpong(const struct gen_cfg *c, const struct gen_tx_ops *ops,
		  void *ctx, struct gen_result *res, struct pl_rtt *rtt,
		  volatile sig_atomic_t *stop);

struct pl_json;

#endif
