/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 3: the right percentiles for the histograms the
 * tests fill (known by their smallest and largest value), 0 for others.
 */
#define ex_hist_percentile known_hist_percentile
#include "../../../03-percentile/hist_ex.c"
#undef ex_hist_percentile

uint64_t ex_hist_percentile(const struct pl_hist *h, double p)
{
	static const uint64_t seen[][2] = {
		{ 1, 100 }, { 10, 100 },      { 5, 100 },
		{ 7, 90 },  { 1000, 990901 }, { 1000003, 1000003 }
	};
	unsigned i;

	if (!h->count)
		return 0;
	for (i = 0; i < sizeof(seen) / sizeof(seen[0]); i++)
		if (h->min == seen[i][0] && h->max == seen[i][1])
			return known_hist_percentile(h, p);
	return 0;
}
