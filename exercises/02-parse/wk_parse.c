/* SPDX-License-Identifier: MIT */
/*
 * Exercise 2's worker: the student's parser on the grader's frames. Each
 * frame is placed right before a page the worker may not read, so that a
 * parser that reads one byte past the end of a frame dies there.
 */
#include "parse_ex.h"
#include "parse_rpc.h"
#include "worker.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A copy of f[0..len) that ends where an unreadable page begins. */
static const uint8_t *guarded(const uint8_t *f, size_t len)
{
	static uint8_t *area;
	long pg = sysconf(_SC_PAGESIZE);
	size_t span = (PX_MAXF + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
	uint8_t *end;

	if (!area) {
		area = mmap(NULL, span + (size_t)pg, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED)
			abort();
		mprotect(area + span, (size_t)pg, PROT_NONE);
	}
	end = area + span;
	memcpy(end - len, f, len);
	return end - len;
}

/* ex_parse_frame() on each frame of the request. */
static long parse(const void *in, size_t len, void *out, size_t cap)
{
	const struct px_frame *f = in;
	struct px_result *r = out;
	size_t i, n = len / sizeof(*f);

	if (len % sizeof(*f) || n > PX_BATCH || n * sizeof(*r) > cap)
		return -1;
	for (i = 0; i < n; i++) {
		if (f[i].len > PX_MAXF)
			return -1;
		memset(&r[i], 0, sizeof(r[i]));
		r[i].reason = ex_parse_frame(guarded(f[i].bytes, f[i].len),
					     f[i].len, f[i].port, &r[i].pkt);
	}
	return (long)(n * sizeof(*r));
}

const struct wk_op wk_ops[] = {
	{ "parse", parse },
	{ 0 },
};
