#!/bin/bash
# make check: every lane, one TAP line per result, then the summary
# "N passed, N failed[, N skipped]". Exit status 1 if anything failed.
# Expects `make all vm` to have run (the Makefile's check target does).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
B=$top/build
kver=$(cat "$B/cache/kver")
k61=$(ls -d /usr/src/linux-headers-6.1.0-*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' | sort -V | tail -n 1)
log=$B/check
# Logs of an earlier run would be read as this one's.
rm -rf "$log"
mkdir -p "$log"
pass=0 fail=0 skip=0
export MVGAL_VM_NOBUILD=1

# The debug guest kernel (tools/vm/debug-kernel.sh: built once per machine,
# 22 to 35 minutes on 2 cores; cached after, when this returns at once)
# builds in the background while the stock-kernel lanes run, niced so that
# it takes the CPU time they leave; the debug lanes wait for it. It flocks
# its cache, so the `make vm-debug` there finds it built.
nice -n 10 tools/vm/debug-kernel.sh >"$log/debug-kernel.log" 2>&1 &
dk_pid=$!

# count FILE [TAG]: add the TAP results in FILE to the totals and echo
# them, TAG after the number when given
count() {
	local line tag=${2:+ $2} diag=""
	while IFS= read -r line; do
		case "$line" in
		"not ok "*) fail=$((fail + 1)); echo "${line/#not ok /not ok$tag }"
			[ -z "${VERBOSE:-}" ] && printf '%s' "$diag" | tail -n 30 ;;
		"ok "*"# SKIP"*) skip=$((skip + 1)); echo "${line/#ok /ok$tag }" ;;
		"ok "*) pass=$((pass + 1)); echo "${line/#ok /ok$tag }" ;;
		"#"*) [ -n "${VERBOSE:-}" ] && echo "$line" ;;
		esac
		# A failed test's own diagnostics are shown with it.
		case "$line" in
		"ok "* | "not ok "*) diag="" ;;
		*) diag="$diag#   $line
" ;;
		esac
	done <"$1"
}

# lane NAME COMMAND...: one result from a command's exit status;
# its output is shown only on failure.
lane() {
	local name=$1 out
	shift
	out=$log/$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_').log
	if "$@" >"$out" 2>&1; then
		pass=$((pass + 1)); echo "ok - $name"
	else
		fail=$((fail + 1)); echo "not ok - $name"
		tail -n 200 "$out" | sed 's/^/#   /'
	fi
}

# boot_runs FILE RC NAME COMMAND [NAME COMMAND]...: the results of one
# guest boot of tests/fuzz/check-runs.sh with these runs: FILE.tap its
# output, FILE.err its stderr, FILE.dmesg its kernel log, RC vm/run's
# exit status. Each run is its own result. tools/vm/run fails the whole
# boot on a kernel report: the run it came in (tools/vm/report-run) fails,
# with the report; one that came outside the runs, a leak kmemleak's scan
# at the end of the boot finds, or a guest that died fails the boot as a
# result of its own. A run that gave no result (the guest died or timed
# out first) fails too.
boot_runs() {
	local f=$1 rc=$2 k="" i
	shift 2
	local -a r=("$@")
	if [ "$rc" = 123 ] && [ -f "$f.dmesg" ]; then
		k=$(tools/vm/report-run "$f.dmesg")
	fi
	if [ -n "$k" ] && [ "$k" -gt 0 ]; then
		sed -i "s/^ok $k - \(.*\)\$/not ok $k - \1 (the kernel reported a problem during this run: below)/" "$f.tap"
	fi
	count "$f.tap" "[debug]"
	for ((i = 1; i <= ${#r[@]} / 2; i++)); do
		grep -qE "^(not )?ok $i - " "$f.tap" && continue
		fail=$((fail + 1))
		echo "not ok [debug] $i - ${r[2 * i - 2]} (no result: the guest ended first, vm/run exit $rc)"
	done
	if [ -n "$k" ] && [ "$k" -gt 0 ]; then
		echo "# the kernel's first report came during run $k (${r[2 * k - 2]}), or after it before the next began; the runs after it ran on that kernel:"
		sed 's/^/#   /' "$f.err" | tail -n 80
	elif [ "$rc" != 0 ]; then
		fail=$((fail + 1))
		if [ "$k" = 0 ]; then
			echo "not ok - [debug] the boot of the runs above (vm/run exit $rc): the kernel reported a problem before the first run (boot, attach)"
		elif [ "$rc" = 123 ]; then
			echo "not ok - [debug] the boot of the runs above (vm/run exit 123): a report after all the runs (kmemleak's scan at the end of the boot, or a report in none of them)"
		else
			echo "not ok - [debug] the boot of the runs above (vm/run exit $rc)"
		fi
		sed 's/^/#   /' "$f.err" | tail -n 80
	fi
}

echo "# build"
lane "mvgal.ko builds without warnings against $kver" \
	tools/build-module.sh "/lib/modules/$kver/build" "$B/kmod/check-$kver"
if [ -n "$k61" ]; then
	lane "mvgal.ko builds without warnings against $k61" \
		tools/build-module.sh "/lib/modules/$k61/build" "$B/kmod/check-$k61"
else
	fail=$((fail + 1)); echo "not ok - no 6.1 headers installed (tools/deps.sh)"
fi
# Only drivers (vmwgfx) select the dirty-tracking helpers: without them
# mvgal write-watches by unmapping. HMM_MIRROR too is only selected by
# drivers (amdgpu, nouveau, xe): without it mirrors are -EOPNOTSUPP.
lane "mvgal.ko builds without CONFIG_MAPPING_DIRTY_HELPERS and CONFIG_HMM_MIRROR ($kver)" \
	tools/build-module-without.sh "/lib/modules/$kver/build" \
	"$B/kmod/check-nodirty-$kver" CONFIG_MAPPING_DIRTY_HELPERS \
	CONFIG_HMM_MIRROR
lane "libmvgal.so exports only the public API" bash -c \
	"nm -D --defined-only $B/lib/libmvgal.so | awk '\$2 == \"T\" { print \$3 }' | sed 's/@.*//' | sort | diff - <(sed -n 's/^\t\t\(mvgal_[a-z_]*\);/\1/p' lib/libmvgal.map | sort)"
lane "mvgal.pc is usable by pkg-config" sh -c \
	"PKG_CONFIG_PATH=$B/lib pkg-config --modversion mvgal | grep -qx 0.1.0 && PKG_CONFIG_PATH=$B/lib pkg-config --libs mvgal | grep -q -- -lmvgal"

echo "# unit tests (host)"
for t in "$B"/tests/unit/test_*; do
	"$t" >"$log/$(basename "$t").tap" 2>&1
	count "$log/$(basename "$t").tap"
done

tests/host/test_layers.sh >"$log/test_layers.tap" 2>&1
count "$log/test_layers.tap"
tests/host/test_vm_reports.sh >"$log/test_vm_reports.tap" 2>&1
count "$log/test_vm_reports.tap"

echo "# lint"
tools/lint.sh >"$log/lint.tap" 2>&1
count "$log/lint.tap"
grep '^#' "$log/lint.tap" | head -n 40

echo "# packaging"
tests/host/test_install.sh "$top" >"$log/test_install.tap" 2>&1
count "$log/test_install.tap"
lane "dkms add/build for $kver, and that module loaded in the guest runs the example" tools/dkms-check.sh "$(sed -n 's/^VERSION *:= *//p' Makefile)" "$kver"

echo "# guest (QEMU TCG, Debian $kver)"
lane "vm/run -- /bin/true exits 0" tools/vm/run -- /bin/true
lane "vm/run -- /bin/false exits non-zero" sh -c '! tools/vm/run -- /bin/false'
lane "vm/run returns the command's exit status and output" sh -c \
	'out=$(tools/vm/run -- sh -c "echo hello-from-guest; exit 7"); test $? = 7 && test "$out" = hello-from-guest'
lane "vm/run carries files into the guest" sh -c \
	'out=$(tools/vm/run --file etc/mvgal.conf --file etc/mvgal.conf:/tmp/x.conf -- sh -c "cmp /root/mvgal.conf /tmp/x.conf && md5sum < /tmp/x.conf"); test "$out" = "$(md5sum < etc/mvgal.conf)"'
lane "vm/run kills a hung guest at its timeout (exit 124), having shown where it waits" sh -c \
	'out=$(tools/vm/run --timeout 40 -- sleep 100000 2>&1); test $? = 124 && echo "$out" | grep -q "timed out after 40s" &&
	 echo "$out" | grep -q "^-- pid [0-9]* tid [0-9]* sleep 100000 *state S"'
lane "vm/run fails a run whose kernel log has a WARN (exit 123)" sh -c \
	'out=$(tools/vm/run -- sh -c "echo \"<4>WARNING: CPU: 0 PID: 1 at injected-by-make-check\" > /dev/kmsg" 2>&1); test $? = 123 && echo "$out" | grep -q "kernel log reports a problem"'

# One WARN of the stock kernel's own is exempt: virtio-gpu 6.12 drops a
# command its device can no longer take (drm_dev_enter() fails) without
# putting the objects it holds, and the fbdev emulation's damage worker
# can still send one (a transfer of the fbdev buffer) after the unplug
# of an unbind. That buffer then outlives its device, whose release (on
# the way out of unplug_test's GPU_DETACH when mvgal held the last
# reference; in the unbind itself when nothing did, mvgal unloaded too)
# finds the DRM core's mmap offset manager unclean. The exemption is of
# that release alone: a takedown WARN from mvgal's own pool
# (mvgal_pool_fini) still fails. The debug kernel has no fbdev emulation.
# dma_buf_vmap() warns when an exporter refuses a vmap (fault injection;
# the VRAM stand-in's xe mode on a kernel with peer-to-peer, as xe does).
ALLOW_VMAP='at drivers/dma-buf/dma-buf.c:[0-9]+ dma_buf_vmap\+'
ALLOW_UNPLUG='Memory manager not clean during takedown.*Call Trace:[^+]*(drm_vma_offset_manager_destroy|drm_gem_init_release|drm_managed_release)\+'
MVGAL_VM_ALLOW="$ALLOW_UNPLUG" tools/vm/run -- sh /usr/libexec/mvgal/run-selftests.sh \
	>"$log/guest.tap" 2>"$log/guest.err"
grc=$?
count "$log/guest.tap"
if [ $grc != 0 ]; then
	fail=$((fail + 1)); echo "not ok - guest selftest run (vm/run exit $grc)"
	sed 's/^/#   /' "$log/guest.err" | tail -n 60
fi

# The Vulkan example as an unprivileged user, with lavapipe shared into
# the guest over 9p (the debug kernel has no 9p: stock kernel only).
tools/vm/run --vulkan -- sh /usr/libexec/mvgal/vulkan/vulkan_test.sh \
	>"$log/vulkan.tap" 2>"$log/vulkan.err"
vrc=$?
count "$log/vulkan.tap"
if [ $vrc != 0 ]; then
	fail=$((fail + 1)); echo "not ok - Vulkan guest run (vm/run exit $vrc)"
	sed 's/^/#   /' "$log/vulkan.err" | tail -n 40
fi

# mvgal-info's JSON, one document per line, parsed on the host by
# tests/host/check_info_json.py: the full report right after --attach;
# then, while mvgal_stress holds buffers and moves them (sessions, copies,
# mapped writes, evictions), the --stats --buffers report once its
# buffers exist, and three --watch samples; last, one --watch sample
# without SECONDS, which must come after the [core] stats_interval that
# --attach set (7 s). The guest's stderr shares the command's serial line:
# keep it out of the JSON (the attach messages go there), and the
# workload's output with it.
tools/vm/run --file tests/host/info-json.conf:/etc/mvgal/mvgal.conf -- sh -c '
	mvgal-info --attach --json 2>/dev/null || exit 1
	# --attach applied [core] enable_dmabuf = false; mvgal_stress
	# shares its buffers as dma-bufs.
	echo 1 >/sys/module/mvgal/parameters/enable_dmabuf
	/usr/libexec/mvgal/mvgal_stress --seconds 15 >/dev/null 2>&1 &
	i=0
	until mvgal-info --stats --buffers --json 2>/dev/null | grep -qF "\"buffers\":[{"; do
		i=$((i + 1))
		[ $i -lt 30 ] || break
		sleep 1
	done
	sleep 1
	rc=0
	mvgal-info --stats --buffers --json 2>/dev/null || rc=1
	mvgal-info --watch 1 --count 3 --json 2>/dev/null || rc=1
	wait
	mvgal-info --watch --count 1 --json 2>/dev/null || rc=1
	exit $rc' >"$log/info.json" 2>"$log/info-json.err"
jrc=$?
tests/host/check_info_json.py <"$log/info.json" >"$log/info-json.tap"
count "$log/info-json.tap"
[ $jrc = 0 ] || { fail=$((fail + 1)); echo "not ok - mvgal-info --json in the guest (exit $jrc)"; sed 's/^/#   /' "$log/info-json.err"; }

lane "make demo shows the GPUs, heap and paths and runs the three examples in the guest (the Vulkan one as an ordinary user)" sh -c \
	'make -s demo > '"$log"'/demo.out 2>&1 && grep -q "^mvgal driver 0.1.0 on /dev/dri/renderD" '"$log"'/demo.out && grep -q "GPUs (4 attached)" '"$log"'/demo.out && grep -q "GPU 0 -> GPU 3: in-place" '"$log"'/demo.out && grep -q "^example: OK" '"$log"'/demo.out && grep -q "^ring: OK" '"$log"'/demo.out && grep -q "^# uid 65534" '"$log"'/demo.out && grep -q "^mvgal-vulkan: OK" '"$log"'/demo.out'

# The same selftests on the project's debug kernel: any KASAN, lockdep,
# UBSAN, hung-task or soft-lockup report, or a leak kmemleak finds in
# mvgal, fails the run. The kernel is built once per machine (22 to 35
# minutes on 2 cores; tools/vm/debug-kernel.sh, started with the first lane).
# The selftests the debug lane runs (empty: all of them).
debug_tests=${MVGAL_DEBUG_SELFTESTS-}
# Their stand-in pass (run-selftests.sh) there: sessions both ways,
# eviction, the DMA engine reaching the stand-in's pinned pool, and the
# stand-in unbound, about 130 s; every suite's
# stand-in pass on that kernel (380 s more) is make fuzz-long's.
debug_standin=${MVGAL_DEBUG_STANDIN-session_test evict_test dmaeng_test unplug_test}
echo "# guest, debug kernel (KASAN, lockdep, kmemleak, UBSAN, fault injection): ${debug_tests:-every selftest}"
t0=$(date +%s)
wait "$dk_pid"
dkrc=$?
echo "# waited $(( $(date +%s) - t0 )) s for the debug kernel build (tools/vm/debug-kernel.sh, exit $dkrc; build/check/debug-kernel.log)"
t0=$(date +%s)
if [ $dkrc = 0 ] && make -s vm-debug >"$log/vm-debug.log" 2>&1; then
	echo "# debug kernel and image ready after $(( $(date +%s) - t0 )) s"
	t1=$(date +%s)
	# The boot first checks that it is the debug kernel, with its checkers,
	# and says so in a TAP line of its own.
	# The VRAM stand-in's xe mode (devmem_test) refuses the vmap of a buffer
	# it shares over peer-to-peer, as xe does, and dma_buf_vmap() warns:
	# the one report of the kernel's own this boot allows.
	# shellcheck disable=SC2016,SC2086
	MVGAL_VM_ALLOW="$ALLOW_VMAP" tools/vm/run --debug-kernel --timeout 3600 -- sh -c '
		if uname -r | grep -q mvgal-debug && test -e /sys/kernel/debug/kmemleak &&
		   test -d /sys/kernel/debug/failslab && test -d /sys/kernel/debug/fail_page_alloc &&
		   test -d /sys/kernel/debug/fail_function && test -e /proc/lockdep; then
			echo "ok - the debug kernel has kmemleak, fault injection and lockdep"
		else
			echo "not ok - the debug kernel has kmemleak, fault injection and lockdep ($(uname -r))"
		fi
		MVGAL_STANDIN_SUITES="'"$debug_standin"'" exec sh /usr/libexec/mvgal/run-selftests.sh "$@"' sh \
		$debug_tests >"$log/guest-debug.tap" 2>"$log/guest-debug.err"
	grc=$?
	count "$log/guest-debug.tap" "[debug]"
	if [ $grc != 0 ]; then
		fail=$((fail + 1)); echo "not ok - [debug] guest selftest run (vm/run exit $grc)"
		sed 's/^/#   /' "$log/guest-debug.err" | tail -n 80
	fi
	echo "# debug kernel selftests: $(( $(date +%s) - t1 )) s"

	# The fuzzer (fixed seeds) and the stress test, on the debug kernel,
	# at sizes for make check (make fuzz-long runs them at the sizes these
	# lanes had before, each in a boot of its own). The stress test and the
	# fuzzer runs that share a configuration run one after another in one
	# boot (tests/fuzz/check-runs.sh), each its own result; mvgal must unload
	# after them. The VRAM stand-ins' pools are attached too, following
	# their driver's moves (movable_pools), and the fuzzer evicts them. A
	# kernel report fails the boot (tools/vm/run): the run
	# it came in (tools/vm/report-run) is the one that fails.
	t1=$(date +%s)
	fz=/usr/libexec/mvgal/mvgal_fuzz
	runs=(
		"stress: 4 processes share 4 buffers (fork and a unix socket), 20 s, one killed mid-run, every byte checked, the module holds no buffer after"
		"/usr/libexec/mvgal/mvgal_stress --seed 4 --seconds 20"
		"fuzzer: seed 1, 5000 calls, 2 threads, root"
		"$fz --seed 1 --calls 5000"
		"fuzzer: seed 2, 5000 calls, unprivileged (uid 65534)"
		"$fz --seed 2 --calls 5000 --user 65534"
		"fuzzer: seed 5, 6000 calls each, root against a rival (uid 65534): shared buffers, each other's jobs cancelled, staging, exports, BO_LIST while a buffer's lock is held"
		"$fz --seed 5 --calls 6000 --rival 65534"
		"mvgal unloads after the stress and fuzzer runs"
		"sleep 1 && rmmod mvgal"
	)
	# shellcheck disable=SC2016
	MVGAL_VM_DMESG=$log/fuzz-debug.dmesg tools/vm/run --debug-kernel \
		--file tests/fuzz/guest.conf:/etc/mvgal/mvgal.conf \
		--file tests/fuzz/check-runs.sh:/root/check-runs.sh --timeout 2400 -- sh -c \
		'modprobe mvgal_vram; echo 1 >/sys/module/mvgal/parameters/movable_pools; mvgal-info --attach >/dev/null 2>&1; chmod 666 /dev/dri/*; exec sh /root/check-runs.sh "$@"' sh \
		"${runs[@]}" >"$log/fuzz-debug.tap" 2>"$log/fuzz-debug.err"
	boot_runs "$log/fuzz-debug" $? "${runs[@]}"
	# fail_function must have failed some of mvgal's copies too. A boot of
	# its own: the dma_buf_vmap() warning it allows fails the runs above.
	# Without the VRAM stand-ins: with them, seed 3 makes an io_uring
	# command whose io-wq thread creation (copy_process(), in the fuzzer's
	# task) gets an injected vmalloc failure, which warns.
	# (awk, not tee /dev/stderr: that reopened the lane's log, truncating it.)
	lane "[debug] fuzzer, 5% failed: its allocations in mvgal calls (failslab, fail_page_alloc), mvgal's copies and pool allocations (fail_function); seed 3, 6000 calls; a failed write changes no byte" \
		bash -c 'set -o pipefail; env MVGAL_VM_ALLOW="$1" \
		tools/vm/run --debug-kernel --file tests/fuzz/guest.conf:/etc/mvgal/mvgal.conf --timeout 1200 -- sh -c "$0 --seed 3 --calls 6000 --fault 5" | awk "{ print } /fail_function [1-9]/ { f = 1 } END { exit !f }"' \
		"mvgal-info --attach >/dev/null 2>&1; chmod 666 /dev/dri/*; $fz" "$ALLOW_VMAP"
	for f in "$log"/fuzz-debug.tap "$log"/*fuzzer*.log; do
		[ -f "$f" ] && grep -E '^# ([0-9]+ (calls|quiesce)|faults injected)' "$f"
	done
	echo "# fuzzer and stress lanes: $(( $(date +%s) - t1 )) s"
else
	fail=$((fail + 1)); echo "not ok - the debug kernel and its guest image build (tools/vm/debug-kernel.sh, make vm-debug)"
	if [ $dkrc != 0 ]; then
		tail -n 40 "$log/debug-kernel.log" | sed 's/^/#   /'
	else
		tail -n 40 "$log/vm-debug.log" | sed 's/^/#   /'
	fi
fi

summary="$pass passed, $fail failed"
[ $skip = 0 ] || summary="$summary, $skip skipped"
echo "$summary"
[ $fail = 0 ]
