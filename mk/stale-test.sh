#!/usr/bin/env bash
# stale-test.sh: an edit of a patch is what the next build is made of, and an
# edit taken back is gone from the build after it.
#
# Puts a marker into two patch files of the base's series, a string of the
# Rust PMU sample module (rust-perf) and one of the sysfs selftest
# (rust-perf), builds as `make kernel` and `make kselftest` do, and checks
# that rust_pmu.ko and the installed selftest (the directory a run boots
# with) carry the marker; then restores the two patches, builds again and
# checks that the marker is gone.  It refuses to run on a patch file with
# uncommitted changes, and restores the files however it ends.
set -euo pipefail
. "$(dirname "$0")/common.sh"

module=$(ls "$PATCHES"/rust-perf/*-samples-rust-add-a-PMU-module.patch)
selftest=$(ls "$PATCHES"/rust-perf/*-selftests-perf_bpf_probe-check-the-sysfs-ABI-of-the-.patch)
for f in "$module" "$selftest"; do
	git -C "$ROOT" diff --quiet HEAD -- "$f" ||
		die "${f#"$ROOT"/} has uncommitted changes: commit or stash them first"
done
cp "$module" "$module.stale-test" && cp "$selftest" "$selftest.stale-test"
restore() {
	mv -f "$module.stale-test" "$module"
	mv -f "$selftest.stale-test" "$selftest"
}
trap restore EXIT

marker=stale-test-$$-$RANDOM
sed -i "s|PMU rust_pmu registered with type|PMU rust_pmu registered ($marker) with type|" "$module"
sed -i "s|^+#define PMU_DIR \"/sys/bus/event_source/devices\"|+#define PMU_DIR \"/sys/bus/event_source/devices/$marker\"|" \
	"$selftest"
grep -q "$marker" "$module" && grep -q "$marker" "$selftest" ||
	die "the lines to mark are no longer in the patches"

ko=$BUILD/kernel-patched/samples/rust/rust_pmu.ko
bin=$BUILD/kselftest/perf_bpf_probe/probe_pmu_sysfs
build() {
	"$ROOT/mk/kernel.sh" patched >/dev/null
	"$ROOT/qemu/kselftest.sh" --build-only >/dev/null
}
# has FILE: whether FILE carries the marker
has() { grep -aq "$marker" "$1"; }

say "marked both patches with $marker; building"
build
has "$ko" || die "rust_pmu.ko was built without the edit of ${module#"$ROOT"/}"
has "$bin" || die "probe_pmu_sysfs was built without the edit of ${selftest#"$ROOT"/}"
say "the edits are in rust_pmu.ko and the installed probe_pmu_sysfs"

restore
trap - EXIT
say "restored both patches; building"
build
! has "$ko" || die "rust_pmu.ko still has the edit that was taken back"
! has "$bin" || die "probe_pmu_sysfs still has the edit that was taken back"
say "stale-test: ok (an edit reaches the build, and leaves it when taken back)"
