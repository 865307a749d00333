/* SPDX-License-Identifier: MIT */
/*
 * The grader's side of the C exercises: the cases, one process each, the
 * run's seed, one GRADE line per case. See grade.h; the worker and its
 * sandbox are sandbox.c's.
 *
 * A case runs in a child of the grader; it starts the worker when it
 * first needs it, and tells the grader its verdict on a pipe only the two
 * of them hold, with the first failed check. The worker never sees that
 * pipe: nothing it does can write a verdict.
 */
#include "grade.h"
#include "grade_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What a case's process tells the grader when the case is over. */
struct verdict_rec {
	unsigned magic;
	int verdict;
	char msg[GR_MSG_LEN];
};
#define VERDICT_MAGIC 0x67726164u /* "grad" */

unsigned gr_failures;
struct gr_run gr_run = { .timeout = 30 };
static char first_msg[GR_MSG_LEN];
static int verdict_fd = -1; /* the case process's end of the verdict pipe */
static uint64_t rng;

void gr_context(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(gr_run.context, sizeof(gr_run.context), fmt, ap);
	va_end(ap);
}

void gr_fail_at(const char *file, int line, const char *fmt, ...)
{
	const char *base = strrchr(file, '/');
	char msg[GR_MSG_LEN];
	va_list ap;
	int n;

	gr_failures++;
	n = snprintf(msg, sizeof(msg), "%s:%d: ", base ? base + 1 : file, line);
	va_start(ap, fmt);
	n += vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	if (gr_run.context[0] && n > 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - (size_t)n, " (while: %.*s)",
			 (int)(sizeof(msg) - (size_t)n), gr_run.context);
	fprintf(stderr, "%s\n", msg);
	if (!first_msg[0])
		snprintf(first_msg, sizeof(first_msg), "%s", msg);
}

int gr_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(first_msg, sizeof(first_msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "SKIP: %s\n", first_msg);
	return GR_SKIP;
}

void gr_setup_failed(const char *fmt, ...)
{
	char msg[GR_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gr_fail_at(__FILE__, __LINE__, "test setup: %s", msg);
	gr_end_case(GR_FAIL);
}

const char *gr_take_option(int *argc, char **argv, const char *name)
{
	const char *v;
	int i;

	for (i = 1; i + 1 < *argc; i++)
		if (!strcmp(argv[i], name)) {
			v = argv[i + 1];
			memmove(&argv[i], &argv[i + 2],
				(size_t)(*argc - i - 1) * sizeof(argv[0]));
			*argc -= 2;
			return v;
		}
	return NULL;
}

const char *gr_answer(const char *file, const char *key)
{
	static char out[128];
	char line[512], *p, *v;
	size_t n = 0, klen = strlen(key);
	FILE *f = file ? fopen(file, "r") : NULL;

	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " \t");
		if (strncmp(p, key, klen) || !strchr(" \t=", p[klen]))
			continue;
		v = strchr(p, '=');
		if (!v)
			continue;
		for (v++; *v && *v != '#' && *v != '\n' && n + 1 < sizeof(out);
		     v++)
			if (!strchr(" \t,_", *v))
				out[n++] = (char)tolower((unsigned char)*v);
		out[n] = '\0';
		break;
	}
	if (f)
		fclose(f);
	return out;
}

/* splitmix64: the case's random stream. */
uint64_t gr_rand(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Seed the case's stream from the run's seed and the case's name. */
static void seed_case(const char *name)
{
	uint64_t h = 1469598103934665603ull;

	while (*name)
		h = (h ^ (unsigned char)*name++) * 1099511628211ull;
	rng = gr_run.seed ^ h;
}

void gr_end_case(int verdict)
{
	struct verdict_rec rec = { .magic = VERDICT_MAGIC, .verdict = verdict };

	gr_worker_stop();
	if (verdict == GR_FAIL && !first_msg[0])
		snprintf(first_msg, sizeof(first_msg),
			 "failed without a message");
	memcpy(rec.msg, first_msg, sizeof(rec.msg));
	fflush(stdout);
	fflush(stderr);
	if (verdict_fd >= 0) {
		(void)!write(verdict_fd, &rec, sizeof(rec));
		_exit(0);
	}
	if (gr_run.no_fork_jmp)
		longjmp(*gr_run.no_fork_jmp, 100 + verdict);
	_exit(verdict);
}

/* Copy what a case wrote (fd at offset 0) to stderr, behind its name. */
static void relay_output(int fd, const char *name)
{
	char line[1024];
	FILE *f;

	lseek(fd, 0, SEEK_SET);
	f = fdopen(dup(fd), "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		fprintf(stderr, "  [%s] %s\n", name, line);
	}
	fclose(f);
}

/* The case's process: run it, then tell the grader. */
static void case_child(const struct gr_case *c, int out_fd, int vfd)
{
	int v;

	verdict_fd = vfd;
	/* The worker may be the same user: it may not trace or read us. */
	prctl(PR_SET_DUMPABLE, 0);
	dup2(out_fd, STDOUT_FILENO);
	dup2(out_fd, STDERR_FILENO);
	setvbuf(stderr, NULL, _IONBF, 0);
	alarm(gr_run.timeout + 10);
	gr_run.deadline = time(NULL) + gr_run.timeout;
	seed_case(c->name);
	v = c->run();
	gr_end_case(v == GR_PASS || v == GR_SKIP ? v : GR_FAIL);
}

/* Run one case in a process of its own; its verdict, and why in msg. */
static int run_forked(const struct gr_case *c, char *msg)
{
	struct verdict_rec rec;
	int fd, status, pfd[2];
	ssize_t got;
	pid_t pid;

	msg[0] = '\0';
	fd = memfd_create("grade-case", MFD_CLOEXEC);
	if (fd < 0 || pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(msg, GR_MSG_LEN, "harness: %s", strerror(errno));
		return GR_FAIL;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		snprintf(msg, GR_MSG_LEN, "harness: fork: %s", strerror(errno));
		return GR_FAIL;
	}
	if (pid == 0) {
		close(pfd[0]);
		case_child(c, fd, pfd[1]);
	}
	close(pfd[1]);
	do
		got = read(pfd[0], &rec, sizeof(rec));
	while (got < 0 && errno == EINTR);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	relay_output(fd, c->name);
	close(fd);
	if (got == (ssize_t)sizeof(rec) && rec.magic == VERDICT_MAGIC) {
		snprintf(msg, GR_MSG_LEN, "%.*s", GR_MSG_LEN - 1, rec.msg);
		if (rec.verdict == GR_PASS || rec.verdict == GR_SKIP)
			return rec.verdict;
		return GR_FAIL;
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		snprintf(msg, GR_MSG_LEN, "timed out after %u s (GR_TIMEOUT)",
			 gr_run.timeout);
	else
		snprintf(msg, GR_MSG_LEN,
			 "harness: the case's grader ended "
			 "without a verdict");
	return GR_FAIL;
}

/* Run one case in this process (--no-fork): its verdict. */
static int run_here(const struct gr_case *c, char *msg)
{
	jmp_buf jb;
	int v;

	gr_failures = 0;
	first_msg[0] = '\0';
	gr_run.deadline = time(NULL) + gr_run.timeout;
	seed_case(c->name);
	gr_run.no_fork_jmp = &jb;
	v = setjmp(jb);
	if (v == 0)
		v = c->run();
	else
		v -= 100; /* gr_end_case() */
	gr_run.no_fork_jmp = NULL;
	gr_worker_stop();
	snprintf(msg, GR_MSG_LEN, "%s", first_msg);
	return v == GR_PASS || v == GR_SKIP ? v : GR_FAIL;
}

/* The run's seed: --seed, GR_SEED, else fresh from the kernel. */
static int pick_seed(const char *arg)
{
	const char *s = arg ? arg : getenv("GR_SEED");
	char *end;

	if (s && *s) {
		errno = 0;
		gr_run.seed = strtoull(s, &end, 0);
		if (errno || *end) {
			fprintf(stderr, "--seed: '%s' is not a number\n", s);
			return -1;
		}
		return 0;
	}
	if (getrandom(&gr_run.seed, sizeof(gr_run.seed), 0) !=
	    sizeof(gr_run.seed))
		gr_run.seed = (uint64_t)time(NULL) * 2654435761u ^ getpid();
	gr_run.seed &= 0xffffffffffffull; /* short enough to type */
	return 0;
}

/* Print the usage of a grader. */
static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s --worker PATH [--list | --only CASE] [--seed N] "
		"[--no-fork] [--wait-debugger]\n",
		prog);
}

/* Parse the options; 0, or 2 on a usage error. */
static int parse(int argc, char **argv, const char **only, bool *list,
		 bool *fork_cases)
{
	const char *seed = NULL, *t = getenv("GR_TIMEOUT");
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list"))
			*list = true;
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			*only = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = argv[++i];
		else if (!strcmp(argv[i], "--worker") && i + 1 < argc)
			gr_run.worker = argv[++i];
		else if (!strcmp(argv[i], "--no-fork"))
			*fork_cases = false;
		else if (!strcmp(argv[i], "--wait-debugger"))
			gr_run.wait_debugger = true;
		else
			return 2;
	}
	if (t && strtol(t, NULL, 10) > 0 && strtol(t, NULL, 10) < 86400)
		gr_run.timeout = (unsigned)strtol(t, NULL, 10);
	return pick_seed(seed) ? 2 : 0;
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
	char msg[GR_MSG_LEN];
	int v;

	if (parse(argc, argv, &only, &list, &fork_cases)) {
		usage(argv[0]);
		return 2;
	}
	gr_run.exercise = exercise;
	if (!list) {
		printf("SEED %llu\n", (unsigned long long)gr_run.seed);
		fprintf(stderr,
			"%s: seed %llu (replay: --seed %llu, or labs/pathlab "
			"grade --seed %llu %.2s)\n",
			exercise, (unsigned long long)gr_run.seed,
			(unsigned long long)gr_run.seed,
			(unsigned long long)gr_run.seed, exercise);
	}
	for (c = cases; c->name; c++) {
		if (list) {
			printf("CASE %u %s/%s %s\n", c->points, exercise,
			       c->name, c->what);
			continue;
		}
		if (only && strcmp(only, c->name))
			continue;
		v = fork_cases ? run_forked(c, msg) : run_here(c, msg);
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
