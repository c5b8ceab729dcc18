#!/bin/bash
# Build mvgal.ko against one kernel's headers in a directory of its own
# (so builds for several kernels do not share objects), and fail on any
# compiler warning.
#   build-module.sh [--vram|--dmaeng] KDIR OUTDIR [extra kbuild args, e.g. C=2]
# --vram builds the test bed's VRAM stand-in GPU (tests/vram) instead:
# mvgal_vram.ko; --dmaeng its software memcpy DMA engine (tests/dmaeng):
# mvgal_dmaeng.ko.
set -euo pipefail
ko=mvgal.ko test=
case "$1" in
--vram|--dmaeng) test=${1#--} ko=mvgal_${1#--}.ko; shift ;;
esac
kdir=$1 out=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$kdir/Makefile" ] || { echo "build-module: no kernel headers at $kdir (run tools/deps.sh)" >&2; exit 1; }
mkdir -p "$out/src"
# Copy only what changed, keeping times, so kbuild stays incremental.
if [ -z "$test" ]; then
	(cd "$top" && cp -pRu Kbuild kernel include "$out/src/")
else
	cp -pRu "$top/tests/$test/." "$out/src/"
fi
log=$out/build.log
if ! make -C "$kdir" M="$out/src" W=1 "$@" modules >"$log" 2>&1; then
	cat "$log" >&2
	echo "build-module: build against $kdir failed" >&2
	exit 1
fi
if grep -E 'warning:|error:' "$log" >&2; then
	echo "build-module: the build against $kdir has warnings" >&2
	exit 1
fi
cp "$out/src/$ko" "$out/$ko"
