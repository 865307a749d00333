# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# rdma-vm-run.sh - `rdma-vm run`: boot the cached kernel under qemu for one
# command and return that command's exit status. The guest has no network
# to the outside (-nic none); its only links are the ones it makes itself.
#
# Needs rdma-vm-build.sh sourced.

VM_QEMU_PID=""
VM_RUN_DIR=""

# Print the accelerator the VM runs under: kvm only where it really
# works, else tcg (qemu emulates every guest instruction).
vm_accel_name() {
	local want=${RDMA_VM_ACCEL:-auto}
	# A /dev/kvm without vmx/svm in the CPU flags is a paravirtual
	# stand-in that cannot run a stock kernel: use TCG there.
	if [ "$want" = kvm ] || { [ "$want" = auto ] &&
		grep -qwE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ]; }; then
		echo kvm
	else
		echo tcg
	fi
}

# Print the qemu accelerator arguments of vm_accel_name's choice.
vm_accel() {
	if [ "$(vm_accel_name)" = kvm ]; then
		echo "-accel kvm -cpu host"
	else
		echo "-accel tcg,thread=multi -cpu max"
	fi
}

# Refuse a path qemu's option syntax or the kernel command line would split.
vm_path_ok() {
	case $1 in
	/*) ;;
	*) vm_say "--share $1: give an absolute path"; return 1 ;;
	esac
	if [[ $1 == *[[:space:],:\"\']* ]]; then
		vm_say "--share '$1': no spaces, commas, colons or quotes, please"
		return 1
	fi
	[ -d "$1" ] || { vm_say "--share $1: not a directory"; return 1; }
}

# Stop qemu if it still runs and remove the run directory.
vm_run_cleanup() {
	if [ -n "$VM_QEMU_PID" ] && kill -0 "$VM_QEMU_PID" 2>/dev/null; then
		kill -TERM "$VM_QEMU_PID" 2>/dev/null
		wait "$VM_QEMU_PID" 2>/dev/null || true
	fi
	VM_QEMU_PID=""
	[ -z "$VM_RUN_DIR" ] || rm -rf "$VM_RUN_DIR"
	VM_RUN_DIR=""
}

# Write the run directory's start script: cd, then the guest side.
vm_write_start() {
	local run=$1 topo=$2
	shift 2
	{
		printf 'cd %q 2>/dev/null || cd /\n' "$PWD"
		# The guest cannot tell TCG from KVM itself: say it.
		printf 'export PL_VM_ACCEL=%q\n' "$(vm_accel_name)"
		printf 'exec /bin/bash %q %q' "$PATHLAB_LIB/rdma-vm-guest.sh" "$topo"
		printf ' %q' "$@"
		printf '\n'
	} >"$run/start"
}

# rdma-vm run [--timeout S] [--share DIR]... [--topo KIND] [--] CMD...
vm_run() {
	local timeout=600 topo=veth shares=("$PATHLAB_ROOT") s i rc log
	local virtfs=() list="" tailer
	while [ $# -gt 0 ]; do
		case $1 in
		--timeout) timeout=${2:?}; shift 2 ;;
		--share) shares+=("$(cd "${2:?}" 2>/dev/null && pwd || echo "$2")")
			shift 2 ;;
		--topo) topo=${2:?}; shift 2 ;;
		--) shift; break ;;
		-*) vm_say "run: unknown option '$1'"; return 2 ;;
		*) break ;;
		esac
	done
	[ $# -gt 0 ] || { vm_say "run: no command"; return 2; }
	[[ $timeout =~ ^[1-9][0-9]*$ ]] || { vm_say "--timeout $timeout: seconds"; return 2; }
	case $topo in veth | loopback) ;; *) vm_say "--topo $topo: veth or loopback"; return 2 ;; esac
	for s in "${shares[@]}"; do vm_path_ok "$s" || return 2; done
	vm_build || return $?
	mkdir -p "$VM_CACHE/runs"
	VM_RUN_DIR=$(mktemp -d "$VM_CACHE/runs/run.XXXXXX")
	vm_path_ok "$VM_RUN_DIR" || { vm_run_cleanup; return 99; }
	trap 'vm_run_cleanup; exit 129' HUP
	trap 'vm_run_cleanup; exit 130' INT
	trap 'vm_run_cleanup; exit 143' TERM
	vm_write_start "$VM_RUN_DIR" "$topo" "$@"
	for i in "${!shares[@]}"; do
		virtfs+=(-virtfs "local,path=${shares[$i]},mount_tag=s$i,security_model=none,multidevs=remap")
		list+=${list:+:}${shares[$i]}
	done
	log=$VM_RUN_DIR/console
	: >"$log"
	# A kill -9 of this script runs no trap: each link of the chain
	# (timeout, then qemu) gets SIGKILL from the kernel when its parent
	# dies (PR_SET_PDEATHSIG), so no qemu outlives us.
	# shellcheck disable=SC2046 # vm_accel prints several words
	setpriv --pdeathsig KILL timeout -k 5 "$timeout" \
		setpriv --pdeathsig KILL qemu-system-x86_64 $(vm_accel) \
		-m "${RDMA_VM_MEM:-1024}" -smp "${RDMA_VM_CPUS:-2}" \
		-nodefaults -display none -no-reboot -nic none -serial stdio \
		-kernel "$VM_CACHE/vmlinux" -initrd "$VM_CACHE/initrd.gz" \
		-append "console=ttyS0 quiet panic=-1 mitigations=off tsc=reliable no_timer_check PLVM_SHARES=$list PLVM_RUN=$VM_RUN_DIR" \
		-virtfs "local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap" \
		"${virtfs[@]}" \
		-virtfs "local,path=$VM_RUN_DIR,mount_tag=run,security_model=none,multidevs=remap" \
		</dev/null >"$log" 2>&1 &
	VM_QEMU_PID=$!
	# The console in the background: bash runs a trap only once the
	# foreground command is done, but it interrupts a wait at once.
	# sed -u: each line as it comes (tr and grep would hold them in a
	# pipe's buffer until the guest ends).
	tail -s 0.2 --pid="$VM_QEMU_PID" -n +1 -f "$log" 2>/dev/null |
		sed -u -e 's/\r//g' -e '/^PATHLAB-RDMA-VM-EXIT=/d' \
			-e '/^\[ *[0-9.]*\] reboot: Power down/d' &
	tailer=$!
	wait "$VM_QEMU_PID" && rc=0 || rc=$?
	wait "$tailer" || true
	VM_QEMU_PID=""
	s=$(tr -d '\r' <"$log" | sed -n 's/^PATHLAB-RDMA-VM-EXIT=\([0-9]*\) uptime=\(.*\)/\1 \2/p' | tail -n 1)
	if [ -n "$s" ]; then
		vm_say "guest exit status ${s% *} after ${s#* } s"
		rc=${s% *}
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		vm_say "the guest ran past --timeout $timeout s: stopped"
		rc=99
	else
		vm_say "the guest ended without an exit status (qemu $rc; crash?)"
		rc=99
	fi
	vm_run_cleanup
	trap - HUP INT TERM
	return "$rc"
}

# rdma-vm check: 0 when a VM can be built and booted, 77 (and why) if not.
vm_check() {
	vm_build || return $?
}
