# shellcheck shell=bash
# grade.sh - `pathlab grade` and `pathlab student-kit`.
#
# A graded test is a meson test in the suite exercises-student (built from
# the student files) or exercises-solution (from exercises/solutions/). It
# prints one line per case, and with --list every case it has:
#
#   GRADE PASS|FAIL|SKIP POINTS EXERCISE/CASE [why]
#   CASE POINTS EXERCISE/CASE WHAT
#
# grade builds what the chosen tests need (each exercise on its own, so one
# that does not compile fails alone), runs them, prints a score table and
# writes JUnit XML. A case a test does not report (it crashed, timed out,
# did not build) counts as failed. exercises/lib/meta.sh, the meta-test,
# runs the same functions on both variants.
#
# student-kit exports the lab without exercises/solutions/, its build
# switch turned to -Dexercises=student.
#
# Needs deps.sh sourced (deps__quiet), PATHLAB_ROOT and PATHLAB_BUILD.

# Print the usage of pathlab grade.
grade__usage() {
	cat <<EOF
usage: pathlab grade [--solutions] [--seed N] [--junit FILE] [--strict] [NN...]

Build the exercises' student files, run their graded tests, print the
points of every case and the total, and write JUnit XML. NN picks
exercises by number (01, 7) or name (02-parse); default: all.

Each run adds inputs drawn from a fresh seed to every case's fixed ones;
the table says each exercise's seed, and --seed replays it.

  --solutions   grade the reference solutions instead (exit 0 expected)
  --seed N      draw the inputs from seed N (a failure's, to replay it)
  --junit FILE  JUnit XML here (default: BUILD/grade/junit-VARIANT.xml)
  --strict      a skipped case counts as failed
  --list        list the exercises' cases and points, run nothing

The code under test runs as its own unprivileged user (nobody, when
graded as root) in a sandbox, apart from the grader that judges it; a
grade for the record is made as root in a tree of the lab's own (the
student's files copied in).

Exit status: 0 when no case failed (skipped cases are reported: some need
root, the XDP ones and the lab run, or an RDMA device or the Soft-RoCE
VM), 1 when one did, 2 on a usage or build directory error.
Build directory: \$PATHLAB_BUILD (default build/).
EOF
}

# Print the names of the tests in suite exercises-$2 of build directory
# $1, only those of the exercises named in $3... if any (01, 1, 01-budget).
grade__tests() {
	local dir=$1 variant=$2 name nn
	shift 2
	jq -r --arg s "exercises-$variant" \
		'.[] | select(.suite | map(sub("^[^:]*:"; "")) | index($s))
		 | .name' "$dir/meson-info/intro-tests.json" |
		while read -r name; do
			[ $# -eq 0 ] && { echo "$name"; continue; }
			for nn in "$@"; do
				[[ $nn =~ ^[0-9]$ ]] && nn=0$nn
				case $name in
				"$nn"-*) echo "$name"; break ;;
				esac
			done
		done
}

# Print one field ($3, a jq path) of test $2 of build directory $1.
grade__field() {
	jq -r --arg t "$2" ".[] | select(.name == \$t) | $3" \
		"$1/meson-info/intro-tests.json"
}

# Print the ninja targets (paths inside build directory $1) test $2 needs:
# its dependencies, and the programs it names that the build makes (a
# red-team cheat's worker, built only when graded).
grade__targets() {
	local dir=$1 f
	{
		jq -r --arg t "$2" --slurpfile tg "$dir/meson-info/intro-targets.json" \
			'(.[] | select(.name == $t) | .depends) as $d
			 | $tg[0][] | select(.id as $id | $d | index($id)) | .filename[]' \
			"$dir/meson-info/intro-tests.json"
		jq -r --arg t "$2" --arg d "$dir/" --slurpfile tg "$dir/meson-info/intro-targets.json" \
			'[$tg[0][].filename[]] as $all
			 | .[] | select(.name == $t) | .cmd[]
			 | select(startswith($d)) | select(. as $f | $all | index($f))' \
			"$dir/meson-info/intro-tests.json"
	} | sort -u | while read -r f; do echo "${f#"$dir"/}"; done
}

# Build what test $2 of build directory $1 needs; on failure print the
# first compiler error (the whole log is in $3).
grade__build() {
	local dir=$1 test=$2 log=$3 targets
	mapfile -t targets < <(grade__targets "$dir" "$test")
	[ ${#targets[@]} -gt 0 ] || return 0
	ninja -C "$dir" "${targets[@]}" >"$log" 2>&1 && return 0
	grep -m1 -E 'error|undefined reference' "$log" |
		sed 's/\x1b\[[0-9;]*m//g' | cut -c1-200
	return 1
}

# Print the cases of test $2 ("POINTS EXERCISE/CASE WHAT" lines), from the
# test itself, else from the last time it could say (cached in $1/grade).
grade__cases() {
	local dir=$1 test=$2 cache=$1/grade/cases/$2 tcmd tenv out
	mapfile -t tcmd < <(grade__field "$dir" "$test" '.cmd[]')
	mapfile -t tenv < <(grade__field "$dir" "$test" \
		'.env | to_entries[] | "\(.key)=\(.value)"')
	out=$(cd "$dir" && env "${tenv[@]}" "${tcmd[@]}" --list 2>/dev/null |
		sed -n 's/^CASE //p')
	if [ -n "$out" ]; then
		mkdir -p "${cache%/*}"
		printf '%s\n' "$out" >"$cache"
		printf '%s\n' "$out"
	elif [ -r "$cache" ]; then
		cat "$cache"
	fi
}

# Run test $2 of build directory $1 and write every case's result to $3 as
# "STATUS POINTS EXERCISE/CASE WHY" lines, the test's output to $3.log,
# the seed it drew (or was given: GR_SEED) to $3.seed. With $4 (a build
# error) nothing runs: every case fails with it. The grader's verdicts
# come through a pipe, never a file the code it judges could name.
grade__run() {
	local dir=$1 test=$2 out=$3 builderr=${4:-} tcmd tenv tmo rc cases
	local points name line status why verdicts
	mapfile -t tcmd < <(grade__field "$dir" "$test" '.cmd[]')
	mapfile -t tenv < <(grade__field "$dir" "$test" \
		'.env | to_entries[] | "\(.key)=\(.value)"')
	tmo=$(grade__field "$dir" "$test" '.timeout')
	cases=$(grade__cases "$dir" "$test")
	: >"$out"
	if [ -z "$cases" ]; then
		echo "FAIL 0 ${test%-*}/build ${builderr:-the test cannot list its cases}" >"$out"
		return
	fi
	if [ -n "$builderr" ]; then
		echo "build failed: $builderr" >"$out.log"
		rc=0
		verdicts=""
	else
		verdicts=$(cd "$dir" && env "${tenv[@]}" timeout -k 10 \
			"${tmo:-300}" "${tcmd[@]}" 2>"$out.log")
		rc=$?
	fi
	printf '%s\n' "$verdicts" >"$out.stdout"
	grade__results "$dir" "$test" "$out" "$rc" "$builderr"
}

# Turn what test $2 of build directory $1 printed ($3.stdout, exit status
# $4; $5: the build error that kept it from running) into its results,
# $3, and its seed, $3.seed.
grade__results() {
	local dir=$1 test=$2 out=$3 rc=$4 builderr=${5:-} tmo cases
	local points name line status why
	tmo=$(grade__field "$dir" "$test" '.timeout')
	cases=$(grade__cases "$dir" "$test")
	: >"$out"
	sed -n 's/^SEED //p' "$out.stdout" | head -n 1 >"$out.seed"
	while read -r points name _; do
		line=""
		[ -n "$builderr" ] ||
			line=$(grep -m1 -E "^GRADE (PASS|FAIL|SKIP) [0-9]+ $name( |$)" \
				"$out.stdout")
		if [ -n "$line" ]; then
			read -r _ status _ _ why <<<"$line"
		elif [ -n "$builderr" ]; then
			status=FAIL why="does not build: $builderr"
		elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			status=FAIL why="timed out after ${tmo}s"
		else
			status=FAIL why="no result (the test exited $rc)"
		fi
		echo "$status $points $name $why" >>"$out"
	done <<<"$cases"
}

# Escape text for XML.
grade__xml() {
	sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' \
		-e 's/"/\&quot;/g' -e "s/'/\&apos;/g" -e 's/[^[:print:]\t]//g'
}

# Write JUnit XML to $1 from result files $2... (one per exercise).
grade__junit() {
	local file=$1 f ex n fails skips status points name why
	shift
	mkdir -p "$(dirname "$file")"
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		echo '<testsuites name="pathlab exercises">'
		for f in "$@"; do
			ex=$(basename "$f" .res)
			n=$(grep -c . "$f")
			fails=$(grep -c '^FAIL ' "$f")
			skips=$(grep -c '^SKIP ' "$f")
			printf '  <testsuite name="%s" tests="%s" failures="%s"' \
				"$ex" "$n" "$fails"
			printf ' errors="0" skipped="%s">\n' "$skips"
			while read -r status points name why; do
				printf '    <testcase classname="pathlab.exercises.%s"' "$ex"
				printf ' name="%s (%s points)">\n' "${name#*/}" "$points"
				why=$(printf '%s' "$why" | grade__xml)
				case $status in
				FAIL) printf '      <failure message="%s"/>\n' "$why" ;;
				SKIP) printf '      <skipped message="%s"/>\n' "$why" ;;
				esac
				echo "    </testcase>"
			done <"$f"
			if [ -s "$f.log" ]; then
				printf '    <system-err>'
				tail -n 200 "$f.log" | grade__xml
				echo '</system-err>'
			fi
			echo "  </testsuite>"
		done
		echo '</testsuites>'
	} >"$file"
}

# Print the score table of result files $1...; sets GRADE_EARNED,
# GRADE_TOTAL, GRADE_FAILED, GRADE_SKIPPED, GRADE_SKIPPED_POINTS.
grade__table() {
	local f status points name why ex e t
	GRADE_EARNED=0 GRADE_TOTAL=0 GRADE_FAILED=0 GRADE_SKIPPED=0
	GRADE_SKIPPED_POINTS=0
	printf '%-34s %7s  %s\n' "exercise / case" points result
	for f in "$@"; do
		ex=$(basename "$f" .res)
		e=0 t=0
		while read -r status points name why; do
			t=$((t + points))
			case $status in
			PASS) e=$((e + points)) ;;
			FAIL) GRADE_FAILED=$((GRADE_FAILED + 1)) ;;
			SKIP) GRADE_SKIPPED=$((GRADE_SKIPPED + 1))
				GRADE_SKIPPED_POINTS=$((GRADE_SKIPPED_POINTS + points)) ;;
			esac
		done <"$f"
		printf '%-34s %7s  %s\n' "$ex" "$e/$t" \
			"$([ -s "$f.seed" ] && echo "seed $(cat "$f.seed")")"
		while read -r status points name why; do
			printf '  %-32s %7s  %-4s %s\n' "${name#*/}" \
				"$([ "$status" = PASS ] && echo "$points" || echo 0)/$points" \
				"$(tr '[:upper:]' '[:lower:]' <<<"$status")" \
				"$(cut -c1-90 <<<"$why")"
		done <"$f"
		GRADE_EARNED=$((GRADE_EARNED + e))
		GRADE_TOTAL=$((GRADE_TOTAL + t))
	done
	printf '%-34s %7s\n' total "$GRADE_EARNED/$GRADE_TOTAL"
}

# Make sure build directory $1 is configured and its test list current.
grade__configure() {
	local dir=$1
	if [ ! -f "$dir/build.ninja" ]; then
		echo "pathlab grade: meson setup $dir"
		deps__quiet meson setup "$dir" "$PATHLAB_ROOT" || return 1
	fi
	# Regenerate after a meson.build changed, so the test list is current.
	deps__quiet ninja -C "$dir" build.ninja
}

# Print the cases and points of every exercise of variant $2 in $1.
grade__list() {
	local dir=$1 variant=$2 test points name what
	shift 2
	for test in $(grade__tests "$dir" "$variant" "$@"); do
		grade__build "$dir" "$test" /dev/null >/dev/null
		grade__cases "$dir" "$test" | while read -r points name what; do
			printf '%-36s %2s  %s\n' "$name" "$points" "$what"
		done
	done
}

# pathlab grade [--solutions] [--junit FILE] [--strict] [--list] [NN...]
# (in a subshell without errexit: a failing test is a result, not an end)
grade_main() {
	(
		set +e
		grade__main "$@"
	)
}

# The body of grade_main.
grade__main() {
	local dir=$PATHLAB_BUILD variant=student junit="" strict=0 list=0
	local sel=() tests test res err work t0
	while [ $# -gt 0 ]; do
		case $1 in
		--solutions) variant=solution ;;
		--seed)
			[[ ${2:-} =~ ^[0-9]+$ ]] || {
				echo "pathlab grade: --seed needs a number" >&2
				return 2
			}
			export GR_SEED=$2
			shift ;;
		--junit) junit=${2:?--junit FILE}; shift ;;
		--strict) strict=1 ;;
		--list) list=1 ;;
		-h | --help) grade__usage; return 0 ;;
		-*) echo "pathlab grade: unknown option '$1'" >&2
			grade__usage >&2; return 2 ;;
		*) sel+=("$1") ;;
		esac
		shift
	done
	command -v jq >/dev/null || { echo "pathlab grade: needs jq" >&2; return 2; }
	grade__configure "$dir" || return 2
	dir=$(cd "$dir" && pwd)
	if [ "$list" = 1 ]; then
		grade__list "$dir" "$variant" "${sel[@]}"
		return 0
	fi
	mapfile -t tests < <(grade__tests "$dir" "$variant" "${sel[@]}")
	if [ ${#tests[@]} -eq 0 ]; then
		if [ "$variant" = solution ] && [ ! -d "$PATHLAB_ROOT/exercises/solutions" ]; then
			echo "pathlab grade: no reference solutions in this tree (a student kit)" >&2
		else
			echo "pathlab grade: no exercise matches: ${sel[*]:-(none built)}" >&2
		fi
		return 2
	fi
	work=$dir/grade/$variant
	rm -rf "$work"
	mkdir -p "$work"
	[ "$(id -u)" -eq 0 ] ||
		echo "pathlab grade: not root: the cases that need root (XDP, the lab run) are skipped"
	t0=$SECONDS
	res=()
	for test in "${tests[@]}"; do
		echo "pathlab grade: ${test%-"$variant"} ..."
		err=$(grade__build "$dir" "$test" "$work/${test%-"$variant"}.build.log")
		grade__run "$dir" "$test" "$work/${test%-"$variant"}.res" "$err"
		res+=("$work/${test%-"$variant"}.res")
	done
	echo
	echo "pathlab grade: $([ "$variant" = student ] && echo "student files" || echo "reference solutions"), ${dir#"$PWD"/}, $((SECONDS - t0)) s"
	grade__table "${res[@]}"
	grade__junit "${junit:-$dir/grade/junit-$variant.xml}" "${res[@]}"
	echo "JUnit XML: ${junit:-$dir/grade/junit-$variant.xml}; test output: $work/"
	if [ "$GRADE_SKIPPED" -gt 0 ]; then
		echo "skipped: $GRADE_SKIPPED case(s), $GRADE_SKIPPED_POINTS points not graded here (see why above)"
	fi
	if [ "$GRADE_FAILED" -gt 0 ] || { [ "$strict" = 1 ] && [ "$GRADE_SKIPPED" -gt 0 ]; }; then
		echo "result: $GRADE_EARNED of $GRADE_TOTAL points; $GRADE_FAILED case(s) failed"
		return 1
	fi
	echo "result: $GRADE_EARNED of $GRADE_TOTAL points; no case failed"
	return 0
}

# Print the files of the lab: git's view when it is a checkout (tracked
# and untracked, not ignored), else everything but builds and caches.
kit__files() {
	if git -C "$PATHLAB_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$PATHLAB_ROOT" ls-files -co --exclude-standard
	else
		(cd "$PATHLAB_ROOT" && find . -type f \
			-not -path './build*' -not -path './.cache/*' \
			-not -path './.git/*' -not -path './results/*' |
			sed 's|^\./||')
	fi
}

# pathlab student-kit [-o FILE]: the lab as a tarball, without solutions.
grade_student_kit() {
	(
		set +e
		kit__main "$@"
	)
}

# The body of grade_student_kit.
kit__main() {
	local out=$PWD/pathlab-student.tar.gz tmp stage n
	while [ $# -gt 0 ]; do
		case $1 in
		-o) out=${2:?-o FILE}; shift ;;
		-h | --help)
			echo "usage: pathlab student-kit [-o FILE]   (default ./pathlab-student.tar.gz)"
			return 0 ;;
		*) echo "pathlab student-kit: unknown argument '$1'" >&2; return 2 ;;
		esac
		shift
	done
	[[ $out == /* ]] || out=$PWD/$out
	tmp=$(mktemp -d)
	stage=$tmp/pathlab-student
	mkdir -p "$stage"
	kit__files | grep -v -e '^exercises/solutions/' |
		(cd "$PATHLAB_ROOT" && while read -r f; do
			[ -f "$f" ] && printf '%s\n' "$f"
		done) |
		(cd "$PATHLAB_ROOT" && tar --no-recursion -cf - -T -) |
		tar -xf - -C "$stage"
	# The kit grades the student files by default.
	awk '/^option\(.exercises./ { inside = 1 }
	     inside && /value:/ { sub(/value: *.solution./, "value: '\''student'\''") }
	     inside && /\)[[:space:]]*$/ { inside = 0 }
	     { print }' "$PATHLAB_ROOT/meson_options.txt" >"$stage/meson_options.txt"
	if [ -e "$stage/exercises/solutions" ] ||
		! grep -q "value: 'student'" "$stage/meson_options.txt"; then
		echo "pathlab student-kit: the kit would contain solutions or not default to them; not written" >&2
		rm -rf "$tmp"
		return 1
	fi
	n=$(find "$stage" -type f | wc -l)
	tar -czf "$out" -C "$tmp" pathlab-student || { rm -rf "$tmp"; return 1; }
	rm -rf "$tmp"
	echo "pathlab student-kit: $out ($n files, no exercises/solutions/; builds with -Dexercises=student)"
}
