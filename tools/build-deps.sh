#!/bin/sh
# Install, when missing, the Debian 12 (bookworm) packages that building
# and installing mvgal needs (`make && make install`), and nothing of the
# test bed's (tools/deps.sh, which runs this first):
#   build-essential, pkg-config  the compiler, make, pkg-config
#   libdrm-dev, liburing-dev     libmvgal and its programs
#   libvulkan-dev, glslang-tools the Vulkan example and mvgal-vkexec
#   linux-headers-$(uname -r)    mvgal.ko for the running kernel
#                                (linux-headers-amd64 when the running
#                                kernel's are not in the archive: the
#                                Makefile then builds for the newest
#                                headers installed, or KDIR=...)
#   dkms                         with --dkms only: for `make install-dkms`
#                                and DKMS builds of the module
# Must run as root to install anything; as any user it reports what is
# missing, and exits 0 when nothing is.
#   build-deps.sh [--dkms]
set -eu

dkms=
for a in "$@"; do
	case "$a" in
	--dkms) dkms=dkms ;;
	*) echo "usage: $0 [--dkms]" >&2; exit 2 ;;
	esac
done

kver=$(uname -r)

# The kernel headers to install: none when the running kernel's are
# there already (however they came), its Debian package when the archive
# has it, else Debian's default kernel's.
headers() {
	[ -f "/lib/modules/$kver/build/Makefile" ] && return 0
	if apt-cache show --no-all-versions "linux-headers-$kver" >/dev/null 2>&1; then
		echo "linux-headers-$kver"
	else
		echo linux-headers-amd64
	fi
}

missing() {
	out=""
	for p in build-essential pkg-config libdrm-dev liburing-dev libvulkan-dev \
		glslang-tools $dkms $(headers); do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			out="$out $p"
	done
	echo "$out"
}

need=$(missing)
if [ -z "$need" ]; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "build-deps.sh: missing packages:$need" >&2
	echo "build-deps.sh: run it as root (e.g. sudo $0${dkms:+ --dkms}) to install them" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# The package lists may only now know the running kernel's headers.
need=$(missing)
if [ -n "$need" ]; then
	echo "build-deps.sh: installing:$need"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
case "$need" in
*linux-headers-amd64*)
	echo "build-deps.sh: no headers package for the running kernel ($kver): installed Debian's default kernel's; make builds mvgal.ko for the newest headers installed (or KDIR=...)" ;;
esac
