/* SPDX-License-Identifier: MIT */
/*
 * The graded tests' tiny points framework.
 *
 * An exercise's test program is a table of cases, each with a name, a
 * number of points and a function. gr_main() runs every case in a child
 * process of its own (a crash or a hang in one case fails that case only)
 * and prints one line per case on stdout, which labs/pathlab grade reads:
 *
 *	GRADE PASS 3 01-budget/fps_10g_64
 *	GRADE FAIL 2 01-budget/ns_per_frame budget_test.c:40: ns_per_frame ...
 *	GRADE SKIP 4 05-xdp-verdict/redirect needs root (BPF_PROG_TEST_RUN)
 *
 * Options: --list prints "CASE POINTS EXERCISE/NAME WHAT" for every case
 * without running any; --only NAME runs one case; --no-fork runs the cases
 * in this process (for a debugger). GR_TIMEOUT (seconds, default 30)
 * bounds each case.
 *
 * A case's verdict reaches the grader on a pipe of its own when the case
 * function returns; a child that ends any other way (exit() in the code
 * under test, a crash, a timeout) fails the case.
 *
 * The reference a test compares with (a function of common/, say) must not
 * be callable by the code under test. The test links with
 * -Wl,--wrap=NAME and says GR_REFERENCE(ret, NAME, (params)) once: a call
 * to NAME() then fails the case with a clear message, and the test itself
 * calls the reference as __real_NAME().
 *
 * Exit status: 1 if a case failed, 77 if every case was skipped, else 0.
 */
#ifndef PATHLAB_EX_GRADE_H
#define PATHLAB_EX_GRADE_H

#include <stdbool.h>
#include <stdio.h>

enum { GR_PASS = 0, GR_FAIL = 1, GR_SKIP = 77 };

struct gr_case {
	const char *name; /* short, no blanks: "fps_10g_64" */
	unsigned points;  /* what passing it is worth */
	const char *what; /* one line: what it checks */
	int (*run)(void); /* GR_PASS, GR_FAIL or GR_SKIP */
};

/* Failed checks so far in this case (each case runs in a fresh process). */
extern unsigned gr_failures;

/* Run the cases of one exercise (the table ends with a { 0 } entry). */
int gr_main(int argc, char **argv, const char *exercise,
	    const struct gr_case *cases);

/* Report a failed check at file:line. */
void gr_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Say what the case is doing now: if it crashes (SIGSEGV, SIGBUS, SIGFPE,
 * SIGABRT), that is the last thing it says.
 */
void gr_context(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The code under test called the reference NAME(): fail the case, saying
 * so, and end it here.
 */
void gr_reference_called(const char *name) __attribute__((noreturn));

/*
 * Keep reference NAME away from the code under test (linked with
 * -Wl,--wrap=NAME): its calls land in __wrap_NAME(), which fails the case;
 * the test calls __real_NAME(), declared here with its return type and
 * parameters.
 */
#define GR_REFERENCE(ret, name, params)                                        \
	ret __real_##name params;                                              \
	void __wrap_##name(void);                                              \
	void __wrap_##name(void)                                               \
	{                                                                      \
		gr_reference_called(#name);                                    \
	}

/* Say why a case is skipped, and return GR_SKIP. */
int gr_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The verdict of a case: GR_FAIL if a check failed, else GR_PASS. */
static inline int gr_verdict(void)
{
	return gr_failures ? GR_FAIL : GR_PASS;
}

/* Check cond; on failure say what was expected, and go on. */
#define GR_CHECK(cond, ...)                                                    \
	do {                                                                   \
		if (!(cond))                                                   \
			gr_fail_at(__FILE__, __LINE__, __VA_ARGS__);           \
	} while (0)

/* Check two unsigned values for equality. */
#define GR_EQ_U(got, want)                                                     \
	do {                                                                   \
		unsigned long long got_ = (unsigned long long)(got);           \
		unsigned long long want_ = (unsigned long long)(want);         \
		if (got_ != want_)                                             \
			gr_fail_at(__FILE__, __LINE__,                         \
				   "%s is %llu, expected %llu", #got, got_,    \
				   want_);                                     \
	} while (0)

/* Check a double within a relative tolerance. */
#define GR_NEAR(got, want, rel)                                                \
	do {                                                                   \
		double got_ = (double)(got), want_ = (double)(want);           \
		double d_ = got_ > want_ ? got_ - want_ : want_ - got_;        \
		if (!(d_ <= (rel) * (want_ < 0 ? -want_ : want_)))             \
			gr_fail_at(__FILE__, __LINE__,                         \
				   "%s is %.6g, expected %.6g", #got, got_,    \
				   want_);                                     \
	} while (0)

/* Stop the case here if a check failed (later checks would only crash). */
#define GR_STOP_IF_FAILED()                                                    \
	do {                                                                   \
		if (gr_failures)                                               \
			return GR_FAIL;                                        \
	} while (0)

#endif
