# Red team, exercise 5: the reference program with its verdict counts in
# a pinned map, one that outlives the load and can be filled beforehand
# (or read by the grader from a map someone else pinned there).
/^} verdicts SEC(".maps");$/i\
	__uint(pinning, LIBBPF_PIN_BY_NAME);
