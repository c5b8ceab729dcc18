#!/bin/bash
# Build the base initramfs of the test guest (an uncompressed cpio: the
# guest runs under TCG, where decompressing costs more than reading).
#
# mkinitramfs.sh OUT KVER MODULE_ROOT MVGAL_KO[:KO...] FILE...
#   MVGAL_KO     mvgal.ko, and the test bed's own modules after colons
#                (installed next to it, loaded on demand)
#   MODULE_ROOT  unpacked Debian linux-image tree (lib/modules/KVER inside)
#   FILE         DEST=SRC pairs: SRC on the host lands at DEST in the guest;
#                ELF files bring the shared libraries they need along.
set -euo pipefail

out=$1 kver=$2 modroot=$3 ko=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
stage=$(mktemp -d "${out}.stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/lib,lib64,proc,sys,dev,tmp,run,root,etc/mvgal}
mkdir -p "$stage/lib/x86_64-linux-gnu"
cp /bin/busybox "$stage/bin/busybox"
install -m 0755 "$here/init" "$stage/init"

# The stand-in GPU drivers and the DRM helpers mvgal needs (drm_exec), in
# load order, with their dependencies,
# decompressed so busybox modprobe needs no xz support.
guest_modules="drm drm_kms_helper drm_shmem_helper virtio_dma_buf virtio_gpu vgem drm_exec"
echo "$guest_modules" >"$stage/etc/mvgal/guest-modules"
mdir="lib/modules/$kver"
mkdir -p "$stage/$mdir/extra"
for f in modules.builtin modules.builtin.modinfo modules.order; do
	[ -f "$modroot/$mdir/$f" ] && cp "$modroot/$mdir/$f" "$stage/$mdir/"
done
[ -f "$modroot/$mdir/modules.dep" ] || depmod -b "$modroot" "$kver"
# 9p, for the Vulkan tree tools/vm/run --vulkan shares: loaded only then,
# and only where the kernel has it. bochs, the
# driver of the guest's display-only device (bochs-display): loaded only
# by the test that wants a KMS device without a render node.
# zram: swap for the test that has a mirrored registration swapped out
# (built in to the debug kernel).
on_demand="9p 9pnet_virtio bochs zram"
for m in $guest_modules $on_demand; do
	# A module this kernel lacks (bochs in the debug kernel) is left out.
	{ modprobe -d "$modroot" -S "$kver" --show-depends "$m" 2>/dev/null || true; } |
		awk '$1 == "insmod" { print $2 }'
done | sort -u | while read -r path; do
	rel=${path#"$modroot"/}
	dst="$stage/${rel%.xz}"
	mkdir -p "$(dirname "$dst")"
	case "$path" in
	*.xz) xz -dc "$path" >"$dst" ;;
	*) cp "$path" "$dst" ;;
	esac
done
IFS=: read -r -a kos <<<"$ko"
for k in "${kos[@]}"; do
	cp "$k" "$stage/$mdir/extra/"
done
depmod -b "$stage" "$kver"

add_libs() { # copy the shared libraries an ELF file needs
	ldd "$1" 2>/dev/null | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }' |
	while read -r lib; do
		[ -n "$lib" ] && [ -f "$lib" ] || continue
		d="$stage$(dirname "$lib")"
		mkdir -p "$d"
		[ -e "$d/$(basename "$lib")" ] || cp -L "$lib" "$d/"
	done
}

for pair in "$@"; do
	dest=${pair%%=*} src=${pair#*=}
	mkdir -p "$stage$(dirname "$dest")"
	cp -L "$src" "$stage$dest"
	if head -c 4 "$src" | grep -q ELF; then
		add_libs "$src"
	fi
done
(cd "$stage" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
