/* SPDX-License-Identifier: MIT */
/*
 * The worker's side of an exercise: the student's functions, called on
 * the grader's inputs, their results sent back as data. An exercise's
 * worker file (wk_*.c) defines the table of its requests:
 *
 *	static long op_budget(const void *in, size_t len, void *out,
 *			      size_t cap);
 *	const struct wk_op wk_ops[] = { { "budget", op_budget }, { 0 } };
 *
 * Request WK_OP_FIRST + i runs wk_ops[i].fn: in is the request's data,
 * out has room for cap bytes of answer; it returns the answer's length,
 * or -1 when the request is malformed (a bug of the grader). worker.c has
 * main(). Nothing here decides anything: the grader does.
 */
#ifndef PATHLAB_EX_WORKER_H
#define PATHLAB_EX_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct wk_op {
	const char *name;
	long (*fn)(const void *in, size_t len, void *out, size_t cap);
};

/* The exercise's requests, ending with { 0 }. */
extern const struct wk_op wk_ops[];

/*
 * Call n of the device model the grader keeps (exercises 12, 14), with
 * len bytes; its answer in out (cap bytes at most): its length. A grader
 * that does not answer ends the worker.
 */
size_t wk_device(unsigned n, const void *in, size_t len, void *out, size_t cap);

/* The request's data, when it must be exactly one struct of its kind. */
#define WK_IN(type, in, len) ((len) == sizeof(type) ? (const type *)(in) : NULL)

#endif
