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
# Prints TAP.
vk=/opt/vulkan
echo "1..2"
if [ ! -x "$vk/run" ]; then
	echo "not ok 1 - no Vulkan tree at $vk (tools/vm/run --vulkan)"
	echo "not ok 2 - # nothing to run"
	exit 1
fi
if ! modprobe mvgal_vram || ! mvgal-info --attach >/tmp/mvgal-attach.out 2>&1; then
	sed 's/^/# /' /tmp/mvgal-attach.out 2>/dev/null
	echo "not ok 1 - the VRAM stand-ins (modprobe mvgal_vram, mvgal-info --attach)"
	echo "not ok 2 - # nothing to run"
	exit 1
fi
out=/tmp/mvgal-vulkan.out
sh "$(dirname "$0")/as-user.sh" sh -c "id; $vk/run mvgal-vulkan" >"$out" 2>&1
rc=$?
sed 's/^/# /' "$out"
standins='GPU A (mvgal GPU [0-9]*, mvgal_vram.*GPU B (mvgal GPU [0-9]*, mvgal_vram'
if [ $rc = 0 ] && grep -q "^mvgal-vulkan: OK, $standins" "$out" &&
   grep -q '^uid=65534' "$out"; then
	echo "ok 1 - an unprivileged process runs Vulkan compute on two VRAM stand-ins' placement exports, every word checked"
else
	echo "not ok 1 - mvgal-vulkan as uid 65534 (exit $rc)"
fi
if grep -q 'ordered by SYNC_FD fences only' "$out"; then
	echo "ok 2 - BEGIN's fences wait in Vulkan and Vulkan's fences end the sessions (SYNC_FD both ways)"
else
	echo "not ok 2 - the work was not ordered by SYNC_FD fences alone"
fi
