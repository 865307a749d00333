/* SPDX-License-Identifier: MIT */
/*
 * The worker's main loop: read a request, run it, answer; until the
 * grader closes the pipe. See worker.h and proto.h. It runs in the
 * grader's sandbox: a system call the sandbox refuses stops it here, with
 * a line that says which (the grader shows it).
 */
#include "worker.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *in, *out;

/* A system call the sandbox refuses: say which, then die of it. */
static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	char line[160];
	int n;

	(void)uc;
	n = snprintf(line, sizeof(line),
		     "sandbox: the code under test made system call %d, "
		     "which the grader's sandbox refuses\n",
		     si->si_syscall);
	(void)!write(WK_FD_OUT, line, (size_t)n);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Read exactly len bytes of a request; 0, or -1 at its end. */
static int get(void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(WK_FD_REQ, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* Write one message to the grader; 0, or -1. */
static int put(uint32_t op, const void *data, size_t len)
{
	struct wk_hdr h = { op, (uint32_t)len };
	size_t done = 0;
	ssize_t n;

	if (write(WK_FD_REP, &h, sizeof(h)) != (ssize_t)sizeof(h))
		return -1;
	while (done < len) {
		n = write(WK_FD_REP, (const char *)data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

size_t wk_device(unsigned n, const void *data, size_t len, void *ans,
		 size_t cap)
{
	struct wk_hdr h;
	static char sink[4096];
	size_t left;

	if (put(WK_OP_DEV + n, data, len) || get(&h, sizeof(h)) ||
	    h.op != WK_OP_REPLY)
		_exit(99);
	if (h.len <= cap)
		return get(ans, h.len) ? (_exit(99), 0) : h.len;
	for (left = h.len; left;
	     left -= left < sizeof(sink) ? left : sizeof(sink))
		if (get(sink, left < sizeof(sink) ? left : sizeof(sink)))
			_exit(99);
	return 0;
}

/* WK_OP_MAP: map a memfd the grader shares. */
static long map(const void *data, size_t len, void *ans)
{
	const struct wk_map *m = WK_IN(struct wk_map, data, len);
	struct wk_map r;
	void *p;

	if (!m)
		return -1;
	p = mmap(NULL, m->len, (int)m->prot, MAP_SHARED, (int)m->fd, 0);
	if (p == MAP_FAILED)
		return -1;
	r = *m;
	r.addr = (uint64_t)(uintptr_t)p;
	memcpy(ans, &r, sizeof(r));
	return sizeof(r);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_sigsys,
				.sa_flags = SA_SIGINFO };
	unsigned nops = 0;
	struct wk_hdr h;
	long r;

	sigaction(SIGSYS, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--wait"))
		raise(SIGSTOP); /* the grader said: a debugger attaches */
	while (wk_ops[nops].fn)
		nops++;
	in = malloc(WK_MSG_MAX);
	out = malloc(WK_MSG_MAX);
	if (!in || !out)
		return 99;
	while (!get(&h, sizeof(h))) {
		if (h.len > WK_MSG_MAX || get(in, h.len))
			return 99;
		if (h.op == WK_OP_MAP)
			r = map(in, h.len, out);
		else if (h.op >= WK_OP_FIRST && h.op - WK_OP_FIRST < nops)
			r = wk_ops[h.op - WK_OP_FIRST].fn(in, h.len, out,
							  WK_MSG_MAX);
		else
			r = -1;
		fflush(stdout);
		if (r < 0 ? put(WK_OP_FAULT, NULL, 0)
			  : put(WK_OP_REPLY, out, (size_t)r))
			return 99;
	}
	return 0;
}
