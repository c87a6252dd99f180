#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpftrace attaches single kprobe: and uprobe: probes through the kprobe and
# uprobe PMUs (bcc tries them before tracefs): while it is attached, tracefs
# lists no probe, and its count equals the number of hits.

ksft_skip=4
here=$(cd "$(dirname "$0")" && pwd)
trigger=$here/trigger
tracefs=/sys/kernel/tracing
hits=50

if ! command -v bpftrace >/dev/null; then
	echo "SKIP: bpftrace is not installed"
	exit $ksft_skip
fi
mountpoint -q $tracefs || mount -t tracefs nodev $tracefs

func=
for f in __x64_sys_getppid __arm64_sys_getppid sys_getppid; do
	grep -qw "$f" /proc/kallsyms && func=$f && break
done

rc=0
# check NAME PROBE-EVENTS-FILE TRIGGER-MODE PROBE
check() {
	local name=$1 events=$2 mode=$3 probe=$4 out fifo pid listed n
	out=$(mktemp) fifo=$(mktemp -u)
	mkfifo "$fifo"
	# The traced process waits on the fifo until bpftrace is attached.
	"$trigger" "$mode" $hits <"$fifo" &
	pid=$!
	exec 3>"$fifo"
	bpftrace -e "$probe /pid == $pid/ { @hits = count(); }" >"$out" 2>&1 &
	local bt=$!
	# Attached: bpftrace holds the probe's perf event (a fallback to
	# tracefs would have written the probe there before opening it).
	attached=
	for _ in $(seq 600); do
		if ls -l /proc/$bt/fd 2>/dev/null | grep -q 'anon_inode:\[perf_event\]'; then
			attached=1
			break
		fi
		sleep 0.1
	done
	listed=$(cat "$tracefs/$events")
	echo go >&3
	exec 3>&-
	wait $pid
	kill -INT $bt
	wait $bt
	n=$(sed -n 's/^@hits: \([0-9]*\)$/\1/p' "$out")
	if [ -z "$attached" ]; then
		echo "not ok: $name: bpftrace did not open a perf event within 60 s:"
		sed 's/^/    /' "$out"
		rc=1
	elif [ -n "$listed" ]; then
		echo "not ok: $name: bpftrace attached through tracefs: $listed"
		rc=1
	elif [ "$n" != $hits ]; then
		echo "not ok: $name: bpftrace counted '${n}' hits, not $hits:"
		sed 's/^/    /' "$out"
		rc=1
	else
		echo "ok: $name: $hits hits counted through the $name PMU"
	fi
	rm -f "$out" "$fifo"
}

check kprobe kprobe_events getppid "kprobe:$func"
check uprobe uprobe_events uprobe "uprobe:$trigger:probe_target"
exit $rc
