#!/bin/sh
# The Vulkan example in the guest (tools/vm/run --vulkan), as an ordinary
# user: lavapipe computes on placement exports of two GPUs' pools, fences
# order the work, and every word is checked (by the example itself).
# lavapipe imports a dma-buf by mapping it, and a placement export maps
# only where the pool's driver maps at an offset: not the guest's
# virtio-gpus (GEM shmem helpers, -ENODEV), but the test bed's two VRAM
# stand-ins (tests/vram), loaded and attached here as root; mvgal pins
# their pools (in their amdgpu mode, the stand-in's system pages). The
# example passes over the GPUs whose exports do not map, saying so.
# Then the copy executor on Vulkan (mvgal-vkexec, lavapipe standing in for
# a virtio-gpu's copy engine): exec_test's cases that need an executor
# that copies right run with it (MVGAL_TEST_VKEXEC), bytes checked there.
# Prints TAP.
vk=/opt/vulkan
echo "1..4"
if [ ! -x "$vk/run" ]; then
	echo "not ok 1 - no Vulkan tree at $vk (tools/vm/run --vulkan)"
	for i in 2 3 4; do echo "not ok $i - # nothing to run"; done
	exit 1
fi
if ! modprobe mvgal_vram || ! mvgal-info --attach >/tmp/mvgal-attach.out 2>&1; then
	sed 's/^/# /' /tmp/mvgal-attach.out 2>/dev/null
	echo "not ok 1 - the VRAM stand-ins (modprobe mvgal_vram, mvgal-info --attach)"
	for i in 2 3 4; do echo "not ok $i - # nothing to run"; done
	exit 1
fi
out=/tmp/mvgal-vulkan.out
# mvgal's own count of ENDs that took a fence, around the run: what says
# that Vulkan's fences ended the sessions, not the example's report.
end_fences() { mvgal-info --stats | sed -n 's/^  END fences: *\([0-9]*\) .*/\1/p'; }
fences0=$(end_fences)
sh "$(dirname "$0")/as-user.sh" sh -c "id; $vk/run mvgal-vulkan" >"$out" 2>&1
rc=$?
fences1=$(end_fences)
sed 's/^/# /' "$out"
standins='GPU A (mvgal GPU [0-9]*, mvgal_vram.*GPU B (mvgal GPU [0-9]*, mvgal_vram'
if [ $rc = 0 ] && grep -q "^mvgal-vulkan: OK, $standins" "$out" &&
   grep -q '^uid=65534' "$out"; then
	echo "ok 1 - an unprivileged process runs Vulkan compute on two VRAM stand-ins' placement exports, every word checked"
else
	echo "not ok 1 - mvgal-vulkan as uid 65534 (exit $rc)"
fi
ended=$(( ${fences1:-0} - ${fences0:-0} ))
if [ -n "$fences0" ] && [ "$ended" -ge 2 ] &&
   grep -q 'ordered by SYNC_FD fences only' "$out"; then
	echo "ok 2 - Vulkan's fences end the sessions (mvgal counted $ended ENDs given the work's SYNC_FD) and, as the example reports, BEGIN's fences wait in Vulkan"
else
	echo "not ok 2 - mvgal counted ${ended} ENDs with a fence (at least 2 wanted), or the example waited on the CPU"
fi
# exec_test wants the test bed's four GPUs: the stand-ins' pools go with
# mvgal's reload, then their driver.
i=0
while ! rmmod mvgal 2>/dev/null && [ $i -lt 50 ]; do
	i=$((i + 1))
	sleep 0.1
done
modprobe mvgal && rmmod mvgal_vram || echo "# the stand-ins stay"
out=/tmp/vkexec.out
MVGAL_TEST_VKEXEC=$vk/run /usr/libexec/mvgal/exec_test \
	-t forced_copies_are_the_executors \
	-t calibration_checks_and_prices_the_executor >"$out" 2>&1
sed 's/^/# /' "$out"
n=3
for t in forced_copies_are_the_executors calibration_checks_and_prices_the_executor; do
	if grep -q "^ok [0-9]* exec\.$t\$" "$out" &&
	   grep -q 'mvgal-vkexec: .*stands in for it' "$out"; then
		echo "ok $n - the Vulkan copy executor: exec.$t"
	else
		echo "not ok $n - the Vulkan copy executor: exec.$t"
	fi
	n=$((n + 1))
done
