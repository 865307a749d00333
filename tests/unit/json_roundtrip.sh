#!/bin/sh
# JSON round trip: what our writer and our tools print, jq reads back
# with the same values. $1 json-writer, $2 pathlab-budget, $3 pathlab-gen.
set -u
writer=$1 budget=$2 gen=$3
pass=0 fail=0

command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }

# check NAME JQ-EXPR-THAT-MUST-BE-TRUE FILE
check() {
	if jq -e "$2" "$3" >/dev/null 2>&1; then
		pass=$((pass + 1))
	else
		echo "FAIL: $1 ($2)"
		fail=$((fail + 1))
	fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$writer" > "$tmp/w.json"
check parses '.' "$tmp/w.json"
check plain '.plain == "veth"' "$tmp/w.json"
check escapes '.escaped == "quote \" backslash \\ tab \t nl \n bell \u0007"' "$tmp/w.json"
check null-string '.null_str == null' "$tmp/w.json"
check u64-max '.u64_max == 18446744073709551615' "$tmp/w.json"
check zero '.zero == 0' "$tmp/w.json"
check negative '.negative == -42' "$tmp/w.json"
check double '(.pi - 3.14159265358979 | fabs) < 1e-9' "$tmp/w.json"
check clock-precision '.clock == 2595123456' "$tmp/w.json"
check nan-is-null '.nan == null' "$tmp/w.json"
check bool '.yes == true' "$tmp/w.json"
check empty-object '.empty_obj == {}' "$tmp/w.json"
check nesting '.list == [1, {"deep": 2}, []]' "$tmp/w.json"
# Not UTF-8 in, UTF-8 out: each bad byte is U+FFFD, good sequences stay.
if iconv -f UTF-8 -t UTF-8 "$tmp/w.json" >/dev/null 2>&1; then
	pass=$((pass + 1))
else
	echo "FAIL: the writer's output is not UTF-8"
	fail=$((fail + 1))
fi
check not-utf8 '.not_utf8 == "a\ufffd b\ufffd( c\ufffd\ufffd d\ufffd\ufffd\ufffd e\u00e9 \u20ac \ud83d\ude00"' "$tmp/w.json"
# Deeper than the writer tracks: the deepest levels are null, the rest
# (and what follows) intact.
check too-deep '[.deep | .. | numbers] == [range(0; 14)] and .after_deep == 7' "$tmp/w.json"

"$budget" --rate 10G --size 64 --clock 3GHz --json > "$tmp/b.json"
check budget-fps '.frames_per_second == 14880952' "$tmp/b.json"
check budget-cycles '(.cycles_per_frame - 201.6 | fabs) < 0.01' "$tmp/b.json"
check budget-clock '.clock_hz == 3000000000' "$tmp/b.json"

# The generator's summary: 50 datagrams to a loopback port nobody reads.
"$gen" --dst 127.0.0.1 --port 9 --count 50 --size 128 --no-end --quiet \
	--json "$tmp/g.json"
check gen-sent '.sent == 50 and .send_errors == 0' "$tmp/g.json"
check gen-sizes '.frame_bytes == 128 and .payload_bytes == 82' "$tmp/g.json"
check gen-drops '.drops | type == "object"' "$tmp/g.json"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
