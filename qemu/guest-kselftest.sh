#!/bin/sh
# Runs inside the guest: guest-kselftest.sh KSFT_INSTALL_DIR RUNDIR [CMD...]
# Writes run_kselftest.sh's KTAP to RUNDIR/kselftest.ktap, then runs CMD
# (the debug kernel's fuzzers) and, on a kernel with kmemleak, reports leaks.
set -u
ksft=$1 run=$2
shift 2

mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
echo "guest kernel: $(uname -r) $(uname -v), $(nproc) CPUs" >"$run/guest-info"
# The kselftest runner writes each test's output by opening /dev/stdout,
# which virtme-ng points at its own console port: make it the runner's
# stdout, opened for appending so that the two open files do not overwrite
# each other.
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
: >"$run/kselftest.ktap"
cd "$ksft" && ./run_kselftest.sh >>"$run/kselftest.ktap" 2>&1
echo "run_kselftest.sh exited $?" >>"$run/guest-info"
[ $# = 0 ] || "$@"

# The debug kernel: leaks of the whole run.  kmemleak reports an object only
# once it has been unreferenced for a while, and only after a second scan.
if [ -w /sys/kernel/debug/kmemleak ]; then
	for i in 1 2 3; do
		sleep 6
		echo scan >/sys/kernel/debug/kmemleak
	done
	cat /sys/kernel/debug/kmemleak >"$run/kmemleak.txt"
	echo "kmemleak: $(grep -c '^unreferenced object' "$run/kmemleak.txt") unreferenced objects" >>"$run/guest-info"
fi
dmesg >"$run/dmesg.txt"
