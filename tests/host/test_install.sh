#!/bin/bash
# The product builds and installs with its build dependencies alone, as an
# ordinary user: in a copy of the tree (tracked and untracked files as
# they are now, uncommitted edits included; no build/, nothing ignored),
# owned by an unprivileged user (mvgal-build, created if missing), that
# user runs `make -j2 all` (KDIR: the 6.12 headers) and then
# `make install DESTDIR=...`, with apt-get, qemu-system-x86_64 and busybox
# shadowed on PATH by scripts that refuse and leave a mark. Both must
# succeed without running any of them or tools/deps.sh (no build/cache),
# build no test (no build/tests), and install the library, headers,
# programs, configuration, systemd unit and documentation.
# Root only (the user, runuser). TAP on stdout.
#   test_install.sh [REPO]   (default: this script's tree)
set -uo pipefail
top=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
user=mvgal-build
n=0 rc=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; rc=1; fi; }
# diag FILE: its last lines as TAP diagnostics (shown with the failure after)
diag() { tail -n "${2:-40}" "$1" | sed 's/^/#   /'; }

if [ "$(id -u)" != 0 ]; then
	echo "not ok 1 - test_install.sh runs as root (it creates a user and runs make as that user)"
	echo "1..1"
	exit 1
fi

t=$(mktemp -d /tmp/mvgal-install.XXXXXX)
trap 'rm -rf "$t"' EXIT
src=$t/src dest=$t/dest mark=$t/forbidden

# The tree under test as it is now: git's tracked and untracked files (not
# the ignored ones: build/, objects), edits included, deleted ones left out.
mkdir -p "$src" "$t/home" "$t/shadow"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z -c -o --exclude-standard |
		while IFS= read -r -d '' f; do
			[ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
		done | tar --null -T - -cf -) | tar -xf - -C "$src"
else
	(cd "$top" && tar --exclude=./build -cf - .) | tar -xf - -C "$src"
fi

# Commands only the test bed may run: each refuses, and leaves a mark.
for c in apt-get apt qemu-system-x86_64 busybox; do
	cat >"$t/shadow/$c" <<EOF
#!/bin/sh
echo "$c \$*" >>"$mark"
echo "forbidden: $c" >&2
exit 1
EOF
	chmod 755 "$t/shadow/$c"
done

id -u "$user" >/dev/null 2>&1 ||
	useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$user" ||
	{ echo "not ok 1 - create the user $user"; echo "1..1"; exit 1; }
chown -R "$user:" "$t"
chmod 755 "$t" "$t/shadow"

# The 6.12 headers, found as the Makefile finds them.
kver=$(ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' | sort -V | tail -n 1)
kdir=/lib/modules/$kver/build

# as_user LOG COMMAND...: COMMAND in the copy as $user, in a clean
# environment whose PATH starts with the shadows
as_user() {
	local log=$1
	shift
	(cd "$src" && runuser -u "$user" -- env -i HOME="$t/home" LANG=C.UTF-8 \
		PATH="$t/shadow:/usr/local/bin:/usr/bin:/bin" "$@") >"$log" 2>&1
}

t0=$(date +%s)
if [ -n "$kver" ] && [ -f "$kdir/Makefile" ]; then
	as_user "$t/all.log" make -j2 all KDIR="$kdir"
	r=$?
	[ $r = 0 ] || diag "$t/all.log"
else
	echo "#   no 6.12 headers installed (/usr/src/linux-headers-6.12.*-amd64)"
	r=1
fi
ok $r "make all as an unprivileged user (${kver:-no 6.12 headers}, $(($(date +%s) - t0)) s)"

test -f "$src/build/kmod/lib_modules_${kver}_build/mvgal.ko"
ok $? "... built mvgal.ko for $kver"

as_user "$t/install.log" make install DESTDIR="$dest"
r=$?
[ $r = 0 ] || diag "$t/install.log"
ok $r "make install DESTDIR=... as that user"

if [ -e "$mark" ]; then
	diag "$mark"
	r=1
else
	r=0
fi
ok $r "neither ran apt-get, apt, qemu-system-x86_64 or busybox"

test ! -e "$src/build/cache"
ok $? "neither ran tools/deps.sh (no build/cache)"

if [ -e "$src/build/tests" ] || [ -e "$src/build/vm" ]; then
	find "$src/build/tests" "$src/build/vm" -maxdepth 2 2>/dev/null | head -n 20 | sed "s|^$src/|#   |"
	r=1
else
	r=0
fi
ok $r "neither built a test or the guest image (no build/tests, no build/vm)"

# expect WHAT FILE...: every FILE (under $dest) exists
expect() {
	local what=$1 f miss=0
	shift
	for f in "$@"; do
		[ -e "$dest$f" ] || [ -L "$dest$f" ] || { echo "#   missing: $f"; miss=1; }
	done
	ok $miss "make install installed $what"
}
libdir=/usr/lib/$(cc -print-multiarch)
ver=$(sed -n 's/^VERSION *:= *//p' "$src/Makefile")
expect "the library and its pkg-config file" \
	"$libdir/libmvgal.so.$ver" "$libdir/libmvgal.so.0" "$libdir/libmvgal.so" \
	"$libdir/libmvgal.a" "$libdir/pkgconfig/mvgal.pc"
expect "the headers" /usr/include/mvgal/mvgal.h /usr/include/mvgal/drm/mvgal_drm.h
expect "the programs" /usr/bin/mvgal-info /usr/bin/mvgal-vkexec
expect "the configuration and the systemd unit" /etc/mvgal/mvgal.conf \
	/etc/modules-load.d/mvgal.conf /lib/systemd/system/mvgal-attach.service
docs=(/usr/share/doc/mvgal/README.md)
for f in "$src"/docs/*.md; do
	[ -e "$f" ] && docs+=("/usr/share/doc/mvgal/docs/${f##*/}")
done
expect "the documentation (README.md, docs/*.md)" "${docs[@]}"

unit=$dest/lib/systemd/system/mvgal-attach.service
doc=$(sed -n 's|^Documentation=file://||p' "$unit" 2>/dev/null)
test -n "$doc" && test -f "$dest$doc"
ok $? "the unit's Documentation= (${doc:-none}) is installed"

test "$(readlink "$dest$libdir/libmvgal.so.0")" = "libmvgal.so.$ver" &&
	LD_LIBRARY_PATH=$dest$libdir "$dest/usr/bin/mvgal-info" --help >/dev/null 2>&1 &&
	PKG_CONFIG_PATH=$dest$libdir/pkgconfig pkg-config --modversion mvgal | grep -qx "$ver"
ok $? "the installed mvgal-info runs on the installed libmvgal, mvgal.pc says $ver"

echo "1..$n"
exit $rc
