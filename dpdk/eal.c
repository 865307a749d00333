/* SPDX-License-Identifier: MIT */
/*
 * The EAL command line. In the lab a student types --iface pl-rx0 and we
 * build what DPDK needs: one lcore, memory (hugepages if the system has
 * them free, else --no-huge), no PCI scan, a private file prefix and the
 * vdev. On a real NIC the same program takes --pci and checks first that
 * the device is not the one this machine is reached through.
 */
#include "rx_dpdk.h"
#include "eal_guard.h"
#include "ifname.h"
#include "mgmt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MLX5_VENDOR "0x15b3" /* Mellanox / NVIDIA ConnectX */

/* Append one argument (printf-style) to the EAL command line. */
static int add_arg(struct eal_args *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int add_arg(struct eal_args *e, const char *fmt, ...)
{
	size_t room = sizeof(e->store) - e->used;
	va_list ap;
	int n;

	if (e->argc >= EAL_MAX_ARGS - 1)
		return -E2BIG;
	va_start(ap, fmt);
	n = vsnprintf(e->store + e->used, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		return -E2BIG;
	e->argv[e->argc++] = e->store + e->used;
	e->used += (size_t)n + 1;
	return 0;
}

/* Append to the last argument (printf-style). */
static int append(struct eal_args *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int append(struct eal_args *e, const char *fmt, ...)
{
	size_t room = sizeof(e->store) - e->used;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(e->store + e->used - 1, room + 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room + 1)
		return -E2BIG;
	e->used += (size_t)n;
	return 0;
}

/* The highest CPU we may run on: the generator usually takes CPU 0. */
static unsigned default_cpu(void)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (i = CPU_SETSIZE - 1; i > 0; i--)
		if (CPU_ISSET(i, &set))
			return (unsigned)i;
	return 0;
}

/* Read one "Name: value" line of /proc/meminfo (kB or a count). */
static uint64_t meminfo(const char *name)
{
	char line[128];
	size_t len = strlen(name);
	uint64_t v = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':') {
			v = strtoull(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* True if some hugetlbfs is mounted (EAL looks for one). */
static bool hugetlbfs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " hugetlbfs ") != NULL;
	fclose(f);
	return found;
}

/* Hugepages when mounted with at least 64 MiB free; else say why not. */
static void choose_memory(struct eal_args *e)
{
	uint64_t free_mb;

	e->huge_kb = meminfo("Hugepagesize");
	e->huge_free = meminfo("HugePages_Free");
	free_mb = e->huge_free * e->huge_kb / 1024;
	e->mem_mb = 512;
	if (!hugetlbfs_mounted())
		e->note = "no hugetlbfs mounted: --no-huge (4 KiB pages, "
			  "more TLB misses; fine for the lab, not for a NIC)";
	else if (free_mb < 64)
		e->note = "hugetlbfs mounted but under 64 MiB of hugepages "
			  "free: --no-huge";
	else {
		e->huge = true;
		e->mem_mb = free_mb < 512 ? (unsigned)free_mb : 512;
	}
}

/*
 * The lcores: -l CPU for one queue. For n queues, lcore q on CPU cpu + q
 * (wrapped over the CPUs, as pl_rx_queue_cpu() does): --lcores
 * 0@C0,1@C1,... Lcore q polls queue q; lcore 0, the lowest, is the main
 * one (this thread), the others are EAL workers.
 */
static int add_lcores(struct eal_args *e, unsigned cpu, unsigned n)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned q, on;
	int err;

	if (n < 2) {
		err = add_arg(e, "-l");
		return err ? err : add_arg(e, "%u", cpu);
	}
	err = add_arg(e, "--lcores");
	for (q = 0; q < n && !err; q++) {
		on = ncpu > 0 ? (cpu + q) % (unsigned)ncpu : cpu;
		err = q ? append(e, ",%u@%u", q, on) : add_arg(e, "0@%u", on);
	}
	return err;
}

/*
 * The lab's vdev on the interface, for n queues. af_packet: qpairs=n
 * packet sockets in one PACKET_FANOUT hash group, each ring as many
 * frames as our descriptors. af_xdp: one vdev per kernel RX queue,
 * net_af_xdpQ on queue Q (queue_count above 1 needs combined channels,
 * which veth lacks): a port per queue, busy polling only when asked
 * (busy_budget: the PMD's recvfrom() when its RX ring is empty then runs
 * the link's NAPI, the lab's busy-poll placement; 0 turns it off, which
 * the PMD would otherwise do by default).
 */
static int add_vdevs(struct eal_args *e, const struct cfg *c,
		     const char *const *vdevs, unsigned n)
{
	unsigned q;
	int err;

	if (c->vdev == VDEV_AF_PACKET) {
		err = add_arg(e, "--vdev=net_%s0,iface=%s,framecnt=%u",
			      vdevs[c->vdev], c->rx.iface, c->rx_desc);
		return err || n < 2 ? err : append(e, ",qpairs=%u", n);
	}
	for (q = 0, err = 0; q < n && !err; q++)
		err = add_arg(e,
			      "--vdev=net_%s%u,iface=%s,start_queue=%u,"
			      "queue_count=1,busy_budget=%u",
			      vdevs[c->vdev], q, c->rx.iface, q,
			      c->busy_poll ? c->burst : 0);
	return err;
}

/* 8< dpdk-eal-args */
int eal_args_build(struct eal_args *e, const struct cfg *c,
		   const char *const *vdevs)
{
	unsigned cpu = c->cpu != UINT_MAX ? c->cpu : default_cpu();
	int err = 0;

	e->built = true;
	e->prefix_ours = true;
	snprintf(e->prefix, sizeof(e->prefix), "pathlab-%d", (int)getpid());
	choose_memory(e);
	err |= add_arg(e, "pathlab-rx-dpdk");
	err |= add_lcores(e, cpu, pl_rx_queues(&c->rx));
	if (!e->huge)
		err |= add_arg(e, "--no-huge");
	err |= add_arg(e, "-m");
	err |= add_arg(e, "%u", e->mem_mb);
	/* Unlink hugepage files once mapped: a killed run leaves none. */
	if (e->huge)
		err |= add_arg(e, "--huge-unlink");
	err |= add_arg(e, "--no-shconf");
	err |= add_arg(e, "--file-prefix");
	err |= add_arg(e, "%s", e->prefix);
	if (c->pci) {
		err |= add_arg(e, "-a");
		err |= add_arg(e, "%s", c->pci);
		/* DPDK's gpu/cuda driver probes only an allowed GPU. */
		if (c->gpu_allow[0]) {
			err |= add_arg(e, "-a");
			err |= add_arg(e, "%s", c->gpu_allow);
		}
	} else {
		err |= add_arg(e, "--no-pci");
		err |= add_vdevs(e, c, vdevs, pl_rx_queues(&c->rx));
	}
	e->argv[e->argc] = NULL;
	return err ? -E2BIG : 0;
}
/* >8 dpdk-eal-args */

/* The RX queues of a network interface (its queues/rx-N), 0 if unknown. */
static unsigned link_rx_queues(const char *ifname)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	d = opendir(path);
	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, "rx-", 3);
	if (d)
		closedir(d);
	return n;
}

int eal_check_queues(const struct cfg *c)
{
	unsigned n = pl_rx_queues(&c->rx), have;

	if (n < 2 || c->pci || c->vdev != VDEV_AF_XDP)
		return 0;
	have = link_rx_queues(c->rx.iface);
	if (!have || have >= n)
		return 0;
	fprintf(stderr,
		"pathlab-rx-dpdk: --queues %u: %s has %u RX queues, and "
		"af_xdp binds one socket to each (a lab with more: "
		"PATHLAB_QUEUES=%u)\n",
		n, c->rx.iface, have, n);
	return -EINVAL;
}

/* Read a one-line sysfs file into buf without its newline; 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		err = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return err;
}

int eal_check_pci(const char *pci)
{
	char path[PATH_MAX], vendor[16] = "";

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", pci);
	if (access(path, F_OK)) {
		fprintf(stderr,
			"pathlab-rx-dpdk: no PCI device %s (give the full "
			"address, e.g. 0000:3b:00.0; see lspci -D)\n",
			pci);
		return -ENODEV;
	}
	if (pl_mgmt_refuse_pci("pathlab-rx-dpdk", pci))
		return -EPERM;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", pci);
	if (!read_line(path, vendor, sizeof(vendor)) &&
	    !strcmp(vendor, MLX5_VENDOR))
		fprintf(stderr,
			"pathlab-rx-dpdk: %s is a ConnectX (mlx5): it is "
			"bifurcated, keep it on its kernel driver "
			"(mlx5_core); never bind it to vfio-pci\n",
			pci);
	return 0;
}

/* The management check of one item of the EAL arguments (eal_walk()). */
static int check_item(void *ctx, enum eal_item kind, const char *value,
		      const char *arg)
{
	static const char prog[] = "pathlab-rx-dpdk";
	struct eal_args *e = ctx;
	char primary[64];
	const char *why;
	int idx;

	switch (kind) {
	case EAL_PCI:
		return pl_mgmt_refuse_pci(prog, value);
	case EAL_PCI_BLOCKED:
		return 0;
	case EAL_FILE_PREFIX:
		snprintf(e->prefix, sizeof(e->prefix), "%s", value);
		return 0;
	case EAL_IFACE:
	case EAL_IFACE_NEW:
		break;
	}
	if (pl_ifname_check(value, &why)) {
		fprintf(stderr, "%s: refusing EAL argument '%s': '%s' %s\n",
			prog, arg, value, why);
		return -EINVAL;
	}
	idx = pl_ifname_resolve(value, primary, sizeof(primary));
	if (idx == -ENODEV && kind == EAL_IFACE_NEW)
		return 0; /* a tap to be made: nothing there to take over */
	if (idx < 0) {
		fprintf(stderr,
			"%s: refusing EAL argument '%s': '%s' is no interface "
			"in this network namespace\n",
			prog, arg, value);
		return -EINVAL;
	}
	return pl_mgmt_refuse_iface(prog, value);
}

int eal_check_mgmt(struct eal_args *e, const struct cfg *c)
{
	int err = pl_mgmt_refuse_iface("pathlab-rx-dpdk", c->rx.iface);

	/* The vector rte_eal_init() gets: built from --iface or given. */
	return err ? err
		   : eal_walk("pathlab-rx-dpdk", e->argc, e->argv, check_item,
			      e);
}

/* Where EAL keeps its runtime directories for this user. */
static void runtime_root(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	if (getuid() == 0)
		snprintf(buf, len, "/var/run/dpdk");
	else
		snprintf(buf, len, "%s/dpdk", xdg ? xdg : "/tmp");
}

/* Remove a runtime directory and the files in it (it holds no subdirs). */
static void remove_dir(const char *path)
{
	struct dirent *de;
	DIR *d = opendir(path);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	rmdir(path);
}

static const struct eal_args *exit_eal;

/*
 * Runs after EAL's own exit handlers (registered later, so run earlier)
 * have unlinked the telemetry socket. A directory of our own prefix goes
 * with whatever is in it; one of the user's prefix only when empty.
 */
static void remove_runtime(void)
{
	char root[256], path[PATH_MAX];

	runtime_root(root, sizeof(root));
	snprintf(path, sizeof(path), "%s/%s", root, exit_eal->prefix);
	if (exit_eal->prefix_ours)
		remove_dir(path);
	else
		rmdir(path);
}

void eal_remove_runtime_at_exit(const struct eal_args *e)
{
	exit_eal = e;
	atexit(remove_runtime);
}

/* True for "pathlab-PID" where PID is no longer a running process. */
static bool stale_prefix(const char *name, int *pid)
{
	char *end;
	long v;

	if (strncmp(name, "pathlab-", 8))
		return false;
	v = strtol(name + 8, &end, 10);
	if (end == name + 8 || v <= 0 || v > INT_MAX)
		return false;
	*pid = (int)v;
	return kill(*pid, 0) && errno == ESRCH;
}

/*
 * Only our own naming pattern is touched, and only for a dead PID: a
 * receiver killed with SIGKILL cannot run rte_eal_cleanup(), so the next
 * receiver does it for it. Hugepage files are unlinked at map time
 * (--huge-unlink); the sweep catches those of runs given other flags.
 */
void eal_sweep_stale(void)
{
	char root[256], path[PATH_MAX], line[512], mnt[256];
	struct dirent *de;
	FILE *f;
	DIR *d;
	int pid;

	runtime_root(root, sizeof(root));
	d = opendir(root);
	while (d && (de = readdir(d)))
		if (stale_prefix(de->d_name, &pid)) {
			snprintf(path, sizeof(path), "%s/%s", root, de->d_name);
			fprintf(stderr,
				"pathlab-rx-dpdk: removing %s, left by a "
				"receiver that was killed\n",
				path);
			remove_dir(path);
		}
	if (d)
		closedir(d);
	f = fopen("/proc/mounts", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %255s hugetlbfs", mnt) != 1 ||
		    !strstr(line, " hugetlbfs "))
			continue;
		d = opendir(mnt);
		while (d && (de = readdir(d)))
			if (stale_prefix(de->d_name, &pid) &&
			    strstr(de->d_name, "map_"))
				unlinkat(dirfd(d), de->d_name, 0);
		if (d)
			closedir(d);
	}
	if (f)
		fclose(f);
}
