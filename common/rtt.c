/* SPDX-License-Identifier: MIT */
#include "rtt.h"
#include "json.h"

void pl_rtt_account(struct pl_rtt *r, bool warmup, enum pl_pong got,
		    uint64_t rtt_ns)
{
	if (got == PL_PONG_STOPPED || got == PL_PONG_FAILED)
		return;
	if (warmup) {
		r->warmup++;
		r->warmup_timeouts += got == PL_PONG_TIMEOUT;
	} else if (got == PL_PONG_OK) {
		pl_hist_record(&r->hist, rtt_ns);
	} else {
		r->timeouts++;
	}
}

void pl_rtt_json(struct pl_json *j, const struct pl_rtt *r, const char *note)
{
	const struct pl_hist *h = &r->hist;

	pl_json_obj(j, "rtt");
	pl_json_str(j, "kind", "round_trip");
	pl_json_u64(j, "samples", h->count);
	pl_json_u64(j, "warmup", r->warmup);
	pl_json_u64(j, "warmup_timeouts", r->warmup_timeouts);
	pl_json_u64(j, "timeouts", r->timeouts);
	pl_json_u64(j, "late", r->late);
	pl_json_u64(j, "mismatched", r->mismatched);
	pl_json_u64(j, "recv_errors", r->recv_errors);
	pl_json_bool(j, "gave_up", r->gave_up);
	pl_json_u64(j, "min_ns", h->count ? h->min : 0);
	pl_json_dbl(j, "mean_ns", h->count ? pl_hist_mean(h) : 0);
	pl_json_u64(j, "p50_ns", pl_hist_percentile(h, 50));
	pl_json_u64(j, "p99_ns", pl_hist_percentile(h, 99));
	pl_json_u64(j, "p999_ns", pl_hist_percentile(h, 99.9));
	pl_json_u64(j, "max_ns", h->count ? h->max : 0);
	pl_json_str(j, "note", note);
	pl_json_end(j);
}

void pl_rtt_print(FILE *f, const char *prog, const struct pl_rtt *r)
{
	const struct pl_hist *h = &r->hist;

	fprintf(f,
		"%s: round trip over %llu pings (+%llu warm-up): min %.1f "
		"p50 %.1f p99 %.1f p99.9 %.1f max %.1f us; %llu timeouts, "
		"%llu late, %llu mismatched%s\n",
		prog, (unsigned long long)h->count,
		(unsigned long long)r->warmup,
		(double)(h->count ? h->min : 0) / 1e3,
		(double)pl_hist_percentile(h, 50) / 1e3,
		(double)pl_hist_percentile(h, 99) / 1e3,
		(double)pl_hist_percentile(h, 99.9) / 1e3,
		(double)(h->count ? h->max : 0) / 1e3,
		(unsigned long long)r->timeouts, (unsigned long long)r->late,
		(unsigned long long)r->mismatched,
		r->gave_up ? "; gave up: no replies (is the receiver running "
			     "with --reflect?)"
			   : "");
}
