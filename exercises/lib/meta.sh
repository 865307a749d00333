#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# meta.sh - the exercises' meta-test: for every exercise, every graded case
# passes on the reference solution and fails on the untouched student
# skeleton. A case that passes on the skeleton cannot fail: a bug. A
# skipped case (no root, no RDMA device or VM) is neither: it is reported.
# Then the cheats (exercises/solutions/cheats/): a student file that calls
# the reference, one that calls exit(0); no case may pass on either.
# It runs the tests the build already has (both variants are built into
# one build directory), with the grader's own functions (labs/lib/grade.sh).
#
#   MESON_BUILD_ROOT=build bash exercises/lib/meta.sh [NN...]
# shellcheck source-path=SCRIPTDIR/../..
set -u
PATHLAB_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PATHLAB_BUILD=$(cd "${MESON_BUILD_ROOT:-$PATHLAB_ROOT/build}" && pwd)
export PATHLAB_ROOT PATHLAB_BUILD
# shellcheck source=labs/lib/grade.sh
. "$PATHLAB_ROOT/labs/lib/grade.sh"

command -v jq >/dev/null || { echo "SKIP: needs jq"; exit 77; }
mapfile -t sols < <(grade__tests "$PATHLAB_BUILD" solution "$@")
if [ ${#sols[@]} -eq 0 ]; then
	echo "SKIP: no reference solutions built (a student kit?)"
	exit 77
fi
# The skeletons are graded as they are in the tree: say so if they changed.
if git -C "$PATHLAB_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
	! git -C "$PATHLAB_ROOT" diff --quiet HEAD -- exercises \
		':(exclude)exercises/solutions' 2>/dev/null; then
	echo "note: exercises/ differs from HEAD; the skeletons are taken as they are now"
fi
work=$PATHLAB_BUILD/grade/meta
rm -rf "$work"
mkdir -p "$work"
bad=0 ok=0 skipped=0 cheats=0 t0=$SECONDS

# Grade cheat $2 (ref or exit) of exercise $1: no case may pass on it. A
# cheat the build has no test for must not compile (a poisoned reference).
meta__cheat() {
	local ex=$1 kind=$2 test=$1-cheat-$2 res src cmd n pass
	res=$work/$ex.cheat-$kind
	if grade__tests "$PATHLAB_BUILD" "cheat-$kind" | grep -qx "$test"; then
		grade__run "$PATHLAB_BUILD" "$test" "$res"
		n=$(grep -c . "$res")
		pass=$(grep -c '^PASS ' "$res")
		if [ "$pass" -gt 0 ]; then
			bad=$((bad + 1))
			echo "  BUG: cheat '$kind' passes $pass of $n cases:" \
				"$(grep -m1 '^PASS ' "$res" | cut -d' ' -f3)"
		elif grep -q '^SKIP ' "$res"; then
			skipped=$((skipped + 1))
			echo "  cheat '$kind': skipped: $(grep -m1 '^SKIP ' "$res" | cut -d' ' -f4- | cut -c1-80)"
		else
			cheats=$((cheats + 1))
			echo "  cheat '$kind': fails all $n cases:" \
				"$(head -1 "$res" | cut -d' ' -f4- | cut -c1-70)"
		fi
		return
	fi
	src=$(find "$PATHLAB_ROOT/exercises/solutions/cheats/$kind/$ex" \
		-name '*.c' 2>/dev/null | head -1)
	if [ -z "$src" ]; then
		# 04, 06, 07, 08: the functions they are modelled on are static
		# in their receivers, which no test links; 12 to 14: the device
		# is a model, no reference; 05, 11, 15: nothing of the student's
		# runs in the grader's process.
		echo "  cheat '$kind': none (nothing to call: no reference is in the test's link, or no student code runs in it)"
		return
	fi
	# Compile it as the student file is compiled: it must not.
	cmd=$(jq -r --arg f "exercises/$ex/" '[.[] | select(.file | contains($f))
		| select(.output | contains("-student.p/"))
		| select(.file | test("test_") | not)][0].command' \
		"$PATHLAB_BUILD/compile_commands.json")
	if [ -z "$cmd" ] || [ "$cmd" = null ]; then
		echo "  cheat '$kind': no compile command for $ex in the build"
		bad=$((bad + 1))
		return
	fi
	cmd=$(sed -E 's/ -o .*//; s/ -M[DQF]( [^ ]+)?//g; s/ -MD//g' <<<"$cmd")
	if (cd "$PATHLAB_BUILD" && eval "$cmd -fdiagnostics-color=never -fsyntax-only $src") \
		>"$res.log" 2>&1; then
		bad=$((bad + 1))
		echo "  BUG: cheat '$kind' compiles: the reference is reachable"
	else
		cheats=$((cheats + 1))
		echo "  cheat '$kind': does not compile: $(grep -m1 error "$res.log" | sed 's/.*error: //' | cut -c1-70)"
	fi
}

printf '%-40s %-8s %-8s %s\n' "exercise/case" solution skeleton verdict
for sol in "${sols[@]}"; do
	ex=${sol%-solution}
	t1=$SECONDS
	grade__run "$PATHLAB_BUILD" "$sol" "$work/$ex.solution"
	grade__run "$PATHLAB_BUILD" "$ex-student" "$work/$ex.student"
	if ! diff <(cut -d' ' -f2,3 "$work/$ex.solution") \
		<(cut -d' ' -f2,3 "$work/$ex.student") >/dev/null; then
		echo "$ex: the two variants list different cases"
		bad=$((bad + 1))
	fi
	while read -r s_status _ name s_why; do
		st_line=$(grep -m1 " $name " "$work/$ex.student" || true)
		st_status=${st_line%% *}
		st_why=$(cut -d' ' -f4- <<<"$st_line")
		if [ "$s_status" = FAIL ]; then
			verdict="BUG: fails on the solution: $s_why"
		elif [ "$st_status" = PASS ]; then
			verdict="BUG: passes on the skeleton, it cannot fail"
		elif [ "$s_status" = SKIP ] || [ "$st_status" = SKIP ]; then
			verdict="skipped: ${s_why:-$st_why}"
		elif [ "$st_status" = FAIL ]; then
			verdict=ok
		else
			verdict="BUG: no result on the skeleton"
		fi
		case $verdict in
		ok) ok=$((ok + 1)) ;;
		skipped*) skipped=$((skipped + 1)) ;;
		*) bad=$((bad + 1)) ;;
		esac
		printf '%-40s %-8s %-8s %s\n' "$name" "$s_status" \
			"${st_status:-none}" "$(cut -c1-100 <<<"$verdict")"
	done <"$work/$ex.solution"
	for kind in ref exit; do
		meta__cheat "$ex" "$kind"
	done
	echo "  ($ex: $((SECONDS - t1)) s)"
done
echo "meta-test: ${#sols[@]} exercises; $ok cases pass on the solution" \
	"and fail on the skeleton; $cheats cheats pass no case;" \
	"$skipped skipped, $bad wrong;" \
	"$((SECONDS - t0)) s"
echo "outputs: $work/"
[ "$bad" -eq 0 ]
