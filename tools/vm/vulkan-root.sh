#!/bin/bash
# Build the Vulkan tree the test guest mounts over 9p (tools/vm/run
# --vulkan): Mesa's lavapipe driver from bookworm-backports (tools/deps.sh
# installs it) with every shared library it and the given programs need,
# and a launcher that points the Vulkan loader at it. About 185 MB, which
# is why it is shared rather than packed into the initramfs every run.
#
# vulkan-root.sh OUT PROGRAM...
#   OUT      the tree (bin/, lib/, icd.json, run); remade when it is older
#            than a program or the driver
#   PROGRAM  ELF programs to run in the guest: they land in OUT/bin
set -euo pipefail

out=$1
shift
icd=/usr/share/vulkan/icd.d/lvp_icd.json
[ -f "$icd" ] || { echo "vulkan-root.sh: no lavapipe ($icd): run tools/deps.sh" >&2; exit 1; }
lvp=/usr/lib/x86_64-linux-gnu/$(sed -n 's/.*"library_path": *"\([^"]*\)".*/\1/p' "$icd")

stale=
[ -f "$out/icd.json" ] || stale=1
for f in "$lvp" "$@"; do
	[ -z "$stale" ] && [ "$f" -nt "$out/icd.json" ] && stale=1
done
[ -n "$stale" ] || exit 0

tmp=$(mktemp -d "${out}.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
mkdir -p "$tmp/bin" "$tmp/lib"
for f in "$lvp" "$@"; do
	ldd "$f" | awk '/=>/ { print $3 }' | while read -r lib; do
		[ -f "$lib" ] && cp -Lnu "$lib" "$tmp/lib/"
	done
done
cp -L "$lvp" "$tmp/lib/"
for f in "$@"; do
	cp -L "$f" "$tmp/bin/"
done
# The loader finds the driver by name, through LD_LIBRARY_PATH.
cp "$icd" "$tmp/icd.json"
cat >"$tmp/run" <<'EOS'
#!/bin/sh
# run PROGRAM ARGS...: a program of this tree with its libraries and the
# lavapipe Vulkan driver.
d=$(dirname "$0")
export LD_LIBRARY_PATH="$d/lib" VK_ICD_FILENAMES="$d/icd.json"
p=$1
shift
[ -x "$d/bin/$p" ] && p=$d/bin/$p
exec "$p" "$@"
EOS
chmod 0755 "$tmp/run"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
