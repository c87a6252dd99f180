#!/bin/sh
# Runs inside the guest: guest-abi.sh KSFT_INSTALL_DIR
# Prints what user space sees of the kprobe and uprobe PMUs: their sysfs
# files, perf_event_open()'s and the ioctls' answers to the selftests' bad
# and unusual input, and the table program's exit status.
ksft=$1

for pmu in kprobe uprobe; do
	cd "/sys/bus/event_source/devices/$pmu" || { echo "sysfs: no $pmu PMU"; continue; }
	find . -maxdepth 2 -type f ! -path './power/*' | LC_ALL=C sort | while read -r f; do
		echo "sysfs: $pmu/${f#./}: $(cat "$f" 2>&1 | tr '\n' ' ')"
	done
done
"$ksft/perf_bpf_probe/probe_errno" >/tmp/probe_errno.out 2>&1
echo "status: probe_errno exited $?"
sed -n 's/^# errno-table: *//p' /tmp/probe_errno.out | sed 's/^/errno: /'
