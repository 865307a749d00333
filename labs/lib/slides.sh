# shellcheck shell=bash
# slides.sh - `pathlab slides`: build every deck slides/NN-name.md into a
# self-contained HTML deck (pandoc's dzslides writer), and a PDF of each
# with Chromium when it is installed.
#
#   pathlab slides [--results FILE | --fresh] [--out DIR] [--no-pdf]
#                  [--decks 01,04]
#
# The numbers come from one results.json: the checked-in default set
# (slides/results/default.json) unless --results names another or --fresh
# runs `pathlab compare --quick` first. Plots beside that file (rate.svg,
# latency.svg, cpu.svg) are used; missing ones are drawn with
# labs/lib/plots.sh (matplotlib). Chromium prints the PDFs with
# its sandbox on (labs/lib/chromium.sh). The interactive figure
# (slides/figure/) is copied into DIR/figure with the same results.
# Code comes from the sources through their 8< markers (slides/tools/
# pathlab.lua); a marker that disappeared fails the build.
#
# Also a command, for the tests and for builds without root:
#   bash labs/lib/slides.sh build [OPTIONS]     the same as pathlab slides
# Status: 0 built, 1 failed, 2 usage, 77 pandoc or jq missing.

SLIDES_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=chromium.sh
. "$SLIDES_LIB/chromium.sh"
SLIDES_ROOT=$(cd "$SLIDES_LIB/../.." && pwd)
SLIDES_SRC=$SLIDES_ROOT/slides
SLIDES_TOOLS=$SLIDES_SRC/tools
SLIDES_DEFAULT=$SLIDES_SRC/results/default.json
# Markdown made from a results file: no raw HTML (pathlab.lua reads its
# tables the same way).
SLIDES_DATA_MD=markdown-raw_html-raw_attribute-raw_tex-native_divs-native_spans
# The plots a results directory may have, as plots.sh names them.
SLIDES_PLOTS=(rate latency cpu)

# Print the usage.
slides_usage() {
	cat <<EOF
usage: pathlab slides [--results FILE | --fresh] [--out DIR] [--no-pdf]
                      [--decks LIST]

  --results FILE  a results.json (plots beside it are used); default:
                  slides/results/default.json, the checked-in set
  --fresh         run 'pathlab compare --quick' first (root) and show it
  --out DIR       where the decks go (default: build/slides)
  --no-pdf        HTML only (the PDF needs chromium)
  --decks LIST    only these decks, by number: 01,04
EOF
}

slides__say() {
	echo "pathlab: slides: $*"
}

slides__warn() {
	echo "pathlab: slides: $*" >&2
}

# Print pandoc's option for self-contained output (renamed in 2.19).
slides__embed_opt() {
	local v
	v=$(pandoc --version | awk 'NR == 1 { print $2 }')
	case $v in
	1.* | 2.[0-9] | 2.[0-9].* | 2.1[0-8] | 2.1[0-8].*) echo --self-contained ;;
	*) echo --embed-resources ;;
	esac
}

# Copy RESULTS and its plots into DIR/results, drawing missing plots.
slides__results() {
	local results=$1 out=$2 src name f have=0
	src=$(dirname "$results")
	mkdir -p "$out/results" || return 1
	if ! jq -e '.pathlab == 1 and (.runs | length) > 0' "$results" \
		>/dev/null 2>&1; then
		slides__warn "$results is not a pathlab results.json with runs"
		return 1
	fi
	cp "$results" "$out/results/results.json" || return 1
	for name in "${SLIDES_PLOTS[@]}"; do
		rm -f "$out/results/$name.svg" "$out/results/$name.png"
		for f in "$src/$name.svg" "$src/$name.png"; do
			[ -s "$f" ] && cp "$f" "$out/results/" && have=1
		done
	done
	if [ $have = 0 ] && [ -r "$SLIDES_LIB/plots.sh" ]; then
		# shellcheck source=plots.sh
		(. "$SLIDES_LIB/plots.sh" && plots_write \
			"$out/results/results.json" "$out/results") ||
			slides__warn "no plots for these results (tables instead)"
	fi
	return 0
}

# Copy the interactive figure into DIR/figure with the results; print its
# page relative to DIR, or nothing when there is no figure to copy.
slides__figure() {
	local out=$1
	rm -rf "$out/figure"
	[ -r "$SLIDES_SRC/figure/index.html" ] || return 0
	[ -r "$SLIDES_LIB/plots.sh" ] || return 0
	# shellcheck source=plots.sh
	if (. "$SLIDES_LIB/plots.sh" && figure_write \
		"$out/results/results.json" "$out/figure") >/dev/null; then
		echo figure/index.html
	else
		slides__warn "the interactive figure could not be copied"
	fi
}

# Print the title of deck FILE (its YAML title line).
slides__title() {
	sed -n 's/^title: *//p' "$1" | head -n 1 | sed 's/^"\(.*\)"$/\1/'
}

# Build deck MD into OUT/NAME.html.
slides__deck() {
	local md=$1 out=$2 name
	name=$(basename "$md" .md)
	(
		cd "$out" || exit 1
		PL_ROOT=$SLIDES_ROOT PL_TOOLS=$SLIDES_TOOLS PL_OUT=$out \
			PL_RESULTS=results/results.json PL_FIGURE=$SLIDES_FIGURE \
			pandoc "$md" --from markdown --to dzslides --standalone \
			"$(slides__embed_opt)" --slide-level=2 \
			--lua-filter "$SLIDES_TOOLS/pathlab.lua" \
			--template "$SLIDES_TOOLS/deck.html" \
			--css "$SLIDES_TOOLS/theme.css" \
			--include-after-body "$SLIDES_TOOLS/embed.html" \
			--highlight-style pygments \
			--metadata lang=en \
			--metadata keys="← → move · o overview · f full screen" \
			--output "$name.html.tmp"
	) || { rm -f "$out/$name.html.tmp"; return 1; }
	mv -f "$out/$name.html.tmp" "$out/$name.html"
}

# Print an index page of the decks built in OUT, as Markdown.
slides__index_md() {
	local out=$1 md name
	shift
	printf '%s\n' '---' 'title: "pathlab: the decks"' '---' ''
	printf '%s\n\n' 'How a UDP packet gets from the NIC to the code that wants it: seven decks, in course order (labs/README.md has the route).'
	for md in "$@"; do
		name=$(basename "$md" .md)
		printf -- '- [%s](%s.html)' "$(slides__title "$md")" "$name"
		[ -s "$out/$name.pdf" ] && printf ' ([PDF](%s.pdf))' "$name"
		printf '\n'
	done
	if [ -n "$SLIDES_FIGURE" ]; then
		printf '\n%s\n' "- [The interactive figure: four paths, one figure]($SLIDES_FIGURE)"
	fi
	printf '\n%s\n\n' 'Every number in the decks comes from this result set:'
	jq -r --arg what label -f "$SLIDES_TOOLS/results.jq" \
		"$out/results/results.json"
	printf '\n%s\n' 'Keys in a deck: arrows or Page Up/Down to move, Home/End, o for the overview, f for full screen.'
}

# PDF of OUT/NAME.html beside it, with headless Chromium.
slides__pdf() {
	local out=$1 name=$2 log
	log=$out/.pdf-$name.log
	if chromium_run "file://$out/$name.html" --no-pdf-header-footer \
		--virtual-time-budget=3000 --print-to-pdf="$out/$name.pdf" \
		>"$log" 2>&1 && [ -s "$out/$name.pdf" ]; then
		rm -f "$log"
		return 0
	fi
	slides__warn "no PDF of $name (chromium failed; see $log)"
	return 1
}

# Parse the options into SLIDES_* globals; 2 on a usage error.
slides__parse() {
	SLIDES_RESULTS=""
	SLIDES_FRESH=0
	SLIDES_OUT=""
	SLIDES_PDF=1
	SLIDES_DECKS=""
	while [ $# -gt 0 ]; do
		case $1 in
		--results | --out | --decks)
			[ $# -ge 2 ] || { slides__warn "$1 needs a value"; return 2; }
			case $1 in
			--results) SLIDES_RESULTS=$2 ;;
			--out) SLIDES_OUT=$2 ;;
			--decks) SLIDES_DECKS=$2 ;;
			esac
			shift ;;
		--results=*) SLIDES_RESULTS=${1#*=} ;;
		--out=*) SLIDES_OUT=${1#*=} ;;
		--decks=*) SLIDES_DECKS=${1#*=} ;;
		--fresh) SLIDES_FRESH=1 ;;
		--no-pdf) SLIDES_PDF=0 ;;
		-h | --help) slides_usage; return 3 ;;
		*) slides__warn "unknown option '$1'"; slides_usage >&2; return 2 ;;
		esac
		shift
	done
	if [ "$SLIDES_FRESH" = 1 ] && [ -n "$SLIDES_RESULTS" ]; then
		slides__warn "--fresh and --results exclude each other"
		return 2
	fi
}

# Print the decks to build, in order.
slides__list() {
	local md n
	for md in "$SLIDES_SRC"/[0-9][0-9]-*.md; do
		[ -e "$md" ] || continue
		n=$(basename "$md")
		n=${n%%-*}
		if [ -n "$SLIDES_DECKS" ] &&
			[[ ",$SLIDES_DECKS," != *",$n,"* ]] &&
			[[ ",$SLIDES_DECKS," != *",$((10#$n)),"* ]]; then
			continue
		fi
		printf '%s\n' "$md"
	done
}

# pathlab slides: see slides_usage.
slides_main() {
	local rc=0 md decks=() built=() failed=0 tool
	slides__parse "$@" || { rc=$?; [ $rc = 3 ] && return 0; return $rc; }
	for tool in pandoc jq; do
		if ! command -v "$tool" >/dev/null 2>&1; then
			slides__warn "$tool is not installed (Debian: apt-get install $tool)"
			return 77
		fi
	done
	SLIDES_OUT=${SLIDES_OUT:-${PATHLAB_BUILD:-$SLIDES_ROOT/build}/slides}
	mkdir -p "$SLIDES_OUT" || return 1
	SLIDES_OUT=$(cd "$SLIDES_OUT" && pwd)
	if [ "$SLIDES_FRESH" = 1 ]; then
		slides__say "a fresh comparison: pathlab compare --quick"
		"$SLIDES_ROOT/labs/pathlab" compare --quick \
			--out "$SLIDES_OUT/run" || return 1
		SLIDES_RESULTS=$SLIDES_OUT/run/results.json
	fi
	SLIDES_RESULTS=${SLIDES_RESULTS:-$SLIDES_DEFAULT}
	if [ ! -r "$SLIDES_RESULTS" ]; then
		slides__warn "cannot read $SLIDES_RESULTS"
		return 1
	fi
	SLIDES_RESULTS=$(cd "$(dirname "$SLIDES_RESULTS")" && pwd)/$(basename "$SLIDES_RESULTS")
	mapfile -t decks < <(slides__list)
	if [ ${#decks[@]} -eq 0 ]; then
		slides__warn "no decks to build (slides/NN-name.md)"
		return 1
	fi
	slides__results "$SLIDES_RESULTS" "$SLIDES_OUT" || return 1
	SLIDES_FIGURE=$(slides__figure "$SLIDES_OUT")
	slides__say "numbers from $SLIDES_RESULTS"
	for md in "${decks[@]}"; do
		if slides__deck "$md" "$SLIDES_OUT"; then
			built+=("$md")
		else
			slides__warn "FAILED: $(basename "$md")"
			failed=$((failed + 1))
		fi
	done
	if [ "$SLIDES_PDF" = 1 ]; then
		if chromium_bin >/dev/null; then
			for md in "${built[@]}"; do
				slides__pdf "$SLIDES_OUT" "$(basename "$md" .md)" || true
			done
		else
			slides__say "no chromium: HTML only (Debian: apt-get install chromium)"
		fi
	fi
	slides__index_md "$SLIDES_OUT" "${built[@]}" |
		(cd "$SLIDES_OUT" && pandoc --from "$SLIDES_DATA_MD" --to html5 --standalone \
			"$(slides__embed_opt)" --css "$SLIDES_TOOLS/index.css" \
			--metadata lang=en --output index.html) || failed=$((failed + 1))
	slides__say "${#built[@]} of ${#decks[@]} decks in $SLIDES_OUT (index.html)"
	[ $failed -eq 0 ]
}

# Run as a command: bash slides.sh build ...
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1:-} in
	build) shift; slides_main "$@" ;;
	*) echo "usage: slides.sh build [OPTIONS]" >&2; exit 2 ;;
	esac
	exit $?
fi
