#!/usr/bin/env bash
# decks.sh - the deck test: build every deck from the checked-in results,
# then check what a reader gets.
#
#   1. every deck renders (pathlab slides, HTML and PDF)
#   2. every code directive resolves to its marked region, and a marker
#      that does not exist fails the build
#   3. every image is inside the deck (self-contained) and every plot was
#      drawn; every embedded page and every local link exists
#   4. headless Chromium loads each deck with no console error and takes
#      a screenshot of its first slide; no slide overflows
#   5. every measured table or plot carries its label (machine, date,
#      mode), and labs/README.md's measured table matches the results
#
# Exit 77 (skipped) when pandoc, jq or chromium is missing (deps.sh installs
# them). Output: PATHLAB_SLIDES_OUT (default a temporary folder), kept for
# inspection: the decks, shots/NN-name.png, logs.
set -u

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
# shellcheck source=../../labs/lib/slides.sh
. "$ROOT/labs/lib/slides.sh"

FAILS=0
fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}

for tool in pandoc jq; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "SKIP: $tool is not installed (Debian: apt-get install $tool)"
		exit 77
	fi
done
if ! chromium_bin >/dev/null; then
	echo "SKIP: chromium is not installed (Debian: apt-get install chromium)"
	exit 77
fi

OUT=${PATHLAB_SLIDES_OUT:-}
if [ -z "$OUT" ]; then
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/pathlab-slides-test.XXXXXX")
	trap 'rm -rf "$OUT"' EXIT
fi
rm -rf "$OUT"
mkdir -p "$OUT/shots" "$OUT/logs"

mapfile -t DECKS < <(cd "$ROOT/slides" && ls [0-9][0-9]-*.md)
[ ${#DECKS[@]} -eq 7 ] || fail "expected 7 decks in slides/, found ${#DECKS[@]}"

# 1. Build, HTML and PDF.
echo "# building ${#DECKS[@]} decks into $OUT"
if ! slides_main --out "$OUT" >"$OUT/logs/build.log" 2>&1; then
	cat "$OUT/logs/build.log"
	fail "pathlab slides failed"
	echo "$FAILS failed"
	exit 1
fi
for md in "${DECKS[@]}"; do
	name=${md%.md}
	[ -s "$OUT/$name.html" ] || fail "$name.html not built"
	if [ "$(head -c 4 "$OUT/$name.pdf" 2>/dev/null)" != "%PDF" ]; then
		fail "$name.pdf missing or not a PDF"
	fi
done
[ -s "$OUT/index.html" ] || fail "index.html not built"

# 2. Code: every directive resolved to its region in the built deck ...
for md in "${DECKS[@]}"; do
	name=${md%.md}
	while read -r file marker _; do
		[ -n "$file" ] || continue
		grep -qF "data-marker=\"$file#$marker\"" "$OUT/$name.html" ||
			fail "$md: code $file $marker not in the deck"
	done < <(sed -n 's/^<!-- code: \(.*\) -->$/\1/p' "$ROOT/slides/$md")
done
# ... and a marker that is not there stops the build.
printf '%s\n' '---' 'title: t' '---' '' '## s' '' \
	'<!-- code: kernel-stack/rx_socket.c no-such-marker -->' >"$OUT/logs/bad.md"
if PL_ROOT=$ROOT PL_TOOLS=$ROOT/slides/tools pandoc "$OUT/logs/bad.md" \
	--to dzslides --lua-filter "$ROOT/slides/tools/pathlab.lua" \
	-o /dev/null >"$OUT/logs/bad.log" 2>&1; then
	fail "a missing marker did not fail the build"
elif ! grep -q "no marker" "$OUT/logs/bad.log"; then
	fail "a missing marker failed without saying so: $(cat "$OUT/logs/bad.log")"
fi

# 3. Images inside each deck, plots drawn, embedded pages and links there.
have_plots=0
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null && have_plots=1
check_local() { # FILE-IN-OUT what deck
	local target=${1%%#*}
	case $target in
	http:* | https:* | data:* | mailto:* | "") return 0 ;;
	esac
	[ -e "$OUT/$target" ] || fail "$3: $2 $target does not exist"
}
for f in "$OUT"/[0-9][0-9]-*.html "$OUT/index.html"; do
	deck=$(basename "$f")
	while read -r src; do
		case $src in
		data:image/*) [ ${#src} -gt 100 ] || fail "$deck: an empty image" ;;
		*) fail "$deck: image $src is not inside the deck" ;;
		esac
	done < <(grep -o '<img [^>]*src="[^"]*"' "$f" | sed 's/.*src="//; s/"$//')
	while read -r page; do
		check_local "$page" "embedded page" "$deck"
	done < <(grep -o '<div class="embed" data-page="[^"]*"' "$f" |
		sed 's/.*data-page="//; s/"$//')
	while read -r href; do
		check_local "$href" link "$deck"
	done < <(grep -o '<a [^>]*href="[^"#][^"]*"' "$f" | sed 's/.*href="//; s/"$//')
	plots=$(grep -c '<!-- plot:' "$ROOT/slides/${deck%.html}.md" 2>/dev/null)
	drawn=$(grep -o 'data-plot="[^"]*"' "$f" | wc -l)
	if [ "$have_plots" = 1 ] && [ "${plots:-0}" != "$drawn" ]; then
		fail "$deck: $drawn of ${plots:-0} plots drawn"
	fi
done

# 4. Chromium: load, no console error, first slide, no overflow.
for md in "${DECKS[@]}"; do
	name=${md%.md}
	log=$OUT/logs/$name.chromium.log
	chromium_run "file://$OUT/$name.html" --enable-logging=stderr --v=0 \
		--virtual-time-budget=3000 --window-size=1280,720 \
		--screenshot="$OUT/shots/$name.png" >"$log" 2>&1
	if [ ! -s "$OUT/shots/$name.png" ]; then
		fail "$name: no screenshot"
		sed 's/^/    /' "$log" | tail -n 20
	fi
	grep ':CONSOLE' "$log" | sed "s/^/    $name console: /"
	if grep ':CONSOLE' "$log" |
		grep -qiE 'error|uncaught|fail|refused|not allowed|denied|exception|cannot|unsafe'; then
		fail "$name: console errors (above)"
	fi
	dom=$(chromium_run "file://$OUT/$name.html" --virtual-time-budget=3000 \
		--window-size=1280,720 --dump-dom 2>/dev/null)
	n=$(grep -o '<section' <<<"$dom" | wc -l)
	if [ "$n" -lt 10 ] || [ "$n" -gt 22 ]; then
		fail "$name: $n slides (a deck has 10 to 22)"
	fi
	grep -o '<section id="[^"]*"[^>]*data-overflow="[^"]*"' <<<"$dom" |
		sed 's/ class="[^"]*"//' | while read -r s; do
		echo "FAIL: $name: a slide overflows: $s"
	done | grep . && fail "$name: slides overflow"
	# 5a. A measured figure never goes without its label.
	awk 'BEGIN { RS = "<section" } NR > 1 &&
		/class="(table-results|table-wide|plot)"/ && !/class="label"/ {
			match($0, /id="[^"]*"/); print substr($0, RSTART, RLENGTH) }' \
		"$OUT/$name.html" | while read -r s; do
		echo "FAIL: $name: measured figures without a label: $s"
	done | grep . && fail "$name: unlabelled figures"
	echo "ok: $name ($n slides)"
done

echo "${#DECKS[@]} decks checked, $FAILS failures"
[ "$FAILS" -eq 0 ]
