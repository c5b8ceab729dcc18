#!/bin/bash
# tools/vm/scan-log, which decides whether a guest run failed on a kernel
# report, finds each kind the debug kernel makes: excerpts in the formats
# of the guest's 6.12 sources (mm/kasan/report.c, kernel/locking/
# lockdep.c, kernel/sched/core.c, lib/ubsan.c, kernel/hung_task.c,
# kernel/watchdog.c, mm/kmemleak.c) fail with the report shown; a clean
# log passes; MVGAL_VM_ALLOW exempts only the WARN it names; a kmemleak
# leak fails only when it names mvgal. TAP on stdout.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
scan=$top/tools/vm/scan-log
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
n=0 rc=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; rc=1; fi; }

# A clean boot's lines, around every report below.
clean() {
	cat <<'EOF'
[    0.000000] Linux version 6.12.57-mvgal-debug (root@build) (gcc (Debian 12.2.0-14) 12.2.0) #1 SMP PREEMPT_DYNAMIC
[    0.000000] Command line: console=ttyS0 kfence.sample_interval=1 slub_debug=FZPU watchdog_thresh=60
[    2.104511] virtio-pci 0000:00:02.0: enabling device (0000 -> 0003)
[    3.371902] [drm] Initialized virtio_gpu 0.1.0 for 0000:00:02.0 on minor 0
[    3.815220] [drm] Initialized vgem 1.0.0 for vgem on minor 3
[    4.002117] mvgal: loading out-of-tree module taints kernel.
[    4.118803] [drm] Initialized mvgal 0.1.0 for mvgal on minor 4
[    5.441093] mvgal mvgal: GPU 0 (virtio_gpu 0000:00:02.0) attached, pool 64 MiB
[    7.212276] mvgal mvgal: buffer 12: 3 hand-offs, chunk 4 refused for good
EOF
}

# expect_fail NAME HEADLINE: the log of clean() with the report of
# $t/NAME.rep inside fails, names the problem and shows HEADLINE; so does
# HEADLINE's line alone amid clean lines (the report's first line is
# enough, whatever follows it).
expect_fail() {
	local name=$1 head=$2 out line
	{ clean; cat "$t/$name.rep"; clean; } >"$t/$name.log"
	out=$("$scan" "$t/$name.log" 2>&1 >/dev/null)
	test $? = 1 && echo "$out" | grep -q '^vm/run: the guest kernel log reports a problem:$' &&
		echo "$out" | grep -qF "$head"
	ok $? "$name: the run fails and the report is shown"
	line=$(grep -F -m1 "$head" "$t/$name.rep")
	{ clean; echo "$line"; clean; } >"$t/$name.head"
	"$scan" "$t/$name.head" 2>/dev/null
	test $? = 1
	ok $? "$name: its first line alone fails the run"
}

clean >"$t/clean.log"
out=$("$scan" "$t/clean.log" 2>&1)
test $? = 0 && test -z "$out"
ok $? "a clean log passes and prints nothing"

cat >"$t/kasan.rep" <<'EOF'
[   61.208814] ==================================================================
[   61.209627] BUG: KASAN: slab-out-of-bounds in mvgal_chunks_set+0x1d4/0x2a0 [mvgal]
[   61.210360] Write of size 8 at addr ffff88800a3c1e40 by task mvgal_test/412
[   61.210962]
[   61.211192] CPU: 1 UID: 0 PID: 412 Comm: mvgal_test Tainted: G           O       6.12.57-mvgal-debug #1
[   61.212105] Hardware name: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[   61.212977] Call Trace:
[   61.213241]  <TASK>
[   61.213467]  dump_stack_lvl+0x5d/0x80
[   61.213870]  print_report+0x171/0x4f0
[   61.214262]  kasan_report+0xb4/0xf0
[   61.214646]  mvgal_chunks_set+0x1d4/0x2a0 [mvgal]
[   61.215119]  mvgal_ioctl_bo_pwrite+0x2f1/0x4b0 [mvgal]
[   61.215631]  drm_ioctl_kernel+0x150/0x240 [drm]
[   61.216092]  drm_ioctl+0x3a4/0x6a0 [drm]
[   61.216501]  __x64_sys_ioctl+0x123/0x190
[   61.216902]  do_syscall_64+0x82/0x190
[   61.217279]  entry_SYSCALL_64_after_hwframe+0x76/0x7e
[   61.217784]  </TASK>
[   61.218021]
[   61.218231] Allocated by task 412:
[   61.218597]  kasan_save_stack+0x33/0x60
[   61.218998]  __kasan_kmalloc+0x8f/0xa0
[   61.219389]  mvgal_chunks_leaf+0x61/0x120 [mvgal]
[   61.219858]
[   61.220068] The buggy address belongs to the object at ffff88800a3c1e00
[   61.220068]  which belongs to the cache kmalloc-64 of size 64
[   61.221170] The buggy address is located 0 bytes to the right of
[   61.221170]  allocated 64-byte region [ffff88800a3c1e00, ffff88800a3c1e40)
[   61.222409]
[   61.222618] Memory state around the buggy address:
[   61.223091]  ffff88800a3c1d00: fa fb fb fb fb fb fb fb fc fc fc fc fc fc fc fc
[   61.223775] >ffff88800a3c1e00: 00 00 00 00 00 00 00 00 fc fc fc fc fc fc fc fc
[   61.224458]                                            ^
[   61.225002] ==================================================================
EOF
expect_fail kasan "BUG: KASAN: slab-out-of-bounds in mvgal_chunks_set"

cat >"$t/circular.rep" <<'EOF'
[  132.441027]
[  132.441275] ======================================================
[  132.441902] WARNING: possible circular locking dependency detected
[  132.442519] 6.12.57-mvgal-debug #1 Tainted: G           O
[  132.443108] ------------------------------------------------------
[  132.443731] mvgal_fuzz/655 is trying to acquire lock:
[  132.444237] ffff888009b2c1a8 (&bo->lock){+.+.}-{3:3}, at: mvgal_ioctl_bo_copy+0x1c5/0x610 [mvgal]
[  132.445104]
[  132.445104] but task is already holding lock:
[  132.445749] ffff888009b2d1a8 (&bo->lock#2){+.+.}-{3:3}, at: mvgal_session_begin+0x3a2/0x9f0 [mvgal]
[  132.446610]
[  132.446610] which lock already depends on the new lock.
[  132.446610]
[  132.447564]
[  132.447564] the existing dependency chain (in reverse order) is:
[  132.448305]
[  132.448305] -> #1 (&bo->lock#2){+.+.}-{3:3}:
[  132.448918]        __mutex_lock+0x12d/0x1140
[  132.449350]        mvgal_ioctl_bo_copy+0x1c5/0x610 [mvgal]
[  132.449861]
[  132.449861] -> #0 (&bo->lock){+.+.}-{3:3}:
[  132.450471]        __lock_acquire+0x1f6b/0x3b40
[  132.450912]        lock_acquire+0x1a8/0x4e0
[  132.451340]        __mutex_lock+0x12d/0x1140
[  132.451774]        mvgal_session_begin+0x3a2/0x9f0 [mvgal]
[  132.452287]
[  132.452287] other info that might help us debug this:
[  132.452287]
[  132.453168]  Possible unsafe locking scenario:
[  132.453168]
[  132.453790]        CPU0                    CPU1
[  132.454233]        ----                    ----
[  132.454676]   lock(&bo->lock#2);
[  132.455003]                                lock(&bo->lock);
[  132.455527]                                lock(&bo->lock#2);
[  132.456052]   lock(&bo->lock);
[  132.456369]
[  132.456369]  *** DEADLOCK ***
[  132.456369]
[  132.457071] stack backtrace:
[  132.457394] CPU: 0 UID: 0 PID: 655 Comm: mvgal_fuzz Tainted: G           O       6.12.57-mvgal-debug #1
[  132.458296] Call Trace:
[  132.458560]  <TASK>
[  132.458783]  dump_stack_lvl+0x84/0xd0
[  132.459166]  print_circular_bug+0x26a/0x340
[  132.459580]  </TASK>
EOF
expect_fail circular "WARNING: possible circular locking dependency detected"

cat >"$t/recursive.rep" <<'EOF'
[   88.120044]
[   88.120290] ============================================
[   88.120838] WARNING: possible recursive locking detected
[   88.121386] 6.12.57-mvgal-debug #1 Tainted: G           O
[   88.121956] --------------------------------------------
[   88.122499] mvgal_test/388 is trying to acquire lock:
[   88.123017] ffff88800b4e2128 (&bo->lock){+.+.}-{3:3}, at: mvgal_session_lock_bos+0x9a/0x1e0 [mvgal]
[   88.123905]
[   88.123905] but task is already holding lock:
[   88.124551] ffff88800b4e3128 (&bo->lock){+.+.}-{3:3}, at: mvgal_session_lock_bos+0x9a/0x1e0 [mvgal]
[   88.125443]
[   88.125443] other info that might help us debug this:
[   88.126186]  Possible unsafe locking scenario:
[   88.126186]
[   88.126806]        CPU0
[   88.127063]        ----
[   88.127319]   lock(&bo->lock);
[   88.127624]   lock(&bo->lock);
[   88.127930]
[   88.127930]  *** DEADLOCK ***
[   88.127930]
[   88.128607]  May be due to missing lock nesting notation
[   88.128607]
[   88.129318] stack backtrace:
[   88.129644] Call Trace:
[   88.129906]  <TASK>
[   88.130127]  dump_stack_lvl+0x84/0xd0
[   88.130506]  print_deadlock_bug+0x2b8/0x3d0
[   88.130932]  </TASK>
EOF
expect_fail recursive "WARNING: possible recursive locking detected"

cat >"$t/rcu.rep" <<'EOF'
[  201.550318]
[  201.550563] =============================
[  201.550982] WARNING: suspicious RCU usage
[  201.551400] 6.12.57-mvgal-debug #1 Tainted: G           O
[  201.551976] -----------------------------
[  201.552393] drivers/dma-buf/dma-resv.c:345 suspicious rcu_dereference_check() usage!
[  201.553106]
[  201.553106] other info that might help us debug this:
[  201.553106]
[  201.553876]
[  201.553876] rcu_scheduler_active = 2, debug_locks = 1
[  201.554496] 1 lock held by kworker/u8:3/97:
[  201.554924]  #0: ffff888006f11d48 ((wq_completion)mvgal-migrate){+.+.}-{0:0}, at: process_one_work+0x7c5/0x1530
[  201.555870]
[  201.555870] stack backtrace:
[  201.556197] Call Trace:
[  201.556459]  <TASK>
[  201.556682]  lockdep_rcu_suspicious+0x15a/0x1b0
[  201.557131]  mvgal_job_add_resv_deps+0x2d1/0x3a0 [mvgal]
[  201.557641]  </TASK>
EOF
expect_fail rcu "WARNING: suspicious RCU usage"

cat >"$t/sleep.rep" <<'EOF'
[   45.900312] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:585
[   45.901151] in_atomic(): 1, irqs_disabled(): 0, non_block: 0, pid: 377, name: mvgal_test
[   45.901934] preempt_count: 1, expected: 0
[   45.902356] RCU nest depth: 0, expected: 0
[   45.902780] 2 locks held by mvgal_test/377:
[   45.903207]  #0: ffff8880087d1a28 (&mdev->gpu_lock){+.+.}-{3:3}, at: mvgal_ioctl_place_fd+0xe1/0x3c0 [mvgal]
[   45.904120]  #1: ffff8880087d1c60 (&pool->spin){+.+.}-{2:2}, at: mvgal_pool_alloc+0x4a/0x1f0 [mvgal]
[   45.904968] Preemption disabled at:
[   45.905321] [<ffffffffc06a13ba>] mvgal_pool_alloc+0x4a/0x1f0 [mvgal]
[   45.905923] CPU: 1 UID: 0 PID: 377 Comm: mvgal_test Tainted: G           O       6.12.57-mvgal-debug #1
[   45.906837] Call Trace:
[   45.907098]  <TASK>
[   45.907321]  __might_resched+0x2fd/0x480
[   45.907720]  __mutex_lock+0xb1/0x1140
[   45.908096]  </TASK>
EOF
expect_fail sleep "BUG: sleeping function called from invalid context at kernel/locking/mutex.c:585"

cat >"$t/ubsan.rep" <<'EOF'
[   77.310220] ------------[ cut here ]------------
[   77.310712] UBSAN: shift-out-of-bounds in kernel/bo/mvgal_chunks.c:141:28
[   77.311367] shift exponent 64 is too large for 64-bit type 'long unsigned int'
[   77.312039] CPU: 0 UID: 0 PID: 402 Comm: mvgal_test Tainted: G           O       6.12.57-mvgal-debug #1
[   77.312949] Call Trace:
[   77.313210]  <TASK>
[   77.313433]  dump_stack_lvl+0x84/0xd0
[   77.313816]  __ubsan_handle_shift_out_of_bounds+0x1e7/0x2f0
[   77.314352]  mvgal_chunk_span+0x8e/0xa0 [mvgal]
[   77.314807]  </TASK>
[   77.315029] ---[ end trace ]---
EOF
expect_fail ubsan "UBSAN: shift-out-of-bounds in kernel/bo/mvgal_chunks.c:141:28"

cat >"$t/hung.rep" <<'EOF'
[  369.824410] INFO: task mvgal_test:431 blocked for more than 120 seconds.
[  369.825068]       Tainted: G           O       6.12.57-mvgal-debug #1
[  369.825688] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.
[  369.826425] task:mvgal_test      state:D stack:0     pid:431   tgid:431   ppid:430    flags:0x00004002
[  369.827333] Call Trace:
[  369.827594]  <TASK>
[  369.827817]  __schedule+0x6f5/0x1bd0
[  369.828190]  schedule+0xe7/0x3a0
[  369.828535]  dma_fence_default_wait+0x3e1/0x5a0
[  369.828985]  mvgal_bo_lock_idle+0x11a/0x2b0 [mvgal]
[  369.829462]  </TASK>
[  369.829684] INFO: lockdep is turned off.
EOF
expect_fail hung "INFO: task mvgal_test:431 blocked for more than 120 seconds."

cat >"$t/softlockup.rep" <<'EOF'
[  412.003310] watchdog: BUG: soft lockup - CPU#1 stuck for 123s! [kworker/u8:2:96]
[  412.004020] Modules linked in: mvgal(O) vgem virtio_gpu virtio_dma_buf drm_shmem_helper drm_kms_helper drm
[  412.004975] irq event stamp: 1828406
[  412.005330] hardirqs last  enabled at (1828405): [<ffffffff8245f2d4>] _raw_spin_unlock_irqrestore+0x44/0x60
[  412.006249] CPU: 1 UID: 0 PID: 96 Comm: kworker/u8:2 Tainted: G           O L     6.12.57-mvgal-debug #1
[  412.007153] Workqueue: mvgal-migrate mvgal_job_work [mvgal]
[  412.007686] RIP: 0010:mvgal_loc_copy+0x1a4/0x3e0 [mvgal]
[  412.008208] Call Trace:
[  412.008469]  <IRQ>
[  412.008684]  ? watchdog_timer_fn+0x2f1/0x3b0
[  412.009112]  </IRQ>
EOF
expect_fail softlockup "watchdog: BUG: soft lockup - CPU#1 stuck for 123s! [kworker/u8:2:96]"

# MVGAL_VM_ALLOW: the WARN it names passes, reported as allowed; one it
# does not name, and a KASAN report, still fail.
cat >"$t/vmap.rep" <<'EOF'
[  150.771004] ------------[ cut here ]------------
[  150.771497] WARNING: CPU: 1 PID: 702 at drivers/dma-buf/dma-buf.c:1517 dma_buf_vmap+0x2c6/0x340
[  150.772350] Modules linked in: mvgal(O) vgem virtio_gpu
[  150.772864] CPU: 1 UID: 0 PID: 702 Comm: mvgal_fuzz Tainted: G           O       6.12.57-mvgal-debug #1
[  150.773771] RIP: 0010:dma_buf_vmap+0x2c6/0x340
[  150.774224] Call Trace:
[  150.774485]  <TASK>
[  150.774708]  mvgal_import_vmap+0x5e/0x110 [mvgal]
[  150.775175]  </TASK>
[  150.775397] ---[ end trace 0000000000000000 ]---
EOF
cat >"$t/other.rep" <<'EOF'
[  151.100310] ------------[ cut here ]------------
[  151.100801] WARNING: CPU: 0 PID: 702 at kernel/move/mvgal_place.c:212 mvgal_place_drain+0x3f1/0x4a0 [mvgal]
[  151.101706] Call Trace:
[  151.101967]  <TASK>
[  151.102190]  mvgal_ioctl_place_free+0x1a2/0x2c0 [mvgal]
[  151.102700]  </TASK>
[  151.102922] ---[ end trace 0000000000000000 ]---
EOF
allow='at drivers/dma-buf/dma-buf.c:[0-9]+ dma_buf_vmap\+'
{ clean; cat "$t/vmap.rep"; clean; cat "$t/vmap.rep"; } >"$t/allowed.log"
out=$(MVGAL_VM_ALLOW=$allow "$scan" "$t/allowed.log" 2>&1)
test $? = 0 && test "$(echo "$out" | grep -c '^vm/run: allowed report: ')" = 2 &&
	! echo "$out" | grep -q 'reports a problem'
ok $? "MVGAL_VM_ALLOW: the dma_buf_vmap WARN it names passes, said to be allowed, twice"
"$scan" "$t/allowed.log" 2>/dev/null
test $? = 1
ok $? "... and fails the run without MVGAL_VM_ALLOW"
{ clean; cat "$t/vmap.rep" "$t/other.rep"; clean; } >"$t/mixed.log"
out=$(MVGAL_VM_ALLOW=$allow "$scan" "$t/mixed.log" 2>&1)
test $? = 1 && echo "$out" | grep -q 'reports a problem' &&
	echo "$out" | grep -q 'at kernel/move/mvgal_place.c:212 mvgal_place_drain' &&
	! echo "$out" | grep -q 'dma_buf_vmap+0x2c6'
ok $? "MVGAL_VM_ALLOW: a WARN it does not name, next to one it does, fails and is the one shown"
{ clean; cat "$t/kasan.rep"; } >"$t/kasan-allowed.log"
MVGAL_VM_ALLOW='KASAN|mvgal' "$scan" "$t/kasan-allowed.log" 2>/dev/null
test $? = 1
ok $? "MVGAL_VM_ALLOW exempts WARN blocks only: a KASAN report it matches still fails"

# kmemleak (mm/kmemleak.c print_unreferenced()): a leak allocated in mvgal
# fails; one whose stack and task name nothing of mvgal passes.
cat >"$t/leak-mvgal.txt" <<'EOF'
unreferenced object 0xffff88800a7b3c00 (size 64):
  comm "kworker/u8:1", pid 58, jiffies 4294903140
  hex dump (first 32 bytes):
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................
    6b 6b 6b 6b 6b 6b 6b 6b 6b 6b 6b 6b 6b 6b 6b 6b  kkkkkkkkkkkkkkkk
  backtrace (crc 5d4f9a1c):
    __kmalloc_cache_noprof+0x2a5/0x3a0
    mvgal_job_alloc+0x5b/0x230 [mvgal]
    mvgal_migrate+0x6e/0x4c0 [mvgal]
    process_one_work+0x7c5/0x1530
    worker_thread+0x6a4/0xf10
    kthread+0x2a1/0x360
    ret_from_fork+0x2d/0x70
    ret_from_fork_asm+0x1a/0x30
EOF
cat >"$t/leak-other.txt" <<'EOF'
unreferenced object 0xffff8880061d2e80 (size 128):
  comm "swapper/0", pid 1, jiffies 4294892301
  hex dump (first 32 bytes):
    a0 2e 1d 06 80 88 ff ff a0 2e 1d 06 80 88 ff ff  ................
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................
  backtrace (crc 1b8a7c44):
    __kmalloc_noprof+0x2c1/0x420
    acpi_ut_allocate_object_desc_dbg+0x40/0x120
    acpi_ps_execute_method+0x3a2/0x6f0
    kernel_init+0x1c/0x1c0
    ret_from_fork+0x2d/0x70
    ret_from_fork_asm+0x1a/0x30
EOF
out=$("$scan" "$t/clean.log" "$t/leak-mvgal.txt" 2>&1)
test $? = 1 && echo "$out" | grep -q '^vm/run: kmemleak reports objects mvgal leaked:$' &&
	echo "$out" | grep -q 'mvgal_job_alloc+0x5b/0x230 \[mvgal\]' &&
	! echo "$out" | grep -q 'reports a problem'
ok $? "kmemleak: a leak with an mvgal frame fails, shown with its stack"
out=$("$scan" "$t/clean.log" "$t/leak-other.txt" 2>&1)
test $? = 0 && test -z "$out"
ok $? "kmemleak: a leak that names nothing of mvgal passes"
: >"$t/empty.txt"
"$scan" "$t/clean.log" "$t/empty.txt" 2>/dev/null
ok $? "kmemleak: an empty report (stock kernel) passes"
"$scan" "$t/kasan.log" "$t/leak-mvgal.txt" 2>/dev/null
test $? = 1
ok $? "a kernel report and a leak together fail"
"$scan" "$t/missing.log" 2>/dev/null
test $? = 2
ok $? "a log that cannot be read is an error (exit 2), not a pass"

# Quiet failures that are bugs all the same: a fault handler's error that
# reached the page-fault code, an allocation failure's warning (mvgal's
# user-sized allocations must be __GFP_NOWARN), lockdep switching itself off.
cat >"$t/pfoom.rep" <<'EOF'
[  201.402113] Huh VM_FAULT_OOM leaked out to the #PF handler. Retrying PF
EOF
expect_fail pfoom "Huh VM_FAULT_OOM leaked out to the #PF handler. Retrying PF"
cat >"$t/vmalloc.rep" <<'EOF'
[  202.118820] mvgal_fuzz: vmalloc error: size 1052672, vm_struct allocation failed, mode:0xdc0(GFP_KERNEL|__GFP_ZERO), nodemask=(null),cpuset=/,mems_allowed=0-1
EOF
expect_fail vmalloc "vmalloc error: size 1052672, vm_struct allocation failed"
cat >"$t/pagealloc.rep" <<'EOF'
[  203.551102] mvgal_fuzz: page allocation failure: order:4, mode:0x40dc0(GFP_KERNEL|__GFP_COMP|__GFP_ZERO), nodemask=(null),cpuset=/,mems_allowed=0-1
EOF
expect_fail pagealloc "page allocation failure: order:4"
cat >"$t/lockdepoff.rep" <<'EOF'
[  204.000112] turning off the locking correctness validator.
EOF
expect_fail lockdepoff "turning off the locking correctness validator."

# A long report (its excerpt is cut) is still a failure, exit 1: a pipe
# cut short must not turn it into a SIGPIPE exit.
{ clean; cat "$t/kasan.rep"; for i in $(seq 20000); do echo "[  300.$i] frame $i"; done; clean; } >"$t/long.log"
"$scan" "$t/long.log" >/dev/null 2>&1
test $? = 1
ok $? "a report of 20000 lines fails with exit 1"

# tools/vm/report-run: which of a boot's runs (tests/fuzz/check-runs.sh
# marks them in the kernel log) the first report came in.
which=$top/tools/vm/report-run
mark() { echo "[  40$1.000000] mvgal-check: run $1 $2"; }
{ clean; mark 1 begins; clean; mark 1 ends; mark 2 begins; clean; mark 2 ends; mark 3 begins; clean; mark 3 ends; } >"$t/runs.log"
out=$("$which" "$t/runs.log" 2>&1)
test $? = 1 && test -z "$out"
ok $? "report-run: a clean boot of three runs names none (exit 1)"
{ clean; mark 1 begins; clean; mark 1 ends; mark 2 begins; clean; mark 2 ends; cat "$t/kasan.rep"; mark 3 begins; cat "$t/circular.rep"; mark 3 ends; } >"$t/runs2.log"
test "$("$which" "$t/runs2.log")" = 2
ok $? "report-run: a report after run 2 ended, before run 3 began, is run 2's (run 3's later report does not count)"
{ clean; cat "$t/ubsan.rep"; mark 1 begins; cat "$t/kasan.rep"; mark 1 ends; } >"$t/runs3.log"
test "$("$which" "$t/runs3.log")" = 0
ok $? "report-run: a report before the first run is the boot's (0)"
{ mark 1 begins; clean; mark 1 ends; mark 2 begins; cat "$t/vmap.rep"; mark 2 ends; mark 3 begins; cat "$t/kasan.rep"; } >"$t/runs4.log"
test "$(MVGAL_VM_ALLOW="$allow" "$which" "$t/runs4.log")" = 3
ok $? "report-run: MVGAL_VM_ALLOW exempts its WARN in run 2; run 3's KASAN report is found"

echo "1..$n"
exit $rc
