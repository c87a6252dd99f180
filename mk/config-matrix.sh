#!/usr/bin/env bash
# make config-matrix: build the patched kernel in the configurations of
# qemu/matrix/ (each NAME.config merged over base.config and patched.config,
# into build/kernel-patched-NAME), and boot the ones in BOOTED with the
# whole suite, whose verdict uses qemu/expect/patched-NAME.
#
#   MATRIX="norust nojit" make config-matrix    only these configurations
#   MATRIX_COLD=1 make config-matrix            each from scratch (see below)
#
# Prints one line per configuration and fails if any did not build or pass.
set -euo pipefail
. "$(dirname "$0")/common.sh"

BOOTED="norust cpmus"
all=$(cd "$ROOT/qemu/matrix" && ls -1 ./*.config | sed 's|^\./||; s|\.config$||')
# The booted ones first: the build-only ones need no machine after them.
default=$(for m in $BOOTED; do echo "$m"; done; echo "$all" | grep -vxF -f <(printf '%s\n' $BOOTED))
matrix=${MATRIX:-$default}

# Each configuration's build starts from a copy of the patched kernel's
# build, unless MATRIX_COLD=1 (mk/kernel.sh).
results=()
fail=0
for m in $matrix; do
	[ -f "$ROOT/qemu/matrix/$m.config" ] || die "no qemu/matrix/$m.config"
	start=$SECONDS
	if ! "$ROOT/mk/kernel.sh" "patched-$m"; then
		results+=("$m: FAILED to build (log: $LOGS/kernel-patched-$m.log)")
		fail=1
		continue
	fi
	line="$m: built in $((SECONDS - start)) s"
	if [[ " $BOOTED " == *" $m "* ]]; then
		start=$SECONDS
		if "$ROOT/qemu/kselftest.sh" "patched-$m"; then
			line+=", suite: $(tail -n 1 "$BUILD/run-kselftest-patched-$m/verdict.txt")"
		else
			line+=", suite FAILED: $(tail -n 1 "$BUILD/run-kselftest-patched-$m/verdict.txt" 2>/dev/null)"
			fail=1
		fi
		line+=" ($((SECONDS - start)) s)"
	fi
	results+=("$line")
done
echo "config-matrix:"
printf '  %s\n' "${results[@]}"
[ "$fail" = 0 ] || die "a configuration failed (above)"
