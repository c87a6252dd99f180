#!/usr/bin/env bash
# make bench: boot the stock kernel and the patched one, with the Rust probe
# PMUs (patched) and with the C ones (patched-cpmus, qemu/matrix/cpmus.config),
# in the same run, with QEMU's instruction-counting clock (-icount
# shift=0,sleep=off: 1 ns per guest instruction, so repeated boots give the
# same figures), run the benchmarks in each and print the medians and the
# ratios patched/stock for each patched kernel.
set -euo pipefail
. "$(dirname "$0")/../mk/common.sh"

src=$BUILD/src-patched
ksft=$src/tools/testing/selftests
bin=$BUILD/bench/bench
mkdir -p "$BUILD/bench"
gcc -O2 -Wall -isystem "$BUILD/kernel-patched/usr/include" -I"$ksft" -o "$bin" \
	"$ROOT/qemu/bench/bench.c" "$ksft/perf_bpf_probe/probe_target.c"

"$ROOT/mk/kernel.sh" patched-cpmus >/dev/null
for kind in stock patched patched-cpmus; do
	run=$BUILD/run-bench-$kind
	rm -rf "$run"
	# The stock kernel's rows of probe teardown take minutes.
	VM_TIMEOUT=3600 VM_QEMU_OPTS="-icount shift=0,sleep=off" \
		"$ROOT/qemu/vm.sh" "$kind" "$run" "$bin > $run/bench.out 2>&1" ||
		die "the benchmark did not run on the $kind kernel: see $run/"
	cat "$run/bench.out" >&2
done

python3 - "$BUILD"/run-bench-{stock,patched,patched-cpmus}/bench.out <<'PY'
import statistics
import sys

def medians(path):
    out = {}
    for line in open(path):
        f = line.split()
        if f and f[0] == "bench":
            out[f[1]] = statistics.median(float(x) for x in f[2:])
    return out

stock, rust, c = (medians(p) for p in sys.argv[1:4])
print(f"{'benchmark (ns/op, instruction clock)':40} {'stock':>12} "
      f"{'Rust PMUs':>12} {'ratio':>7} {'C PMUs':>12} {'ratio':>7}")
for name in stock:
    s = stock[name]
    r, cc = rust.get(name, float("nan")), c.get(name, float("nan"))
    print(f"{name:40} {s:12.1f} {r:12.1f} {r / s:7.3f} {cc:12.1f} {cc / s:7.3f}")
PY
