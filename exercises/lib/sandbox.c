/* SPDX-License-Identifier: MIT */
/*
 * The worker: started by a case, sandboxed, talked to in data. See
 * grade.h for what it may do and proto.h for what the two say.
 *
 * The worker's process is prepared between fork and exec, in this order:
 * its descriptors (its pipes, its output file, what the case hands it;
 * everything else closed), its own mount namespace in which tmpfs hides
 * the lab's source and build trees (and its own network namespace), its
 * limits, its user (nobody, when the grader is root), no new privileges,
 * the seccomp filter; then the worker program runs, from a sealed copy in
 * memory that it cannot execute again.
 */
#include "grade.h"
#include "grade_int.h"
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXEC_FD 1000 /* the worker's program, until it runs */

static struct gr_sandbox cfg;
static struct gr_count counts[SB_MAX_COUNT];
struct sb_worker sb_w = {
	.pid = -1, .req = -1, .rep = -1, .out = -1, .listener = -1
};

void gr_sandbox(const struct gr_sandbox *sb)
{
	cfg = *sb;
	cfg.ncount = sb->ncount < SB_MAX_COUNT ? sb->ncount : SB_MAX_COUNT;
	memcpy(counts, sb->count, cfg.ncount * sizeof(counts[0]));
	cfg.count = counts;
}

/* Say why the worker could not be prepared, and end it. */
static void child_fail(const char *what)
{
	dprintf(WK_FD_OUT, "sandbox: %s: %s\n", what, strerror(errno));
	_exit(127);
}

/* Write a line to a file of /proc (a user namespace's maps). */
static int put(const char *path, const char *fmt, unsigned a, unsigned b)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), n;

	if (fd < 0)
		return -1;
	n = dprintf(fd, fmt, a, b);
	close(fd);
	return n < 0 ? -1 : 0;
}

/* Its own mount (and network) namespace, the lab's trees hidden. */
static void child_hide(void)
{
	static const char *const hide[] = { PL_SOURCE_ROOT, PL_BUILD_ROOT };
	int ns = CLONE_NEWNS | (cfg.flags & GR_SB_HOST_NET ? 0 : CLONE_NEWNET);
	uid_t uid = getuid();
	gid_t gid = getgid();
	unsigned i;

	if (uid != 0) {
		/* A user namespace lets a user do the same, where allowed. */
		if (unshare(CLONE_NEWUSER | ns) ||
		    put("/proc/self/setgroups", "deny", 0, 0) ||
		    put("/proc/self/uid_map", "%u %u 1", uid, uid) ||
		    put("/proc/self/gid_map", "%u %u 1", gid, gid)) {
			dprintf(WK_FD_OUT,
				"note: no namespace of its own here (%s): the "
				"worker sees your files (read-only)\n",
				strerror(errno));
			return;
		}
	} else if (unshare(ns)) {
		child_fail("unshare");
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		child_fail("mount --make-rprivate /");
	for (i = 0; i < sizeof(hide) / sizeof(hide[0]); i++)
		if (mount("tmpfs", hide[i], "tmpfs",
			  MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  "size=4k,mode=0555") &&
		    errno != ENOENT)
			child_fail(hide[i]);
	/* A /tmp of its own: what a runtime leaves there goes with it. */
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=16m,mode=1777"))
		child_fail("/tmp");
}

/* The worker's limits. */
static void child_limits(void)
{
	unsigned mem = cfg.mem_mib ? cfg.mem_mib : 1024;
	struct rlimit nofile = { cfg.nofile ? cfg.nofile : 64,
				 cfg.nofile ? cfg.nofile : 64 };
	struct rlimit out = { 1 << 20, 1 << 20 }, none = { 0, 0 };
	struct rlimit cpu = { gr_run.timeout + 2, gr_run.timeout + 2 };
	struct rlimit as = { (rlim_t)mem << 20, (rlim_t)mem << 20 };

	if (setrlimit(RLIMIT_NOFILE, &nofile) ||
	    setrlimit(RLIMIT_FSIZE, &out) || setrlimit(RLIMIT_CORE, &none) ||
	    setrlimit(RLIMIT_CPU, &cpu) ||
	    (mem != ~0u && setrlimit(RLIMIT_AS, &as)))
		child_fail("setrlimit");
	signal(SIGXFSZ, SIG_IGN); /* a full output file: EFBIG, no kill */
}

/* Become nobody (when root): no group, no way back. */
static void child_user(uid_t uid, gid_t gid)
{
	if (getuid() != 0)
		return;
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid))
		child_fail("become nobody");
}

/* The worker's process, from fork to exec. */
static void child(int exe, int req, int rep, int out, int sock, uid_t uid,
		  gid_t gid)
{
	char *const argv[] = { "pathlab-worker",
			       gr_run.wait_debugger ? "--wait" : NULL, NULL };
	char *const envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/",
			       "TMPDIR=/tmp", NULL };
	int hi[4 + SB_MAX_GIVEN], listener = -1;
	unsigned i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	setpgid(0, 0);
	/* Out of the way first, so that no number is taken twice. */
	hi[0] = fcntl(req, F_DUPFD_CLOEXEC, 100);
	hi[1] = fcntl(out, F_DUPFD_CLOEXEC, 100);
	hi[2] = fcntl(rep, F_DUPFD_CLOEXEC, 100);
	for (i = 0; i < sb_w.ngiven; i++)
		hi[4 + i] = fcntl(sb_w.given[i], F_DUPFD_CLOEXEC, 100);
	if (dup3(exe, EXEC_FD, O_CLOEXEC) < 0 || dup2(hi[0], WK_FD_REQ) < 0 ||
	    dup2(hi[1], WK_FD_OUT) < 0 || dup2(hi[1], 2) < 0 ||
	    dup2(hi[2], WK_FD_REP) < 0)
		_exit(127);
	for (i = 0; i < sb_w.ngiven; i++)
		if (dup2(hi[4 + i], WK_FD_GIVEN + (int)i) < 0)
			child_fail("dup2");
	if (sock >= 0 && dup3(sock, 900, O_CLOEXEC) < 0)
		child_fail("dup3");
	syscall(SYS_close_range, WK_FD_GIVEN + sb_w.ngiven, 899, 0);
	syscall(SYS_close_range, 901, EXEC_FD - 1, 0);
	syscall(SYS_close_range, EXEC_FD + 1, ~0u, 0);
	if (chdir("/"))
		child_fail("chdir /");
	child_hide();
	child_limits();
	child_user(uid, gid);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		child_fail("no_new_privs");
	if (sb_seccomp(cfg.flags, cfg.count, cfg.ncount, getpid(), EXEC_FD,
		       &listener))
		child_fail("seccomp");
	if (listener >= 0) {
		/* The grader counts through this; we must not keep it. */
		char c = 0;
		struct iovec iov = { &c, 1 };
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(int))];
		} u = { 0 };
		struct msghdr m = { .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = u.b,
				    .msg_controllen = sizeof(u.b) };
		struct cmsghdr *h = CMSG_FIRSTHDR(&m);

		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &listener, sizeof(int));
		if (sendmsg(900, &m, 0) != 1)
			child_fail("hand over the listener");
		close(listener);
	}
	close(900);
	syscall(SYS_execveat, EXEC_FD, "", argv, envp, AT_EMPTY_PATH);
	child_fail("exec the worker");
}

/* A copy of the worker's program in memory, sealed: its descriptor. */
static int worker_image(void)
{
	struct stat st;
	int src, fd;
	off_t off = 0;

	if (!gr_run.worker)
		gr_setup_failed("no worker (--worker PATH)");
	src = open(gr_run.worker, O_RDONLY | O_CLOEXEC);
	fd = memfd_create("pathlab-worker", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (src < 0 || fd < 0 || fstat(src, &st))
		gr_setup_failed("the worker %s: %s", gr_run.worker,
				strerror(errno));
	while (off < st.st_size)
		if (sendfile(fd, src, &off, (size_t)(st.st_size - off)) <= 0)
			gr_setup_failed("copy %s: %s", gr_run.worker,
					strerror(errno));
	close(src);
	fchmod(fd, 0555);
	fcntl(fd, F_ADD_SEALS,
	      F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	return fd;
}

/* Take the listener the worker's process hands over on sock. */
static int take_listener(int sock)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	char c;
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.b,
			    .msg_controllen = sizeof(u.b) };
	struct cmsghdr *h;
	int fd = -1;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	h = CMSG_FIRSTHDR(&m);
	if (h && h->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(h), sizeof(int));
	return fd;
}

/* Start this case's worker. */
void sb_start(void)
{
	struct passwd *pw = getpwnam("nobody");
	uid_t uid = pw ? pw->pw_uid : 65534;
	gid_t gid = pw ? pw->pw_gid : 65534;
	int exe = worker_image(), req[2], rep[2], sp[2] = { -1, -1 };

	sb_w.out = memfd_create("pathlab-worker-out", MFD_CLOEXEC);
	if (sb_w.out < 0 || pipe2(req, O_CLOEXEC) || pipe2(rep, O_CLOEXEC) ||
	    (cfg.ncount &&
	     socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sp)))
		gr_setup_failed("the worker's pipes: %s", strerror(errno));
	fflush(stdout);
	fflush(stderr);
	sb_w.pid = fork();
	if (sb_w.pid < 0)
		gr_setup_failed("fork: %s", strerror(errno));
	if (sb_w.pid == 0)
		child(exe, req[0], rep[1], sb_w.out, sp[1], uid, gid);
	close(exe);
	close(req[0]);
	close(rep[1]);
	sb_w.req = req[1];
	sb_w.rep = rep[0];
	signal(SIGPIPE, SIG_IGN);
	sb_w.ncount = cfg.ncount;
	memcpy(sb_w.count, counts, sizeof(counts));
	if (cfg.ncount) {
		close(sp[1]);
		sb_w.listener = take_listener(sp[0]);
		close(sp[0]);
	}
	if (gr_run.wait_debugger)
		fprintf(stderr,
			"the worker is pid %d, stopped: attach a debugger "
			"(gdb -p %d) and continue it\n",
			(int)sb_w.pid, (int)sb_w.pid);
	sb_map_shares();
}
