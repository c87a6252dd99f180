#!/usr/bin/env bash
# fuzz-build.sh: build the probe PMU fuzzer; prints its path.
set -euo pipefail
. "$(dirname "$0")/../mk/common.sh"

bin=$BUILD/fuzz/probe_fuzz
mkdir -p "$BUILD/fuzz"
gcc -O2 -Wall -I"$ROOT/tools/testing/selftests" -o "$bin" "$ROOT/qemu/fuzz/probe_fuzz.c" \
	"$ROOT/tools/testing/selftests/perf_bpf_probe/probe_target.c" >&2
echo "$bin"
