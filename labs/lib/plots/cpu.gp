# cpu.gp - CPU cycles per packet by path, stacked user/system/softirq over
# all CPUs, the receiver's own as a marker, against the line-rate budget.
TERMINAL = ARG1
OUTPUT = ARG2
DATA = ARG3
BAR_PLOT = 1
load ARG0[1:strstrt(ARG0, "cpu.gp") - 1]."common.gp"

set title "CPU cost per packet against the line-rate budget"
set ylabel "CPU cycles per packet (TSC-equivalent, log scale)"
set label 101 "Bars: all CPUs' time (/proc/stat) x TSC rate / packets " . \
	"received; it includes pathlab-gen where it shares the machine, " . \
	"and on veth the kernel's receive work.\n" . \
	"Diamond: the receiver process alone. " . \
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
		fill pattern 3 lc rgb "#a8a8a8" title "user (all CPUs)", \
	C using 1:($3 > $2 ? $3 : NaN):($1 - HW):($1 + HW):2:3 \
		with boxxyerror fill pattern 4 lc rgb "#333333" \
		title "system (all CPUs)", \
	C using 1:($4 > $3 ? $4 : NaN):($1 - HW):($1 + HW):3:4 \
		with boxxyerror fill pattern 3 lc rgb "#333333" \
		title "softirq (all CPUs)", \
	C using 1:4:7 with labels center offset 0, 1.1 font ",13" notitle, \
	C using 1:5 with points pt 13 ps 2.8 lc rgb "#ffffff" notitle, \
	C using 1:5 with points pt 12 ps 2.4 lw 2.5 lc rgb "#000000" \
		title "receiver process", \
	C using 1:5:8 with labels boxed left offset 1.4, 0 font ",12" \
		notitle, \
	B using 1:3:($2 - $1):(0) with vectors nohead lw 3 dt 2 \
		lc rgb "#D55E00" title "10 GbE budget", \
	B using 1:4:($2 - $1):(0) with vectors nohead lw 3 dt 3 \
		lc rgb "#0072B2" title "100 GbE budget", \
	B using 2:3:5 with labels left offset 0.3, 0 font ",12" \
		textcolor rgb "#D55E00" notitle, \
	B using 2:4:6 with labels left offset 0.3, 0 font ",12" \
		textcolor rgb "#0072B2" notitle
