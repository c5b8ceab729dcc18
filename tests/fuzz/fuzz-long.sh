#!/bin/bash
# make fuzz-long: the fuzzer and stress runs on the debug kernel at the
# sizes make check ran them until it made them shorter (about 14 minutes
# on 2 cores): each in a guest boot of its own, one TAP line each, exit
# status 1 if any failed (a kernel report or a kmemleak leak in mvgal
# fails the run it came in: tools/vm/run). Expects `make vm-debug`.
#   seed 1, 20,000 calls, root; seed 2, 20,000 calls, unprivileged;
#   seed 5, 6,000 calls a side, root against a rival; seed 3, 20,000
#   calls, 5% of allocations, copies and pool allocations failed (some
#   by fail_function, or it fails); stress, seed 4, 60 s, then mvgal
#   unloads. Then every selftest's stand-in pass on the debug kernel
#   (about 8 minutes more).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
export MVGAL_VM_NOBUILD=1
n=0 rc=0
log=$top/build/fuzz-long
rm -rf "$log"
mkdir -p "$log"

# run NAME COMMAND...: one result, after its time; the command's output
# is in build/fuzz-long/N.log, its report lines and, on failure, its tail
# shown.
run() {
	local name=$1 out t0
	shift
	n=$((n + 1))
	out=$log/$n.log
	t0=$(date +%s)
	"$@" >"$out" 2>&1
	local st=$?
	echo "# $name: $(( $(date +%s) - t0 )) s"
	if [ $st = 0 ]; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		tail -n 100 "$out" | sed 's/^/#   /'
		rc=1
	fi
	grep -E '^# ([0-9]+ (calls|quiesce)|faults injected)' "$out"
}

# shellcheck disable=SC2317 # called through run
vm() {
	tools/vm/run --debug-kernel --file tests/fuzz/guest.conf:/etc/mvgal/mvgal.conf --timeout 1200 -- sh -c "$1"
}
fz="modprobe mvgal_vram; mvgal-info --attach >/dev/null 2>&1; chmod 666 /dev/dri/*; /usr/libexec/mvgal/mvgal_fuzz"
run "fuzzer: seed 1, 20000 calls, 2 threads, root" vm "$fz --seed 1 --calls 20000"
run "fuzzer: seed 2, 20000 calls, unprivileged (uid 65534)" vm "$fz --seed 2 --calls 20000 --user 65534"
run "fuzzer: seed 5, 6000 calls each, root against a rival (uid 65534)" vm "$fz --seed 5 --calls 6000 --rival 65534"
# fail_function must have failed some of mvgal's copies too.
# shellcheck disable=SC2317 # called through run
fault() {
	MVGAL_VM_ALLOW='at drivers/dma-buf/dma-buf.c:[0-9]+ dma_buf_vmap\+' \
		vm "$fz --seed 3 --calls 20000 --fault 5" |
		awk '{ print } /fail_function [1-9]/ { f = 1 } END { exit !f }'
}
run "fuzzer, 5% failed (failslab, fail_page_alloc, fail_function); seed 3, 20000 calls; a failed write changes no byte" fault
run "stress: 4 processes share 4 buffers (fork and a unix socket), 60 s, one killed mid-run, every byte checked; mvgal unloads after" \
	vm 'modprobe mvgal_vram; mvgal-info --attach >/dev/null 2>&1; /usr/libexec/mvgal/mvgal_stress --seed 4 --seconds 60 && sleep 1 && rmmod mvgal'
# The stand-in pass of every selftest (run-selftests.sh) on this kernel:
# make check's debug lane runs three of its suites.
# shellcheck disable=SC2317 # called through run
standin() {
	tools/vm/run --debug-kernel --timeout 1800 -- \
		sh -c 'MVGAL_SELFTEST_PASS=standin sh /usr/libexec/mvgal/run-selftests.sh' |
		awk '{ print } /^not ok/ { f = 1 } END { exit f }'
}
run "every selftest's stand-in pass (a VRAM stand-in GPU in a virtio-gpu's place), debug kernel" standin
echo "1..$n"
exit $rc
