#!/usr/bin/env bash
# inputs.sh KIND: print a hash of everything that kernel is built
# from, and how (its make variables).  mk/kernel.sh stores it next to the
# image; qemu/vm.sh compares.
set -euo pipefail
. "$(dirname "$0")/common.sh"

fragments=$(kernel_fragments "${1:-}") || die "usage: $0 KIND (see kernel_fragments)"
{
	ksrc_version
	kmake_vars "$1"
	for f in $fragments; do cat "$ROOT/qemu/$f.config"; done
	if [ "$(kernel_tree "$1")" = patched ]; then
		if [ -f "$ROOT/patches/series" ]; then
			cat "$ROOT/patches/series"
			series_patches | while read -r p; do echo "$p"; cat "$ROOT/patches/$p"; done
		fi
		# Mirrored files under tools/ (selftests, perf) are not built
		# into the kernel: the suite builds them at every run.
		mirror_files | grep -v '^tools/' | (cd "$ROOT" && xargs -r sha256sum)
	fi
} | sha256sum | cut -d' ' -f1
