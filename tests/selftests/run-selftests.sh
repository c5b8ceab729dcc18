#!/bin/sh
# Runs every mvgal selftest in the guest (or only those named as
# arguments) and prints their TAP lines.
# A program that crashes, or ends before running all the tests it
# announced, adds a "not ok" of its own, so nothing is lost silently.
# After each program a "# NAME: N s" line says how long it took, so the
# slow suites show in both make check lanes' logs.
#
# Then the stand-in pass: the suites that use GPUs run again with the test
# bed's VRAM stand-in GPU (tests/vram) in the place of a virtio-gpu
# (MVGAL_TEST_STANDIN, tests/selftests/helpers.h), their lines tagged
# "[stand-in]". Not in it, each saying why at its top: prime_test and
# mvgal_info_test.sh (what they check is virtio-gpu's and vgem's, or the
# boot's node names), mvgal_test and abi_test (no pool), and vram_test
# and devmem_test (the stand-in's own). unplug_test unbinds the stand-in
# there, so the stand-in replaces the GPU it unplugs (NUMA node 1's); in
# the other suites it replaces NUMA node 0's, the one they use most.
# MVGAL_STANDIN_SUITES, when set, names the suites of the stand-in pass
# (empty: none; make check's debug lane runs a few, make fuzz-long all);
# MVGAL_SELFTEST_PASS=standin runs that pass alone (=dma the DMA pass,
# below).
dir=$(dirname "$0")
# unplug_test unbinds and rebinds a GPU, which renumbers the DRM nodes that
# others (mvgal_info_test.sh) expect in boot order: it runs last. Before
# it, the VRAM stand-in's tests, which load its driver and attach it at a
# slot of its own. (evict_test's eviction order came out otherwise at
# times after them: an eviction passed by a victim whose host pages were
# moving to its GPU's node, which it now waits for; evict_test's
# a_buffer_whose_pages_move_is_not_passed_by.)
late="vram_test devmem_test dmaeng_test unplug_test"
not_standin="prime_test mvgal_info_test.sh mvgal_test abi_test vram_test devmem_test"

# run_one PATH TAG: one program, its TAP lines tagged TAG if not empty.
run_one() {
	t=$1 tag=$2
	name=$(basename "$t")
	echo "# ==== $name${tag:+ $tag}"
	out=/tmp/$name.out
	start=$(date +%s)
	case "$t" in
	*.sh) sh "$t" >"$out" 2>&1 ;;
	*) "$t" >"$out" 2>&1 ;;
	esac
	rc=$?
	end=$(date +%s)
	if [ -n "$tag" ]; then
		sed "s/^\(not \)\{0,1\}ok [0-9]* /&$tag /" "$out"
	else
		cat "$out"
	fi
	plan=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$out" | head -n 1)
	ran=$(grep -cE '^(not )?ok ' "$out")
	failed=$(grep -c '^not ok ' "$out")
	if [ -n "$plan" ] && [ "$ran" -lt "$plan" ]; then
		echo "not ok - $name${tag:+ $tag} ran $ran of $plan tests (exit status $rc)"
	elif [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
		echo "not ok - $name${tag:+ $tag} exited with status $rc"
	fi
	echo "# $name${tag:+ $tag}: $((end - start)) s"
}

# The programs, in the order they run.
progs=""
for t in "$dir"/*_test "$dir"/*_test.sh; do
	case " $late " in *" $(basename "$t") "*) continue ;; esac
	progs="$progs $t"
done
for l in $late; do progs="$progs $dir/$l"; done

wanted() {
	[ $# -gt 1 ] || return 0
	n=$1
	shift
	case " $* " in *" $n "*) return 0 ;; esac
	return 1
}

for t in $progs; do
	[ -n "${MVGAL_SELFTEST_PASS:-}" ] && break
	[ -x "$t" ] || [ -f "$t" ] || continue
	wanted "$(basename "$t")" "$@" || continue
	run_one "$t" ""
done

loaded=""
for t in $progs; do
	name=$(basename "$t")
	[ -x "$t" ] || continue
	[ "${MVGAL_SELFTEST_PASS:-}" = dma ] && break
	case " $not_standin " in *" $name "*) continue ;; esac
	wanted "$name" "$@" || continue
	if [ -n "${MVGAL_STANDIN_SUITES+set}" ]; then
		case " $MVGAL_STANDIN_SUITES " in *" $name "*) ;; *) continue ;; esac
	fi
	if [ -z "$loaded" ]; then
		if ! modprobe mvgal_vram; then
			echo "not ok - the stand-in pass: modprobe mvgal_vram failed"
			break
		fi
		loaded=1
	fi
	role=node0
	[ "$name" = unplug_test ] && role=node1
	MVGAL_TEST_STANDIN=$role run_one "$t" "[stand-in]"
done
if [ -n "$loaded" ]; then
	# The stand-in's pool goes with mvgal's reload, then its driver.
	i=0
	while ! rmmod mvgal 2>/dev/null && [ $i -lt 50 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	modprobe mvgal && rmmod mvgal_vram ||
		echo "not ok - the stand-in pass: mvgal did not give the stand-in back"
fi

# The DMA pass: suites that move data run again with the test bed's
# memcpy DMA engine (tests/dmaeng) loaded, every copy forced through it
# (MVGAL_TEST_DMA: coh_setup() calibrates, which finds the engine, and
# sets force_method to P2P), their lines tagged "[dma]": host to pool,
# pool to pool, device-only buffers, drains, eviction write-back,
# replication. MVGAL_DMA_SUITES, when set, names them (empty: none).
dma_suites=${MVGAL_DMA_SUITES-"session_test evict_test policy_test"}
[ "${MVGAL_SELFTEST_PASS:-}" = standin ] && dma_suites=""
engine=""
for t in $progs; do
	name=$(basename "$t")
	[ -x "$t" ] || continue
	case " $dma_suites " in *" $name "*) ;; *) continue ;; esac
	wanted "$name" "$@" || continue
	if [ -z "$engine" ]; then
		if ! modprobe mvgal_dmaeng; then
			echo "not ok - the DMA pass: modprobe mvgal_dmaeng failed"
			break
		fi
		engine=1
	fi
	before=$(cat /sys/module/mvgal_dmaeng/parameters/completed)
	MVGAL_TEST_DMA=1 run_one "$t" "[dma]"
	# The pass proves nothing unless the engine made the copies.
	after=$(cat /sys/module/mvgal_dmaeng/parameters/completed)
	if [ "$after" -gt "$before" ]; then
		echo "ok - $name [dma]: the engine completed $((after - before)) descriptors"
	else
		echo "not ok - $name [dma]: the engine made no copy"
	fi
done
if [ -n "$engine" ]; then
	echo -1 >/sys/module/mvgal/parameters/force_method
	# Unbound, the engine's device makes mvgal let its channel go.
	for d in /sys/bus/pci/drivers/mvgal_dmaeng/0000:*; do
		[ -e "$d" ] && echo "${d##*/}" >/sys/bus/pci/drivers/mvgal_dmaeng/unbind
	done
	rmmod mvgal_dmaeng ||
		echo "not ok - the DMA pass: mvgal did not give the engine back"
fi
