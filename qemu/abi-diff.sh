#!/usr/bin/env bash
# make abi-diff: boot the stock and the patched kernel and compare what user
# space sees of the kprobe and uprobe PMUs (sysfs files, perf_event_open()
# and ioctl results for bad and unusual input).  Fails when the two tables
# differ but for the rows qemu/expect/abi-diff states as intended (and the
# patched kernel has the stated value there), when either lacks a case of
# probe_errno.c or a sysfs file, when the table program did not exit 0 on
# both, or on a kernel report.
set -euo pipefail
. "$(dirname "$0")/../mk/common.sh"

"$ROOT/qemu/kselftest.sh" --build-only
for kind in stock patched; do
	run=$BUILD/run-abi-$kind
	rm -rf "$run"
	"$ROOT/qemu/vm.sh" "$kind" "$run" \
		"sh $ROOT/qemu/guest-abi.sh $BUILD/kselftest > $run/abi.txt 2>&1" ||
		die "the guest failed on the $kind kernel: see $run/"
	python3 "$ROOT/qemu/verdict.py" --splats-only --console "$run/console.log" ||
		die "the $kind kernel reported a problem (above): see $run/console.log"
done

stock=$BUILD/run-abi-stock/abi.txt patched=$BUILD/run-abi-patched/abi.txt
# Every case the table program has, on both kernels.
cases=$(grep -ho -e 'CASE("[^"]*"' -e 'record_count(_metadata, "[^"]*"' \
	"$BUILD/src-patched/tools/testing/selftests/perf_bpf_probe/probe_errno.c" |
	sed 's/.*"\([^"]*\)"$/\1/')
for kind in stock patched; do
	table=$BUILD/run-abi-$kind/abi.txt
	grep -qx 'status: probe_errno exited 0' "$table" ||
		die "probe_errno did not exit 0 on the $kind kernel: see $table"
	for pmu in kprobe uprobe; do
		grep -q "^sysfs: $pmu/type: " "$table" || die "no $pmu PMU on the $kind kernel"
	done
	for c in $cases; do
		grep -qF "errno: $c " "$table" || die "no errno case $c on the $kind kernel: see $table"
	done
done
# The rows that differ on purpose (qemu/expect/abi-diff): the patched
# kernel must show the stated value; both tables are compared without them.
intended=$ROOT/qemu/expect/abi-diff
value() { sed -n "s/^$1  *//p" "$2" | tr -s ' '; }
cp "$stock" "$stock.compared"
cp "$patched" "$patched.compared"
while IFS='|' read -r row want why; do
	case $row in '' | '#'*) continue ;; esac
	got=$(value "$row" "$patched")
	[ "$got" = "$want" ] ||
		die "the patched kernel's '$row' is '$got', not '$want' ($why): see $patched"
	say "intended difference: $row: stock '$(value "$row" "$stock")', patched '$got' ($why)"
	sed -i "/^$row  */d" "$stock.compared" "$patched.compared"
done <"$intended"
if diff -u "$stock.compared" "$patched.compared"; then
	say "the tables are identical but for the intended differences ($(grep -c '' "$stock") lines, $(echo "$cases" | wc -w) errno cases): $stock, $patched"
else
	die "the patched kernel's ABI differs from the stock kernel's (above)"
fi
