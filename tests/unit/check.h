/* SPDX-License-Identifier: MIT */
/* A few assertion macros for the unit tests: report, count, go on. */
#ifndef PATHLAB_CHECK_H
#define PATHLAB_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			check_failures++;                                      \
		}                                                              \
	} while (0)

#define CHECK_EQ_U(a, b)                                                       \
	do {                                                                   \
		unsigned long long a_ = (unsigned long long)(a);               \
		unsigned long long b_ = (unsigned long long)(b);               \
		if (a_ != b_) {                                                \
			fprintf(stderr,                                        \
				"%s:%d: %s == %llu, expected %s == %llu\n",    \
				__FILE__, __LINE__, #a, a_, #b, b_);           \
			check_failures++;                                      \
		}                                                              \
	} while (0)

/* Exit status for main(): 0 when every check passed. */
#define CHECK_DONE()                                                           \
	(check_failures                                                        \
		 ? (fprintf(stderr, "%d check(s) failed\n", check_failures),   \
		    1)                                                         \
		 : 0)

#endif
