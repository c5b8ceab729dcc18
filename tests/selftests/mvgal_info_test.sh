#!/bin/sh
# mvgal-info in the guest: text output, help, usage errors, config
# handling and the module-not-loaded message. TAP output.
# (Its --json output is parsed by a JSON parser on the host: run-check.sh.)
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n $1"; }
check() { # name command...: passes when the command succeeds
	name=$1
	shift
	if "$@"; then ok "$name"; else nok "$name"; fi
}
has() { grep -qF -- "$1" /tmp/info.out; }
info() { mvgal-info "$@" >/tmp/info.out 2>/tmp/info.err; echo $? >/tmp/info.rc; }
rc() { cat /tmp/info.rc; }

echo "1..15"
rm -f /etc/mvgal/mvgal.conf
# A fresh module: other tests leave GPUs attached.
rmmod mvgal && modprobe mvgal || echo "# could not reload mvgal"

info --help
check "help exits 0 and prints usage" test "$(rc)" = 0 -a -n "$(grep -F 'Usage: mvgal-info' /tmp/info.out)"

info --bogus
check "unknown option is a usage error (exit 2)" test "$(rc)" = 2
info extra-arg
check "stray argument is a usage error (exit 2)" test "$(rc)" = 2

info
check "text output exits 0" test "$(rc)" = 0
check "text shows the driver and ABI" sh -c 'grep -q "^mvgal driver 0.1.0 on /dev/dri/renderD" /tmp/info.out && grep -q "ABI version: *2 " /tmp/info.out'
check "text shows capabilities, chunk size and GPUs" sh -c 'grep -q "capabilities: *syncobj gpu-attach sessions migration write-watch eviction place-fd$" /tmp/info.out && grep -q "chunk size: *65536 bytes" /tmp/info.out && grep -q "GPUs attached: *0 of 8" /tmp/info.out'
check "text says the config file is absent and defaults apply" has "config /etc/mvgal/mvgal.conf: defaults (file not found)"

printf '[core]\nstats_interval = 7\n[gpu_2]\nmemory_limit_mb = 96\n' >/tmp/a.conf
MVGAL_CONFIG=/tmp/a.conf info
check "MVGAL_CONFIG is read and shown" sh -c 'grep -q "config /tmp/a.conf: loaded" /tmp/info.out && grep -q "\[core\] stats_interval = 7" /tmp/info.out && grep -q "\[gpu_2\] memory_limit_mb = 96" /tmp/info.out'

printf '[core]\nstats_interval = 7\nbogus = 1\n' >/tmp/bad.conf
info --config /tmp/bad.conf
check "a malformed config fails with file, line and key" sh -c 'test "$(cat /tmp/info.rc)" = 1 && grep -q "/tmp/bad.conf:3: unknown key .bogus." /tmp/info.err'
info --config /tmp/none.conf
check "an explicit missing config is an error" sh -c 'test "$(cat /tmp/info.rc)" = 1 && grep -q "/tmp/none.conf" /tmp/info.err'

echo 0 >/sys/module/mvgal/parameters/enable_dmabuf
info
echo 1 >/sys/module/mvgal/parameters/enable_dmabuf
check "module settings come from the module" sh -c 'grep -q "^  enable_dmabuf = false" /tmp/info.out && grep -q "\[core\] enable_dmabuf = true" /tmp/info.out'

printf '[gpu_0]\nmemory_limit_mb = 64\n[gpu_1]\nmemory_limit_mb = 64\n[gpu_2]\nmemory_limit_mb = 64\n[gpu_3]\nmemory_limit_mb = 64\n' >/tmp/attach.conf
MVGAL_CONFIG=/tmp/attach.conf info --attach
check "--attach attaches every GPU and reports each node" sh -c 'test "$(cat /tmp/info.rc)" = 0 && test "$(grep -c "attached as GPU" /tmp/info.err)" = 4 && grep -q "GPUs (4 attached)" /tmp/info.out'
check "text shows GPU identity, pools, heap and paths" sh -c 'grep -q "GPU 3: vgem platform device vgem, NUMA node none" /tmp/info.out && grep -q "PCI 0000:41:00.0 under pci0000:40, NUMA node 1" /tmp/info.out && grep -q "pool 64.0 MiB: 0.0 MiB used" /tmp/info.out && grep -q "region 0: system RAM" /tmp/info.out && grep -q "NUMA node 1 RAM" /tmp/info.out && grep -q "GPU 0 -> GPU 3: in-place" /tmp/info.out && grep -q "GPU 3 -> GPU 0: cpu-copy" /tmp/info.out'
MVGAL_CONFIG=/tmp/attach.conf info --attach
check "a second --attach finds everything attached" sh -c 'test "$(cat /tmp/info.rc)" = 0 && test "$(grep -c "is attached already" /tmp/info.err)" = 4'

rmmod mvgal
info
modprobe mvgal
check "module not loaded: exit 3 and a clear message" sh -c 'test "$(cat /tmp/info.rc)" = 3 && grep -q "mvgal kernel module is not loaded" /tmp/info.err && test ! -s /tmp/info.out'

[ "$fails" = 0 ]
