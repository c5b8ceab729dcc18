#!/bin/sh
# Runs every mvgal selftest in the guest (or only those named as
# arguments) and prints their TAP lines.
# A program that crashes, or ends before running all the tests it
# announced, adds a "not ok" of its own, so nothing is lost silently.
# After each program a "# NAME: N s" line says how long it took, so the
# slow suites show in both make check lanes' logs.
dir=$(dirname "$0")
# unplug_test unbinds and rebinds a GPU, which renumbers the DRM nodes that
# others (mvgal_info_test.sh) expect in boot order: it runs last. Before
# it, the VRAM stand-in's tests, which load its driver and attach it at a
# slot of its own: evict_test's eviction order came out otherwise after a
# GPU was attached and detached at a fifth slot (not understood yet).
late="vram_test devmem_test unplug_test"
for t in $(ls "$dir"/*_test "$dir"/*_test.sh | grep -Ev '/(vram|devmem|unplug)_test$') \
	 $(for l in $late; do echo "$dir/$l"; done); do
	[ -x "$t" ] || [ -f "$t" ] || continue
	name=$(basename "$t")
	if [ $# -gt 0 ]; then
		case " $* " in *" $name "*) ;; *) continue ;; esac
	fi
	echo "# ==== $name"
	out=/tmp/$name.out
	start=$(date +%s)
	case "$t" in
	*.sh) sh "$t" >"$out" 2>&1 ;;
	*) "$t" >"$out" 2>&1 ;;
	esac
	rc=$?
	end=$(date +%s)
	cat "$out"
	plan=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$out" | head -n 1)
	ran=$(grep -cE '^(not )?ok ' "$out")
	failed=$(grep -c '^not ok ' "$out")
	if [ -n "$plan" ] && [ "$ran" -lt "$plan" ]; then
		echo "not ok - $name ran $ran of $plan tests (exit status $rc)"
	elif [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
		echo "not ok - $name exited with status $rc"
	fi
	echo "# $name: $((end - start)) s"
done
