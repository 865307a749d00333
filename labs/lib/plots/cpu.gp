# cpu.gp - the receive cost per packet by path, stacked kernel (the link's
# NAPI threads) and app (the receive loop's useful time) on the receiving
# cores, the system-wide figure (generator included) as a marker, against
# the line-rate budget.
TERMINAL = ARG1
OUTPUT = ARG2
DATA = ARG3
BAR_PLOT = 1
load ARG0[1:strstrt(ARG0, "cpu.gp") - 1]."common.gp"

set title "Receive cost per packet on the receiving cores, against the line-rate budget"
set ylabel "CPU cycles per packet (TSC-equivalent, log scale)"
set label 101 "Bars: the path's cost on the receiving cores = the link's " . \
	"NAPI threads (kernel: driver, XDP, GRO, IP, UDP) + the receive " . \
	"loop's useful time (app; no idle polling), x TSC rate / packets.\n" . \
	"Circle: all CPUs' busy time, pathlab-gen included. " . \
	"Budget: cycles per packet at line rate, (frame + 20 B) x 8 " . \
	"bit-times at the TSC rate." \
	at screen 0.01, screen 0.10 font ",12" textcolor rgb "#333333"
set bmargin 14
set tmargin 5
set rmargin 14
set xrange [XLO:XHI]
set link x2
set x2tics scale 0 font ",17" textcolor rgb "#111111"
set xtics scale 0 font TICFONT
set logscale y 10
set format y "%.0s%c"
BOTTOM = CPU_MIN / 3
set yrange [BOTTOM:CPU_MAX * 4]
set key at screen 0.5, screen 0.20 center top horizontal maxrows 2 \
	samplen 2 font ",13" width 1
HW = 0.4
C = DATA."/cpu.dat"
B = DATA."/budget.dat"
set style textbox opaque noborder margins 2, 1
plot C using 1:2:($1 - HW):($1 + HW):(BOTTOM):2 with boxxyerror \
		fill pattern 4 lc rgb "#333333" \
		title "kernel: NAPI thread (receiving core)", \
	C using 1:($3 > $2 ? $3 : NaN):($1 - HW):($1 + HW):2:3 \
		with boxxyerror fill pattern 3 lc rgb "#a8a8a8" \
		title "app: receive loop, useful time", \
	C using 1:3:6 with labels center offset 0, 1.1 font ",13" notitle, \
	C using 1:4 with points pt 7 ps 2.2 lc rgb "#ffffff" notitle, \
	C using 1:4 with points pt 6 ps 2.0 lw 2.5 lc rgb "#000000" \
		title "all CPUs, generator included", \
	C using 1:4:7 with labels boxed left offset 1.4, 0 font ",12" \
		notitle, \
	B using 1:3:($2 - $1):(0) with vectors nohead lw 3 dt 2 \
		lc rgb "#D55E00" title "10 GbE budget", \
	B using 1:4:($2 - $1):(0) with vectors nohead lw 3 dt 3 \
		lc rgb "#0072B2" title "100 GbE budget", \
	B using 2:3:5 with labels left offset 0.3, 0 font ",12" \
		textcolor rgb "#D55E00" notitle, \
	B using 2:4:6 with labels left offset 0.3, 0 font ",12" \
		textcolor rgb "#0072B2" notitle
