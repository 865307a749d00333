# shellcheck shell=bash
# plots.sh - what a compare run draws beside its results.json: the plots
# (SVG and PNG, with gnuplot) and the interactive figure with the data.
#
#   plots_write RESULTS_JSON OUTDIR
#       rate, latency and cpu as .svg and .png (labs/lib/plots/*.gp)
#   figure_write RESULTS_JSON OUTDIR
#       a copy of slides/figure (index.html and its files) and results.js,
#       the results as a script: a page opened from a file may load a
#       script beside it but may not read a JSON file, so the copied page
#       shows these results as soon as it is opened
#
# Both fail soft: a missing tool or a bad file is a warning on stderr and
# a status, never an exit; compare calls them with `|| true`. Status: 0
# done, 1 failed, 77 a tool (gnuplot, jq) is missing.
#
# Also a command, to redraw a results directory by hand:
#   bash labs/lib/plots.sh plots|figure RESULTS_JSON OUTDIR

PLOTS_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PLOTS_FIGURE=$(cd "$PLOTS_LIB/../.." && pwd)/slides/figure

# The plots, each labs/lib/plots/NAME.gp; and the figure's files.
PLOTS_NAMES=(rate latency cpu)
PLOTS_FIGURE_FILES=(index.html figure.css figure.js draw.js measure.js paths.js
	selftest.js)

# Print a warning.
plots__warn() {
	echo "pathlab: plots: $*" >&2
}

# Check RESULTS_JSON is a results file with runs; warn and fail if not.
plots__check() {
	local results=$1
	if [ ! -r "$results" ]; then
		plots__warn "cannot read $results"
		return 1
	fi
	if ! jq -e '.pathlab == 1 and (.runs | type == "array")' \
		"$results" >/dev/null 2>&1; then
		plots__warn "$results is not a pathlab results.json"
		return 1
	fi
}

# Write vars.gp and the .dat files of RESULTS_JSON into DIR.
plots__data() {
	local results=$1 dir=$2 what
	jq -r --arg what vars -f "$PLOTS_LIB/plots/plots.jq" "$results" \
		>"$dir/vars.gp" || return 1
	for what in rate lat cpu budget; do
		jq -r --arg what "$what" -f "$PLOTS_LIB/plots/plots.jq" \
			"$results" >"$dir/$what.dat" || return 1
	done
}

# True if DIR has the data plot NAME needs (a compare may lack a workload).
plots__has_data() {
	case $1 in
	rate) [ -s "$2/rate.dat" ] ;;
	latency) [ -s "$2/lat.dat" ] ;;
	cpu) [ -s "$2/cpu.dat" ] ;;
	esac
}

# Draw plot NAME from DIR into OUT as FORMAT (svg or png).
plots__draw() {
	local name=$1 dir=$2 out=$3 format=$4 file
	file=$out/$name.$format
	if ! gnuplot -c "$PLOTS_LIB/plots/$name.gp" "$format" "$file.tmp" \
		"$dir" 2>"$dir/gnuplot.err" || [ ! -s "$file.tmp" ]; then
		plots__warn "gnuplot failed on $name.$format:"
		sed 's/^/  /' "$dir/gnuplot.err" >&2
		rm -f "$file.tmp"
		return 1
	fi
	mv -f "$file.tmp" "$file"
}

# Write the plots of RESULTS_JSON into OUTDIR: NAME.svg and NAME.png.
plots_write() {
	local results=$1 out=$2 dir name format rc=0 written=()
	if ! command -v gnuplot >/dev/null 2>&1; then
		plots__warn "gnuplot is not installed (Debian: gnuplot-nox):" \
			"no plots"
		return 77
	fi
	if ! command -v jq >/dev/null 2>&1; then
		plots__warn "jq is not installed: no plots"
		return 77
	fi
	plots__check "$results" || return 1
	mkdir -p "$out" || return 1
	dir=$(mktemp -d "${TMPDIR:-/tmp}/pathlab-plots.XXXXXX") || return 1
	if ! plots__data "$results" "$dir"; then
		plots__warn "could not read the runs of $results"
		rm -rf "$dir"
		return 1
	fi
	for name in "${PLOTS_NAMES[@]}"; do
		if ! plots__has_data "$name" "$dir"; then
			plots__warn "no runs for the $name plot"
			continue
		fi
		for format in svg png; do
			if plots__draw "$name" "$dir" "$out" "$format"; then
				written+=("$name.$format")
			else
				rc=1
			fi
		done
	done
	rm -rf "$dir"
	[ ${#written[@]} -eq 0 ] ||
		echo "pathlab: plots: ${written[*]} in $out"
	return $rc
}

# Write OUTDIR/results.js from RESULTS_JSON and copy the figure beside it.
figure_write() {
	local results=$1 out=$2 f json list plots=()
	if ! command -v jq >/dev/null 2>&1; then
		plots__warn "jq is not installed: no figure"
		return 77
	fi
	plots__check "$results" || return 1
	mkdir -p "$out" || return 1
	for f in "${PLOTS_FIGURE_FILES[@]}"; do
		if ! cp "$PLOTS_FIGURE/$f" "$out/$f"; then
			plots__warn "could not copy the figure into $out"
			return 1
		fi
	done
	# The page links the plots named here, which lie beside it.
	for f in "${PLOTS_NAMES[@]}"; do
		[ -s "$out/$f.svg" ] && plots+=("$f.svg")
	done
	if ! json=$(jq -c . "$results") ||
		! list=$(jq -cn '$ARGS.positional' --args "${plots[@]}") ||
		! printf 'window.PATHLAB_%s = %s;\n' RESULTS "$json" \
			PLOTS "$list" >"$out/results.js.tmp"; then
		rm -f "$out/results.js.tmp"
		plots__warn "could not write $out/results.js"
		return 1
	fi
	mv -f "$out/results.js.tmp" "$out/results.js"
	echo "pathlab: figure: $out/index.html"
}

# Run as a command: bash plots.sh plots|figure RESULTS_JSON OUTDIR.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	if [ $# -ne 3 ] || [[ ! $1 =~ ^(plots|figure)$ ]]; then
		echo "usage: plots.sh plots|figure RESULTS_JSON OUTDIR" >&2
		exit 2
	fi
	case $1 in
	plots) plots_write "$2" "$3" ;;
	figure) figure_write "$2" "$3" ;;
	esac
	exit $?
fi
