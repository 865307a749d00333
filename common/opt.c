/* SPDX-License-Identifier: MIT */
#include "opt.h"
#include "budget.h"
#include "ifname.h"
#include "out.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int opt_error(const char *prog, const struct pl_opt *o, const char *v,
		     const char *why)
{
	fprintf(stderr, "%s: --%s: '%s' %s\n", prog, o->name, v, why);
	return -EINVAL;
}

/* A rate or a clock above the table's limit, in its unit. */
static int opt_max(const char *prog, const struct pl_opt *o, const char *v,
		   const char *unit)
{
	char why[64];

	snprintf(why, sizeof(why), "is out of range (at most %" PRIu64 " %s)",
		 o->max, unit);
	return opt_error(prog, o, v, why);
}

/*
 * An interface that exists here, checked as pl_ifname_check() says, stored
 * by its own name (an alternative name typed resolves to it).
 */
static int opt_iface(const char *prog, const struct pl_opt *o, const char *v)
{
	/* Names of interfaces given by an alternative name, kept to exit. */
	static char names[8][IF_NAMESIZE];
	static unsigned used;
	char primary[IF_NAMESIZE];
	const char *why;
	int idx;

	if (pl_ifname_check(v, &why))
		return opt_error(prog, o, v, why);
	idx = pl_ifname_resolve(v, primary, sizeof(primary));
	if (idx == -ENODEV)
		return opt_error(prog, o, v,
				 "is no interface in this network namespace");
	if (idx < 0)
		return opt_error(prog, o, v, strerror(-idx));
	if (!strcmp(primary, v)) {
		*(const char **)o->dst = v;
		return 0;
	}
	if (used == sizeof(names) / sizeof(names[0]))
		return opt_error(prog, o, v,
				 "is one alternative name too many");
	memcpy(names[used], primary, sizeof(primary));
	*(const char **)o->dst = names[used++];
	return 0;
}

/* Store one option's value; every kind is range-checked here. */
static int opt_store(const char *prog, const struct pl_opt *o, const char *v)
{
	uint64_t u;
	double d;
	char *end;
	int i;

	switch (o->kind) {
	case PL_OPT_FLAG:
		*(bool *)o->dst = true;
		return 0;
	case PL_OPT_STR:
		if (!*v)
			return opt_error(prog, o, v, "must not be empty");
		*(const char **)o->dst = v;
		return 0;
	case PL_OPT_U64:
	case PL_OPT_U32:
		if (*v == '-' || pl_parse_count(v, &u) < 0)
			return opt_error(prog, o, v, "is not a whole number");
		if (u < o->min || (o->max && u > o->max)) {
			fprintf(stderr,
				"%s: --%s: %" PRIu64
				" is out of range [%" PRIu64 ", %" PRIu64 "]\n",
				prog, o->name, u, o->min,
				o->max ? o->max : UINT64_MAX);
			return -EINVAL;
		}
		if (o->kind == PL_OPT_U32) {
			if (u > UINT32_MAX)
				return opt_error(prog, o, v, "is too large");
			*(unsigned *)o->dst = (unsigned)u;
		} else {
			*(uint64_t *)o->dst = u;
		}
		return 0;
	case PL_OPT_DOUBLE:
		/* strtod() also takes "inf", "nan" and hex: plain decimals only
		 */
		errno = 0;
		d = strtod(v, &end);
		if (errno || end == v || *end || !isfinite(d) ||
		    strpbrk(v, "xX"))
			return opt_error(prog, o, v, "is not a number");
		if (d < (double)o->min ||
		    d > (double)(o->max ? o->max : PL_OPT_DOUBLE_MAX))
			return opt_error(prog, o, v, "is out of range");
		*(double *)o->dst = d;
		return 0;
	case PL_OPT_CHOICE:
		for (i = 0; o->choices[i]; i++) {
			if (!strcmp(o->choices[i], v)) {
				*(int *)o->dst = i;
				return 0;
			}
		}
		fprintf(stderr, "%s: --%s: '%s' is not one of:", prog, o->name,
			v);
		for (i = 0; o->choices[i]; i++)
			fprintf(stderr, " %s", o->choices[i]);
		fputc('\n', stderr);
		return -EINVAL;
	case PL_OPT_RATE:
		if (pl_parse_rate(v, &u) < 0)
			return opt_error(prog, o, v,
					 "is not a rate (e.g. 10G, 25Gbit)");
		if (o->max && u > o->max)
			return opt_max(prog, o, v, "b/s");
		*(uint64_t *)o->dst = u;
		return 0;
	case PL_OPT_OUT:
		/* Refused now, not after the run it was to record. */
		if (!*v || (i = pl_out_check(v)))
			return opt_error(prog, o, v,
					 *v ? pl_out_strerror(i)
					    : "must not be empty");
		*(const char **)o->dst = v;
		return 0;
	case PL_OPT_IFACE:
		return opt_iface(prog, o, v);
	case PL_OPT_HZ:
		if (pl_parse_hz(v, &d) < 0)
			return opt_error(prog, o, v,
					 "is not a clock (e.g. 3GHz, 2400MHz)");
		if (o->max && d > (double)o->max)
			return opt_max(prog, o, v, "Hz");
		*(double *)o->dst = d;
		return 0;
	}
	return -EINVAL;
}

static const struct pl_opt *opt_find(const struct pl_opt *opts,
				     const char *name, size_t len)
{
	for (; opts->name; opts++)
		if (strlen(opts->name) == len &&
		    !strncmp(opts->name, name, len))
			return opts;
	return NULL;
}

void pl_opt_usage(FILE *f, const char *prog, const char *synopsis,
		  const struct pl_opt *opts)
{
	char left[64];
	int i;

	fprintf(f, "usage: %s %s\n\noptions:\n", base_name(prog), synopsis);
	for (; opts->name; opts++) {
		snprintf(left, sizeof(left), "--%s%s%s", opts->name,
			 opts->arg ? " " : "", opts->arg ? opts->arg : "");
		fprintf(f, "  %-24s %s", left, opts->help);
		if (opts->kind == PL_OPT_CHOICE) {
			fputs(" (", f);
			for (i = 0; opts->choices[i]; i++)
				fprintf(f, "%s%s", i ? "|" : "",
					opts->choices[i]);
			fputc(')', f);
		}
		fputc('\n', f);
	}
	fprintf(f, "  %-24s %s\n", "--help", "show this text");
}

int pl_opt_parse(int argc, char **argv, const struct pl_opt *opts,
		 const char *synopsis, int *first_arg)
{
	const char *prog = base_name(argv[0]);
	const struct pl_opt *o;
	const char *name, *eq, *val;
	int i, err;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (strncmp(argv[i], "--", 2)) {
			if (!first_arg) {
				fprintf(stderr,
					"%s: unexpected argument '%s'\n", prog,
					argv[i]);
				return -EINVAL;
			}
			break;
		}
		name = argv[i] + 2;
		if (!strcmp(name, "help")) {
			pl_opt_usage(stdout, argv[0], synopsis, opts);
			return PL_OPT_HELP;
		}
		eq = strchr(name, '=');
		o = opt_find(opts, name,
			     eq ? (size_t)(eq - name) : strlen(name));
		if (!o) {
			fprintf(stderr,
				"%s: unknown option '%s' (try --help)\n", prog,
				argv[i]);
			return -EINVAL;
		}
		if (o->kind == PL_OPT_FLAG) {
			if (eq) {
				fprintf(stderr, "%s: --%s takes no value\n",
					prog, o->name);
				return -EINVAL;
			}
			val = "";
		} else if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			fprintf(stderr, "%s: --%s needs a value (%s)\n", prog,
				o->name, o->arg ? o->arg : "value");
			return -EINVAL;
		}
		err = opt_store(prog, o, val);
		if (err)
			return err;
	}
	if (first_arg)
		*first_arg = i;
	else if (i < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog,
			argv[i]);
		return -EINVAL;
	}
	return 0;
}
