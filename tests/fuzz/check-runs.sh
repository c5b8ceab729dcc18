#!/bin/sh
# Several of make check's debug runs in one guest boot (tests/run-check.sh
# passes it to the guest with tools/vm/run --file):
#
#   sh check-runs.sh NAME COMMAND [NAME COMMAND]...
#
# Runs each COMMAND (sh -c) in turn, whatever the ones before it did, and
# prints its output (TAP result lines in it turned into comments), a
# "# NAME: S s" line, then one TAP result "ok N - NAME" from its exit
# status. tools/vm/run fails the whole boot on any kernel report: so that
# the host can tell which run a report came in, each run is marked in the
# kernel log ("mvgal-check: run N begins", "mvgal-check: run N ends").
echo "1..$(($# / 2))"
i=0
while [ $# -ge 2 ]; do
	i=$((i + 1))
	name=$1 cmd=$2
	shift 2
	echo "mvgal-check: run $i begins" >/dev/kmsg
	start=$(date +%s)
	sh -c "$cmd" >/tmp/run.out 2>&1
	rc=$?
	end=$(date +%s)
	echo "mvgal-check: run $i ends" >/dev/kmsg
	sed -e 's/^\(not \)\{0,1\}ok /# &/' -e 's/^1\.\./# &/' /tmp/run.out
	echo "# $name: $((end - start)) s"
	if [ "$rc" = 0 ]; then
		echo "ok $i - $name"
	else
		echo "not ok $i - $name (exit status $rc)"
	fi
done
