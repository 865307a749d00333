# shellcheck shell=bash
# answers.sh - the helpers of the graders whose student file is an answers
# file of "key = value" lines (exercises 11 and 15). The grader sets EX,
# ANSWERS and ITEMS ("name points what" per case) before it sources this,
# and ends with answers_exit.

FAILED=0
GRADED=0

# With --list, print the cases and exit.
answers_list() {
	local item name points what
	[ "${1:-}" = --list ] || return 0
	for item in "${ITEMS[@]}"; do
		read -r name points what <<<"$item"
		echo "CASE $points $EX/$name $what"
	done
	exit 0
}

# result NAME PASS|FAIL|SKIP MESSAGE: print the GRADE line of a question.
result() {
	local item name points what
	for item in "${ITEMS[@]}"; do
		read -r name points what <<<"$item"
		[ "$name" = "$1" ] || continue
		echo "GRADE $2 $points $EX/$name${3:+ $3}"
		[ "$2" = FAIL ] && FAILED=$((FAILED + 1))
		[ "$2" = SKIP ] || GRADED=$((GRADED + 1))
		[ -z "${3:-}" ] || echo "  [$name] $3" >&2
	done
}

# The answer to key $1, lowercased, blanks and thousands commas removed.
answer() {
	sed -n "s/^[[:space:]]*$1[[:space:]]*=\([^#]*\).*/\1/p" "$ANSWERS" |
		head -n 1 | tr -d ' \t,_' | tr '[:upper:]' '[:lower:]'
}

# near GOT WANT REL: true when both are numbers and GOT is within REL.
near() {
	awk -v g="$1" -v w="$2" -v r="$3" 'BEGIN {
		if (g !~ /^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/) exit 1
		if (w !~ /^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/) exit 1
		d = g - w; if (d < 0) d = -d
		exit !(d <= r * (w < 0 ? -w : w))
	}'
}

# Exit 1 if a question failed, 77 if all were skipped, else 0.
answers_exit() {
	if [ "$FAILED" -gt 0 ]; then
		exit 1
	elif [ "$GRADED" -eq 0 ]; then
		exit 77
	fi
	exit 0
}
