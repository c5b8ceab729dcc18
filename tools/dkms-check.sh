#!/bin/bash
# make dkms-check: the DKMS packaging works. Stages the module source as
# /usr/src/mvgal-VERSION (what `make install-dkms` installs), runs
# `dkms add` and `dkms build` for KVER, checks the built module's
# vermagic, loads that very module in the test guest in place of the
# project's own build and runs the example on it (attach every GPU, a
# session, a migration, bytes read back), and removes everything again.
# Root only; the guest image must exist (make vm).
#   dkms-check.sh VERSION KVER
set -euo pipefail
ver=$1 kver=$2
top=$(cd "$(dirname "$0")/.." && pwd)
src=/usr/src/mvgal-$ver

grep -q "^PACKAGE_VERSION=\"$ver\"" "$top/dkms.conf" ||
	{ echo "dkms-check: dkms.conf PACKAGE_VERSION is not $ver" >&2; exit 1; }

tmp=
cleanup() {
	dkms remove -m mvgal -v "$ver" --all >/dev/null 2>&1 || true
	rm -rf "$src" ${tmp:+"$tmp"}
}
cleanup
tmp=$(mktemp -d)
trap cleanup EXIT
make -C "$top" -s install-dkms DESTDIR= >/dev/null
dkms add -m mvgal -v "$ver"
dkms build -m mvgal -v "$ver" -k "$kver"
ko=$(find "/var/lib/dkms/mvgal/$ver/$kver" -name 'mvgal.ko*' | head -n 1)
[ -n "$ko" ] || { echo "dkms-check: dkms build produced no mvgal.ko" >&2; exit 1; }
vm=$(modinfo -F vermagic "$ko")
case "$vm" in
"$kver "*) echo "dkms-check: built $ko (vermagic $vm)" ;;
*) echo "dkms-check: $ko has vermagic '$vm', expected $kver" >&2; exit 1 ;;
esac

# The guest's busybox insmod takes an uncompressed module.
case "$ko" in
*.xz) xz -dc "$ko" >"$tmp/mvgal.ko" ;;
*.zst) zstd -qdc "$ko" >"$tmp/mvgal.ko" ;;
*) cp "$ko" "$tmp/mvgal.ko" ;;
esac
sum=$(sha256sum <"$tmp/mvgal.ko" | cut -d' ' -f1)
"$top/tools/vm/run" --file "$tmp/mvgal.ko:/root/mvgal-dkms.ko" -- sh -c '
	set -e
	test "$(sha256sum </root/mvgal-dkms.ko | cut -d" " -f1)" = '"$sum"'
	rmmod mvgal
	insmod /root/mvgal-dkms.ko
	echo "guest: loaded the DKMS build, srcversion $(cat /sys/module/mvgal/srcversion)"
	mvgal-info --attach >/dev/null 2>&1
	mvgal-example'
echo "dkms-check: the DKMS build loads in the guest and runs the example"
