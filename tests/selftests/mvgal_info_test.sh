#!/bin/sh
# mvgal-info in the guest: text output, help, usage errors, config
# handling, --watch (its line and JSON samples while a workload runs, the
# signals that end it) and the module-not-loaded message. TAP output.
# (Its --json output, --watch's too, is parsed by a JSON parser on the
# host: run-check.sh.)
# Not in the stand-in pass (run-selftests.sh): it expects the boot's four
# GPUs by their node names.
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
# rmmod, retried for up to 5 s: buffers of files just closed end in the
# background, and their jobs' fences hold the module until they go.
unload() {
	i=0
	while [ $i -lt 50 ]; do
		rmmod mvgal 2>/dev/null && return 0
		i=$((i + 1))
		sleep 0.1
	done
	rmmod mvgal
}

echo "1..28"
rm -f /etc/mvgal/mvgal.conf
# A fresh module: other tests leave GPUs attached.
unload && modprobe mvgal || echo "# could not reload mvgal"

info --help
check "help exits 0 and prints usage" test "$(rc)" = 0 -a -n "$(grep -F 'Usage: mvgal-info' /tmp/info.out)"

info --bogus
check "unknown option is a usage error (exit 2)" test "$(rc)" = 2
info extra-arg
check "stray argument is a usage error (exit 2)" test "$(rc)" = 2
info --watch 0
check "--watch 0 is a usage error (exit 2)" sh -c 'test "$(cat /tmp/info.rc)" = 2 && grep -q "whole seconds from 1 to 3600, not .0." /tmp/info.err'
info --watch abc
check "--watch abc is a usage error (exit 2)" sh -c 'test "$(cat /tmp/info.rc)" = 2 && grep -q "whole seconds from 1 to 3600, not .abc." /tmp/info.err'
bad=""
for args in "--watch 3601" "--watch -1" "--watch=" "--watch 1 --count 0" \
	    "--watch 1 --count x" "--count 3" "--watch 1 --stats" "--watch 1 --buffers"; do
	# shellcheck disable=SC2086
	info $args
	[ "$(rc)" = 2 ] || bad="$bad [$args: exit $(rc)]"
done
check "--watch 3601 / -1 / empty, --count 0 / x / without --watch, --watch with --stats or --buffers: usage errors (exit 2)${bad:+:$bad}" test -z "$bad"

info
check "text output exits 0" test "$(rc)" = 0
check "text shows the driver and ABI" sh -c 'grep -q "^mvgal driver 0.1.0 on /dev/dri/renderD" /tmp/info.out && grep -q "ABI version: *2 " /tmp/info.out'
check "text shows capabilities, chunk size and GPUs" sh -c 'grep -q "capabilities: *syncobj gpu-attach sessions migration write-watch eviction uring sync-syncobjs place-adopt stats mark-overwrite userptr-mirror mark-home-held$" /tmp/info.out && grep -q "chunk size: *65536 bytes" /tmp/info.out && grep -q "GPUs attached: *0 of 8" /tmp/info.out'
check "text says the config file is absent and defaults apply" has "config /etc/mvgal/mvgal.conf: defaults (file not found)"

printf '[core]\nstats_interval = 7\n[gpu_2]\nmemory_limit_mb = 96\n[gpu:0000:00:01.0]\nmemory_limit_mb = 80\n' >/tmp/a.conf
MVGAL_CONFIG=/tmp/a.conf info
check "MVGAL_CONFIG is read and shown" sh -c 'grep -q "config /tmp/a.conf: loaded" /tmp/info.out && grep -q "\[core\] stats_interval = 7" /tmp/info.out && grep -q "\[gpu_2\] memory_limit_mb = 96" /tmp/info.out && grep -q "\[gpu:0000:00:01.0\] memory_limit_mb = 80" /tmp/info.out'

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
printf '[gpu:vgem]\nmemory_limit_mb = 64\n[gpu:0000:99:00.0]\nmemory_limit_mb = 64\n' >>/tmp/attach.conf
MVGAL_CONFIG=/tmp/attach.conf info --attach
check "a second --attach finds everything attached" sh -c 'test "$(cat /tmp/info.rc)" = 0 && test "$(grep -c "is attached already" /tmp/info.err)" = 4'
check "--attach warns of a [gpu:NAME] that names no attached GPU, only of it" sh -c 'grep -q "\[gpu:0000:99:00.0\] names no attached GPU" /tmp/info.err && ! grep -q "\[gpu:vgem\] names" /tmp/info.err'

# --watch: the module's stats_interval is the default interval.
echo 2 >/sys/module/mvgal/parameters/stats_interval
info --watch --count 1
echo 1 >/sys/module/mvgal/parameters/stats_interval
check "--watch without SECONDS samples every stats_interval seconds" sh -c 'test "$(cat /tmp/info.rc)" = 0 && test "$(wc -l </tmp/info.out)" = 1 && grep -q "^sample=1 time=[0-9]* interval_s=2 elapsed_s=[2-9]\." /tmp/info.out'

# A workload while the watches run: mvgal_stress's 4 processes share 4
# buffers (sessions on the GPUs, copies of every kind, mapped writes, one
# pool kept small so that placements are evicted), for longer than the
# two watches below take.
/usr/libexec/mvgal/mvgal_stress --seconds 15 >/tmp/stress.out 2>&1 &
stress=$!
# Through a pipe: stdout is no terminal, so one key=value line per sample.
{ mvgal-info --watch 1 --count 3 2>/tmp/watch.err; echo $? >/tmp/watch.rc; } | cat >/tmp/watch.out
{ mvgal-info --watch 1 --count 3 --json 2>/tmp/watchj.err; echo $? >/tmp/watchj.rc; } >/tmp/watch.json
check "--watch 1 --count 3 | cat: exit 0, exactly 3 lines" sh -c 'test "$(cat /tmp/watch.rc)" = 0 && test "$(wc -l </tmp/watch.out)" = 3 && test ! -s /tmp/watch.err'
# Every documented key, in the documented order, for each of the 4 GPUs.
g='gpu[0-9]_state=(idle|active) gpu[0-9]_pool_used=[0-9]+ gpu[0-9]_pool_size=[0-9]+ gpu[0-9]_budget=[0-9]+ gpu[0-9]_evictions_per_s=([0-9]+\.[0-9]|-)'
line="^sample=[1-3] time=[0-9]+ interval_s=1 elapsed_s=[0-9]+\.[0-9]{3} sessions_per_s=[0-9]+\.[0-9] bytes_per_s_in_place=[0-9]+ bytes_per_s_p2p=[0-9]+ bytes_per_s_cpu_copy=[0-9]+ bytes_per_s_staging=[0-9]+ evictions_per_s=[0-9]+\.[0-9] cpu_faults_per_s=[0-9]+\.[0-9] prefetch_hits=[0-9]+ prefetch_misses=[0-9]+ prefetch_hit_rate=([01]\.[0-9]{3}|-) gpus=4 $g $g $g $g\$"
check "each line has every documented key=value field; samples 1, 2, 3" sh -c 'test "$(grep -cE "$1" /tmp/watch.out)" = 3 && test "$(cut -d" " -f1 /tmp/watch.out | tr "\n" " ")" = "sample=1 sample=2 sample=3 "' - "$line"
check "a line sample shows sessions or bytes moving while the workload runs" awk '
	{ for (i = 1; i <= NF; i++) { split($i, kv, "=")
	  if ((kv[1] == "sessions_per_s" || kv[1] ~ /^bytes_per_s_/) && kv[2] + 0 > 0) found = 1 } }
	END { exit !found }' /tmp/watch.out
g='\{"index":[0-9],"state":"(idle|active)","pool_used":[0-9]+,"pool_size":[0-9]+,"budget":[0-9]+,"evictions_per_s":([0-9]+\.[0-9]|null)\}'
json="^\{\"sample\":[1-3],\"time\":[0-9]+,\"interval_s\":1,\"elapsed_s\":[0-9]+\.[0-9]{3},\"sessions_per_s\":[0-9]+\.[0-9],\"bytes_per_s\":\{\"in-place\":[0-9]+,\"p2p\":[0-9]+,\"cpu-copy\":[0-9]+,\"staging\":[0-9]+\},\"evictions_per_s\":[0-9]+\.[0-9],\"cpu_faults_per_s\":[0-9]+\.[0-9],\"prefetch\":\{\"hits\":[0-9]+,\"misses\":[0-9]+,\"hit_rate\":([01]\.[0-9]{3}|null)\},\"gpus\":\[$g,$g,$g,$g\]\}\$"
check "--watch 1 --count 3 --json: exit 0, 3 lines, each one {...} object with every documented key" sh -c 'test "$(cat /tmp/watchj.rc)" = 0 && test ! -s /tmp/watchj.err && test "$(wc -l </tmp/watch.json)" = 3 && test "$(grep -cE "$1" /tmp/watch.json)" = 3' - "$json"
check "a JSON sample shows sessions or bytes moving while the workload runs" \
	grep -qE '"sessions_per_s":([1-9][0-9]*\.[0-9]|0\.[1-9])|"bytes_per_s":\{[^}]*:[1-9]' /tmp/watch.json

# SIGINT and SIGTERM end a watch with exit status 0 and whole lines. A
# job started with & here has SIGINT ignored until mvgal-info installs its
# handler: the signal goes once the first sample is out (the handler is
# in place before the first read), and a watch that ignored it would hang
# the run: after 10 s it is killed, and the test fails.
running() { # PID: alive, not a zombie
	st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}
stop_watch() { # SIGNAL
	# Emptied here: the job's own redirection may come after the first
	# look at the file.
	: >/tmp/watch.sig
	mvgal-info --watch 1 >>/tmp/watch.sig 2>&1 &
	pid=$!
	i=0
	while [ ! -s /tmp/watch.sig ] && running "$pid" && [ $i -lt 30 ]; do
		sleep 1
		i=$((i + 1))
	done
	kill -"$1" "$pid"
	i=0
	while running "$pid" && [ $i -lt 10 ]; do
		sleep 1
		i=$((i + 1))
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	echo $? >/tmp/info.rc
}
stop_watch INT
check "SIGINT ends --watch: exit 0, output of whole sample lines" sh -c 'test "$(cat /tmp/info.rc)" = 0 && test -s /tmp/watch.sig && test -z "$(tail -c 1 /tmp/watch.sig)" && ! grep -qv "^sample=" /tmp/watch.sig'
stop_watch TERM
check "SIGTERM ends --watch: exit 0, output of whole sample lines" sh -c 'test "$(cat /tmp/info.rc)" = 0 && test -s /tmp/watch.sig && test -z "$(tail -c 1 /tmp/watch.sig)" && ! grep -qv "^sample=" /tmp/watch.sig'
wait "$stress" || echo "# mvgal_stress (the workload) exited $?: $(tail -n 3 /tmp/stress.out | tr '\n' ' ')"

# The VRAM stand-ins' pools (tests/vram): the heap says where each pool
# is, in the words of its GPU's "pool memory" line (GET_HEAP's region
# against GPU_INFO; device memory on the debug kernel with movable_pools,
# system RAM where the stand-in's driver moved it to share it).
heap_where() { # the stand-ins' "pool memory" lines and every pool's heap "in" line, as "GPU where"
	awk '/^  GPU [0-9]+: mvgal_vram/ { g = $2; sub(":", "", g); next }
	     /^  GPU [0-9]+:/ { g = "" }
	     g != "" && /^ +pool memory: / { sub(/^ +pool memory: /, ""); sub(/; moved [0-9]+ times$/, ""); print g, $0 > "/tmp/where.gpu" }
	     /^  region [0-9]+: GPU [0-9]+ pool/ { r = $4; next }
	     r != "" && /^ +in / { sub(/^ +in /, ""); print r, $0 > "/tmp/where.heap"; r = "" }' /tmp/info.out
}
rm -f /tmp/where.gpu /tmp/where.heap
if modprobe mvgal_vram; then
	MVGAL_CONFIG=/tmp/attach.conf info --attach
	heap_where
	check "a stand-in's pool: the heap says where it is as GPU_INFO does ($(head -n 1 /tmp/where.gpu 2>/dev/null))" \
		sh -c 'test "$(cat /tmp/info.rc)" = 0 && test -s /tmp/where.gpu && test "$(grep -cFxf /tmp/where.gpu /tmp/where.heap)" = "$(wc -l </tmp/where.gpu)"'
else
	nok "a stand-in's pool: modprobe mvgal_vram failed"
fi

unload
rmmod mvgal_vram 2>/dev/null
info
modprobe mvgal
check "module not loaded: exit 3 and a clear message" sh -c 'test "$(cat /tmp/info.rc)" = 3 && grep -q "mvgal kernel module is not loaded" /tmp/info.err && test ! -s /tmp/info.out'

[ "$fails" = 0 ]
