/* SPDX-License-Identifier: MIT */
/*
 * A small streaming JSON writer: the run contract (results.json) is written
 * through it so every path emits the same shape. It tracks nesting and
 * commas; the caller only says key and value.
 */
#ifndef PATHLAB_JSON_H
#define PATHLAB_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PL_JSON_DEPTH 16

struct pl_json {
	FILE *f;
	int depth;
	bool first[PL_JSON_DEPTH]; /* nothing written yet at this level */
	bool pretty;
	int skip; /* open containers past PL_JSON_DEPTH: written as null */
};

void pl_json_init(struct pl_json *j, FILE *f, bool pretty);

/*
 * Open an object or array; key is NULL inside arrays and at top level. One
 * nested deeper than PL_JSON_DEPTH is written as null, with all it holds.
 */
void pl_json_obj(struct pl_json *j, const char *key);
void pl_json_arr(struct pl_json *j, const char *key);
void pl_json_end(struct pl_json *j); /* closes an object */
void pl_json_endarr(struct pl_json *j);

/* Bytes that are not UTF-8 are written as U+FFFD, the replacement mark. */
void pl_json_str(struct pl_json *j, const char *key, const char *v);
void pl_json_u64(struct pl_json *j, const char *key, uint64_t v);
void pl_json_i64(struct pl_json *j, const char *key, int64_t v);
/* Non-finite doubles are written as null. */
void pl_json_dbl(struct pl_json *j, const char *key, double v);
void pl_json_bool(struct pl_json *j, const char *key, bool v);

/* Finish: newline after the top-level value and flush. */
void pl_json_done(struct pl_json *j);

#endif
