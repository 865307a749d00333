#!/bin/sh
# SPDX-License-Identifier: MIT
# The files the tools write (common/out.h), as a root tool must write them
# into folders other users may own: a symbolic link at the name is refused,
# never followed (a link used to overwrite its target, a dangling one to
# create a file where it pointed); a folder that is not there fails before
# the run, not after it; a write that fails (here a file size limit) fails
# the run, names the file, and leaves the old file whole. Loopback only,
# no root needed. $1 pathlab-rx-socket, $2 pathlab-gen.
set -u
rx=$1 gen=$2
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
port=$((20000 + $$ % 20000))

ok() {
	pass=$((pass + 1))
}

bad() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}

# expect NAME RC TEXT CMD...: CMD exits RC and says TEXT on stderr.
expect() {
	name=$1 want=$2 text=$3
	shift 3
	timeout 30 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -qF -- "$text" "$tmp/err"; then
		ok
	else
		bad "$name: exit $rc (want $want), stderr: $(head -c 300 "$tmp/err")"
	fi
}

# same NAME FILE TEXT: FILE holds exactly TEXT.
same() {
	if [ "$(cat "$2" 2>/dev/null)" = "$3" ]; then
		ok
	else
		bad "$1: $2 holds '$(head -c 100 "$2" 2>/dev/null)'"
	fi
}

echo secret >"$tmp/target"
ln -s "$tmp/target" "$tmp/link"
ln -s "$tmp/made-by-link" "$tmp/dangling"
RX="$rx --bind 127.0.0.1 --port $port --iface lo --duration 20 --quiet"

# Links at the name: refused at once (exit 2), the target untouched.
for opt in --json --ready --trace-file; do
	# shellcheck disable=SC2086
	expect "rx $opt link" 2 "symbolic link" $RX --trace 1 $opt "$tmp/link"
	# shellcheck disable=SC2086
	expect "rx $opt dangling link" 2 "symbolic link" \
		$RX --trace 1 $opt "$tmp/dangling"
done
expect "gen --json link" 2 "symbolic link" \
	"$gen" --dst 127.0.0.1 --port "$port" --count 1 --quiet \
	--json "$tmp/link"
same "link target" "$tmp/target" secret
if [ -e "$tmp/made-by-link" ]; then
	bad "a dangling link made $tmp/made-by-link"
else
	ok
fi

# A folder that is not there, or a folder as the file: refused before the
# run (--duration 20 would take 20 s), naming the file.
t0=$(date +%s)
# shellcheck disable=SC2086
expect "rx --json in a missing folder" 2 "$tmp/none/x.json" \
	$RX --json "$tmp/none/x.json"
# shellcheck disable=SC2086
expect "rx --json a folder" 2 "a folder" $RX --json "$tmp"
expect "gen --json in a missing folder" 2 "$tmp/none/g.json" \
	"$gen" --dst 127.0.0.1 --port "$port" --count 100000 --rate 10 \
	--quiet --json "$tmp/none/g.json"
if [ $(($(date +%s) - t0)) -lt 15 ]; then
	ok
else
	bad "the refusals took $(($(date +%s) - t0)) s: they waited for a run"
fi

# A write that fails: exit 1 naming the file, the old file whole, no new
# file left behind. ulimit -f is in 512- or 1024-byte blocks; the JSON of a
# run is several kilobytes.
echo old >"$tmp/run.json"
(
	ulimit -f 1
	exec $RX --duration 0.3 --json "$tmp/run.json"
) 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -qF -- "--json $tmp/run.json" "$tmp/err"; then
	ok
else
	bad "write past ulimit -f: exit $rc: $(head -c 300 "$tmp/err")"
fi
same "old file kept" "$tmp/run.json" old
left=$(find "$tmp" -name '.pl-*' | head -n 1)
[ -z "$left" ] && ok || bad "left behind: $left"
(
	ulimit -f 1
	exec "$gen" --dst 127.0.0.1 --port "$port" --count 1 --quiet \
		--json "$tmp/gen.json"
) 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -qF -- "$tmp/gen.json" "$tmp/err" && ok ||
	bad "gen write past ulimit -f: exit $rc: $(head -c 300 "$tmp/err")"

# A good run replaces the file whole; as root, the old file's owner stays.
echo old >"$tmp/run.json"
[ "$(id -u)" -eq 0 ] && chown 4242:4343 "$tmp/run.json"
# shellcheck disable=SC2086
$RX --duration 0.3 --json "$tmp/run.json" 2>"$tmp/err" ||
	bad "rx run: $(head -c 300 "$tmp/err")"
if grep -q '"tool": "pathlab-rx-socket"' "$tmp/run.json"; then
	ok
else
	bad "run.json was not written: $(head -c 100 "$tmp/run.json")"
fi
if [ "$(id -u)" -eq 0 ]; then
	[ "$(stat -c %u:%g "$tmp/run.json")" = 4242:4343 ] && ok ||
		bad "run.json changed hands: $(stat -c %u:%g "$tmp/run.json")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
