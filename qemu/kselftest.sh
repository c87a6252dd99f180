#!/usr/bin/env bash
# kselftest.sh [patched|stock|debug|patched-NAME]: build the selftests, boot the kernel, run
# them, parse KUnit from the console and print the verdict.
# kselftest.sh --build-only: build and install the selftests in build/BASE/kselftest.
# A run installs them in build/BASE/kselftest-KIND, so that runs on different
# kernels can go on at once.
set -euo pipefail
. "$(dirname "$0")/../mk/common.sh"

kind=${1:-patched}
TARGETS="bpf_jit_symbols kprobes perf_bpf_probe perf_events"
src=$BUILD/src-patched # the tests are built from the patched tree for every kernel
# The uapi headers of the kernel under test (the stock kernel's lack the series').
hdrs=$BUILD/kernel-$kind
case $kind in stock | --build-only) hdrs=$BUILD/kernel-patched ;; esac
name=${kind#--}
ksft=$BUILD/kselftest-$kind
[ "$kind" != --build-only ] || ksft=$BUILD/kselftest
run=$BUILD/run-kselftest-$kind

# The tree is the series as they are now: an edited patch is what runs.
"$ROOT/mk/tree.sh" patched >/dev/null
say "building the selftests: $TARGETS"
# FORCE_TARGETS: a target that does not build fails the build (otherwise the
# selftests Makefile leaves it out of the run list and exits 0); a fresh
# install directory: no binary of an earlier build can run.
rm -rf "$ksft"
run_logged "$LOGS/kselftest-build-$name.log" make -C "$src" O="$hdrs" \
	"${KMAKE_VARS[@]}" headers ||
	die "installing the uapi headers failed"
run_logged "$LOGS/kselftest-build-$name.log.targets" make -C "$src/tools/testing/selftests" \
	O="$BUILD/kselftest-obj-$name" TARGETS="$TARGETS" FORCE_TARGETS=1 \
	KHDR_INCLUDES="-isystem $hdrs/usr/include" \
	KSFT_INSTALL_PATH="$ksft" install ||
	die "the selftests did not build"

[ "$kind" != --build-only ] || exit 0

# perf of the patched tree, next to the tests that run it besides Debian's.
"$ROOT/mk/perf.sh" >/dev/null
cp "$BUILD/perf/perf" "$ksft/perf_bpf_probe/"
# perf test finds its shell tests next to its binary.
mkdir -p "$ksft/perf_bpf_probe/tests"
cp -r "$src/tools/perf/tests/shell" "$ksft/perf_bpf_probe/tests/"

# The Rust PMU sample module of this kernel, which perf_bpf_probe/rust_pmu
# loads from its directory (the stock kernel has none: those tests skip).
if grep -qx 'CONFIG_SAMPLE_RUST_PMU=m' "$BUILD/kernel-$kind/.config"; then
	cp "$BUILD/kernel-$kind/samples/rust/rust_pmu.ko" "$ksft/perf_bpf_probe/"
fi

# The module kprobes/kprobe_opt_reload probes, unloads and loads again,
# looked for next to it.
cp "$BUILD/kernel-$kind/samples/kobject/kobject-example.ko" "$ksft/kprobes/"

kmemleak=
[ "$kind" != debug ] || kmemleak=1
rm -rf "$run"
mkdir -p "$run"
extra=()
guest_env=("STRESS_SECONDS=${STRESS_SECONDS:-20}")
if [ "$kind" = debug ]; then
	# The stress runs longer on the slower debug kernel.  There perf's
	# samples fall less often in the BPF images, and every longer
	# recording perf_ksymbol.sh makes to reach its 100 samples a phase
	# costs minutes of perf script: it ran into its 900 s limit on 7.3.
	# The names themselves are checked at 100 on the other kernels.
	guest_env=("STRESS_SECONDS=${STRESS_SECONDS:-60}" "MIN_SAMPLES=${MIN_SAMPLES:-50}")
	# The debug kernel also runs the fuzzers, and is slower: 20000 calls
	# of the probe PMU fuzzer (every open probe costs RCU grace periods).
	extra=(env "FUZZ_CALLS=${FUZZ_CALLS:-20000}" sh "$ROOT/qemu/guest-fuzz.sh"
		"$("$ROOT/qemu/fuzz-build.sh")" "$run")
	# (kprobes/kprobe_opt_reload tries for 150 s a case before it skips
	# there: the debug kernel's unload is slower than OPTIMIZE_DELAY.)
	export VM_TIMEOUT=${VM_TIMEOUT:-4500}
fi
# The stock kernel closes probe events one grace period at a time: its
# teardown tests take many minutes under TCG.
[ "$kind" != stock ] || export VM_TIMEOUT=${VM_TIMEOUT:-3600}
vm_status=0
"$ROOT/qemu/vm.sh" "$kind" "$run" env "${guest_env[@]}" \
	sh "$ROOT/qemu/guest-kselftest.sh" "$ksft" "$run" "${extra[@]}" || vm_status=$?
cat "$run/guest-info" 2>/dev/null || true

# KUnit's suites run at boot, before init: parse the console up to there.
sed '/Run .* as init process/q' "$run/console.log" >"$run/console-boot.log"
kunit_status=0
if grep -qx 'CONFIG_KUNIT=y' "$BUILD/kernel-$kind/.config"; then
	python3 "$src/tools/testing/kunit/kunit.py" parse --json="$run/kunit.json" \
		"$run/console-boot.log" >"$run/kunit.txt" 2>&1 || kunit_status=$?
else
	echo "no KUnit in this kernel" >"$run/kunit.txt"
	echo '{"name": "KUnit Test Group", "sub_groups": [], "test_cases": []}' >"$run/kunit.json"
fi
say "results: $run/kselftest.ktap, KUnit: $run/kunit.txt, console: $run/console.log"
# What must run is in qemu/expect/cases and cases-BASE; what may differ on
# this kernel in qemu/expect/all, qemu/expect/KIND and qemu/expect/KIND-BASE.
expect=(--cases "$ROOT/qemu/expect/cases" --cases "$ROOT/qemu/expect/cases-$BASE"
	--expected "$ROOT/qemu/expect/all")
for f in "$kind" "$kind-$BASE"; do
	[ ! -f "$ROOT/qemu/expect/$f" ] || expect+=(--expected "$ROOT/qemu/expect/$f")
done
required=(--require-exit run_kselftest.sh)
[ "$kind" != debug ] || for who in root nobody; do
	required+=(--require-exit "probe_fuzz as $who" --require-exit "trinity perf_event_open as $who")
done
# A source that is not the tested base (patches/BASE) is a finding of the run.
notes=()
base=$(base_mismatch) && notes=(--note "$base")
python3 "$ROOT/qemu/verdict.py" "${notes[@]}" --ktap "$run/kselftest.ktap" --kunit-json "$run/kunit.json" \
	--kunit-status "$kunit_status" --vm-status "$vm_status" "${expect[@]}" "${required[@]}" \
	--console "$run/console.log" --dmesg "$run/dmesg.txt" --guest-info "$run/guest-info" \
	${kmemleak:+--kmemleak "$run/kmemleak.txt"} | tee "$run/verdict.txt"
