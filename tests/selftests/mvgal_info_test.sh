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

echo "1..12"
rm -f /etc/mvgal/mvgal.conf

info --help
check "help exits 0 and prints usage" test "$(rc)" = 0 -a -n "$(grep -F 'Usage: mvgal-info' /tmp/info.out)"

info --bogus
check "unknown option is a usage error (exit 2)" test "$(rc)" = 2
info extra-arg
check "stray argument is a usage error (exit 2)" test "$(rc)" = 2

info
check "text output exits 0" test "$(rc)" = 0
check "text shows the driver and ABI" sh -c 'grep -q "^mvgal driver 0.1.0 on /dev/dri/renderD" /tmp/info.out && grep -q "ABI version: *1 " /tmp/info.out'
check "text shows capabilities, chunk size and GPUs" sh -c 'grep -q "capabilities: *syncobj$" /tmp/info.out && grep -q "chunk size: *65536 bytes" /tmp/info.out && grep -q "GPUs attached: *0 of 8" /tmp/info.out'
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

rmmod mvgal
info
modprobe mvgal
check "module not loaded: exit 3 and a clear message" sh -c 'test "$(cat /tmp/info.rc)" = 3 && grep -q "mvgal kernel module is not loaded" /tmp/info.err && test ! -s /tmp/info.out'

[ "$fails" = 0 ]
