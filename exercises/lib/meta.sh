#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# meta.sh - the exercises' meta-test.
#
# 1. For every exercise, every graded case passes on the reference
#    solution and fails on the untouched student skeleton. A case that
#    passes on the skeleton cannot fail: a bug. A skipped case (no root,
#    no RDMA device or VM) is neither: it is reported.
# 2. The red team (exercises/solutions/cheats/): every cheat the build
#    has for the exercise is built and graded like a student's files; no
#    cheat may earn a single point. A cheat that does not build earns
#    nothing, as a student's would not.
# 3. Coverage: every exercise has a cheat that knows the answers to the
#    inputs it can see (cheats/table/NN-name/), and the generic cheat
#    that prints verdicts knows every case of every exercise. A new
#    exercise cannot land without them.
#
# It runs the tests the build already has, with the grader's own
# functions (labs/lib/grade.sh), each with a fresh seed.
#
#   MESON_BUILD_ROOT=build bash exercises/lib/meta.sh [NN...]
#   MESON_BUILD_ROOT=build bash exercises/lib/meta.sh --write-cases
#	(the red team's list of every case, after a case was added)
# shellcheck source-path=SCRIPTDIR/../..
set -u
PATHLAB_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PATHLAB_BUILD=$(cd "${MESON_BUILD_ROOT:-$PATHLAB_ROOT/build}" && pwd)
export PATHLAB_ROOT PATHLAB_BUILD
# shellcheck source=labs/lib/grade.sh
. "$PATHLAB_ROOT/labs/lib/grade.sh"

command -v jq >/dev/null || { echo "SKIP: needs jq"; exit 77; }
CASES_H=$PATHLAB_ROOT/exercises/solutions/cheats/generic/print-grade-cases.h
if [ "${1:-}" = --write-cases ]; then
	{
		echo '/* SPDX-License-Identifier: MIT */'
		echo '/* Every graded case of the lab (meta.sh --write-cases). */'
		echo 'static const struct {'
		echo '	unsigned points;'
		echo '	const char *name;'
		echo '} cases[] = {'
		for t in $(grade__tests "$PATHLAB_BUILD" solution); do
			grade__cases "$PATHLAB_BUILD" "$t" |
				awk '{ printf "\t{ %s, \"%s\" },\n", $1, $2 }'
		done
		echo '};'
	} >"$CASES_H"
	clang-format -i "$CASES_H" 2>/dev/null
	echo "wrote $CASES_H"
	exit 0
fi
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
bad=0 ok=0 skipped=0 tried=0 earned=0 t0=$SECONDS

# Grade test $1 into $work/$1 (results), built first; a test graded in
# one boot of the VM with the others of its exercise (meta__vm) is done.
meta__grade() {
	local test=$1 out=$work/$1 err
	[ -e "$out.vm" ] && return
	err=$(grade__build "$PATHLAB_BUILD" "$test" "$out.build.log")
	grade__run "$PATHLAB_BUILD" "$test" "$out" "$err"
}

# Exercise $1's tests run through run_verbs.sh (the Soft-RoCE VM): grade
# them all in one boot, results as meta__grade leaves them.
meta__vm() {
	local ex=$1 t cmd script="" grader="" w err workers=() tests=() dir
	dir=$work/$ex.vm
	for t in "$ex-solution" "$ex-student" "${cheats[@]}"; do
		case $t in "$ex"-*) ;; *) continue ;; esac
		mapfile -t cmd < <(grade__field "$PATHLAB_BUILD" "$t" '.cmd[]')
		[[ ${cmd[1]:-} == */run_verbs.sh ]] || return 0
		script=${cmd[1]} grader=${cmd[2]} w=${cmd[4]}
		err=$(grade__build "$PATHLAB_BUILD" "$t" "$work/$t.build.log")
		if [ -n "$err" ]; then
			grade__results "$PATHLAB_BUILD" "$t" "$work/$t" 0 "$err"
			touch "$work/$t.vm"
			continue
		fi
		workers+=("$w")
		tests+=("$t")
	done
	mkdir -p "$dir"
	echo "  ($ex: ${#workers[@]} workers graded in one boot of the VM)"
	(cd "$PATHLAB_BUILD" && MESON_BUILD_ROOT=$PATHLAB_BUILD bash "$script" \
		"$grader" --each "$dir" "${workers[@]}") >/dev/null 2>"$dir/vm.log"
	for t in "${tests[@]}"; do
		w=$(grade__field "$PATHLAB_BUILD" "$t" '.cmd[4]')
		if [ -e "$dir/skipped" ]; then
			cp "$dir/skipped" "$work/$t.stdout"
		else
			cp "$dir/${w##*/}.stdout" "$work/$t.stdout" 2>/dev/null ||
				: >"$work/$t.stdout"
			cp "$dir/${w##*/}.log" "$work/$t.log" 2>/dev/null
		fi
		grade__results "$PATHLAB_BUILD" "$t" "$work/$t" \
			"$(cat "$dir/${w##*/}.rc" 2>/dev/null || echo 77)"
		touch "$work/$t.vm"
	done
}

# Grade red-team test $2 of exercise $1: it must earn no point.
meta__cheat() {
	local ex=$1 test=$2 out=$work/$2 n pts why
	meta__grade "$test"
	n=$(grep -c . "$out")
	pts=$(awk '$1 == "PASS" { s += $2 } END { print s + 0 }' "$out")
	tried=$((tried + 1))
	earned=$((earned + pts))
	why=$(grep -m1 -v '^PASS ' "$out" | cut -d' ' -f4- | cut -c1-70)
	if [ "$pts" -gt 0 ]; then
		bad=$((bad + 1))
		echo "  BUG: ${test#"$ex"-} earns $pts points:" \
			"$(grep '^PASS ' "$out" | cut -d' ' -f3 | paste -sd' ')"
	elif [ "$(grep -c '^SKIP ' "$out")" -eq "$n" ]; then
		skipped=$((skipped + 1))
		echo "  ${test#"$ex"-}: skipped: $why"
	else
		echo "  ${test#"$ex"-}: 0 points of $n cases: $why"
	fi
}

# Compare the solution's and the skeleton's results of exercise $1.
meta__cases() {
	local ex=$1 s_status name s_why st_line st_status st_why verdict
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
		if ! grep -qF "\"$name\"" "$CASES_H"; then
			echo "  BUG: the red team's print-grade does not know $name ($CASES_H)"
			bad=$((bad + 1))
		fi
	done <"$work/$ex.solution"
}

mapfile -t cheats < <(grade__tests "$PATHLAB_BUILD" redteam "$@")
printf '%-40s %-8s %-8s %s\n' "exercise/case" solution skeleton verdict
for sol in "${sols[@]}"; do
	ex=${sol%-solution}
	t1=$SECONDS
	meta__vm "$ex"
	meta__grade "$sol"
	meta__grade "$ex-student"
	cp "$work/$sol" "$work/$ex.solution"
	cp "$work/$sol.seed" "$work/$ex.solution.seed" 2>/dev/null
	cp "$work/$ex-student" "$work/$ex.student"
	meta__cases "$ex"
	echo "  red team (seed $(cat "$work/$ex.solution.seed" 2>/dev/null)):"
	n=0
	for c in "${cheats[@]}"; do
		case $c in "$ex"-cheat-*) ;; *) continue ;; esac
		meta__cheat "$ex" "$c"
		n=$((n + 1))
	done
	if ! printf '%s\n' "${cheats[@]}" | grep -qx "$ex-cheat-table"; then
		echo "  BUG: no cheat that knows the answers to the inputs it sees (solutions/cheats/table/$ex/)"
		bad=$((bad + 1))
	fi
	echo "  ($ex: $n cheats, $((SECONDS - t1)) s)"
done
echo "red team: $tried cheats tried, $earned points earned (must be 0)"
echo "meta-test: ${#sols[@]} exercises; $ok cases pass on the solution" \
	"and fail on the skeleton; $skipped skipped, $bad wrong;" \
	"$((SECONDS - t0)) s"
echo "outputs: $work/"
[ "$bad" -eq 0 ]
