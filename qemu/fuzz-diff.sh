#!/usr/bin/env bash
# make fuzz-diff: the probe PMU fuzzer (qemu/fuzz/probe_fuzz.c) with one seed
# on the stock and on the patched kernel, as root and as nobody; fails on any
# difference of their outputs.  FUZZ_CALLS (100000) and FUZZ_SEED (1) set
# the run.
set -euo pipefail
. "$(dirname "$0")/../mk/common.sh"

calls=${FUZZ_CALLS:-100000} seed=${FUZZ_SEED:-1}
bin=$("$ROOT/qemu/fuzz-build.sh")

for kind in stock patched; do
	run=$BUILD/run-fuzz-$kind
	rm -rf "$run"
	"$ROOT/qemu/vm.sh" "$kind" "$run" \
		"FUZZ_CALLS=$calls FUZZ_SEED=$seed sh $ROOT/qemu/guest-fuzz.sh $bin $run --no-trinity; dmesg >$run/dmesg.txt" ||
		die "the fuzzer did not run on the $kind kernel: see $run/"
	for who in root nobody; do
		tail -n 1 "$run/fuzz-$who.txt" | grep -q "^probe_fuzz: done, $calls calls" ||
			die "the fuzzer did not finish as $who on the $kind kernel: see $run/fuzz-$who.txt"
	done
	python3 "$ROOT/qemu/verdict.py" --splats-only --console "$run/console.log" \
		--dmesg "$run/dmesg.txt" || die "the $kind kernel reported a problem (above)"
done

bad=0
for who in root nobody; do
	s=$BUILD/run-fuzz-stock/fuzz-$who.txt p=$BUILD/run-fuzz-patched/fuzz-$who.txt
	opened=$(grep -c ' open=0' "$s" || true)
	if diff -u "$s" "$p" >"$BUILD/run-fuzz-patched/diff-$who.txt"; then
		say "as $who: $calls calls, $opened opened, identical on both kernels"
	else
		bad=1
		say "as $who: the kernels differ in $(grep -c '^+[0-9]' "$BUILD/run-fuzz-patched/diff-$who.txt") calls; first ones:"
		grep '^[-+][0-9]' "$BUILD/run-fuzz-patched/diff-$who.txt" | head -n 20 >&2
	fi
done
[ "$bad" = 0 ] || die "the patched kernel answers the fuzzer differently from the stock kernel"
