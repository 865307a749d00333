# shellcheck shell=bash
# suites.sh - `pathlab test`: build, then run the test suites of the normal
# build and of a clang sanitizer build, and count the suites that pass.
#
# Needs deps.sh sourced, PATHLAB_ROOT and PATHLAB_BUILD.

# The suites to run, "BUILD SUITE"; BUILD is "build" (the normal build) or
# "san" (address + undefined sanitizers). Add new suites here.
PL_TEST_SUITES=(
	"build unit"
	"build netns"
	"build exercises-meta"
	"build rdma"
	"build browser"
	"build slides"
	"san unit"
	"san fuzz"
)

# Print the build directory of BUILD kind (build or san).
suites__dir() {
	case $1 in
	build) echo "$PATHLAB_BUILD" ;;
	san) echo "$PATHLAB_BUILD-san" ;;
	esac
}

# Configure the sanitizer build directory if it is not configured yet.
suites__san_setup() {
	local dir=$1
	[ -f "$dir/build.ninja" ] && return 0
	echo "pathlab: build: CC=clang meson setup $dir -Db_sanitize=address,undefined -Db_lundef=false"
	CC=clang deps__quiet meson setup "$dir" "$PATHLAB_ROOT" \
		-Db_sanitize=address,undefined -Db_lundef=false
}

# Print whether SUITE has tests in build directory DIR: "yes", "no", or
# "error" (the listing failed, e.g. the build is broken: that is a failure,
# never a silent skip).
suites__has_tests() {
	local out
	out=$(meson test -C "$1" --list --suite "$2" 2>&1)
	if grep -q ' / ' <<<"$out"; then
		echo yes
	elif grep -q 'No suitable tests defined' <<<"$out"; then
		echo no
	else
		printf '%s\n' "$out" >&2
		echo error
	fi
	return 0
}

# pathlab test: deps, builds, then every suite; a summary line at the end.
suites_run() {
	local entry kind suite dir pass=0 fail=0 skipped=()
	deps_ensure || return 1
	build_ensure "$PATHLAB_BUILD" || return 1
	suites__san_setup "$(suites__dir san)" || return 1
	for entry in "${PL_TEST_SUITES[@]}"; do
		read -r kind suite <<<"$entry"
		dir=$(suites__dir "$kind")
		case $(suites__has_tests "$dir" "$suite") in
		no)
			skipped+=("$suite(${dir##*/})")
			continue ;;
		error)
			echo "pathlab test: suite $suite in ${dir##*/}: cannot list its tests"
			fail=$((fail + 1))
			continue ;;
		esac
		echo "pathlab test: suite $suite in ${dir##*/}"
		if meson test -C "$dir" --print-errorlogs --suite "$suite"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
		fi
	done
	[ ${#skipped[@]} -eq 0 ] ||
		echo "pathlab test: no tests in ${skipped[*]}"
	echo "suites: $pass passed, $fail failed"
	[ $fail -eq 0 ]
}
