/* SPDX-License-Identifier: MIT */
/* Live traffic for the graders: a lab of the case's own (lab.h). */
#include "grade.h"
#include "lab.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define GEN PL_BUILD_ROOT "/common/pathlab-gen"

static int peer_ns = -1; /* the sending side's namespace, held open */

/* Run a shell command here (fd -1) or in namespace fd; its exit status. */
static int run_in(int fd, const char *fmt, ...)
{
	char cmd[512];
	int status;
	va_list ap;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (fd >= 0 && setns(fd, CLONE_NEWNET))
			_exit(126);
		setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A namespace for the peer, held by an open descriptor; -1 on failure. */
static int new_peer_ns(void)
{
	int go[2], fd = -1;
	char c = 0, path[64];
	pid_t pid;

	if (pipe(go))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (unshare(CLONE_NEWNET))
			_exit(1);
		/* Wait until the grader holds the namespace and moved plx1. */
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	if (pid < 0)
		return -1;
	/* Its namespace is its own once /proc says another than ours. */
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	for (int i = 0; i < 1000 && fd < 0; i++) {
		int f = open(path, O_RDONLY | O_CLOEXEC);
		struct stat a, b;

		if (f >= 0 && !fstat(f, &a) && !stat("/proc/self/ns/net", &b) &&
		    a.st_ino != b.st_ino)
			fd = f;
		else if (f >= 0)
			close(f);
		if (fd < 0)
			usleep(1000);
	}
	if (fd >= 0 &&
	    run_in(-1, "ip link set %s netns %d", GR_LAB_TX_IF, (int)pid))
		close(fd), fd = -1;
	(void)!write(go[1], &c, 1);
	close(go[1]);
	waitpid(pid, NULL, 0);
	return fd;
}

/* The MAC address of interface name here, as "aa:bb:...". */
static void mac_of(const char *name, char *mac, size_t cap)
{
	struct ifreq ifr = { 0 };
	const unsigned char *a = (const unsigned char *)ifr.ifr_hwaddr.sa_data;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr))
		gr_setup_failed("the address of %s", name);
	close(fd);
	snprintf(mac, cap, "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2],
		 a[3], a[4], a[5]);
}

int gr_lab_up(unsigned queues)
{
	char mac[32];

	if (geteuid() != 0)
		return gr_skip("needs root for the lab (network namespaces, "
			       "veth, XDP): grade as root");
	if (unshare(CLONE_NEWNET))
		return gr_skip("no network namespace: %s", strerror(errno));
	if (run_in(-1,
		   "ip link set lo up && ip link add %s numrxqueues %u "
		   "numtxqueues %u type veth peer name %s numrxqueues %u "
		   "numtxqueues %u",
		   GR_LAB_RX_IF, queues, queues, GR_LAB_TX_IF, queues, queues))
		return gr_skip("no veth pair here");
	peer_ns = new_peer_ns();
	if (peer_ns < 0)
		gr_setup_failed("the sending side's namespace");
	if (run_in(-1,
		   "{ echo 1 >/proc/sys/net/ipv6/conf/%s/disable_ipv6; } "
		   "2>/dev/null; "
		   "ip addr add %s/24 dev %s && ip link set %s up",
		   GR_LAB_RX_IF, GR_LAB_RX_ADDR, GR_LAB_RX_IF, GR_LAB_RX_IF))
		gr_setup_failed("the receiving side");
	mac_of(GR_LAB_RX_IF, mac, sizeof(mac));
	if (run_in(peer_ns,
		   "ip link set lo up && "
		   "{ echo 1 >/proc/sys/net/ipv6/conf/%s/disable_ipv6; } "
		   "2>/dev/null; "
		   "ip addr add %s/24 dev %s && ip link set %s up && "
		   "ip neigh replace %s lladdr %s dev %s nud permanent",
		   GR_LAB_TX_IF, GR_LAB_TX_ADDR, GR_LAB_TX_IF, GR_LAB_TX_IF,
		   GR_LAB_RX_ADDR, mac, GR_LAB_TX_IF))
		gr_setup_failed("the sending side");
	return GR_PASS;
}

int gr_lab_ifindex(void)
{
	return (int)if_nametoindex(GR_LAB_RX_IF);
}

/* The number after "key": in JSON text (0 when absent). */
static uint64_t json_u64(const char *text, const char *key)
{
	char pat[80];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(text, pat);
	return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

void gr_lab_gen_start(struct gr_gen_run *run, const char *opts)
{
	char *argv[40], *copy = strdup(opts), *w, *save = NULL;
	int p[2], argc = 0;

	argv[argc++] = "pathlab-gen";
	argv[argc++] = "--dst";
	argv[argc++] = GR_LAB_RX_ADDR;
	argv[argc++] = "--quiet";
	argv[argc++] = "--json";
	argv[argc++] = "-";
	for (w = strtok_r(copy, " ", &save); w && argc < 38;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	if (!copy || pipe2(p, O_CLOEXEC))
		gr_setup_failed("pathlab-gen: %s", strerror(errno));
	snprintf(run->opts, sizeof(run->opts), "%s", opts);
	fflush(NULL);
	run->pid = fork();
	if (run->pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		if (setns(peer_ns, CLONE_NEWNET))
			_exit(126);
		execv(GEN, argv);
		_exit(127);
	}
	free(copy);
	close(p[1]);
	run->fd = p[0];
	if (run->pid < 0)
		gr_setup_failed("pathlab-gen: %s", strerror(errno));
}

void gr_lab_gen_wait(struct gr_gen_run *run, struct gr_gen *g)
{
	static char out[1 << 16];
	const char *bad;
	size_t got = 0;
	int status, r;

	while (got < sizeof(out) - 1 &&
	       (r = (int)read(run->fd, out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(run->fd);
	if (waitpid(run->pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		gr_setup_failed("pathlab-gen %s did not run (%s)", run->opts,
				GEN);
	memset(g, 0, sizeof(*g));
	g->sent = json_u64(out, "sent");
	g->bad_sent = json_u64(out, "bad_sent");
	g->end_sent = json_u64(out, "end_markers_sent");
	g->send_errors = json_u64(out, "send_errors");
	g->link_dropped = json_u64(out, "tx_link_dropped");
	bad = strstr(out, "\"bad_sent_by_reason\"");
	for (r = PL_BAD_ETH_TRUNC; bad && r < PL_REASON_MAX; r++)
		g->bad[r] = json_u64(bad, pl_reason_name((enum pl_reason)r));
}

void gr_lab_gen(struct gr_gen *g, const char *opts)
{
	struct gr_gen_run run;

	gr_lab_gen_start(&run, opts);
	gr_lab_gen_wait(&run, g);
}

uint64_t gr_lab_rx_frames(void)
{
	char line[512], name[32];
	unsigned long long rx = 0, v;
	FILE *f = fopen("/proc/net/dev", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, " %31[^:]: %*u %llu", name, &v) == 2 &&
		    !strcmp(name, GR_LAB_RX_IF))
			rx = v;
	if (f)
		fclose(f);
	return rx;
}

uint64_t gr_lab_udp(const char *field)
{
	char head[1024], vals[1024], *h, *v, *hs = NULL, *vs = NULL;
	FILE *f = fopen("/proc/net/snmp", "r");
	uint64_t n = 0;

	while (f && fgets(head, sizeof(head), f)) {
		if (strncmp(head, "Udp:", 4) || !fgets(vals, sizeof(vals), f))
			continue;
		for (h = strtok_r(head, " \n", &hs),
		    v = strtok_r(vals, " \n", &vs);
		     h && v; h = strtok_r(NULL, " \n", &hs),
		    v = strtok_r(NULL, " \n", &vs))
			if (!strcmp(h, field))
				n = strtoull(v, NULL, 10);
		break;
	}
	if (f)
		fclose(f);
	return n;
}
