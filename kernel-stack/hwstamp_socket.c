/* SPDX-License-Identifier: MIT */
/*
 * --hw-stamps: ask the NIC what it can stamp (ETHTOOL_GET_TS_INFO, what
 * `ethtool -T IF` shows), switch RX stamping on for every frame
 * (SIOCSHWTSTAMP), open its PTP hardware clock, and put the old setting
 * back at exit. One interface per receiver process, so the state is ours.
 */
#include "hwstamp_socket.h"
#include "rx_socket.h"
#include "opt.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* A dynamic POSIX clock id from the descriptor of /dev/ptpN. */
#define FD_TO_CLOCKID(fd) ((~(clockid_t)(fd) << 3) | 3)

static struct {
	char ifname[IF_NAMESIZE];
	int ctl;    /* a socket for the ioctls */
	int phc_fd; /* /dev/ptpN */
	clockid_t phc;
	struct hwtstamp_config saved; /* put back at exit */
} hw = { .ctl = -1, .phc_fd = -1 };

/* One SIOC*HWTSTAMP ioctl on our interface; 0 or -errno. */
static int hwtstamp_ioctl(unsigned long req, struct hwtstamp_config *cfg)
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", hw.ifname);
	ifr.ifr_data = (void *)cfg;
	return ioctl(hw.ctl, req, &ifr) ? -errno : 0;
}

/* What the interface can stamp (ethtool -T); 0 or -errno. */
static int ts_info(struct ethtool_ts_info *info)
{
	struct ifreq ifr = { 0 };

	*info = (struct ethtool_ts_info){ .cmd = ETHTOOL_GET_TS_INFO };
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", hw.ifname);
	ifr.ifr_data = (void *)info;
	return ioctl(hw.ctl, SIOCETHTOOL, &ifr) ? -errno : 0;
}

/* At exit: the interface's stamping as it was, the clock closed. */
static void hwstamp_restore(void)
{
	struct hwtstamp_config cfg = hw.saved;

	if (hw.ctl >= 0 && hwtstamp_ioctl(SIOCSHWTSTAMP, &cfg))
		fprintf(stderr,
			"pathlab-rx-socket: %s: could not put the hardware "
			"stamping back (rx_filter %d)\n",
			hw.ifname, hw.saved.rx_filter);
	if (hw.phc_fd >= 0)
		close(hw.phc_fd);
	if (hw.ctl >= 0)
		close(hw.ctl);
	hw.phc_fd = hw.ctl = -1;
}

/*
 * Check that IF stamps every frame in hardware with a clock of its own;
 * 0 with the clock's index, or the exit code after a one-line error.
 */
static int check_caps(int *phc_index)
{
	const int need =
		SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE;
	struct ethtool_ts_info info;
	int err = ts_info(&info);

	if (err || (info.so_timestamping & need) != need ||
	    info.phc_index < 0) {
		fprintf(stderr,
			"pathlab-rx-socket: --hw-stamps: %s has no hardware "
			"RX stamps (ethtool -T %s: no hardware-receive or "
			"PTP Hardware Clock: none; veth has none); "
			"--rx-stamps gives the kernel's software stamps\n",
			hw.ifname, hw.ifname);
		return PL_EXIT_SKIP;
	}
	if (!(info.rx_filters & (1u << HWTSTAMP_FILTER_ALL))) {
		fprintf(stderr,
			"pathlab-rx-socket: --hw-stamps: %s stamps only PTP "
			"frames in hardware (no filter mode \"all\" in "
			"ethtool -T), not our UDP datagrams\n",
			hw.ifname);
		return PL_EXIT_SKIP;
	}
	*phc_index = info.phc_index;
	return 0;
}

/* Stamp every received frame; keep the old setting to put back. */
static int enable(void)
{
	struct hwtstamp_config cfg = { .tx_type = HWTSTAMP_TX_OFF,
				       .rx_filter = HWTSTAMP_FILTER_NONE };
	int err;

	/* Drivers without SIOCGHWTSTAMP: put back "off" at exit. */
	if (hwtstamp_ioctl(SIOCGHWTSTAMP, &cfg))
		cfg = (struct hwtstamp_config){ .tx_type = HWTSTAMP_TX_OFF,
						.rx_filter =
							HWTSTAMP_FILTER_NONE };
	hw.saved = cfg;
	cfg.rx_filter = HWTSTAMP_FILTER_ALL; /* TX stamping as it was */
	err = hwtstamp_ioctl(SIOCSHWTSTAMP, &cfg);
	if (err) {
		fprintf(stderr,
			"pathlab-rx-socket: --hw-stamps: %s: "
			"SIOCSHWTSTAMP: %s%s\n",
			hw.ifname, strerror(-err),
			err == -EPERM ? " (needs CAP_NET_ADMIN)" : "");
		return err == -EPERM || err == -EOPNOTSUPP ? PL_EXIT_SKIP
							   : PL_EXIT_FAIL;
	}
	atexit(hwstamp_restore);
	if (cfg.rx_filter != HWTSTAMP_FILTER_ALL) {
		fprintf(stderr,
			"pathlab-rx-socket: --hw-stamps: %s's driver chose "
			"rx_filter %d, not every frame\n",
			hw.ifname, cfg.rx_filter);
		return PL_EXIT_SKIP;
	}
	return 0;
}

/* Open /dev/ptpN, the clock the NIC stamps with. */
static int open_phc(int index)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/ptp%d", index);
	hw.phc_fd = open(path, O_RDONLY);
	if (hw.phc_fd < 0) {
		fprintf(stderr, "pathlab-rx-socket: --hw-stamps: %s: %s\n",
			path, strerror(errno));
		return PL_EXIT_FAIL;
	}
	hw.phc = FD_TO_CLOCKID(hw.phc_fd);
	return 0;
}

int hwstamp_begin(const char *ifname)
{
	int rc, index = -1;

	if (!ifname) {
		fprintf(stderr, "pathlab-rx-socket: --hw-stamps needs --iface "
				"IF (the NIC whose clock stamps)\n");
		return PL_EXIT_USAGE;
	}
	snprintf(hw.ifname, sizeof(hw.ifname), "%s", ifname);
	hw.ctl = socket(AF_INET, SOCK_DGRAM, 0);
	if (hw.ctl < 0) {
		fprintf(stderr, "pathlab-rx-socket: socket: %s\n",
			strerror(errno));
		return PL_EXIT_FAIL;
	}
	rc = check_caps(&index);
	if (rc) {
		close(hw.ctl);
		hw.ctl = -1;
		return rc;
	}
	rc = open_phc(index);
	return rc ? rc : enable();
}

int hwstamp_phc_read(void *ctx, uint64_t *raw)
{
	struct timespec phc;

	(void)ctx;
	if (clock_gettime(hw.phc, &phc))
		return -errno;
	*raw = pl_timespec_ns(&phc);
	return 0;
}

/*
 * --rx-stamps: account the burst, each good datagram's latency split at
 * its RX stamp; then room for the next call's stamps in each message.
 */
void stamped_socket_burst(struct sock_rx *rx, int n, uint64_t now)
{
	struct msghdr *mh;
	struct pl_pkt p;
	int i;

	for (i = 0; i < n; i++) {
		mh = &rx->msgs[i].msg_hdr;
		if (rx_one(rx, rx->bufs[i], rx->msgs[i].msg_len, now, &p) ==
		    PL_OK)
			pl_stats_split(&rx->stats, p.tx_ns,
				       rx_stamp_at(rx, mh, now), now);
		mh->msg_controllen = CMSG_LEN_TS;
	}
}
