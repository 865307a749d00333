#!/usr/bin/env bash
# figure.sh - tests for what compare draws beside results.json.
#
#   figure.sh plots OUTDIR     labs/lib/plots.sh on sample-results.json:
#                              every plot as SVG (well-formed, titled,
#                              labelled with the environment) and PNG, a
#                              subset of the paths, no runs, a bad file,
#                              no matplotlib; and figure_write's results.js
#   figure.sh browser OUTDIR   slides/figure in headless chromium: its
#                              self-test (#selftest) passes from the source
#                              tree and from a copy beside a results.js,
#                              nothing is written to the console, and
#                              OUTDIR/figure.png, figure-narrow.png are
#                              screenshots with the sample results loaded
#
# Prints "N passed, M failed"; exit 0 if none failed, 77 when a tool is
# missing (matplotlib or jq; chromium), 99 on a harness error.
# shellcheck disable=SC2317 # the checks are called through expect
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PLOTS=$ROOT/labs/lib/plots.sh
FIGURE=$ROOT/slides/figure
SAMPLE=$HERE/sample-results.json
pass=0 fail=0

[ $# -eq 2 ] || { echo "usage: figure.sh plots|browser OUTDIR" >&2; exit 99; }
what=$1
out=$2/figure-test-$what
rm -rf "$out"
mkdir -p "$out" || exit 99

ok() { pass=$((pass + 1)); }

# Skip the test: print why, exit 77.
skip() {
	echo "SKIP: $1"
	exit 77
}

# Skip the test unless command CMD exists; WHY says what is missing.
need() {
	command -v "$1" >/dev/null 2>&1 || skip "$2"
}
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# expect WHAT CMD...: CMD must succeed.
expect() {
	local what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}

# Exit with the count: 0 if all passed.
finish() {
	echo "$pass passed, $fail failed"
	[ $fail -eq 0 ]
	exit
}

# True if FILE is a PNG image.
is_png() {
	[ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = \
		89504e470d0a1a0a ]
}

# True if FILE is well-formed XML whose root is an <svg> element.
is_svg() {
	python3 - "$1" <<'PY'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
sys.exit(0 if root.tag.endswith("svg") else 1)
PY
}

# True if each of the FILES... is well-formed SVG.
all_svg() {
	local f
	for f in "$@"; do is_svg "$f" || return 1; done
}

# True if FILE holds every one of the STRINGS...
has_all() {
	local f=$1 s
	shift
	for s in "$@"; do grep -qF -- "$s" "$f" || return 1; done
}

# True if FILE holds none of the STRINGS...
has_none() {
	local f=$1 s
	shift
	for s in "$@"; do grep -qF -- "$s" "$f" && return 1; done
	return 0
}

# True if DIR holds no SVG file.
no_svg() {
	! ls "$1"/*.svg >/dev/null 2>&1
}

# Run plots.sh's FUNCTION ARGS... the way compare does, under set -eu;
# print its status, and "survived" if the caller went on after it.
lib_call() {
	bash -c 'set -eu; . "$1"; shift; rc=0; "$@" >&2 || rc=$?;
		echo "$rc"; echo survived >&2' _ "$PLOTS" "$@" 2>"$out/last.log"
}

# Run FUNCTION ARGS... of plots.sh where Python finds no matplotlib (a
# package of that name that cannot be imported comes first on its path).
lib_call_bare() {
	mkdir -p "$out/nompl/matplotlib" || exit 99
	echo 'raise ImportError("no matplotlib here")' \
		>"$out/nompl/matplotlib/__init__.py"
	PYTHONPATH=$out/nompl bash -c '. "$1"; shift; rc=0;
		"$@" >&2 || rc=$?; echo "$rc"' _ "$PLOTS" "$@" 2>"$out/last.log"
}

# True if results.js in DIR holds exactly the sample, as JSON.
results_js_ok() {
	sed -n '1s/^window\.PATHLAB_RESULTS = \(.*\);$/\1/p' "$1/results.js" |
		jq -e --slurpfile s "$SAMPLE" '. == $s[0]' >/dev/null
}

test_plots() {
	local d name f rc
	need jq "jq is not installed"
	/usr/bin/python3 -c 'import matplotlib' 2>/dev/null ||
		skip "matplotlib is not installed (Debian: python3-matplotlib)"

	# The whole sample: three plots, two formats each.
	d=$out/all
	rc=$(lib_call plots_write "$SAMPLE" "$d")
	expect "plots_write on the sample returns 0 (got $rc)" [ "$rc" = 0 ]
	for name in rate latency cpu; do
		expect "$name.png is a PNG" is_png "$d/$name.png"
		expect "$name.svg is well-formed SVG" is_svg "$d/$name.svg"
		expect "$name.svg names the environment" \
			has_all "$d/$name.svg" "veth in a VM" "AMD EPYC"
	done
	expect "rate.svg: title, unit, every path of the sample" \
		has_all "$d/rate.svg" "Receive rate by path and frame size" \
		"kpps" "Kernel" "recvmmsg" "XDP" "AF_XDP" "DPDK" "af_packet" \
		"RDMA"
	expect "latency.svg: XDP drop has no samples, and says so" \
		has_all "$d/latency.svg" "No latency samples" "XDP drop." \
		"p99.9" "one-way"
	expect "cpu.svg: both budgets, the receive parts, the system circle" \
		has_all "$d/cpu.svg" "10 GbE: 174" "100 GbE: 17" \
		"kernel: NAPI thread" "app: receive loop" \
		"generator included"

	# Some paths only; one frame size.
	d=$out/some
	jq '.runs |= map(select(.path == "afxdp" and .frame_bytes == 64))' \
		"$SAMPLE" >"$out/some.json" || exit 99
	rc=$(lib_call plots_write "$out/some.json" "$d")
	expect "one path, one size: returns 0 (got $rc)" [ "$rc" = 0 ]
	expect "one path, one size: all three plots" \
		all_svg "$d/rate.svg" "$d/latency.svg" "$d/cpu.svg"
	expect "one path, one size: no other path drawn" \
		has_none "$d/rate.svg" "Kernel" "DPDK" "1024-byte"

	# No runs: a warning per plot, nothing written, still 0.
	d=$out/none
	jq '.runs = []' "$SAMPLE" >"$out/none.json" || exit 99
	rc=$(lib_call plots_write "$out/none.json" "$d")
	expect "no runs: returns 0 (got $rc)" [ "$rc" = 0 ]
	expect "no runs: no plot written" no_svg "$d"
	expect "no runs: a warning" has_all "$out/last.log" \
		"no runs for the rate plot"

	# Not a results.json: status 1 and a warning; the caller goes on.
	echo '{"not": "results"}' >"$out/bad.json"
	rc=$(lib_call plots_write "$out/bad.json" "$out/bad")
	expect "bad file: returns 1 (got $rc)" [ "$rc" = 1 ]
	expect "bad file: says why, and the caller goes on" \
		has_all "$out/last.log" "not a pathlab results.json" survived

	# No matplotlib: 77 and a warning.
	rc=$(lib_call_bare plots_write "$SAMPLE" "$out/nompl-out")
	expect "no matplotlib: returns 77 (got $rc)" [ "$rc" = 77 ]
	expect "no matplotlib: says so" has_all "$out/last.log" \
		"matplotlib is not installed"

	# The figure beside the plots: its files and results.js.
	d=$out/all
	rc=$(lib_call figure_write "$SAMPLE" "$d")
	expect "figure_write returns 0 (got $rc)" [ "$rc" = 0 ]
	for f in index.html figure.js draw.js measure.js paths.js figure.css \
		selftest.js; do
		expect "figure_write copies $f" cmp -s "$FIGURE/$f" "$d/$f"
	done
	expect "results.js holds the results" results_js_ok "$d"
	expect "results.js names the plots" grep -qxF \
		'window.PATHLAB_PLOTS = ["rate.svg","latency.svg","cpu.svg"];' \
		"$d/results.js"
	finish
}

# shellcheck source=../../labs/lib/chromium.sh
. "$ROOT/labs/lib/chromium.sh"

# Run headless chromium (sandboxed, labs/lib/chromium.sh) on URL with
# extra arguments.
chrome() {
	chromium_run "$1" --virtual-time-budget=5000 "${@:2}"
}

# The verdict line the self-test wrote into the dumped DOM FILE.
verdict() {
	grep -o '<p id="selftest"[^>]*>[^<]*' "$1" | sed 's/.*>//'
}

# True if the chromium log FILE has no console line: the page writes
# none, so any is an error or an uncaught exception. Prints them.
console_quiet() {
	! grep -E ':CONSOLE[(:]' "$1"
}

# True if the self-test in the dumped DOM FILE passed.
selftest_passed() {
	grep -q 'data-verdict="pass"' "$1"
}

test_browser() {
	local copy log dom
	chromium_bin >/dev/null ||
		skip "chromium is not installed (Debian: apt-get install chromium)"
	need jq "jq is not installed"

	# 1. The page as shipped: the self-test, and a silent console.
	dom=$out/source.html
	log=$out/source.log
	chrome "file://$FIGURE/index.html#selftest" --enable-logging=stderr \
		--v=0 --dump-dom >"$dom" 2>"$log"
	echo "source tree: $(verdict "$dom")"
	expect "self-test passes in the source tree" selftest_passed "$dom"
	expect "no console output in the source tree" console_quiet "$log"

	# 2. A copy beside results.js, as compare writes it.
	copy=$out/results
	[ "$(lib_call figure_write "$SAMPLE" "$copy")" = 0 ] || exit 99
	dom=$out/copy.html
	log=$out/copy.log
	chrome "file://$copy/index.html#selftest" --enable-logging=stderr \
		--v=0 --dump-dom >"$dom" 2>"$log"
	echo "beside results.js: $(verdict "$dom")"
	expect "self-test passes beside results.js" selftest_passed "$dom"
	expect "results.js was picked up" grep -q 'data-results-js="1"' "$dom"
	expect "no console output beside results.js" console_quiet "$log"

	# 3. Screenshots with the sample loaded: wide, and a narrow window.
	rm -f "$2/figure.png" "$2/figure-narrow.png"
	chrome "file://$copy/index.html#path=socket&step=9" \
		--screenshot="$2/figure.png" --window-size=1280,800 \
		>/dev/null 2>&1
	expect "screenshot figure.png" is_png "$2/figure.png"
	chrome "file://$copy/index.html#path=dpdk&step=7&gpu=1" \
		--screenshot="$2/figure-narrow.png" --window-size=420,1000 \
		>/dev/null 2>&1
	expect "screenshot figure-narrow.png" is_png "$2/figure-narrow.png"
	echo "screenshots: $2/figure.png $2/figure-narrow.png"
	finish
}

case $what in
plots) test_plots ;;
browser) test_browser "$out" "$2" ;;
*) echo "usage: figure.sh plots|browser OUTDIR" >&2; exit 99 ;;
esac
