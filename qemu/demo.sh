#!/usr/bin/env bash
# make run: boot the patched kernel and show, in a form a person can read,
# the event sources, a kprobe PMU event counting a known number of hits, and
# the KSYMBOL records of a BPF program's load and unload.
set -euo pipefail
. "$(dirname "$0")/../mk/common.sh"

run=$BUILD/run-demo
rm -rf "$run"
mkdir -p "$run"
gcc -O2 -Wall -o "$run/demo" "$ROOT/qemu/demo/demo.c"
"$ROOT/qemu/vm.sh" patched "$run" "$run/demo > $run/demo.out 2>&1" && rc=0 || rc=$?
cat "$run/demo.out" 2>/dev/null || say "the demo did not run; see $run/console.log"
say "console log: $run/console.log"
exit "$rc"
