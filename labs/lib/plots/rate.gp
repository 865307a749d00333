# rate.gp - receive rate by path and frame size: grouped bars in kpps.
TERMINAL = ARG1
OUTPUT = ARG2
DATA = ARG3
BAR_PLOT = 1
load ARG0[1:strstrt(ARG0, "rate.gp") - 1]."common.gp"

set title "Receive rate by path and frame size"
set ylabel "received, thousand packets per second (kpps)"
LOSS = "loss = sent - received" . (BARS > 12 ? \
	" (in red over a bar: the share of the packets sent)" : "")
set label 101 "Throughput workload. Rate from the first to the last " . \
	"packet received; " . LOSS . "." \
	at screen 0.01, screen 0.065 font ",12" textcolor rgb "#333333"
set bmargin 9
set tmargin 5
set xrange [XLO:XHI]
set link x2
set x2tics scale 0 font ",17" textcolor rgb "#111111"
set xtics scale 0 font TICFONT
set boxwidth 0.8
unset key
if (RATE_LOG) {
	# Rates that span more than 30x: a log axis, bars from its floor.
	set logscale y 10
	set ylabel "received, thousand packets per second (kpps, log scale)"
	BOTTOM = RATE_MIN / 3
	set yrange [BOTTOM:RATE_MAX * 6]
} else {
	BOTTOM = 0
	set yrange [0:*]
	set offsets 0, 0, graph 0.15, 0
}
R = DATA."/rate.dat"
plot for [s=1:NS] R \
		using ($3 == s ? $1 : NaN):2:($1 - 0.4):($1 + 0.4):(BOTTOM):2 \
		with boxxyerror lc rgb COLOUR[s] \
		fill pattern PATTERN[s] border lc rgb "#222222" notitle, \
	R using 1:2:4 with labels center offset 0, 0.8 font VALFONT notitle, \
	R using 1:2:(BARS > 12 ? stringcolumn(6) : stringcolumn(5)) \
		with labels center offset 0, 2.0 font ",12" \
		textcolor rgb "#a01f00" notitle
