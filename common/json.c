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

/*
 * The length of the UTF-8 sequence at s (1..4), or 0 when it is not one:
 * a stray continuation byte, a cut sequence, an overlong form, a UTF-16
 * surrogate or a code point past U+10FFFF.
 */
static int utf8_len(const unsigned char *s)
{
	unsigned cp;
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* Write s as a JSON string with the escapes JSON requires. */
static void json_string(FILE *f, const char *s)
{
	int n;

	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x80) {
			n = utf8_len((const unsigned char *)s);
			if (n)
				fwrite(s, 1, (size_t)n, f);
			else
				fputs("\\ufffd", f);
			s += n ? n - 1 : 0;
		} else if (c == '"' || c == '\\')
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

/*
 * Start a member: separator, then the key when inside an object. False
 * inside a container written as null: write nothing.
 */
static bool json_key(struct pl_json *j, const char *key)
{
	if (j->skip)
		return false;
	json_sep(j);
	if (key) {
		json_string(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
	return true;
}

/* Open a container with the given bracket (null when too deep). */
static void json_open(struct pl_json *j, const char *key, char c)
{
	if (!json_key(j, key)) { /* inside one written as null */
		j->skip++;
		return;
	}
	if (j->depth + 1 >= PL_JSON_DEPTH) {
		fputs("null", j->f);
		j->skip++;
		return;
	}
	fputc(c, j->f);
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

	if (j->skip) {
		j->skip--;
		return;
	}
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
	if (!json_key(j, key))
		return;
	if (v)
		json_string(j->f, v);
	else
		fputs("null", j->f);
}

void pl_json_u64(struct pl_json *j, const char *key, uint64_t v)
{
	if (!json_key(j, key))
		return;
	fprintf(j->f, "%" PRIu64, v);
}

void pl_json_i64(struct pl_json *j, const char *key, int64_t v)
{
	if (!json_key(j, key))
		return;
	fprintf(j->f, "%" PRId64, v);
}

void pl_json_dbl(struct pl_json *j, const char *key, double v)
{
	if (!json_key(j, key))
		return;
	if (isfinite(v))
		fprintf(j->f, "%.10g", v);
	else
		fputs("null", j->f);
}

void pl_json_bool(struct pl_json *j, const char *key, bool v)
{
	if (!json_key(j, key))
		return;
	fputs(v ? "true" : "false", j->f);
}

void pl_json_done(struct pl_json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
