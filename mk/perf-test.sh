#!/usr/bin/env bash
# make perf-test: the whole `perf test` of the tree's perf (make perf), as a
# perf developer runs it from tools/perf, as root, on the stock and on the
# patched kernel.  Prints each kernel's counts, and fails unless every test
# and subtest has the same result on both kernels but those that
# qemu/expect/perf-test and qemu/expect/perf-test-$BASE list (the series'
# fixes and features, tests flaky here, with the reasons), and no console
# shows a kernel report.
set -euo pipefail
. "$(dirname "$0")/common.sh"

KINDS="stock patched"
"$ROOT/mk/kernel.sh" stock >/dev/null
"$ROOT/mk/kernel.sh" patched >/dev/null
perf_dir=$BUILD/perf
"$ROOT/mk/perf.sh" >/dev/null
# perf test finds its shell tests in ./tests/shell.
tools_perf=$BUILD/src-patched/tools/perf

summary=()
for kind in $KINDS; do
	run=$BUILD/run-perf-test-$kind
	rm -rf "$run"
	mkdir -p "$run"
	VM_TIMEOUT=${VM_TIMEOUT:-3600} "$ROOT/qemu/vm.sh" "$kind" "$run" \
		"mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug;" \
		"mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing;" \
		"cd $tools_perf && PATH=$perf_dir:\$PATH perf test >$run/perf-test.out 2>&1;" \
		"echo \$? >$run/perf-test.rc" ||
		die "the $kind kernel did not run perf test: see $run/console.log"
	[ -s "$run/perf-test.out" ] || die "perf test printed nothing on $kind: see $run/"
	summary+=("$kind" "$run/perf-test.out")
done

expectations perf-test >"$BUILD/perf-test.expect"
python3 "$ROOT/qemu/perf_test_verdict.py" "$BUILD/perf-test.expect" \
	"${summary[@]}" "$BUILD"/run-perf-test-*/console.log
