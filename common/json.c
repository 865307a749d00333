/* SPDX-License-Identifier: MIT */
#include "json.h"

#include <inttypes.h>
#include <math.h>

void pl_json_init(struct pl_json *j, FILE *f, bool pretty)
{
	*j = (struct pl_json){ .f = f, .pretty = pretty };
	j->first[0] = true;
}

/* Write the separator and indentation before a new member. */
static void json_sep(struct pl_json *j)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (j->pretty && j->depth > 0)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
}

/* Write s as a JSON string with the escapes JSON requires. */
static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Start a member: separator, then the key when inside an object. */
static void json_key(struct pl_json *j, const char *key)
{
	json_sep(j);
	if (key) {
		json_string(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

/* Open a container with the given bracket. */
static void json_open(struct pl_json *j, const char *key, char c)
{
	json_key(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < PL_JSON_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

void pl_json_obj(struct pl_json *j, const char *key)
{
	json_open(j, key, '{');
}

void pl_json_arr(struct pl_json *j, const char *key)
{
	json_open(j, key, '[');
}

/* Close a container with the given bracket. */
static void json_close(struct pl_json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (j->pretty && !empty)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(c, j->f);
}

void pl_json_end(struct pl_json *j)
{
	json_close(j, '}');
}

void pl_json_endarr(struct pl_json *j)
{
	json_close(j, ']');
}

void pl_json_str(struct pl_json *j, const char *key, const char *v)
{
	json_key(j, key);
	if (v)
		json_string(j->f, v);
	else
		fputs("null", j->f);
}

void pl_json_u64(struct pl_json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void pl_json_i64(struct pl_json *j, const char *key, int64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void pl_json_dbl(struct pl_json *j, const char *key, double v)
{
	json_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.10g", v);
	else
		fputs("null", j->f);
}

void pl_json_bool(struct pl_json *j, const char *key, bool v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void pl_json_done(struct pl_json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
