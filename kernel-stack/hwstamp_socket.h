/* SPDX-License-Identifier: MIT */
/*
 * Hardware RX stamps for the socket receiver (--hw-stamps): the NIC stamps
 * each frame with its own clock, the PTP hardware clock (PHC, /dev/ptpN).
 * The receiver tells the driver to stamp every frame (SIOCSHWTSTAMP with
 * HWTSTAMP_FILTER_ALL, the old setting put back at exit) and asks its
 * socket for the raw stamp, which comes as ts[2] of SCM_TIMESTAMPING.
 *
 * The PHC is not CLOCK_MONOTONIC and drifts against it (tens of ppm, more
 * while ptp4l steers it), so each queue measures the offset between the
 * two again every HWSTAMP_RESYNC_NS while it receives: at 100 ppm that
 * bounds the drift error to 1 us. The offset's own error is half the time
 * one PHC read takes (a PCIe read, ~1-3 us; the best of three is used).
 */
#ifndef PATHLAB_HWSTAMP_SOCKET_H
#define PATHLAB_HWSTAMP_SOCKET_H

#include "clock.h"
#include "nicclock.h"

#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define HWSTAMP_RESYNC_NS 10000000ull /* 10 ms */

/* The SO_TIMESTAMPING flags hardware RX stamps add to the software ones. */
#define HWSTAMP_SOF                                                            \
	(SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE)

/* One queue's conversion of PHC stamps to CLOCK_MONOTONIC. */
struct hwconv {
	bool on;		/* --hw-stamps */
	struct pl_nicclock clk; /* the PHC: ns, 64 bits (hwconv_init) */
	uint64_t next_ns;	/* when to read it again (0: not yet) */
};

static inline void hwconv_init(struct hwconv *cv, bool on)
{
	*cv = (struct hwconv){ .on = on,
			       .clk = { .mask = ~0ull, .ns_per_tick = 1 } };
}

/*
 * Make IF stamp every received frame in hardware and open its PHC; the
 * old setting is put back at exit. 0, or the exit code after a one-line
 * error: PL_EXIT_SKIP when IF has no hardware stamps (veth has none) or
 * we lack CAP_NET_ADMIN, PL_EXIT_USAGE without --iface.
 */
int hwstamp_begin(const char *ifname);

/* Read the PHC now (a pl_clock_read_fn; ctx unused): 0 or -errno. */
int hwstamp_phc_read(void *ctx, uint64_t *raw);

/* The SCM_TIMESTAMPING stamps of one datagram, or NULL without any. */
static inline const struct scm_timestamping *sock_stamps(struct msghdr *mh)
{
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_TIMESTAMPING)
			return (const struct scm_timestamping *)CMSG_DATA(cm);
	return NULL;
}

/* The NIC's raw RX stamp of one datagram (ts[2]) in ns of the PHC, or 0. */
static inline uint64_t hwstamp_raw(struct msghdr *mh)
{
	const struct scm_timestamping *ts = sock_stamps(mh);

	return ts ? pl_timespec_ns(&ts->ts[2]) : 0;
}

/*
 * The NIC's RX stamp of one datagram in CLOCK_MONOTONIC ns, or 0 when the
 * NIC did not stamp it (or its clock could not be read): the split then
 * skips the datagram rather than guess. now is the receive time of its batch:
 * the offset is measured again once it is HWSTAMP_RESYNC_NS old.
 */
static inline uint64_t hwconv_stamp(struct hwconv *cv, struct msghdr *mh,
				    uint64_t now)
{
	uint64_t raw = hwstamp_raw(mh);

	if (now >= cv->next_ns) {
		pl_nicclock_resync(&cv->clk, hwstamp_phc_read, NULL);
		cv->next_ns = now + HWSTAMP_RESYNC_NS;
	}
	return raw ? pl_nicclock_ns(&cv->clk, raw) : 0;
}

#endif
