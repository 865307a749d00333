# shellcheck shell=bash
# rdma.sh - RDMA verbs devices: provider (hardware or software), ports,
# link layer, state, GIDs and their RoCE versions, and what the tools let
# us see of PFC and ECN.

RDMA_DEVS=()
declare -A RDMA_SOFT=() RDMA_ACTIVE=()
RDMA_HW_ACTIVE=0
RDMA_USER_DEVS=

# GIDs of one port: index, value, type and netdev of each non-zero GID.
rdma_gids() {
	local d=$1 p=$2 dir=/sys/class/infiniband/$1/ports/$2 g v t n out=() vers=()
	for g in $(ls_names "$dir/gids/*"); do
		v=$(rd "$dir/gids/$g") || continue
		[[ $v =~ ^[0:]+$ ]] && continue
		t=$(rd "$dir/gid_attrs/types/$g") || t=
		n=$(rd "$dir/gid_attrs/ndevs/$g") || n=
		out+=("$g $v${t:+ $t}${n:+ $n}")
		[ -n "$t" ] && vers+=("$t")
	done
	fact "paths/verbs/devices/$d/ports/$p/gids" a "$(IFS=';'; echo "${out[*]}")" \
		"$dir/gids/*, $dir/gid_attrs/{types,ndevs}/*"
	fact "paths/verbs/devices/$d/ports/$p/roce_versions" a \
		"$(printf '%s\n' "${vers[@]}" | sort -u | paste -sd';' -)" \
		"$dir/gid_attrs/types/*"
}

# ECN and PFC: the congestion counters in sysfs, mlx5's ECN switches, and
# `dcb pfc show` where iproute2's dcb tool exists.
rdma_congestion() {
	local d=$1 p=$2 dir=/sys/class/infiniband/$1/ports/$2 nd=$3 c v e out=()
	for c in np_ecn_marked_roce_packets np_cnp_sent rp_cnp_handled \
		rp_cnp_ignored out_of_sequence; do
		v=$(rd "$dir/hw_counters/$c") && out+=("$c=$v")
	done
	fact "paths/verbs/devices/$d/ports/$p/ecn_counters" a \
		"$(IFS=';'; echo "${out[*]}")" "$dir/hw_counters/*"
	if [ -n "$nd" ] && has "/sys/class/net/$nd/ecn"; then
		out=()
		for c in roce_np roce_rp; do
			v=$(for e in $(ls_names "/sys/class/net/$nd/ecn/$c/enable/*"); do
				[ "$(rd "/sys/class/net/$nd/ecn/$c/enable/$e")" = 1 ] && echo "$e"
			done | paste -sd, -)
			out+=("$c priorities: ${v:-none}")
		done
		fact "paths/verbs/devices/$d/ports/$p/ecn_enabled" a \
			"$(IFS=';'; echo "${out[*]}")" "/sys/class/net/$nd/ecn/*/enable/*"
	fi
	[ -n "$nd" ] || return 0
	if run_cmd "dcb-pfc-$nd" dcb pfc show dev "$nd"; then
		fact "paths/verbs/devices/$d/ports/$p/pfc" s \
			"$(grep -o 'prio-pfc.*' <<<"$CMD_OUT" | head -n 1)" "$CMD_SRC"
	else
		fact "paths/verbs/devices/$d/ports/$p/pfc" s "" \
			"dcb pfc show dev $nd (not available: iproute2's dcb, or mlnx_qos -i $nd, shows it)"
	fi
}

# One verbs device: provider, firmware, ports.
rdma_device() {
	local d=$1 base=paths/verbs/devices/$1 t drv soft=false p st ll rate nd
	t=$(lnk "/sys/class/infiniband/$d") || t=
	drv=$(lnk_base "/sys/class/infiniband/$d/device/driver") || drv=
	if [[ $t == */virtual/* ]] || [ -z "$drv" ]; then
		soft=true
		case $d in rxe*) drv=rdma_rxe ;; siw*) drv=siw ;; *) drv=software ;; esac
	fi
	# shellcheck disable=SC2034 # read by the files that source this one
	RDMA_SOFT[$d]=$soft
	fact "$base/provider" s "$drv" "/sys/class/infiniband/$d/device/driver"
	fact "$base/software" b "$soft" "/sys/class/infiniband/$d -> $t"
	fact "$base/fw_ver" s "$(rd "/sys/class/infiniband/$d/fw_ver")" \
		"/sys/class/infiniband/$d/fw_ver"
	nd=$(rd "/sys/class/infiniband/$d/parent") ||
		nd=$(ls_names "/sys/class/infiniband/$d/device/net/*" | head -n 1)
	for p in $(ls_names "/sys/class/infiniband/$d/ports/*"); do
		st=$(rd "/sys/class/infiniband/$d/ports/$p/state") || st=
		ll=$(rd "/sys/class/infiniband/$d/ports/$p/link_layer") || ll=
		rate=$(rd "/sys/class/infiniband/$d/ports/$p/rate") || rate=
		fact "$base/ports/$p/state" s "$st" "/sys/class/infiniband/$d/ports/$p/state"
		fact "$base/ports/$p/link_layer" s "$ll" \
			"/sys/class/infiniband/$d/ports/$p/link_layer"
		fact "$base/ports/$p/rate" s "$rate" "/sys/class/infiniband/$d/ports/$p/rate"
		[ -n "$nd" ] && fact "$base/ports/$p/netdev" s "$nd" \
			"/sys/class/infiniband/$d/device/net"
		if [[ $st == *ACTIVE* ]]; then
			# shellcheck disable=SC2034 # read by the files that source this one
			RDMA_ACTIVE[$d]=1
			[ "$soft" = false ] && RDMA_HW_ACTIVE=$((RDMA_HW_ACTIVE + 1))
		fi
		rdma_gids "$d" "$p"
		[ "$ll" = Ethernet ] && rdma_congestion "$d" "$p" "$nd"
	done
	return 0
}

# All verbs devices, and what user space sees of them.
collect_rdma() {
	local d
	mapfile -t RDMA_DEVS < <(ls_names '/sys/class/infiniband/*')
	for d in "${RDMA_DEVS[@]}"; do
		rdma_device "$d"
	done
	fact paths/verbs/uverbs a "$(ls_names '/dev/infiniband/uverbs*' | paste -sd';' -)" \
		/dev/infiniband
	# libibverbs lists only devices whose provider library it can load.
	if run_cmd ibv_devinfo ibv_devinfo -l; then
		RDMA_USER_DEVS=$(grep -vi 'found' <<<"$CMD_OUT" | awk 'NF { print $1 }' |
			paste -sd';' -)
		fact paths/verbs/userspace_devices a "$RDMA_USER_DEVS" "$CMD_SRC"
	fi
	return 0
}
