/* SPDX-License-Identifier: MIT */
/* Writes a JSON document with every kind of value; json_roundtrip.sh reads
 * it back with jq and compares each value with what was written. */
#include "json.h"

#include <math.h>
#include <stdint.h>

int main(void)
{
	struct pl_json j;
	int i;

	pl_json_init(&j, stdout, true);
	pl_json_obj(&j, NULL);
	pl_json_str(&j, "plain", "veth");
	pl_json_str(&j, "escaped",
		    "quote \" backslash \\ tab \t nl \n bell \a");
	pl_json_str(&j, "null_str", NULL);
	pl_json_u64(&j, "u64_max", UINT64_MAX);
	pl_json_u64(&j, "zero", 0);
	pl_json_i64(&j, "negative", -42);
	pl_json_dbl(&j, "pi", 3.14159265358979);
	pl_json_dbl(&j, "clock", 2595123456.0);
	pl_json_dbl(&j, "nan", NAN);
	pl_json_bool(&j, "yes", true);
	pl_json_obj(&j, "empty_obj");
	pl_json_end(&j);
	pl_json_arr(&j, "list");
	pl_json_u64(&j, NULL, 1);
	pl_json_obj(&j, NULL);
	pl_json_u64(&j, "deep", 2);
	pl_json_end(&j);
	pl_json_arr(&j, NULL);
	pl_json_endarr(&j);
	pl_json_endarr(&j);
	/* Bytes that are not UTF-8: a lone 0xff, a cut sequence, an
	 * overlong '/', a surrogate; and good two-, three-, four-byte ones. */
	pl_json_str(&j, "not_utf8",
		    "a\xff b\xc3( c\xc0\xaf d\xed\xa0\x80 e\xc3\xa9 "
		    "\xe2\x82\xac \xf0\x9f\x98\x80");
	/* 20 arrays deep, past PL_JSON_DEPTH: still one valid document. */
	pl_json_arr(&j, "deep");
	for (i = 0; i < 20; i++) {
		pl_json_u64(&j, NULL, (uint64_t)i);
		pl_json_arr(&j, NULL);
	}
	for (i = 0; i < 20; i++)
		pl_json_endarr(&j);
	pl_json_endarr(&j);
	pl_json_u64(&j, "after_deep", 7);
	pl_json_end(&j);
	pl_json_done(&j);
	return 0;
}
