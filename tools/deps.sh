#!/bin/sh
# The test bed: install, when missing, every Debian package mvgal's tests
# and demo need (the product's build dependencies first, by
# tools/build-deps.sh, with dkms for make check's DKMS lane), and fetch
# (not install) the guest kernel image and kernel source tarball into
# $MVGAL_CACHE.  Safe to run repeatedly; does nothing when all is present.
# Must run as root on Debian 12 (bookworm). Building and installing the
# product (make, make install) needs none of this: tools/build-deps.sh.
set -eu

CACHE=${MVGAL_CACHE:-$(cd "$(dirname "$0")/.." && pwd)/build/cache}
KVER_SERIES=6.12

"$(dirname "$0")/build-deps.sh" --dkms

# The guest's 6.12 headers, and Debian's default (6.1) ones for the 6.1
# build lane.
PKGS="make gcc sparse perl python3 kmod cpio xz-utils zstd openssl
busybox-static qemu-system-x86 linux-headers-${KVER_SERIES}-amd64
linux-headers-amd64"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: missing packages:$missing (run as root to install)" >&2
		exit 1
	fi
	echo "deps.sh: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# The Vulkan example's driver: Mesa 25's lavapipe, which imports dma-bufs
# (bookworm's 22.3 does not), from bookworm-backports with the libdrm it
# needs. Only these packages come from there (apt's default keeps
# backports at a low priority).
BPO_SOURCES=/etc/apt/sources.list.d/mvgal-bookworm-backports.sources
if ! dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null | grep -q '~bpo'; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: missing mesa-vulkan-drivers from bookworm-backports (run as root to install)" >&2
		exit 1
	fi
	if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d; then
		cat >"$BPO_SOURCES" <<'EOS'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
	fi
	echo "deps.sh: installing mesa-vulkan-drivers and libdrm from bookworm-backports"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends -t bookworm-backports \
		mesa-vulkan-drivers libdrm-dev libdrm2 >/dev/null
fi

# The guest kernel and the kernel source come from the same Debian
# version as the installed 6.12 headers, downloaded and unpacked into the
# cache: installing a kernel image on the host would run boot hooks that
# have no business here.
hdr=$(dpkg-query -W -f='${Depends}' "linux-headers-${KVER_SERIES}-amd64" |
	sed -n 's/.*linux-headers-\([^ ,]*-amd64\).*/\1/p')
[ -n "$hdr" ] || { echo "deps.sh: cannot resolve the 6.12 headers version" >&2; exit 1; }
mkdir -p "$CACHE"
echo "$hdr" >"$CACHE/kver"
pkgver=$(dpkg-query -W -f='${Version}' "linux-headers-$hdr")

fetch() { # package version -> path of the .deb in the cache
	deb=$(ls "$CACHE/$1"_*.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$deb" ]; then
		(cd "$CACHE" && apt-get download -qq -o APT::Sandbox::User=root "$1=$2" >/dev/null) ||
			{ apt-get update -qq && (cd "$CACHE" && apt-get download -qq -o APT::Sandbox::User=root "$1=$2" >/dev/null); }
		deb=$(ls "$CACHE/$1"_*.deb | head -n 1)
	fi
	echo "$deb"
}

if [ ! -f "$CACHE/guest/boot/vmlinuz-$hdr" ]; then
	deb=$(fetch "linux-image-$hdr" "$pkgver")
	rm -rf "$CACHE/guest"
	dpkg-deb -x "$deb" "$CACHE/guest"
fi

# kselftest_harness.h, kselftest.h and checkpatch.pl (+ its data files)
# come from linux-source; only those files are unpacked.
if [ ! -f "$CACHE/src/scripts/checkpatch.pl" ]; then
	deb=$(fetch "linux-source-${KVER_SERIES}" "$pkgver")
	rm -rf "$CACHE/src" "$CACHE/src.tmp"
	mkdir -p "$CACHE/src.tmp"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$CACHE/src.tmp" --wildcards \
		'./usr/src/linux-source-*.tar.xz'
	tarball=$(ls "$CACHE"/src.tmp/usr/src/linux-source-*.tar.xz)
	top=$(basename "$tarball" .tar.xz)
	mkdir -p "$CACHE/src"
	tar -xJf "$tarball" -C "$CACHE/src" --strip-components=1 \
		"$top/tools/testing/selftests/kselftest_harness.h" \
		"$top/tools/testing/selftests/kselftest.h" \
		"$top/scripts/checkpatch.pl" \
		"$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
	rm -rf "$CACHE/src.tmp"
	rm -f "$deb" # 150 MB; the unpacked files are all we keep
fi
