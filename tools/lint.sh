#!/bin/bash
# make lint: sparse (through kbuild, C=2: every file) and checkpatch.pl
# --strict over kernel/ and include/, and the layering rule over the
# module's sources and objects (tools/layers.py). Prints one TAP line per
# tool and fails on any sparse or checkpatch finding that lint/allowlist
# does not list with a reason, on any layering violation and on any
# function over 80 lines (tools/funclen.py).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=$top/build/cache
kver=$(cat "$cache/kver" 2>/dev/null) || { echo "lint: run tools/deps.sh first" >&2; exit 1; }
kdir=/lib/modules/$kver/build
out=$top/build/lint
allow=$top/lint/allowlist
rc=0

# The allowlist itself: every entry carries a reason.
patterns=()
while IFS= read -r line; do
	case "$line" in '#'*|'') continue ;; esac
	pat=${line%%$'\t'*} reason=${line#*$'\t'}
	if [ "$pat" = "$line" ] || [ -z "${reason// /}" ]; then
		echo "lint: allowlist entry without a reason: $line" >&2
		exit 1
	fi
	patterns+=("$pat")
done <"$allow"

# filter FILE: print the findings no allowlist entry covers
filter() {
	local f
	while IFS= read -r f; do
		local ok=0 p
		for p in "${patterns[@]+"${patterns[@]}"}"; do
			if [[ $f =~ $p ]]; then ok=1; break; fi
		done
		[ $ok = 1 ] || echo "$f"
	done <"$1"
}

report() { # name findings-file
	local left
	left=$(filter "$2")
	if [ -n "$left" ]; then
		echo "not ok - lint: $1"
		printf '%s\n' "$left" | sed 's/^/#   /'
		rc=1
	else
		echo "ok - lint: $1"
	fi
}

# rule NAME TEXT SCRIPT ARGS...: one TAP line from a structure check that
# prints its violations on stdout and "# NAME: figures" on stderr
rule() {
	local name=$1 text=$2
	shift 2
	if python3 "$@" >"$out/$name.findings" 2>"$out/$name.log"; then
		echo "ok - lint: $text ($(sed "s/^# $name: //" "$out/$name.log"))"
	else
		echo "not ok - lint: $text (tools/$name.py)"
		sed 's/^/#   /' "$out/$name.findings" "$out/$name.log"
		rc=1
	fi
}

if ! command -v sparse >/dev/null; then
	echo "not ok - lint: sparse is not installed (tools/deps.sh)"
	rc=1
else
	rm -rf "$out" && mkdir -p "$out/src"
	(cd "$top" && cp -R Kbuild kernel include "$out/src/")
	make -C "$kdir" M="$out/src" C=2 modules >"$out/sparse.log" 2>&1
	mrc=$?
	grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$out/sparse.log" |
		sed "s|^$out/src/||; s|^|sparse: |" >"$out/sparse.findings"
	if [ $mrc != 0 ]; then
		echo "not ok - lint: sparse (the build failed)"
		sed 's/^/#   /' "$out/sparse.log" | tail -n 30
		rc=1
	else
		report "sparse C=2 over kernel/ ($(grep -c ' CHECK ' "$out/sparse.log") files)" "$out/sparse.findings"
		# The structure rules have no exceptions: no allowlist here.
		rule layers "layers: no include or call goes up core < dev < bo < move < policy < uapi, no circle inside one" \
			"$top/tools/layers.py" "$top/kernel" "$out/src/kernel"
		rule funclen "no function over 80 lines" \
			"$top/tools/funclen.py" "$top/kernel" 80
	fi
fi

# Every allocation a caller can cause is charged to its memory cgroup
# (GFP_KERNEL_ACCOUNT, or a cache made with SLAB_ACCOUNT): a plain
# GFP_KERNEL is a finding unless lint/allowlist says why it is not the
# caller's (probe, root-only set-up, work items).
mkdir -p "$out"
(cd "$top" && grep -rnE 'GFP_KERNEL([^_]|$)' kernel --include='*.c') |
	grep -v '__GFP_ACCOUNT' | sed 's/^/gfp: /' >"$out/gfp.findings"
report "allocations a caller causes are charged to its cgroup" "$out/gfp.findings"

cp=$cache/src/scripts/checkpatch.pl
if [ ! -f "$cp" ]; then
	echo "not ok - lint: checkpatch.pl missing (tools/deps.sh unpacks it)"
	rc=1
else
	mkdir -p "$out"
	(cd "$top" && find kernel include -name '*.[ch]' | sort |
		xargs perl "$cp" --strict --no-tree --terse --show-types -f) 2>&1 |
		grep -v '^total:' | sed 's|^|checkpatch: |' >"$out/checkpatch.findings"
	report "checkpatch --strict over kernel/ and include/" "$out/checkpatch.findings"
fi
exit $rc
