# shellcheck shell=bash
# paths.sh - the table of receive paths and modes the driver knows.
#
# One row per (path, mode): the path id, the mode (as the receiver reports
# it in its JSON "mode"), the receiver binary (relative to the build
# directory), its arguments for that mode, extra arguments for latency runs,
# how it runs ("netns": in the rx namespace, fed by pathlab-gen over the
# veth; "vm": in the RDMA VM, or directly on the host's RDMA device), what
# to do when it is not built, whether it has a GPU variant, whether it can
# receive on many queues (--queues) and whether it can be the far end of a
# round trip (--reflect), and where the kernel's receive work may run for
# it (the placements it supports, its default first: rx-core, other-core,
# busy-poll; topo_napi_place). "-" is an empty field. A new row is a new mode
# that compare runs; a path's first row is what `pathlab rx PATH` runs.

# The table itself is paths.tsv beside this file (labs/plab reads it too);
# comment lines start with #.
PL_PATH_TABLE=$(grep -v '^#' "$(dirname "${BASH_SOURCE[0]}")/paths.tsv")

# The generator, relative to the build directory.
# shellcheck disable=SC2034 # used by compare.sh and labs/pathlab
PL_GEN_BIN=common/pathlab-gen

# Print the known path ids, one per line, in table order.
path_ids() {
	awk -F'\t' 'NF && !seen[$1]++ { print $1 }' <<<"$PL_PATH_TABLE"
}

# Print field N of the row of path ID and MODE (the path's first row if
# MODE is empty); "-" prints nothing. Fail if there is no such row.
path__field() {
	local id=$1 mode=$2 n=$3 v
	v=$(awk -F'\t' -v id="$id" -v mode="$mode" -v n="$n" \
		'$1 == id && (mode == "" || $2 == mode) {
			print $n; found = 1; exit
		} END { exit !found }' <<<"$PL_PATH_TABLE") || return 1
	[ "$v" = - ] || printf '%s\n' "$v"
}

# True if ID is a known path.
path_known() {
	path__field "$1" "" 1 >/dev/null
}

# Print the modes of path ID, one per line, in table order.
path_modes() {
	awk -F'\t' -v id="$1" '$1 == id { print $2 }' <<<"$PL_PATH_TABLE"
}

# Print the receiver binary of path ID (absolute, in the build directory).
path_bin() {
	local rel
	rel=$(path__field "$1" "" 3) || return 1
	printf '%s/%s\n' "${PATHLAB_BUILD:?}" "$rel"
}

# Print the receiver arguments of path ID in MODE (may be empty).
path_args() {
	path__field "$1" "$2" 4
}

# Print the extra receiver arguments of ID in MODE for latency runs.
path_latency_args() {
	path__field "$1" "$2" 5
}

# True if path ID in MODE has a GPU variant (--gpu sim|cuda). xdp drop
# hands no packet to anyone; the af_xdp vdev builds its UMEM from the
# pool's own memory.
path_has_gpu() {
	[ "$(path__field "$1" "$2" 8)" = yes ]
}

# True if path ID in MODE can receive on many queues (--queues).
path_has_queues() {
	[ "$(path__field "$1" "$2" 9)" = yes ]
}

# True if path ID in MODE can send what it receives back (--reflect): the
# far end of the rtt workload. xdp drop hands no packet to anyone.
path_has_reflect() {
	[ "$(path__field "$1" "$2" 10)" = yes ]
}

# Print how path ID runs: netns or vm.
path_runner() {
	path__field "$1" "" 6
}

# Print how to get path ID built.
path_hint() {
	path__field "$1" "" 7
}

# True if the receiver binary of path ID is built.
path_built() {
	local b
	b=$(path_bin "$1") || return 1
	[ -x "$b" ]
}

# Print the "not built" error for path ID.
path_not_built_msg() {
	echo "pathlab: path $1 is not built ($(path_hint "$1"))"
}

# Print the placements path ID in MODE supports, its default first, one
# per line (none: the path does not run on the lab's veth).
path_placements() {
	path__field "$1" "$2" 11 | tr ',' '\n'
}

# Print the mode of path ID that receiver arguments ARGS... select: the
# first mode whose own arguments appear among them, else the first mode.
path_mode_of_args() {
	local id=$1 m margs all first=""
	shift
	all=" $* "
	while read -r m; do
		[ -n "$first" ] || first=$m
		margs=$(path_args "$id" "$m")
		if [ -n "$margs" ] && [[ $all == *" $margs "* ]]; then
			printf '%s\n' "$m"
			return 0
		fi
	done < <(path_modes "$id")
	printf '%s\n' "$first"
}
