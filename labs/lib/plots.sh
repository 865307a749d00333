# shellcheck shell=bash
# plots.sh - what a compare run draws beside its results.json, for the
# shell that sources it (the decks): labs/plab draws them (matplotlib).
#
#   plots_write RESULTS_JSON OUTDIR
#       rate, latency and cpu as .svg and .png
#   figure_write RESULTS_JSON OUTDIR
#       a copy of slides/figure (index.html and its files) and results.js
#
# Both fail soft: a missing tool or a bad file is a warning on stderr and
# a status, never an exit. Status: 0 done, 1 failed, 77 the distribution's
# Python or its matplotlib (python3-matplotlib) is missing.
#
# Also a command, to redraw a results directory by hand:
#   bash labs/lib/plots.sh plots|figure RESULTS_JSON OUTDIR

PLOTS_PLAB=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/plab
# The distribution's Python (its packages: matplotlib), not one on PATH.
PLOTS_PYTHON=${PATHLAB_PYTHON:-/usr/bin/python3}

# Run labs/plab COMMAND RESULTS_JSON OUTDIR; 77 without Python.
plots__plab() {
	if [ ! -x "$PLOTS_PYTHON" ]; then
		echo "pathlab: plots: $PLOTS_PYTHON is not installed (Debian: python3, python3-matplotlib)" >&2
		return 77
	fi
	"$PLOTS_PYTHON" "$PLOTS_PLAB" "$@"
}

# Write the plots of RESULTS_JSON into OUTDIR: NAME.svg and NAME.png.
plots_write() {
	plots__plab plots "$1" "$2"
}

# Write OUTDIR/results.js from RESULTS_JSON and copy the figure beside it.
figure_write() {
	plots__plab figure "$1" "$2"
}

# Run as a command: bash plots.sh plots|figure RESULTS_JSON OUTDIR.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	if [ $# -ne 3 ] || [[ ! $1 =~ ^(plots|figure)$ ]]; then
		echo "usage: plots.sh plots|figure RESULTS_JSON OUTDIR" >&2
		exit 2
	fi
	plots__plab "$@"
	exit $?
fi
