/* SPDX-License-Identifier: MIT */
/*
 * The cycle budget arithmetic and the parsers for rates, clocks and counts.
 *
 * The parsers read the number themselves instead of calling strtod(): that
 * keeps "10G" exact in integers and rejects what strtod() would quietly
 * accept (leading blanks, "+", hex, "nan", "inf").
 */
#include "budget.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

/* A decimal number as scanned: value = mant * 10^exp. */
struct dec {
	uint64_t mant;
	int exp;
};

/* 8< budget-compute */
/* Fill *b with the frame rate and per-frame budget for one rate and size. */
void pl_budget_compute(uint64_t rate_bps, unsigned frame_bytes, double clock_hz,
		       struct pl_budget *b)
{
	uint64_t bits = 8 * ((uint64_t)frame_bytes + PL_WIRE_OVERHEAD);

	*b = (struct pl_budget){
		.rate_bps = rate_bps,
		.frame_bytes = frame_bytes,
		/* Integer division truncates, as RFC 5180 Appendix A does. */
		.frames_per_second = rate_bps / bits,
		.clock_hz = clock_hz,
	};
	/* Below one frame per second there is no per-frame budget: leave 0. */
	if (b->frames_per_second) {
		b->ns_per_frame = 1e9 / (double)b->frames_per_second;
		b->cycles_per_frame = clock_hz / (double)b->frames_per_second;
	}
}
/* >8 budget-compute */

/* Append one digit to *d; false when the mantissa would overflow. */
static bool dec_push(struct dec *d, unsigned digit)
{
	if (d->mant > (UINT64_MAX - digit) / 10)
		return false;
	d->mant = d->mant * 10 + digit;
	return true;
}

/* true for the ASCII digits only, whatever the locale. */
static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Scan "123", "2.5", ".5" and, with allow_exp, "2.3e9" from the start of s.
 * Returns the first character after the number, or NULL if there is none.
 */
static const char *dec_scan(const char *s, bool allow_exp, struct dec *d)
{
	int digits = 0, e = 0, esign = 1, edigits = 0;

	*d = (struct dec){ 0 };
	for (; is_digit(*s); s++, digits++)
		if (!dec_push(d, *s - '0'))
			return NULL;
	if (*s == '.') {
		for (s++; is_digit(*s); s++, digits++) {
			if (!dec_push(d, *s - '0'))
				return NULL;
			d->exp--;
		}
	}
	if (!digits)
		return NULL;
	if (allow_exp && (*s == 'e' || *s == 'E')) {
		s++;
		if (*s == '+' || *s == '-')
			esign = *s++ == '-' ? -1 : 1;
		/* Three exponent digits are plenty; more is garbage. */
		for (; is_digit(*s) && edigits < 4; s++, edigits++)
			e = e * 10 + (*s - '0');
		if (!edigits || edigits > 3)
			return NULL;
		d->exp += esign * e;
	}
	return s;
}

/*
 * d * 10^shift as a whole number: 0, -ERANGE when it does not fit in 64
 * bits, or -EDOM when it has a fractional part.
 */
static int dec_to_u64(struct dec d, int shift, uint64_t *v)
{
	int e = d.exp + shift;

	for (; d.mant && e > 0; e--) {
		if (d.mant > UINT64_MAX / 10)
			return -ERANGE;
		d.mant *= 10;
	}
	for (; d.mant && e < 0; e++) {
		if (d.mant % 10)
			return -EDOM;
		d.mant /= 10;
	}
	*v = d.mant;
	return 0;
}

/* Index of c in the SI prefixes "kMGT" (any case), 1-based; 0 if none. */
static int si_prefix(char c, int max)
{
	static const char prefixes[] = "kmgt";
	int i;

	for (i = 0; i < max; i++)
		if ((c | 0x20) == prefixes[i])
			return i + 1;
	return 0;
}

/* Parse a link rate such as "10G" or "25Gbit" into bits per second. */
int pl_parse_rate(const char *s, uint64_t *bps)
{
	struct dec d;
	uint64_t v;
	int p;

	s = dec_scan(s, true, &d);
	if (!s)
		return -EINVAL;
	p = si_prefix(*s, 4);
	if (p)
		s++;
	/* A lone capital "B" would mean bytes, so only "b" is taken. */
	if (*s && strcasecmp(s, "bit") && strcasecmp(s, "bps") &&
	    strcmp(s, "b"))
		return -EINVAL;
	if (dec_to_u64(d, 3 * p, &v) || !v)
		return -EINVAL;
	*bps = v;
	return 0;
}

/* Parse a clock such as "3.0GHz" or "2.3e9" into Hz. */
int pl_parse_hz(const char *s, double *hz)
{
	struct dec d;
	uint64_t v = 0;
	double div = 1;
	int p, err, e;

	s = dec_scan(s, true, &d);
	if (!s)
		return -EINVAL;
	p = si_prefix(*s, 3);
	if (p)
		s++;
	if (*s && strcasecmp(s, "hz"))
		return -EINVAL;
	err = dec_to_u64(d, 3 * p, &v);
	if (err == -EDOM) {
		/* Fractional Hz ("1.5"): divide by an exact power of 10. */
		for (e = d.exp + 3 * p; e < 0; e++)
			div *= 10;
		*hz = (double)d.mant / div;
		/* 1e-400 underflows to 0 and is rejected like 0. */
		return *hz > 0 ? 0 : -EINVAL;
	}
	if (err || !v)
		return -EINVAL;
	*hz = (double)v;
	return 0;
}

/* Parse a count such as "10k" or "1.5M" that must come out whole. */
int pl_parse_count(const char *s, uint64_t *v)
{
	struct dec d;
	int p;

	s = dec_scan(s, false, &d);
	if (!s)
		return -EINVAL;
	p = si_prefix(*s, 3);
	if (p)
		s++;
	if (*s)
		return -EINVAL;
	return dec_to_u64(d, 3 * p, v) ? -EINVAL : 0;
}
