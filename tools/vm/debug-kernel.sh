#!/bin/bash
# Build the debug guest kernel once per machine and print the directory
# that holds it:
#   DIR/bzImage   the kernel
#   DIR/kver      its release string
#   DIR/modroot   its modules (lib/modules/KVER), for the initramfs
#   DIR/build     the configured, built tree: mvgal.ko is built against it
#
# The source is Debian's linux-source-6.12 of the same version as the guest
# kernel; the config is `make allnoconfig` + kernel/configs/kvm_guest.config
# + tools/vm/debug-kernel.config (KASAN, lockdep, kmemleak, fault injection,
# UBSAN, hung-task and soft-lockup detectors). The result is cached in
# $MVGAL_KCACHE (default /var/cache/mvgal), outside the checkout, under a
# key made of the source version and a hash of the fragment and the
# recipe below, so only the first run on a machine pays for the build (about
# 22 minutes on 2 cores).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
root=${MVGAL_KCACHE:-/var/cache/mvgal}
frag=$top/tools/vm/debug-kernel.config
kver=$(cat "$top/build/cache/kver" 2>/dev/null) ||
	{ echo "debug-kernel: run tools/deps.sh first" >&2; exit 1; }
pkgver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver")
# Bump when the way the tree is configured or built changes.
recipe=1
hash=$( (cat "$frag"; echo "recipe $recipe") | sha256sum | cut -c1-12)
dir=$root/linux-$pkgver-$hash

mkdir -p "$root"
exec 9>"$root/.lock"
flock 9
if [ -f "$dir/done" ]; then
	echo "$dir"
	exit 0
fi

log() { echo "debug-kernel: $*" >&2; }
# What a kernel build needs beyond tools/deps.sh's packages.
missing=""
for p in flex bison bc libelf-dev libssl-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	log "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null; }
fi
# Builds of other configs or sources (500 MB each), and unfinished ones, go.
for old in "$root"/linux-*; do
	[ "$old" = "$dir" ] || rm -rf "$old"
done
rm -rf "$dir"
mkdir -p "$dir/dl"
log "building $pkgver with $(basename "$frag") ($hash) into $dir"
(cd "$dir/dl" && apt-get download -qq -o APT::Sandbox::User=root \
	"linux-source-6.12=$pkgver" >/dev/null) || {
	apt-get update -qq
	(cd "$dir/dl" && apt-get download -qq -o APT::Sandbox::User=root \
		"linux-source-6.12=$pkgver" >/dev/null)
}
deb=$(ls "$dir"/dl/linux-source-6.12_*.deb)
mkdir -p "$dir/build"
dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
	xz -dc | tar -x -C "$dir/build" --strip-components=1
rm -rf "$dir/dl"

cd "$dir/build"
jobs=$(nproc)
make -s allnoconfig >/dev/null
scripts/kconfig/merge_config.sh -m .config kernel/configs/kvm_guest.config "$frag" >/dev/null
make -s olddefconfig >/dev/null
# Every option of the fragment must have survived the dependency checks.
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n) opt=${line%%=*}
		if grep -q "^$opt=[ym]" .config; then log "$opt is set, wanted off"; missing=1; fi ;;
	CONFIG_*=*)
		if ! grep -qx "$line" .config; then log "$line did not stick ($(grep "^${line%%=*}=" .config || echo unset))"; missing=1; fi ;;
	esac
done <"$frag"
[ "$missing" = 0 ] || { log "the config fragment does not apply"; exit 1; }

nice -n 19 make -s -j"$jobs" bzImage modules >"$dir/build.log" 2>&1 ||
	{ tail -n 40 "$dir/build.log" >&2; log "kernel build failed"; exit 1; }
make -s modules_install INSTALL_MOD_PATH="$dir/modroot" INSTALL_MOD_STRIP=1 >/dev/null
cp arch/x86/boot/bzImage "$dir/bzImage"
make -s kernelrelease >"$dir/kver"
touch "$dir/done"
log "done: $(du -sh "$dir/bzImage" | cut -f1) bzImage, $(du -sh "$dir/modroot" | cut -f1) of modules"
echo "$dir"
