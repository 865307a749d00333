# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# rdma-vm-build.sh - `rdma-vm build`: a Debian kernel with rdma_rxe, unpacked
# into the cache, its ELF vmlinux, and a busybox initramfs that loads the
# modules the lab needs and mounts the host over 9p.
#
# Needs PATHLAB_ROOT and PATHLAB_LIB.

VM_CACHE=${PATHLAB_CACHE:-$PATHLAB_ROOT/.cache/rdma-vm}
# The file that says VM_CACHE is ours: `clean` removes nothing without it.
VM_MARK=.pathlab-rdma-vm-cache
# Modules to load, by name; their dependencies come first automatically.
# crc32_generic is not in modules.dep but rdma_rxe needs it (ICRC).
VM_MODULES="virtio_pci 9pnet_virtio 9p crc32_generic ib_uverbs rdma_rxe
rdma_ucm dummy veth"
# Loaded when the kernel has them as modules (built in otherwise).
VM_MODULES_OPTIONAL="af_packet sch_netem"

# Print a message on stderr, prefixed.
vm_say() {
	echo "rdma-vm: $*" >&2
}

# Print the kernel ABI to use: the cached one, $RDMA_VM_KVER, or Debian's.
vm_kver() {
	local v
	if [ -n "${RDMA_VM_KVER:-}" ]; then
		echo "$RDMA_VM_KVER"
		return 0
	fi
	if [ -s "$VM_CACHE/kver" ]; then
		cat "$VM_CACHE/kver"
		return 0
	fi
	command -v apt-cache >/dev/null || return 1
	v=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\([0-9].*-amd64\)$/\1/p' |
		head -n 1)
	[ -n "$v" ] && echo "$v"
}

# Print the tools the build needs that are missing.
vm_missing_tools() {
	local t
	for t in busybox xz gzip cpio dpkg apt-get qemu-system-x86_64 setpriv; do
		case $t in
		cpio) command -v cpio >/dev/null || busybox cpio --help \
			>/dev/null 2>&1 || echo "$t" ;;
		*) command -v "$t" >/dev/null || echo "$t" ;;
		esac
	done
}

# Download and unpack the kernel package into $VM_CACHE/kroot.
vm_fetch_kernel() {
	local kver=$1 deb
	[ -e "$VM_CACHE/kroot/boot/vmlinuz-$kver" ] && return 0
	deb=$(find "$VM_CACHE" -maxdepth 1 -name "linux-image-${kver}_*.deb" |
		head -n 1)
	if [ -z "$deb" ]; then
		vm_say "downloading linux-image-$kver (about 70 MB, once)"
		(cd "$VM_CACHE" && apt-get download -q "linux-image-$kver") ||
			return 1
		deb=$(find "$VM_CACHE" -maxdepth 1 \
			-name "linux-image-${kver}_*.deb" | head -n 1)
		[ -n "$deb" ] || return 1
	fi
	rm -rf "$VM_CACHE/kroot"
	dpkg -x "$deb" "$VM_CACHE/kroot"
}

# Write the uncompressed ELF vmlinux: under TCG it boots seconds faster
# than the bzImage, which decompresses itself inside the guest.
vm_extract_vmlinux() {
	local img=$1 out=$2 off
	off=$(grep -abo $'\xfd7zXZ' "$img" | head -n 1 | cut -d: -f1)
	[ -n "$off" ] || { vm_say "no xz stream in $img"; return 1; }
	tail -c +$((off + 1)) "$img" | xz -dcq --single-stream >"$out.tmp" ||
		true # trailing data after the stream makes xz complain
	[ "$(head -c 4 "$out.tmp" | od -An -c | tr -d ' ')" = 177ELF ] ||
		{ vm_say "extracted image is not ELF"; return 1; }
	mv "$out.tmp" "$out"
}

# Print the .ko paths (relative to the module dir) of MODULES and their
# dependencies, dependencies first, each once.
vm_module_order() {
	local moddir=$1 m
	shift
	declare -A seen=()
	vm__resolve() {
		local name=$1 line path dep
		line=$(grep -E "(^|/)${name}\.ko(\.xz|\.zst)?:" \
			"$moddir/modules.dep") || return 1
		path=${line%%:*}
		[ -z "${seen[$path]:-}" ] || return 0
		seen[$path]=1
		for dep in ${line#*:}; do
			dep=${dep##*/}
			vm__resolve "${dep%%.ko*}" || return 1
		done
		echo "$path"
	}
	for m in "$@"; do
		vm__resolve "$m" || { vm_say "no module $m"; return 1; }
	done
}

# Build the initramfs: busybox, the modules in load order, our /init.
vm_initramfs() {
	local kver=$1 moddir=$VM_CACHE/kroot/lib/modules/$1 dir=$VM_CACHE/initrd
	local order m opt=()
	for m in $VM_MODULES_OPTIONAL; do
		grep -qE "(^|/)${m}\.ko" "$moddir/modules.dep" && opt+=("$m")
	done
	# shellcheck disable=SC2086 # word lists
	order=$(vm_module_order "$moddir" $VM_MODULES "${opt[@]}") || return 1
	rm -rf "$dir"
	mkdir -p "$dir"/{bin,dev,proc,sys,newroot,mods}
	cp "$(command -v busybox)" "$dir/bin/busybox"
	for m in $order; do
		case $m in
		*.xz) xz -dc "$moddir/$m" >"$dir/mods/$(basename "${m%.xz}")" ;;
		*) cp "$moddir/$m" "$dir/mods/" ;;
		esac
		basename "${m%.xz}"
	done >"$dir/mods/list"
	cp "$PATHLAB_LIB/rdma-vm-init.sh" "$dir/init"
	chmod +x "$dir/init"
	(cd "$dir" && find . | busybox cpio -o -H newc 2>/dev/null |
		gzip -1) >"$VM_CACHE/initrd.gz.tmp"
	mv "$VM_CACHE/initrd.gz.tmp" "$VM_CACHE/initrd.gz"
}

# True if the cache holds a complete, current VM.
vm_built() {
	local kver
	kver=$(cat "$VM_CACHE/kver" 2>/dev/null) || return 1
	[ -s "$VM_CACHE/vmlinux" ] && [ -s "$VM_CACHE/initrd.gz" ] &&
		[ -d "$VM_CACHE/kroot/lib/modules/$kver" ] &&
		[ "$VM_CACHE/initrd.gz" -nt "$PATHLAB_LIB/rdma-vm-init.sh" ] &&
		[ "$VM_CACHE/initrd.gz" -nt "$PATHLAB_LIB/rdma-vm-build.sh" ]
}

# Make VM_CACHE ours: a new folder, one with our marker, or one that holds
# only what a build makes (a cache from before the marker) gets the marker;
# any other folder is refused (PATHLAB_CACHE must name a folder of its own).
vm_cache_own() {
	local f
	[ -f "$VM_CACHE/$VM_MARK" ] && return 0
	mkdir -p "$VM_CACHE" || return 1
	for f in "$VM_CACHE"/* "$VM_CACHE"/.[!.]*; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		case ${f##*/} in
		kver | vmlinux | initrd | initrd.gz | initrd.gz.tmp | kroot | runs | linux-image-*.deb) ;;
		*)
			vm_say "refusing cache $VM_CACHE: it holds ${f##*/}," \
				"which rdma-vm did not make (set PATHLAB_CACHE" \
				"to a folder of its own)"
			return 2
			;;
		esac
	done
	echo "rdma-vm cache: 'labs/rdma-vm clean' removes this folder" \
		>"$VM_CACHE/$VM_MARK"
}

# rdma-vm build: everything above, skipping what is already done.
vm_build() {
	local kver missing moddir
	missing=$(vm_missing_tools | paste -sd' ' -)
	[ -z "$missing" ] || { vm_say "missing tools: $missing"; return 77; }
	vm_cache_own || return
	vm_built && return 0
	kver=$(vm_kver) || { vm_say "cannot tell which kernel to use" \
		"(set RDMA_VM_KVER)"; return 77; }
	vm_fetch_kernel "$kver" ||
		{ vm_say "cannot download linux-image-$kver"; return 77; }
	moddir=$VM_CACHE/kroot/lib/modules/$kver
	[ -s "$moddir/modules.dep" ] || busybox depmod -b "$VM_CACHE/kroot" "$kver"
	[ -s "$VM_CACHE/vmlinux" ] && [ -s "$VM_CACHE/kver" ] &&
		[ "$(cat "$VM_CACHE/kver")" = "$kver" ] ||
		vm_extract_vmlinux "$VM_CACHE/kroot/boot/vmlinuz-$kver" \
			"$VM_CACHE/vmlinux" || return 1
	echo "$kver" >"$VM_CACHE/kver"
	vm_initramfs "$kver" || return 1
	vm_say "built: kernel $kver, $(wc -l <"$VM_CACHE/initrd/mods/list") modules, in $VM_CACHE"
}

# rdma-vm clean: remove the cache, only when it carries our marker.
vm_clean() {
	[ -e "$VM_CACHE" ] || [ -L "$VM_CACHE" ] || return 0
	if [ ! -f "$VM_CACHE/$VM_MARK" ] || [ -L "$VM_CACHE" ]; then
		vm_say "refusing to remove $VM_CACHE: it has no $VM_MARK," \
			"so rdma-vm did not build it (check PATHLAB_CACHE)"
		return 2
	fi
	rm -rf "$VM_CACHE"
}
