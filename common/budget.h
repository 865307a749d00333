/* SPDX-License-Identifier: MIT */
/*
 * The cycle budget: how many frames per second a link carries at line rate,
 * and so how many CPU cycles one core may spend on each.
 *
 * Every Ethernet frame also costs 20 bytes on the wire (7 preamble, 1 start
 * delimiter, 12 inter-frame gap), so a frame of S bytes (FCS included, the
 * RFC 5180 Appendix A convention) occupies (S + 20) * 8 bit-times:
 *
 *	frames/s = rate / (8 * (S + 20))     (truncated to whole frames)
 *	ns/frame = 1e9 / frames/s
 *	cycles/frame = clock_hz / frames/s
 */
#ifndef PATHLAB_BUDGET_H
#define PATHLAB_BUDGET_H

#include <stdint.h>

#define PL_WIRE_OVERHEAD 20 /* preamble 7 + SFD 1 + inter-frame gap 12 */

struct pl_budget {
	uint64_t rate_bps;
	unsigned frame_bytes;	    /* incl. FCS */
	uint64_t frames_per_second; /* whole frames, truncated */
	double ns_per_frame;
	double cycles_per_frame;
	double clock_hz;
};

/* Fill *b for one rate, frame size and clock. rate_bps and frame_bytes > 0. */
void pl_budget_compute(uint64_t rate_bps, unsigned frame_bytes, double clock_hz,
		       struct pl_budget *b);

/*
 * Parse a link rate: "10G", "25Gbit", "400g", "100M", "2.5G", "1000000000".
 * Suffixes k/M/G/T (any case), optionally followed by "bit", "bps" or "b".
 * Returns 0, or -EINVAL for negative, zero, non-numeric or unknown units.
 */
int pl_parse_rate(const char *s, uint64_t *bps);

/* Parse a clock: "3.0GHz", "2400MHz", "2.3e9", "1500khz". 0 or -EINVAL. */
int pl_parse_hz(const char *s, double *hz);

/* Parse a positive integer with an optional k/M/G (powers of 1000) suffix. */
int pl_parse_count(const char *s, uint64_t *v);

#endif
