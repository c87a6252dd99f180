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
	if [ "$(kernel_tree "$1")" = patched ] && [ -f "$PATCHES/series" ]; then
		cat "$PATCHES/series"
		series_patches | while read -r p; do echo "$p"; cat "$PATCHES/$p"; done
	fi
} | sha256sum | cut -d' ' -f1
