# shellcheck shell=bash
# io.sh - where facts come from and where they go.
#
# Readers take paths as they are on a live machine (/proc/cmdline) and read
# them under $SYSROOT, so the same collector runs on the machine or on a
# fake tree. Commands run only on the live machine; under a sysroot their
# output comes from DIR/cmd/KEY.txt. Emitters append one tab-separated
# record per fact, reason, next step or warning to REC; assemble.jq turns
# the records into the JSON document.

# The tree to read from: empty for the live machine.
SYSROOT=${SYSROOT:-}
# The records, in the order they were found.
REC=()

# Print the first line of FILE; fail if it cannot be read.
rd() {
	local line=
	[ -r "$SYSROOT$1" ] && [ ! -d "$SYSROOT$1" ] || return 1
	{ IFS= read -r line || true; } <"$SYSROOT$1" 2>/dev/null || return 1
	printf '%s\n' "$line"
}

# Print all of FILE; fail if it cannot be read.
rdall() {
	[ -r "$SYSROOT$1" ] && [ ! -d "$SYSROOT$1" ] || return 1
	cat "$SYSROOT$1" 2>/dev/null
}

# True if PATH exists (file, directory or link) in the tree.
has() {
	[ -e "$SYSROOT$1" ] || [ -L "$SYSROOT$1" ]
}

# Print the target of link PATH, unresolved; fail if it is not a link.
lnk() {
	readlink "$SYSROOT$1" 2>/dev/null
}

# Print the last component of link PATH's target (a driver's name).
lnk_base() {
	local t
	t=$(lnk "$1") || return 1
	printf '%s\n' "${t##*/}"
}

# Print the names of the entries matching GLOB (a live path), sorted.
ls_names() {
	local f
	for f in "$SYSROOT"$1; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		printf '%s\n' "${f##*/}"
	done | sort -V
}

# Print the first of the live paths given that exists in the tree.
first_of() {
	local p f
	for p in "$@"; do
		for f in "$SYSROOT"$p; do
			if [ -e "$f" ]; then
				printf '%s\n' "${f#"$SYSROOT"}"
				return 0
			fi
		done
	done
	return 1
}

# run_cmd KEY CMD [ARGS...]: run a read-only command on the live machine,
# or under a sysroot take its recorded output from DIR/cmd/KEY.txt. Sets
# CMD_OUT (its output) and CMD_SRC (what to cite); returns its status, 127
# if it is missing or was not recorded.
run_cmd() {
	local key=$1 rc=0
	shift
	CMD_OUT='' CMD_SRC="$*"
	if [ -n "$SYSROOT" ]; then
		# shellcheck disable=SC2034 # read by the files that source this one
		CMD_SRC="$* (recorded: cmd/$key.txt)"
		[ -r "$SYSROOT/cmd/$key.txt" ] || return 127
		CMD_OUT=$(cat "$SYSROOT/cmd/$key.txt")
		return 0
	fi
	command -v "$1" >/dev/null 2>&1 || return 127
	# shellcheck disable=SC2034 # read by the files that source this one
	CMD_OUT=$(LC_ALL=C timeout 15 "$@" 2>/dev/null </dev/null) || rc=$?
	return $rc
}

# Append one record; tabs and newlines inside fields become spaces, and
# trailing spaces go.
_rec() {
	local f out=''
	for f in "$@"; do
		f=${f//$'\t'/ }
		f=${f//$'\n'/ }
		f=${f%"${f##*[! ]}"}
		out+="${out:+$'\t'}$f"
	done
	REC+=("$out")
}

# fact PATH TYPE VALUE SOURCE: a fact {value, source} at PATH (a/b/c).
# TYPE: s string, n number, b true/false, a list split on ';', j JSON.
# An empty n or b value is null ("not visible").
fact() {
	_rec F "$1" "$2" "$3" "$4"
}

# put PATH TYPE VALUE: a plain value at PATH (verdicts, details).
put() {
	_rec P "$1" "$2" "$3"
}

# reason PATHID TEXT SOURCE: why path PATHID got its verdict.
reason() {
	_rec R "$1" "$2" "$3"
}

# step PATHID KIND TEXT: what to do next. KIND: package, kernel_parameter,
# module, command, hardware.
step() {
	_rec N "$1" "$2" "$3"
}

# warn ID TEXT SOURCE: something that will hurt latency or safety.
warn() {
	_rec W "$1" "$2" "$3"
}

# verdict PATHID VERDICT SUMMARY: ready, lab or unavailable, in one line.
verdict() {
	put "paths/$1/verdict" s "$2"
	put "paths/$1/summary" s "$3"
}

# Print S without leading and trailing white space.
trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	printf '%s\n' "${s%"${s##*[![:space:]]}"}"
}

# Print the CPUs of a cpulist ("0-3,8,10-11"), one per line.
cpulist_expand() {
	local part a b
	local IFS=,
	for part in $1; do
		case $part in
		*-*)
			a=${part%-*}
			b=${part#*-}
			b=${b%%:*}
			[[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ ]] || continue
			seq "$a" "$b"
			;;
		*) [[ $part =~ ^[0-9]+$ ]] && echo "$part" ;;
		esac
	done
}

# Print the CPUs given (one per line on stdin) as a cpulist: 0-3,8-11.
cpulist_format() {
	sort -n -u | awk '
		NR == 1 { a = b = $1; next }
		$1 == b + 1 { b = $1; next }
		{ out = out sep (a == b ? a : a "-" b); sep = ","; a = b = $1 }
		END { if (NR) print out sep (a == b ? a : a "-" b) }'
}

# Print the number of CPUs in a cpulist.
cpulist_count() {
	cpulist_expand "$1" | grep -c .
}

# True if kernel release REL (6.1.0-18-amd64) is at least MAJOR.MINOR.
kver_ge() {
	local rel=$1 want=$2 ma mi wma wmi
	[[ $rel =~ ^([0-9]+)\.([0-9]+) ]] || return 1
	ma=${BASH_REMATCH[1]} mi=${BASH_REMATCH[2]}
	wma=${want%%.*} wmi=${want#*.}
	((ma > wma || (ma == wma && mi >= wmi)))
}
