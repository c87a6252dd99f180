#!/bin/sh
# Runs inside the guest: guest-abi.sh KSFT_INSTALL_DIR
# Prints what user space sees of the kprobe and uprobe PMUs: their sysfs
# files, and perf_event_open()'s answers to the selftests' bad input.
ksft=$1

for pmu in kprobe uprobe; do
	cd "/sys/bus/event_source/devices/$pmu" || { echo "sysfs: no $pmu PMU"; continue; }
	find . -maxdepth 2 -type f ! -path './power/*' | LC_ALL=C sort | while read -r f; do
		echo "sysfs: $pmu/${f#./}: $(cat "$f" 2>&1 | tr '\n' ' ')"
	done
done
"$ksft/perf_bpf_probe/probe_errno" 2>&1 | sed -n 's/^# errno-table: *//p' | sed 's/^/errno: /'
