#!/bin/bash
# Build mvgal.ko against a kernel's headers configured as if some options
# were off, and fail on any compiler warning:
#   build-module-without.sh KDIR OUTDIR CONFIG_A [CONFIG_B ...]
# A copy of KDIR's configuration (.config, auto.conf, autoconf.h) drops
# the options; the headers themselves are KDIR's. It proves mvgal builds
# for kernels configured without what Debian's happens to select, e.g.
# CONFIG_MAPPING_DIRTY_HELPERS, which only drivers such as vmwgfx select.
set -euo pipefail
kdir=$(cd "$1" && pwd -P) out=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2
[ $# -gt 0 ] || { echo "usage: $0 KDIR OUTDIR CONFIG_..." >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
k=$out/kdir
rm -rf "$k"
mkdir -p "$k/include/config" "$k/include/generated"
# Everything as in KDIR (links to it), but the three files that say what is
# configured.
for f in "$kdir"/* "$kdir"/.[!.]*; do
	case "${f##*/}" in include|.config) ;; *) ln -s "$(readlink -f "$f")" "$k/${f##*/}" ;; esac
done
for f in "$kdir"/include/*; do
	case "${f##*/}" in config|generated) ;; *) ln -s "$f" "$k/include/${f##*/}" ;; esac
done
for f in "$kdir"/include/generated/*; do
	[ "${f##*/}" = autoconf.h ] || ln -s "$f" "$k/include/generated/${f##*/}"
done
cp -a "$kdir/include/config/." "$k/include/config/"
cp "$kdir/.config" "$k/.config"
cp "$kdir/include/generated/autoconf.h" "$k/include/generated/autoconf.h"
for opt in "$@"; do
	grep -q "^$opt=" "$k/.config" || { echo "build-module-without: $opt is not set in $kdir" >&2; exit 1; }
	sed -i "s/^$opt=.*/# $opt is not set/" "$k/.config"
	sed -i "/^$opt=/d" "$k/include/config/auto.conf"
	sed -i "/^#define $opt\(_MODULE\)\? /d" "$k/include/generated/autoconf.h"
done
exec "$top/tools/build-module.sh" "$k" "$out/build"
