/* SPDX-License-Identifier: MIT */
#include "trace.h"
#include "clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_CAP 4096

static const char *const where_names[] = { "nic", "kernel", "user", "gpu" };
static const char *const what_names[] = { "step", "syscall", "copy",
					  "ring", "dma",     "check" };

int pl_trace_open(struct pl_trace *t, unsigned units, const char *unit_name,
		  const char *file)
{
	int err;

	memset(t, 0, sizeof(*t));
	t->ev = calloc(TRACE_CAP, sizeof(*t->ev));
	if (!t->ev)
		return -ENOMEM;
	t->cap = TRACE_CAP;
	t->units = units;
	t->unit_name = unit_name ? unit_name : "pkt";
	t->out = stderr;
	if (file) {
		err = pl_out_open(&t->file, file);
		if (err) {
			free(t->ev);
			t->ev = NULL;
			return err;
		}
		t->out = t->file.f;
		t->own_out = true;
	}
	fprintf(t->out,
		"# trace: the first %u %ss; time in us from the first "
		"event; where what name key=value...\n",
		units, t->unit_name);
	return 0;
}

void pl_trace_rec(struct pl_trace *t, uint32_t unit, enum pl_where where,
		  enum pl_what what, const char *name, const char *keys,
		  uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	pl_trace_rec_at(t, pl_now_ns(), unit, where, what, name, keys, a, b, c,
			d);
}

void pl_trace_rec_at(struct pl_trace *t, uint64_t ns, uint32_t unit,
		     enum pl_where where, enum pl_what what, const char *name,
		     const char *keys, uint64_t a, uint64_t b, uint64_t c,
		     uint64_t d)
{
	struct pl_trace_ev *e;

	if (t->n == t->cap)
		pl_trace_flush(t);
	e = &t->ev[t->n++];
	*e = (struct pl_trace_ev){ .ns = ns,
				   .unit = unit,
				   .where = (uint8_t)where,
				   .what = (uint8_t)what,
				   .name = name,
				   .keys = keys,
				   .v = { a, b, c, d } };
	if (!t->t0)
		t->t0 = e->ns;
}

/* Print one event: the values after their names, hex for addresses. */
static void print_ev(const struct pl_trace *t, const struct pl_trace_ev *e)
{
	const char *k = e->keys ? e->keys : "";
	char label[32];
	unsigned i = 0;
	size_t len;

	if (e->unit)
		snprintf(label, sizeof(label), "%s %5u", t->unit_name, e->unit);
	else
		snprintf(label, sizeof(label), "setup");
	fprintf(t->out, "[%-9s] %10.3f %-6s %-7s %-32s", label,
		((double)e->ns - (double)t->t0) / 1e3, where_names[e->where],
		what_names[e->what], e->name);
	while (*k && i < PL_TRACE_VALUES) {
		len = strcspn(k, " ");
		/* Keys that name an address print in hex. */
		if (len >= 4 && !strncmp(k + len - 4, "addr", 4))
			fprintf(t->out, " %.*s=0x%llx", (int)len, k,
				(unsigned long long)e->v[i]);
		else
			fprintf(t->out, " %.*s=%llu", (int)len, k,
				(unsigned long long)e->v[i]);
		k += len;
		k += strspn(k, " ");
		i++;
	}
	fputc('\n', t->out);
}

void pl_trace_flush(struct pl_trace *t)
{
	unsigned i;

	for (i = 0; i < t->n; i++)
		print_ev(t, &t->ev[i]);
	t->printed += t->n;
	t->n = 0;
	fflush(t->out);
}

void pl_trace_close(struct pl_trace *t)
{
	int err;

	if (!t->ev)
		return;
	pl_trace_flush(t);
	fprintf(t->out, "# trace: %llu events\n",
		(unsigned long long)t->printed);
	if (t->own_out && (err = pl_out_close(&t->file)))
		pl_out_error(t->prog ? t->prog : "pathlab", "--trace-file",
			     t->file.path, err);
	free(t->ev);
	t->ev = NULL;
}
