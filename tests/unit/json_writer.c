/* SPDX-License-Identifier: MIT */
/* Writes a JSON document with every kind of value; json_roundtrip.sh reads
 * it back with jq and compares each value with what was written. */
#include "json.h"

#include <math.h>
#include <stdint.h>

int main(void)
{
	struct pl_json j;

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
	pl_json_end(&j);
	pl_json_done(&j);
	return 0;
}
