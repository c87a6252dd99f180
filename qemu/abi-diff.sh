#!/usr/bin/env bash
# make abi-diff: boot the stock and the patched kernel and compare what user
# space sees of the kprobe and uprobe PMUs (sysfs files and perf_event_open()
# errors for bad input).  Fails when the two tables differ.
set -euo pipefail
. "$(dirname "$0")/../mk/common.sh"

"$ROOT/qemu/kselftest.sh" --build-only
for kind in stock patched; do
	run=$BUILD/run-abi-$kind
	rm -rf "$run"
	"$ROOT/qemu/vm.sh" "$kind" "$run" \
		"sh $ROOT/qemu/guest-abi.sh $BUILD/kselftest > $run/abi.txt 2>&1" ||
		die "the guest failed on the $kind kernel: see $run/"
done

stock=$BUILD/run-abi-stock/abi.txt patched=$BUILD/run-abi-patched/abi.txt
grep -q '^errno: ' "$stock" || die "no errno table from the stock kernel: see $stock"
if diff -u "$stock" "$patched"; then
	say "the tables are identical ($(grep -c '' "$stock") lines): $stock, $patched"
else
	die "the patched kernel's ABI differs from the stock kernel's (above)"
fi
