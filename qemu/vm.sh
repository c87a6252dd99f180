#!/usr/bin/env bash
# vm.sh KIND RUNDIR GUEST-COMMAND...
#
# Boot build/BASE/kernel-KIND/bzImage under QEMU (TCG: KVM does not work here)
# with virtme-ng: the host's root file system is the guest's, read-only over
# 9p, and RUNDIR is writable.  The kernel console goes to RUNDIR/console.log,
# GUEST-COMMAND's output to the terminal.  Refuses to boot a kernel that was
# not built from the current sources.
set -euo pipefail
. "$(dirname "$0")/../mk/common.sh"

kind=$1 rundir=$2
shift 2
image=$BUILD/kernel-$kind/bzImage
case $kind in
patched) target=kernel ;;
*-btf) target=bpf-selftests ;;
patched-*) target=config-matrix ;;
*) target=kernel-$kind ;;
esac
[ -f "$image" ] || die "no $kind kernel: run 'make $target'"
[ "$(cat "$BUILD/kernel-$kind/.inputs")" = "$("$ROOT/mk/inputs.sh" "$kind")" ] ||
	die "$image was built from older sources: run 'make $target' first"

mkdir -p "$rundir"
# root=/dev/root: without an initramfs the kernel mounts the 9p root by that
# tag.  Under --verbose the console and the command's output share QEMU's
# stdout: the command writes its results to files in RUNDIR.  VM_QEMU_OPTS
# adds QEMU options, VM_CPUS sets the number of vCPUs (2).  no_timer_check: on a busy host the IO-APIC timer check
# can time out under emulation and panic the boot ("IO-APIC + timer doesn't
# work!").
say "booting the $kind kernel under QEMU (TCG); console: $rundir/console.log"
timeout -k 30 "${VM_TIMEOUT:-1500}" \
	vng --disable-kvm --force-9p --verbose -r "$image" --cpus "${VM_CPUS:-2}" --memory 2G \
	--append "tsc=reliable no_timer_check root=/dev/root" --rwdir "$rundir" --cwd "$rundir" \
	${VM_QEMU_OPTS:+--qemu-opts "$VM_QEMU_OPTS"} \
	-e "$*" </dev/null >"$rundir/console.log" 2>&1 && rc=0 || rc=$?
[ "$rc" != 124 ] || say "the guest did not finish within ${VM_TIMEOUT:-1500} s"
exit "$rc"
