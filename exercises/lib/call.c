/* SPDX-License-Identifier: MIT */
/*
 * Talking to the worker: requests, answers, the device model's calls, the
 * system calls the grader counts, and the end of the worker. See proto.h.
 *
 * Whatever goes wrong on the worker's side (it dies, hangs, answers
 * nonsense) fails the case with what the case was doing (gr_context())
 * and ends it: a later check would only repeat it.
 */
#include "grade.h"
#include "grade_int.h"
#include "sandbox.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The first line of the worker's output that starts with prefix, or "". */
static void output_line(const char *prefix, char *line, size_t cap)
{
	char buf[8192];
	ssize_t n = pread(sb_w.out, buf, sizeof(buf) - 1, 0);
	char *p, *nl;

	line[0] = '\0';
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (p = buf; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(p, prefix, strlen(prefix))) {
			snprintf(line, cap, "%.*s", (int)cap - 1, p);
			return;
		}
	}
}

/* The worker failed: say how (and what the case was doing); end the case. */
static void worker_failed(const char *how)
{
	char why[160], sandbox[160];
	int status = 0;
	pid_t pid = sb_w.pid;

	if (pid > 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		sb_w.pid = -2; /* reaped */
	}
	output_line("sandbox: ", sandbox, sizeof(sandbox));
	if (sandbox[0])
		snprintf(why, sizeof(why), "%s", sandbox);
	else if (!how && WIFSIGNALED(status))
		snprintf(why, sizeof(why), "the code under test crashed (%s)",
			 strsignal(WTERMSIG(status)));
	else if (!how)
		snprintf(why, sizeof(why),
			 "the code under test ended the worker (exit status "
			 "%d): exit() in the code under test?",
			 WEXITSTATUS(status));
	else
		snprintf(why, sizeof(why), "%s", how);
	gr_fail_at(__FILE__, __LINE__, "%s", why);
	gr_end_case(GR_FAIL);
}

/* Count and let through the system calls waiting at the listener. */
static void serve_counted(void)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	unsigned i;

	memset(&req, 0, sizeof(req));
	if (ioctl(sb_w.listener, SECCOMP_IOCTL_NOTIF_RECV, &req))
		return; /* the worker is gone, or the call was interrupted */
	for (i = 0; i < sb_w.ncount; i++)
		if (sb_w.count[i].nr == req.data.nr &&
		    (sb_w.count[i].fd < 0 ||
		     (int)req.data.args[0] == sb_w.count[i].fd)) {
			sb_w.counted[i]++;
			break;
		}
	resp = (struct seccomp_notif_resp){
		.id = req.id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE
	};
	ioctl(sb_w.listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* Wait until the worker's answers are readable (counting meanwhile). */
static void wait_answer(void)
{
	struct pollfd p[2] = { { sb_w.rep, POLLIN, 0 },
			       { sb_w.listener, POLLIN, 0 } };
	long left;
	int n;

	for (;;) {
		left = (long)(gr_run.deadline - time(NULL));
		if (left <= 0)
			worker_failed("the code under test did not answer in "
				      "time (GR_TIMEOUT)");
		n = poll(p, sb_w.listener >= 0 ? 2 : 1,
			 (int)(left < 5 ? left * 1000 : 5000));
		if (n < 0 && errno != EINTR)
			worker_failed("harness: poll");
		if (n > 0 && (p[1].revents & POLLIN))
			serve_counted();
		if (n > 0 && p[0].revents)
			return;
	}
}

/* Read exactly len bytes of the worker's answers (to buf, or dropped). */
static void read_answer(void *buf, size_t len)
{
	char sink[4096];
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		wait_answer();
		n = read(sb_w.rep, buf ? (char *)buf + got : sink,
			 buf ? len - got
			     : (len - got < sizeof(sink) ? len - got
							 : sizeof(sink)));
		if (n == 0)
			worker_failed(NULL);
		if (n < 0 && errno != EINTR)
			worker_failed("harness: read");
		got += n > 0 ? (size_t)n : 0;
	}
}

/* Write one message to the worker. */
static void send_msg(uint32_t op, const void *data, size_t len)
{
	struct wk_hdr h = { op, (uint32_t)len };
	struct iovec v[2] = { { &h, sizeof(h) }, { (void *)data, len } };
	size_t done = 0, total = sizeof(h) + len;
	ssize_t n;

	while (done < total) {
		n = writev(sb_w.req, v, 2);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			worker_failed(NULL);
		done += (size_t)n;
		while (n > 0) {
			size_t k = (size_t)n < v[0].iov_len ? (size_t)n
							    : v[0].iov_len;
			v[0].iov_base = (char *)v[0].iov_base + k;
			v[0].iov_len -= k;
			n -= (ssize_t)k;
			if (!v[0].iov_len) {
				v[0] = v[1];
				v[1].iov_len = 0;
			}
		}
	}
}

/* Answer one call of the worker to the device model (len bytes follow). */
static void serve_device(unsigned n, size_t len)
{
	static char in[1 << 16], out[1 << 16];
	long r;

	if (!sb_w.dev || len > sizeof(in))
		worker_failed("the worker called a device model this exercise "
			      "does not have");
	read_answer(in, len);
	r = sb_w.dev(n, in, len, out, sizeof(out));
	if (r < 0)
		worker_failed("the code under test passed the device model "
			      "something it cannot take (a pointer of its "
			      "own?)");
	send_msg(WK_OP_REPLY, out, (size_t)r);
}

size_t gr_call(unsigned op, const void *in, size_t inlen, void *out, size_t cap)
{
	struct wk_hdr h;

	if (sb_w.pid == -1)
		sb_start();
	if (sb_w.pid < 0)
		worker_failed("the worker is gone");
	if (inlen > WK_MSG_MAX)
		gr_setup_failed("request %u: %zu bytes", op, inlen);
	send_msg(op, in, inlen);
	for (;;) {
		read_answer(&h, sizeof(h));
		if (h.op >= WK_OP_DEV && h.op < WK_OP_FAULT) {
			serve_device(h.op - WK_OP_DEV, h.len);
			continue;
		}
		if (h.op != WK_OP_REPLY || h.len > cap || h.len > WK_MSG_MAX) {
			read_answer(NULL, h.len < WK_MSG_MAX ? h.len : 0);
			worker_failed(h.op == WK_OP_FAULT
					      ? "the worker refused a request "
						"(a bug of the grader)"
					      : "the worker answered more than "
						"was asked for");
		}
		read_answer(out, h.len);
		return h.len;
	}
}

void gr_call_exact(unsigned op, const void *in, size_t inlen, void *out,
		   size_t len)
{
	if (gr_call(op, in, inlen, out, len) != len)
		worker_failed("the worker answered less than was asked for");
}

int gr_give_fd(int fd)
{
	if (sb_w.pid != -1 || sb_w.ngiven >= SB_MAX_GIVEN)
		gr_setup_failed("a descriptor for a worker already started");
	sb_w.given[sb_w.ngiven] = fd;
	return WK_FD_GIVEN + (int)sb_w.ngiven++;
}

void *gr_share(size_t len)
{
	int fd = memfd_create("pathlab-shared", MFD_CLOEXEC);
	void *p;

	if (fd < 0 || ftruncate(fd, (off_t)len) || sb_w.nshare >= SB_MAX_SHARE)
		gr_setup_failed("shared memory: %s", strerror(errno));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		gr_setup_failed("shared memory: %s", strerror(errno));
	sb_w.share[sb_w.nshare].p = p;
	sb_w.share[sb_w.nshare].len = len;
	sb_w.share[sb_w.nshare].gfd = fd;
	sb_w.share[sb_w.nshare].fd = gr_give_fd(fd);
	sb_w.nshare++;
	return p;
}

void sb_map_shares(void)
{
	struct wk_map m;
	unsigned i;

	for (i = 0; i < sb_w.nshare; i++) {
		m = (struct wk_map){ .fd = (uint32_t)sb_w.share[i].fd,
				     .prot = PROT_READ | PROT_WRITE,
				     .len = sb_w.share[i].len };
		gr_call_exact(WK_OP_MAP, &m, sizeof(m), &m, sizeof(m));
		sb_w.share[i].waddr = m.addr;
	}
}

uint64_t gr_waddr(const void *p)
{
	const char *c = p;
	unsigned i;

	if (sb_w.pid == -1)
		sb_start();
	for (i = 0; i < sb_w.nshare; i++) {
		const char *base = sb_w.share[i].p;

		if (c >= base && c <= base + sb_w.share[i].len)
			return sb_w.share[i].waddr + (uint64_t)(c - base);
	}
	gr_setup_failed("gr_waddr() of memory that is not shared");
}

int gr_wfd(const void *p)
{
	const char *c = p;
	unsigned i;

	for (i = 0; i < sb_w.nshare; i++) {
		const char *base = sb_w.share[i].p;

		if (c >= base && c <= base + sb_w.share[i].len)
			return sb_w.share[i].fd;
	}
	gr_setup_failed("gr_wfd() of memory that is not shared");
}

void gr_device(gr_device_fn fn)
{
	sb_w.dev = fn;
}

uint64_t gr_syscalls(int nr)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < sb_w.ncount; i++)
		if (sb_w.count[i].nr == nr)
			n += sb_w.counted[i];
	return n;
}

/* Relay what the worker printed (its first 200 lines), behind "worker: ". */
static void relay(void)
{
	static char buf[1 << 16];
	ssize_t n = pread(sb_w.out, buf, sizeof(buf) - 1, 0);
	unsigned lines = 0;
	char *p, *nl;

	if (n <= 0)
		return;
	buf[n] = '\0';
	for (p = buf; p && *p && lines < 200; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		fprintf(stderr, "worker: %.300s\n", p);
		lines++;
	}
}

void gr_worker_stop(void)
{
	unsigned i;

	if (sb_w.pid > 0) {
		kill(sb_w.pid, SIGKILL);
		while (waitpid(sb_w.pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (sb_w.out >= 0)
		relay();
	for (i = 0; i < sb_w.nshare; i++) {
		munmap(sb_w.share[i].p, sb_w.share[i].len);
		close(sb_w.share[i].gfd);
	}
	if (sb_w.req >= 0)
		close(sb_w.req);
	if (sb_w.rep >= 0)
		close(sb_w.rep);
	if (sb_w.out >= 0)
		close(sb_w.out);
	if (sb_w.listener >= 0)
		close(sb_w.listener);
	sb_w = (struct sb_worker){
		.pid = -1, .req = -1, .rep = -1, .out = -1, .listener = -1
	};
}
