/* SPDX-License-Identifier: MIT */
/*
 * pathlab-budget: how many frames per second a link carries at line rate,
 * and so how many nanoseconds and CPU cycles one core has for each frame.
 * Without --rate or --size it prints the table over the usual rates and
 * frame sizes.
 */
#include "budget.h"
#include "clock.h"
#include "json.h"
#include "opt.h"
#include "wire.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_FRAME     16384
#define MAX_PAYLOAD   (MAX_FRAME - PL_FRAME_OVERHEAD)
/* Ten times the fastest Ethernet there is; beyond, a typo or an attack. */
#define MAX_RATE   16000000000000ull /* 16 Tb/s */
#define MAX_CLOCK  100000000000ull   /* 100 GHz */
#define NO_PAYLOAD UINT_MAX
#define GBIT	   1000000000ull

static const uint64_t std_rates[] = {
	1 * GBIT,   10 * GBIT,	25 * GBIT,  40 * GBIT,
	100 * GBIT, 200 * GBIT, 400 * GBIT,
};
static const unsigned std_frames[] = {
	64, 128, 256, 512, 1024, 1280, 1518, 9000
};

struct args {
	uint64_t rate;	  /* 0: every standard rate */
	unsigned size;	  /* 0: every standard frame size */
	unsigned payload; /* NO_PAYLOAD: not given */
	bool vlan;
	bool json;
	double clock_hz; /* 0: measure the TSC */
};

struct clock_info {
	double hz;
	double err_ppm;
	const char *source; /* "tsc", "given", or "ns" without a TSC */
	bool invariant;
};

/* Format v with a comma every three digits: 14880952 -> "14,880,952". */
static void fmt_thousands(char *buf, size_t len, uint64_t v)
{
	char digits[24];
	size_t n, i, o = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, v);
	for (i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

/* Format a rate exactly in the largest fitting unit: "2.5 Gb/s". */
static void fmt_rate(char *buf, size_t len, uint64_t bps)
{
	static const char *const units[] = { "b/s", "kb/s", "Mb/s", "Gb/s",
					     "Tb/s" };
	uint64_t unit = 1;
	int u = 0, width = 0;
	char frac[24];

	while (u < 4 && bps / unit >= 1000) {
		unit *= 1000;
		width += 3;
		u++;
	}
	if (bps % unit == 0) {
		snprintf(buf, len, "%" PRIu64 " %s", bps / unit, units[u]);
		return;
	}
	snprintf(frac, sizeof(frac), "%0*" PRIu64, width, bps % unit);
	/* Trailing zeros of the fraction say nothing: "2.500" is "2.5". */
	for (width = (int)strlen(frac); frac[width - 1] == '0'; width--)
		frac[width - 1] = '\0';
	snprintf(buf, len, "%" PRIu64 ".%s %s", bps / unit, frac, units[u]);
}

/* Format a clock with two decimals in GHz, MHz, kHz or Hz. */
static void fmt_hz(char *buf, size_t len, double hz)
{
	if (hz >= 1e9)
		snprintf(buf, len, "%.2f GHz", hz / 1e9);
	else if (hz >= 1e6)
		snprintf(buf, len, "%.2f MHz", hz / 1e6);
	else if (hz >= 1e3)
		snprintf(buf, len, "%.2f kHz", hz / 1e3);
	else
		snprintf(buf, len, "%.2f Hz", hz);
}

/* Work out the frame sizes to show; 0, or -EINVAL after an error line. */
static int pick_frames(const struct args *a, unsigned *frames, size_t *n)
{
	const char *prog = program_invocation_short_name;
	unsigned tag = a->vlan ? PL_VLAN_LEN : 0;
	size_t i;

	if (a->size && a->payload != NO_PAYLOAD) {
		fprintf(stderr,
			"%s: --payload: cannot be combined with --size\n",
			prog);
		return -EINVAL;
	}
	if (a->payload != NO_PAYLOAD) {
		frames[0] = pl_frame_for_payload(a->payload, a->vlan);
		*n = 1;
	} else if (a->size) {
		frames[0] = a->size + tag;
		*n = 1;
	} else {
		for (i = 0; i < ARRAY_SIZE(std_frames); i++)
			frames[i] = std_frames[i] + tag;
		*n = ARRAY_SIZE(std_frames);
	}
	if (frames[0] > MAX_FRAME) {
		fprintf(stderr,
			"%s: %s: a %u B frame with its VLAN tag is over %u B\n",
			prog, a->size ? "--size" : "--payload", frames[0],
			MAX_FRAME);
		return -EINVAL;
	}
	return 0;
}

/* Work out the rates to show; 0, or -EINVAL after an error line. */
static int pick_rates(const struct args *a, const unsigned *frames,
		      size_t nframes, uint64_t *rates, size_t *n)
{
	unsigned biggest = frames[nframes - 1];
	char rate[32];

	if (!a->rate) {
		memcpy(rates, std_rates, sizeof(std_rates));
		*n = ARRAY_SIZE(std_rates);
		return 0;
	}
	/* Below one frame per second there is no budget to print. */
	if (a->rate / (8 * ((uint64_t)biggest + PL_WIRE_OVERHEAD)) == 0) {
		fmt_rate(rate, sizeof(rate), a->rate);
		fprintf(stderr,
			"%s: --rate: %s carries less than one %u B frame per "
			"second\n",
			program_invocation_short_name, rate, biggest);
		return -EINVAL;
	}
	rates[0] = a->rate;
	*n = 1;
	return 0;
}

/* Take the clock from --clock, or calibrate the TSC against the OS clock. */
static void get_clock(const struct args *a, struct clock_info *c)
{
	const struct pl_tsc *t;

	if (a->clock_hz > 0) {
		*c = (struct clock_info){ .hz = a->clock_hz,
					  .source = "given" };
		return;
	}
	t = pl_tsc();
	*c = (struct clock_info){
		.hz = t->hz,
		.err_ppm = t->err_ppm,
		.source = t->is_tsc ? "tsc" : "ns",
		.invariant = t->invariant,
	};
}

/* Print the line that says which clock the cycle counts are in. */
static void print_clock(const struct clock_info *c)
{
	char hz[32];

	fmt_hz(hz, sizeof(hz), c->hz);
	if (!strcmp(c->source, "given"))
		printf("clock %s (given)\n", hz);
	else if (!strcmp(c->source, "tsc"))
		printf("clock %s (measured TSC, ±%.0f ppm%s)\n", hz, c->err_ppm,
		       c->invariant ? "" : ", not invariant: cycles drift");
	else
		printf("clock %s (no TSC: cycles are nanoseconds)\n", hz);
}

/* Print one row as a JSON object on its own line. */
static void print_json(const struct pl_budget *b, unsigned payload, bool vlan,
		       const struct clock_info *c)
{
	struct pl_json j;

	pl_json_init(&j, stdout, false);
	pl_json_obj(&j, NULL);
	pl_json_u64(&j, "rate_bps", b->rate_bps);
	pl_json_u64(&j, "frame_bytes", b->frame_bytes);
	pl_json_u64(&j, "udp_payload_bytes", payload);
	pl_json_bool(&j, "vlan", vlan);
	pl_json_u64(&j, "frames_per_second", b->frames_per_second);
	pl_json_dbl(&j, "ns_per_frame", b->ns_per_frame);
	pl_json_dbl(&j, "cycles_per_frame", b->cycles_per_frame);
	pl_json_dbl(&j, "clock_hz", b->clock_hz);
	pl_json_str(&j, "clock_source", c->source);
	pl_json_dbl(&j, "clock_err_ppm", c->err_ppm);
	pl_json_end(&j);
	pl_json_done(&j);
}

/* Print the one-row answer as a sentence. */
static void print_sentence(const struct pl_budget *b, unsigned payload,
			   bool vlan)
{
	char rate[32], fps[32], hz[32];

	fmt_rate(rate, sizeof(rate), b->rate_bps);
	fmt_thousands(fps, sizeof(fps), b->frames_per_second);
	fmt_hz(hz, sizeof(hz), b->clock_hz);
	printf("%s, %u B%s frames (%u B UDP payload): %s frames/s, "
	       "%.1f ns per frame, %.1f cycles per frame at %s\n",
	       rate, b->frame_bytes, vlan ? " tagged" : "", payload, fps,
	       b->ns_per_frame, b->cycles_per_frame, hz);
}

/* Print one table row; the header is printed by the caller. */
static void print_row(const struct pl_budget *b, unsigned payload)
{
	char rate[32], fps[32];

	fmt_rate(rate, sizeof(rate), b->rate_bps);
	fmt_thousands(fps, sizeof(fps), b->frames_per_second);
	printf("%10s %6u B %6u B %15s %12.1f %14.1f\n", rate, b->frame_bytes,
	       payload, fps, b->ns_per_frame, b->cycles_per_frame);
}

/* The UDP payload to show for a frame of the table. */
static unsigned row_payload(const struct args *a, unsigned frame)
{
	/* A padded frame does not tell its payload: show the one given. */
	if (a->payload != NO_PAYLOAD)
		return a->payload;
	return pl_payload_for_frame(frame, a->vlan);
}

/* Print every (rate, frame) row in the chosen format. */
static void print_all(const struct args *a, const uint64_t *rates,
		      size_t nrates, const unsigned *frames, size_t nframes,
		      const struct clock_info *c)
{
	bool table = nrates * nframes > 1;
	struct pl_budget b;
	unsigned payload;
	size_t r, f;

	if (!a->json) {
		print_clock(c);
		if (table && a->vlan)
			printf("frames carry an 802.1Q tag (+4 B)\n");
		if (table)
			printf("\n%10s %8s %8s %15s %12s %14s\n", "rate",
			       "frame", "payload", "frames/s", "ns/frame",
			       "cycles/frame");
	}
	for (r = 0; r < nrates; r++) {
		if (table && !a->json && r && nframes > 1)
			putchar('\n');
		for (f = 0; f < nframes; f++) {
			pl_budget_compute(rates[r], frames[f], c->hz, &b);
			payload = row_payload(a, frames[f]);
			if (a->json)
				print_json(&b, payload, a->vlan, c);
			else if (table)
				print_row(&b, payload);
			else
				print_sentence(&b, payload, a->vlan);
		}
	}
}

/* Parse the options, then print the budget for every rate and frame. */
int main(int argc, char **argv)
{
	struct args a = { .payload = NO_PAYLOAD };
	const struct pl_opt opts[] = {
		{ .name = "rate",
		  .kind = PL_OPT_RATE,
		  .dst = &a.rate,
		  .arg = "RATE",
		  .help = "link rate, e.g. 10G, 25Gbit (default: 1G to 400G)",
		  .max = MAX_RATE },
		{ .name = "size",
		  .kind = PL_OPT_U32,
		  .dst = &a.size,
		  .arg = "BYTES",
		  .help = "Ethernet frame incl. FCS (default: 64 to 9000)",
		  .min = PL_MIN_FRAME,
		  .max = MAX_FRAME },
		{ .name = "payload",
		  .kind = PL_OPT_U32,
		  .dst = &a.payload,
		  .arg = "BYTES",
		  .help = "UDP payload instead of --size (IPv4)",
		  .min = 0,
		  .max = MAX_PAYLOAD },
		{ .name = "vlan",
		  .kind = PL_OPT_FLAG,
		  .dst = &a.vlan,
		  .help = "frames carry an 802.1Q tag (4 more bytes)" },
		{ .name = "clock",
		  .kind = PL_OPT_HZ,
		  .dst = &a.clock_hz,
		  .arg = "HZ",
		  .help = "CPU clock, e.g. 3GHz (default: measure the TSC)",
		  .max = MAX_CLOCK },
		{ .name = "json",
		  .kind = PL_OPT_FLAG,
		  .dst = &a.json,
		  .help = "one JSON object per line" },
		{ .name = NULL },
	};
	unsigned frames[ARRAY_SIZE(std_frames)];
	uint64_t rates[ARRAY_SIZE(std_rates)];
	size_t nframes, nrates;
	struct clock_info clk;
	int err;

	err = pl_opt_parse(argc, argv, opts,
			   "[--rate RATE] [--size BYTES | --payload BYTES] "
			   "[--vlan] [--clock HZ] [--json]",
			   NULL);
	if (err == PL_OPT_HELP)
		return PL_EXIT_OK;
	if (err)
		return PL_EXIT_USAGE;
	if (pick_frames(&a, frames, &nframes) ||
	    pick_rates(&a, frames, nframes, rates, &nrates))
		return PL_EXIT_USAGE;
	get_clock(&a, &clk);
	print_all(&a, rates, nrates, frames, nframes, &clk);
	/* A full disk or a closed pipe must not look like success. */
	if (fflush(stdout) || ferror(stdout))
		return PL_EXIT_FAIL;
	return PL_EXIT_OK;
}
