#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests for pathlab-budget; $1 is the binary.
# The RFC 5180 Appendix A frame rates, the table forms, --json, and the
# one-line errors with exit status 2 for bad arguments.

bin=${1:?usage: budget_cli.sh PATH-TO-pathlab-budget}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() {
	pass=$((pass + 1))
}

bad() {
	echo "FAIL: $*" >&2
	fail=$((fail + 1))
}

# run ARGS...: run the binary, stdout in $tmp/out, stderr in $tmp/err.
run() {
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# expect TEXT ARGS...: exit 0 and TEXT somewhere in stdout.
expect() {
	text=$1
	shift
	run "$@"
	if [ "$rc" -ne 0 ]; then
		bad "$* exited $rc: $(cat "$tmp/err")"
	elif ! grep -qF -- "$text" "$tmp/out"; then
		bad "$* does not print '$text':"
		cat "$tmp/out" >&2
	else
		ok
	fi
}

# usage_error NAME ARGS...: exit 2, nothing on stdout, one stderr line
# that names the argument NAME.
usage_error() {
	name=$1
	shift
	run "$@"
	if [ "$rc" -ne 2 ]; then
		bad "$* exited $rc, expected 2"
	elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
		bad "$* wrote $(wc -l <"$tmp/err") lines to stderr, expected 1"
	elif ! grep -qF -- "$name" "$tmp/err"; then
		bad "$* error does not name $name: $(cat "$tmp/err")"
	elif [ -s "$tmp/out" ]; then
		bad "$* wrote to stdout"
	else
		ok
	fi
}

# same ARGS1 -- ARGS2: both print the same output.
same() {
	a=""
	while [ "$1" != "--" ]; do
		a="$a $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # the words of $a are separate arguments
	"$bin" $a >"$tmp/a" 2>&1
	"$bin" "$@" >"$tmp/b" 2>&1
	if cmp -s "$tmp/a" "$tmp/b"; then
		ok
	else
		bad "'$a' and '$*' differ"
		diff "$tmp/a" "$tmp/b" >&2
	fi
}

# RFC 5180 Appendix A, and the budget at a given clock.
expect "14,880,952 frames/s" --rate 10G --size 64
expect "67.2 ns" --rate 10G --size 64
expect "812,743 frames/s" --rate 10G --size 1518
expect "148,809,523 frames/s" --rate 100G --size 64
expect "81,274 frames/s" --rate 1G --size 1518
expect "1,488,095 frames/s" --rate 1G --size 64
expect "201.6 cycles" --rate 10G --size 64 --clock 3GHz
expect "clock 3.00 GHz (given)" --rate 10G --size 64 --clock 3GHz
expect "14,880,952" --rate=10Gbit --size=64 --clock=2400MHz
expect "clock " --rate 10G --size 64

# --payload: 18 B is the minimum frame, 1000 B with a tag is 1050 B.
same --rate 10G --size 64 --clock 3GHz -- --rate 10G --payload 18 --clock 3GHz
expect "1,168,224 frames/s" --rate 10G --size 1050 --clock 3GHz
expect "1,168,224 frames/s" --rate 10G --payload 1000 --vlan --clock 3GHz
expect "1050 B tagged frames" --rate 10G --payload 1000 --vlan --clock 3GHz

# The table forms: every standard size, every standard rate, or both.
run --rate 10G --clock 3GHz
for s in 64 128 256 512 1024 1280 1518 9000; do
	if grep -qE "^ *10 Gb/s +$s B " "$tmp/out"; then
		ok
	else
		bad "--rate 10G has no row for $s B"
	fi
done
run --size 64 --clock 3GHz
for r in 1 10 25 40 100 200 400; do
	if grep -qE "^ *$r Gb/s +64 B " "$tmp/out"; then
		ok
	else
		bad "--size 64 has no row for $r Gb/s"
	fi
done
expect "14,880,952" --size 64 --clock 3GHz
run --clock 3GHz
if [ "$(grep -cE ' Gb/s +[0-9]+ B ' "$tmp/out")" -eq 56 ]; then
	ok
else
	bad "the full table does not have 7 x 8 rows"
fi

# --json: one object per row.
run --json --clock 3GHz
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 56 ]; then
	ok
else
	bad "--json does not print 56 lines"
fi
expect '"frames_per_second":14880952' --json --rate 10G --size 64
if command -v jq >/dev/null 2>&1; then
	run --json --clock 3GHz
	v=$(jq -s -r 'map(select(.rate_bps == 10000000000
		and .frame_bytes == 64))[0].frames_per_second' "$tmp/out")
	if [ "$v" = 14880952 ]; then ok; else bad "jq: 10G/64 is '$v'"; fi
	v=$(jq -r 'has("rate_bps") and has("frame_bytes")
		and has("frames_per_second") and has("ns_per_frame")
		and has("cycles_per_frame") and has("clock_hz")
		and .clock_source == "given"' "$tmp/out" | sort -u)
	if [ "$v" = true ]; then ok; else bad "jq: keys missing: $v"; fi
	run --json --rate 10G --size 64
	v=$(jq -r '.clock_source' "$tmp/out")
	case $v in
	tsc | ns) ok ;;
	*) bad "jq: measured clock_source is '$v'" ;;
	esac
else
	echo "jq not found: skipping the JSON parse checks"
fi

# Bad arguments: exit 2 and one line that names the argument.
usage_error --rate --rate -5G
usage_error --rate --rate 0
usage_error --rate --rate abc
usage_error --rate --rate 10Q
usage_error --rate --rate 10G5
usage_error --rate --rate 100 --size 64
# Past any link there is (2^64 - 1 b/s printed as 18 Eb/s, exit 0).
usage_error --rate --rate 18446744073709551615
usage_error --rate --rate 17T
usage_error --clock --clock 1e12Hz
usage_error --size --size 0
usage_error --size --size -1
usage_error --size --size x
usage_error --size --size 16385
usage_error --clock --clock 0
usage_error --clock --clock fast
usage_error --payload --payload 18 --size 64
usage_error --payload --payload -1
usage_error --bogus --bogus
usage_error --rate --rate

run --help
if [ "$rc" -eq 0 ] && grep -q -- "--rate" "$tmp/out"; then
	ok
else
	bad "--help exited $rc"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
