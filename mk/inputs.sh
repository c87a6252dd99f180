#!/usr/bin/env bash
# inputs.sh patched|stock|debug: print a hash of everything that kernel is built
# from.  mk/kernel.sh stores it next to the image; qemu/boot.sh compares.
set -euo pipefail
. "$(dirname "$0")/common.sh"

{
	ksrc_version
	cat "$ROOT/qemu/base.config"
	if [ "${1:-}" != stock ]; then
		cat "$ROOT/qemu/patched.config"
		[ "${1:-}" != debug ] || cat "$ROOT/qemu/debug.config"
		if [ -f "$ROOT/patches/series" ]; then
			cat "$ROOT/patches/series"
			sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/patches/series" |
				while read -r p; do cat "$ROOT/patches/$p"; done
		fi
		mirror_files | (cd "$ROOT" && xargs -r sha256sum)
	fi
} | sha256sum | cut -d' ' -f1
