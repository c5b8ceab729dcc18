#!/bin/bash
# make dkms-check: the DKMS packaging works. Stages the module source as
# /usr/src/mvgal-VERSION (what `make install-dkms` installs), runs
# `dkms add` and `dkms build` for KVER, checks the built module's
# vermagic, and removes everything again. Root only.
#   dkms-check.sh VERSION KVER
set -euo pipefail
ver=$1 kver=$2
top=$(cd "$(dirname "$0")/.." && pwd)
src=/usr/src/mvgal-$ver

grep -q "^PACKAGE_VERSION=\"$ver\"" "$top/dkms.conf" ||
	{ echo "dkms-check: dkms.conf PACKAGE_VERSION is not $ver" >&2; exit 1; }

cleanup() {
	dkms remove -m mvgal -v "$ver" --all >/dev/null 2>&1 || true
	rm -rf "$src"
}
cleanup
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
