#!/usr/bin/env bash
# make run: boot the patched kernel and show, in a form a person can read,
# the event sources, a kprobe PMU event counting a known number of hits, the
# KSYMBOL records of a BPF program's load and unload, and the tree's perf
# naming the seccomp, socket and eBPF filters it samples, those installed
# before the recording too.  DEMO_KERNEL=stock shows the same on the stock
# kernel.
set -euo pipefail
. "$(dirname "$0")/../mk/common.sh"

run=$BUILD/run-demo-${DEMO_KERNEL:-patched}
rm -rf "$run"
mkdir -p "$run"
"$ROOT/qemu/kselftest.sh" --build-only
perf=$("$ROOT/mk/perf.sh" | sed -n 's/^perf: //p')
gcc -O2 -Wall -isystem "$BUILD/kernel-patched/usr/include" \
	-I"$BUILD/src-patched/tools/testing/selftests" -o "$run/demo" "$ROOT/qemu/demo/demo.c"
"$ROOT/qemu/vm.sh" "${DEMO_KERNEL:-patched}" "$run" \
	"$run/demo > $run/demo.out 2>&1; r=\$?; $ROOT/qemu/demo/perf-demo.sh $BUILD/kselftest $perf >> $run/demo.out 2>&1; exit \$r" &&
	rc=0 || rc=$?
cat "$run/demo.out" 2>/dev/null || say "the demo did not run; see $run/console.log"
say "console log: $run/console.log"
exit "$rc"
