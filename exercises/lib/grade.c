/* SPDX-License-Identifier: MIT */
/*
 * The points framework of the graded tests: one child process per case,
 * its output kept apart, one GRADE line per case. See grade.h.
 *
 * The verdict of a case is a record the case's child writes on a pipe of
 * the grader's own once the case function has returned, never the child's
 * exit status: code under test that calls exit(0) ends the child before
 * the record is written, and the case fails.
 */
#include "grade.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MSG_LEN 240

/* What a case's child writes on the verdict pipe when the case returns. */
struct verdict_rec {
	unsigned magic;
	int verdict;
};
#define VERDICT_MAGIC 0x67726164u /* "grad" */

unsigned gr_failures;
static char context[256];
static int verdict_fd = -1; /* the child's end of the verdict pipe */

/* Send the case's verdict to the grader (in the child). */
static void send_verdict(int verdict)
{
	struct verdict_rec rec = { VERDICT_MAGIC, verdict };

	if (verdict_fd >= 0)
		(void)!write(verdict_fd, &rec, sizeof(rec));
}

void gr_reference_called(const char *name)
{
	fprintf(stderr,
		"the code under test called the reference %s(): the "
		"exercise is to write it yourself\n",
		name);
	fflush(stderr);
	send_verdict(GR_FAIL);
	_exit(GR_FAIL);
}

void gr_context(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(context, sizeof(context), fmt, ap);
	va_end(ap);
}

/* A case crashed: say where it was (gr_context), then die of the signal. */
static void on_crash(int sig)
{
	static const char pre[] = "crashed while: ";

	if (context[0]) {
		(void)!write(STDERR_FILENO, pre, sizeof(pre) - 1);
		(void)!write(STDERR_FILENO, context,
			     strnlen(context, sizeof(context)));
		(void)!write(STDERR_FILENO, "\n", 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void gr_fail_at(const char *file, int line, const char *fmt, ...)
{
	const char *base = strrchr(file, '/');
	va_list ap;

	gr_failures++;
	fprintf(stderr, "%s:%d: ", base ? base + 1 : file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int gr_skip(const char *fmt, ...)
{
	va_list ap;

	fputs("SKIP: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return GR_SKIP;
}

/* Seconds a case may take: GR_TIMEOUT, else 30. */
static unsigned case_timeout(void)
{
	const char *s = getenv("GR_TIMEOUT");
	long v = s ? strtol(s, NULL, 10) : 0;

	return v > 0 && v < 86400 ? (unsigned)v : 30;
}

/*
 * Copy what a case wrote (fd at offset 0) to stderr, each line prefixed
 * with the case's name, and keep the lines that explain its verdict: the
 * first failed check or the skip reason in msg, where it crashed in crash.
 */
static void relay_output(int fd, const char *name, int verdict, char *msg,
			 char *crash)
{
	static const char pre[] = "crashed while: ";
	char line[1024];
	FILE *f;

	msg[0] = crash[0] = '\0';
	lseek(fd, 0, SEEK_SET);
	f = fdopen(dup(fd), "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		fprintf(stderr, "  [%s] %s\n", name, line);
		if (!strncmp(line, pre, sizeof(pre) - 1))
			snprintf(crash, MSG_LEN, "%.*s", MSG_LEN - 1,
				 line + sizeof(pre) - 1);
		else if (msg[0])
			continue;
		else if (verdict == GR_SKIP && !strncmp(line, "SKIP: ", 6))
			snprintf(msg, MSG_LEN, "%.*s", MSG_LEN - 1, line + 6);
		else if (verdict == GR_FAIL && strncmp(line, "SKIP: ", 6))
			snprintf(msg, MSG_LEN, "%.*s", MSG_LEN - 1, line);
	}
	fclose(f);
}

/* Run one case in a child; its verdict, and why in msg. */
static int run_forked(const struct gr_case *c, char *msg)
{
	unsigned timeout = case_timeout();
	char crash[MSG_LEN];
	int fd, status, verdict, pfd[2];
	struct verdict_rec rec;
	ssize_t got;
	pid_t pid;

	fd = memfd_create("grade-case", MFD_CLOEXEC);
	if (fd < 0) {
		snprintf(msg, MSG_LEN, "harness: memfd_create: %s",
			 strerror(errno));
		return GR_FAIL;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(msg, MSG_LEN, "harness: pipe: %s", strerror(errno));
		close(fd);
		return GR_FAIL;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		snprintf(msg, MSG_LEN, "harness: fork: %s", strerror(errno));
		close(fd);
		close(pfd[0]);
		close(pfd[1]);
		return GR_FAIL;
	}
	if (pid == 0) {
		close(pfd[0]);
		verdict_fd = pfd[1];
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		setvbuf(stderr, NULL, _IONBF, 0);
		signal(SIGSEGV, on_crash);
		signal(SIGBUS, on_crash);
		signal(SIGFPE, on_crash);
		signal(SIGABRT, on_crash);
		alarm(timeout);
		status = c->run();
		fflush(stdout);
		send_verdict(status == GR_PASS || status == GR_SKIP ? status
								    : GR_FAIL);
		_exit(0);
	}
	close(pfd[1]);
	/* The record, or end of file when the child is gone without one. */
	do
		got = read(pfd[0], &rec, sizeof(rec));
	while (got < 0 && errno == EINTR);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got == (ssize_t)sizeof(rec) && rec.magic == VERDICT_MAGIC &&
	    (rec.verdict == GR_PASS || rec.verdict == GR_SKIP))
		verdict = rec.verdict;
	else
		verdict = GR_FAIL;
	relay_output(fd, c->name, verdict, msg, crash);
	close(fd);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		snprintf(msg, MSG_LEN, "timed out after %u s (GR_TIMEOUT)",
			 timeout);
	else if (WIFSIGNALED(status))
		snprintf(msg, MSG_LEN, "%s%s%.*s", strsignal(WTERMSIG(status)),
			 crash[0] ? " while: " : "", MSG_LEN / 2, crash);
	else if (got != (ssize_t)sizeof(rec))
		snprintf(msg, MSG_LEN,
			 "the case ended (exit status %d) before it returned "
			 "its verdict: exit() in the code under test?",
			 WEXITSTATUS(status));
	else if (verdict == GR_FAIL && !msg[0])
		snprintf(msg, MSG_LEN, "failed without a message");
	return verdict;
}

/* Print the usage of a test program. */
static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--list | --only CASE | --no-fork]\n", prog);
}

int gr_main(int argc, char **argv, const char *exercise,
	    const struct gr_case *cases)
{
	static const char *const names[] = {
		[GR_PASS] = "PASS", [GR_FAIL] = "FAIL", [GR_SKIP] = "SKIP"
	};
	const char *only = NULL;
	bool list = false, fork_cases = true;
	unsigned run = 0, failed = 0, skipped = 0;
	const struct gr_case *c;
	char msg[MSG_LEN];
	int i, v;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list")) {
			list = true;
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--no-fork")) {
			fork_cases = false;
		} else {
			usage(argv[0]);
			return 2;
		}
	}
	for (c = cases; c->name; c++) {
		if (list) {
			printf("CASE %u %s/%s %s\n", c->points, exercise,
			       c->name, c->what);
			continue;
		}
		if (only && strcmp(only, c->name))
			continue;
		if (fork_cases) {
			v = run_forked(c, msg);
		} else {
			gr_failures = 0;
			v = c->run();
			v = v == GR_PASS || v == GR_SKIP ? v : GR_FAIL;
			msg[0] = '\0';
		}
		printf("GRADE %s %u %s/%s%s%s\n", names[v], c->points, exercise,
		       c->name, msg[0] ? " " : "", msg);
		fflush(stdout);
		run++;
		failed += v == GR_FAIL;
		skipped += v == GR_SKIP;
	}
	if (list)
		return 0;
	if (!run) {
		fprintf(stderr, "%s: no case named '%s'\n", exercise,
			only ? only : "");
		return 2;
	}
	return failed ? GR_FAIL : skipped == run ? GR_SKIP : GR_PASS;
}
