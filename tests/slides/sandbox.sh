#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Chromium renders the decks in its sandbox, as root too: while
# `pathlab slides` prints a page to PDF (slides__pdf, labs/lib/slides.sh),
# every renderer process it starts runs as a user other than root, under a
# seccomp filter, in a PID namespace of its own, and no Chromium process
# has --no-sandbox. The page spins for a few seconds so its renderer can
# be looked at. Exit 77 without chromium. About 10 s.
set -u
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
# shellcheck source=../../labs/lib/slides.sh
. "$ROOT/labs/lib/slides.sh"
command -v chromium >/dev/null 2>&1 ||
	{ echo "SKIP: chromium is not installed"; exit 77; }
tmp=$(mktemp -d) || exit 99
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
bad() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

cat >"$tmp/spin.html" <<'EOF'
<!doctype html><html><body><p>spin</p><script>
var t = Date.now(); while (Date.now() < t + 6000) {}
</script></body></html>
EOF

# Every process under process $1, one PID a line.
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}

slides__pdf "$tmp" spin >/dev/null 2>&1 &
pid=$!
renderers=0 browsers=0
for ((i = 0; i < 100 && renderers == 0; i++)); do
	sleep 0.1
	for p in $(descendants "$pid"); do
		cmd=$(tr '\0' ' ' 2>/dev/null </proc/"$p"/cmdline) || continue
		case $cmd in
		*chromium*--type=renderer*) ;;
		*chromium*--type=*) continue ;;
		*/chromium/chromium*)
			browsers=$((browsers + 1))
			[[ $cmd == *--no-sandbox* ]] && bad "browser $p: $cmd"
			continue ;;
		*) continue ;;
		esac
		renderers=$((renderers + 1))
		uid=$(awk '/^Uid:/ { print $2 }' /proc/"$p"/status)
		seccomp=$(awk '/^Seccomp:/ { print $2 }' /proc/"$p"/status)
		nspid=$(awk '/^NSpid:/ { print NF - 1 }' /proc/"$p"/status)
		echo "renderer $p: uid $uid, seccomp $seccomp, PID namespaces $nspid"
		[ "$uid" != 0 ] || bad "renderer $p runs as root"
		[ "$seccomp" = 2 ] || bad "renderer $p has no seccomp filter"
		[ "${nspid:-1}" -ge 2 ] || bad "renderer $p shares our PID namespace"
		[[ $cmd == *--no-sandbox* ]] && bad "renderer $p: --no-sandbox"
	done
done
[ "$renderers" -gt 0 ] || bad "no renderer seen ($browsers browser processes)"
wait "$pid"
pid=
echo "$renderers renderers checked, $fails failures"
[ "$fails" -eq 0 ]
