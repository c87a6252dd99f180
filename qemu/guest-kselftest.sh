#!/bin/sh
# Runs inside the guest: guest-kselftest.sh KSFT_INSTALL_DIR RUNDIR
# Writes run_kselftest.sh's KTAP to RUNDIR/kselftest.ktap.
set -u
ksft=$1 run=$2

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
