# common.gp - what every compare plot shares: the terminal, the look and
# the series settings. plots.sh runs each plot as
#
#   gnuplot -c PLOT.gp svg|png OUTPUT DATA_DIR
#
# and the plot sets TERMINAL, OUTPUT and DATA from its arguments before it
# loads this file (load clears ARG1...). DATA_DIR holds vars.gp and the
# .dat files plots.jq wrote.
load DATA."/vars.gp"
# Bar plots (BAR_PLOT set) widen with their bars.
PLOT_WIDTH = exists("BAR_PLOT") ? WIDTH : 1280
if (TERMINAL eq "svg") {
	# The same font sizes as the PNG: svg points are smaller.
	set terminal svg size PLOT_WIDTH,720 dynamic noenhanced \
		font "DejaVu Sans,13" fontscale 1.25 background "#ffffff"
} else {
	set terminal pngcairo size PLOT_WIDTH,720 noenhanced \
		font "DejaVu Sans,13" background "#ffffff"
}
set output OUTPUT
set encoding utf8
set border 3 lw 1.5 lc rgb "#222222"
set tics nomirror textcolor rgb "#111111"
set grid ytics lc rgb "#b0b0b0" lw 1 dt 3
set title font ",22" textcolor rgb "#111111"
# The environment on every plot, bottom left: where and when it was measured.
set label 100 ENVIRONMENT at screen 0.01, screen 0.025 font ",12" \
	textcolor rgb "#333333"
