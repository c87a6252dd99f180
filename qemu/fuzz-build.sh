#!/usr/bin/env bash
# fuzz-build.sh: build the probe PMU fuzzer; prints its path.
set -euo pipefail
. "$(dirname "$0")/../mk/common.sh"

# The selftests' helpers, from the patched tree (as qemu/bench.sh does).
ksft=$BUILD/src-patched/tools/testing/selftests
bin=$BUILD/fuzz/probe_fuzz
mkdir -p "$BUILD/fuzz"
gcc -O2 -Wall -I"$ksft" -o "$bin" "$ROOT/qemu/fuzz/probe_fuzz.c" \
	"$ksft/perf_bpf_probe/probe_target.c" >&2
echo "$bin"
