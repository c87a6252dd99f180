#!/usr/bin/env bash
# make kernel / make kernel-stock: build bzImage, vmlinux and the modules (the
# patched kernel's Rust PMU sample, rust_pmu.ko) out of tree in
# build/kernel-patched or build/kernel-stock.
#
# A kernel is rebuilt whenever anything it is built from changed (the source
# version, the base's patches, qemu/*.config, the make variables);
# the hash of those inputs is stored next to the image, and qemu/vm.sh
# refuses to boot an image whose hash is not the current one.
set -euo pipefail
. "$(dirname "$0")/common.sh"

kind=${1:-patched}
frags=$(kernel_fragments "$kind") ||
	die "usage: $0 patched|stock|debug|stock-btf|patched-btf|patched-NAME (qemu/matrix/NAME.config)"
read -r -a fragments <<<"$frags"
mapfile -t kvars < <(kmake_vars "$kind")
tree=$(kernel_tree "$kind")
src=$BUILD/src-$tree
out=$BUILD/kernel-$kind
log=$LOGS/kernel-$kind.log

# A configuration of qemu/matrix/ starts from a copy of the patched kernel's
# build (unless MATRIX_COLD=1): kbuild then recompiles what depends on the
# options that differ (fixdep records each object's CONFIG_ dependencies),
# which is what a cold build of them would compile, in a fraction of the
# time.
if [[ $kind == patched-* && -f $ROOT/qemu/matrix/${kind#patched-}.config &&
	-z ${MATRIX_COLD:-} && ! -f $out/.config ]]; then
	"$ROOT/mk/kernel.sh" patched >/dev/null
	say "seeding $out from $BUILD/kernel-patched"
	rm -rf "$out"
	cp -a "$BUILD/kernel-patched" "$out"
	rm -f "$out/.inputs" "$out/.config-inputs" "$out/bzImage" "$out/samples/rust/rust_pmu.ko"
fi

inputs=$("$ROOT/mk/inputs.sh" "$kind")
if [ -f "$out/bzImage" ] && [ "$(cat "$out/.inputs" 2>/dev/null)" = "$inputs" ]; then
	say "$kind kernel is up to date"
else
	rm -f "$out/.inputs"
	"$ROOT/mk/tree.sh" "$tree"
	mkdir -p "$out"

	frag_files=()
	for f in "${fragments[@]}"; do frag_files+=("$ROOT/qemu/$f.config"); done
	cfg_inputs=$(cat "${frag_files[@]}" "$src/.ksrc-version" | sha256sum)
	if [ "$(cat "$out/.config-inputs" 2>/dev/null)" != "$cfg_inputs" ]; then
		say "configuring: tinyconfig + ${fragments[*]/%/.config}"
		configure_kernel "$src" "$out" "$LOGS/config-$kind.log" "${frag_files[@]}" ||
			die "configuring the $kind kernel failed"
		"$ROOT/mk/config-check.sh" "$out/.config" "${frag_files[@]}"
		echo "$cfg_inputs" >"$out/.config-inputs"
	fi

	say "building the $kind kernel (-j$JOBS); log: $log"
	start=$SECONDS
	run_logged "$log" make -C "$src" O="$out" "${kvars[@]}" -j"$JOBS" bzImage modules ||
		die "the $kind kernel did not build"
	cp "$out/arch/x86/boot/bzImage" "$out/bzImage"
	echo "$inputs" >"$out/.inputs"
	say "built in $((SECONDS - start)) s"
fi
echo "bzImage: $out/bzImage"
echo "vmlinux: $out/vmlinux"
if grep -qx 'CONFIG_SAMPLE_RUST_PMU=m' "$out/.config"; then
	echo "module:  $out/samples/rust/rust_pmu.ko"
fi
