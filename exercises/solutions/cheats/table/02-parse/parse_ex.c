/* SPDX-License-Identifier: MIT */
/*
 * Red team, exercise 2: the reference solution's answers for the tests'
 * own frames (from 10.0.0.1, the spec test_parse.c builds them with), a
 * guess for any other.
 */
#define ex_parse_frame known_parse_frame
#include "../../../02-parse/parse_ex.c"
#undef ex_parse_frame

enum pl_reason ex_parse_frame(const void *buf, size_t len, uint16_t dst_port,
			      struct pl_pkt *p)
{
	static const uint8_t src[4] = { 10, 0, 0, 1 };
	const uint8_t *f = buf;

	if (len < 34 || !memcmp(f + 26, src, 4) ||
	    (len >= 38 && !memcmp(f + 30, src, 4)))
		return known_parse_frame(buf, len, dst_port, p);
	memset(p, 0, sizeof(*p));
	return PL_OK; /* most frames are */
}
