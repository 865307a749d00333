/* SPDX-License-Identifier: MIT */
/* Every graded case of the lab (meta.sh says when this list is stale). */
static const struct {
	unsigned points;
	const char *name;
} cases[] = {
	{ 3, "01-budget/fps_64" },
};
