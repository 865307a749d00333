# latency.gp - latency percentiles by path: one panel per frame size, one
# curve per series, the percentile on a "nines" axis against log latency,
# and one key for all panels below them.
TERMINAL = ARG1
OUTPUT = ARG2
DATA = ARG3
load ARG0[1:strstrt(ARG0, "latency.gp") - 1]."common.gp"

NOTE = "Latency workload, " . LAT_KIND . ": the sender's TX stamp to " . \
	"the receiving application (CLOCK_MONOTONIC, one host); " . \
	"log-linear histogram, at most 1% error."
if (strlen(LAT_MISSING) > 0) {
	NOTE = NOTE . "\nNo latency samples (nothing reaches user space): " . \
		LAT_MISSING . "."
}
set label 101 NOTE at screen 0.01, screen 0.095 font ",12" \
	textcolor rgb "#333333"
set label 102 "Latency percentiles by path" at screen 0.5, screen 0.965 \
	center font ",22" textcolor rgb "#111111"
set multiplot
unset x2tics
set xtics autofreq scale 1
set logscale x 10
set format x "%.0f"
set xlabel "latency, microseconds (log scale)"
set ytics ("p50" 0.30103, "p90" 1, "p99" 2, "p99.9" 3, "p99.99" 4, \
	"max" 5)
set yrange [0:5.3]
set grid xtics ytics lc rgb "#b0b0b0" lw 1 dt 3
unset key
# Panels side by side between 7% and 97% of the width, 6% apart.
PW = (0.90 - 0.06 * (LAT_PANELS - 1)) / LAT_PANELS
set bmargin at screen 0.46
set tmargin at screen 0.86
BASE = 0
do for [p = 1:LAT_PANELS] {
	set lmargin at screen 0.07 + (p - 1) * (PW + 0.06)
	set rmargin at screen 0.07 + (p - 1) * (PW + 0.06) + PW
	set title sprintf("%d-byte frames", LAT_SIZE[p]) font ",18"
	if (p == 1) {
		set ylabel "percentile"
	} else {
		unset ylabel
		unset label 100
		unset label 101
		unset label 102
	}
	L = LAT_SERIES[p]
	plot for [k = 1:words(L)] DATA."/lat.dat" index (BASE + k - 1) \
		using 2:1 with linespoints lw 3 ps 1.8 \
		lc rgb COLOUR[word(L, k) + 0] pt POINT[word(L, k) + 0] \
		dt DASH[word(L, k) + 0] notitle
	BASE = BASE + words(L)
}
# The key: an empty plot across the width whose only content is the key.
unset title
unset xlabel
unset ylabel
unset label 100
unset label 101
unset label 102
unset logscale x
unset border
unset tics
unset grid
set lmargin at screen 0.04
set rmargin at screen 0.96
set bmargin at screen 0.14
set tmargin at screen 0.33
set xrange [0:1]
set yrange [0:1]
set key center center horizontal maxcols 3 Left reverse samplen 3 \
	width 1 spacing 1.1 font ",13"
ALL = ""
do for [p = 1:LAT_PANELS] {
	ALL = ALL . " " . LAT_TITLED[p]
}
plot for [w in ALL] 2 with linespoints lw 3 ps 1.8 \
	lc rgb COLOUR[w + 0] pt POINT[w + 0] dt DASH[w + 0] title TITLE[w + 0]
unset multiplot
