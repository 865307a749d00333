#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The hostile-input sweep: every option of every program (read from its
# --help), given each of a set of hostile values, ends the program at
# parse time with exit 2 and a one-line error that names the option (or,
# where the value is acceptable, the unknown option put after it, so that
# nothing ever runs). No crash, no sanitizer report, no file left
# behind, no command in a value run. The DPDK receiver's EAL arguments get
# hostile devargs its guard must refuse. Arguments: the programs
# (pathlab-gen, -budget, -rx-socket, -rx-xsk, -rx-dpdk, -rx-verbs,
# -tx-verbs), "none" for one that is not built. Cost: some 2,300 runs of
# 3-17 ms of CPU each, 20-40 s on two cores (longer under a sanitizer or
# a loaded machine).
set -u
progs=()
for p in "$@"; do
	[ "$p" = none ] || progs+=("$(readlink -f "$p")")
done
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/work" && cd "$tmp/work" || exit 99
pass=0 fail=0 runs=0
END=--sweep-end-of-options

long=$(printf 'A%.0s' {1..5000})
values=('' '-1' '1e400' 'nan' '0x10' '18446744073709551616' '4294967296'
	'x' '%s%n%s%n' '$(touch PWNED)' '`touch PWNED`' 'lo,iface=lo'
	$'a\nb' $'\x01\x7f' "$long" '--help')

# run WANT PROG ARGS...: PROG exits 2 at parse time, its error names WANT
# (or $ALT: END, when the value may be acceptable), nothing went wrong.
# Only the program is started (no timeout, grep or wc per run): the suite's
# timeout bounds a program that would hang.
run() {
	local want=$1 rc err
	shift
	runs=$((runs + 1))
	"$@" >/dev/null 2>"$tmp/err" </dev/null
	rc=$?
	err=$(<"$tmp/err")
	if [ $rc -eq 2 ] && [ -n "$err" ] &&
		[[ $err != *$'\n'*$'\n'*$'\n'* ]] &&
		{ [[ $err == *"$want"* ]] ||
			{ [ -n "${ALT:-}" ] && [[ $err == *"$ALT"* ]]; }; } &&
		[[ $err != *Sanitizer* && $err != *"runtime error"* ]]; then
		pass=$((pass + 1))
		return 0
	fi
	fail=$((fail + 1))
	[ $fail -le 40 ] && echo "FAIL: exit $rc: $(printf '%.60s ' "$@")...:" \
		"${err:0:300}"
	return 1
}

# The options of PROG from its --help: "NAME ARG" or "NAME" per line.
options() {
	"$1" --help 2>/dev/null |
		sed -n 's/^  --\([a-z0-9-]*\)\( [A-Z][A-Z]*\)\{0,1\} .*/\1\2/p' |
		grep -v '^help$'
}

# sweep PROG: every option, every value.
sweep() {
	local prog=$1 name arg v opts
	mapfile -t opts < <(options "$prog")
	if [ ${#opts[@]} -lt 3 ]; then
		fail=$((fail + 1))
		echo "FAIL: $prog --help lists ${#opts[@]} options"
		return
	fi
	for o in "${opts[@]}"; do
		name=${o%% *} arg=${o#* }
		if [ "$arg" = "$o" ]; then
			# A flag: a value is refused; alone, the next option is.
			run "--$name" "$prog" "--$name=1" "$END"
			run "$END" "$prog" "--$name" "$END"
			continue
		fi
		run "--$name" "$prog" "--$name"
		# An acceptable value: the end option is what is refused.
		for v in "${values[@]}"; do
			ALT=$END run "--$name" "$prog" "--$name" "$v" "$END"
		done
	done
}

for prog in "${progs[@]}"; do
	sweep "$prog"
done

# The DPDK receiver's EAL arguments: devices its guard must refuse before
# EAL starts (in this namespace nothing may be taken over).
for prog in "${progs[@]}"; do
	case $prog in */pathlab-rx-dpdk) ;; *) continue ;; esac
	for v in "net_evil0" "net_af_packet0,bogus=1" "net_af_packet0,iface" \
		"net_af_packet0,iface=$long" "net_tap0,remote=lo,x=[" \
		"net_af_packet0,iface=lo,iface=\$(touch PWNED)" \
		"bus=vdev/driver=net_tap" "$long" "" "pci:zz:zz.z" \
		"net_null0$(printf ',size=1%.0s' {1..40})"; do
		run "refusing EAL argument" "$prog" --no-pci --vdev "$v" -- \
			--count 1
	done
	run "refusing EAL argument" "$prog" --no-pci --vdev -- --count 1
	run "refusing EAL argument" "$prog" --no-such-option -- --count 1
	run "neither --no-pci nor -a" "$prog" -l 0 -- --count 1
done

if [ -n "$(ls -A)" ]; then
	echo "FAIL: the sweep left files behind: $(ls -A | head -5)"
	fail=$((fail + 1))
fi
echo "$runs runs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
