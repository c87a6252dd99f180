#!/usr/bin/env bash
# make misuse-check: what the Rust PMU API must refuse to build.
#
# Each mk/misuse/NAME.rs is a PMU `P`, which mk/misuse/module.rs.in (for 7.3,
# module-probe.rs.in for a probe PMU, whose registration is for good;
# module-6.12.rs.in for 6.12, whose modules and registration differ) puts in
# a module NAME that registers it; its line
#   // misuse-check: refused "MESSAGE"
# says that compiling it against the patched kernel must fail with MESSAGE
# (a misuse that would corrupt the kernel if it built), and
#   // misuse-check: builds
# that it must compile (the control that shows the others fail for their
# misuse, not for something else).  Each is compiled as an object of an
# external module (make M=), not linked: the refusals are compile-time.
set -euo pipefail
. "$(dirname "$0")/common.sh"

src=$BUILD/src-patched out=$BUILD/kernel-patched dir=$BUILD/misuse-check
[ "$(cat "$out/.inputs" 2>/dev/null)" = "$("$ROOT/mk/inputs.sh" patched)" ] ||
	die "the patched kernel is not built from the current sources: run 'make kernel'"
rm -rf "$dir"
mkdir -p "$dir"
cases=$(cd "$ROOT/mk/misuse" && ls -- *.rs | sed 's/\.rs$//')
template=$ROOT/mk/misuse/module.rs.in probe_template=$ROOT/mk/misuse/module-probe.rs.in
if [ -f "$ROOT/mk/misuse/module-$BASE.rs.in" ]; then
	template=$ROOT/mk/misuse/module-$BASE.rs.in probe_template=
fi
for c in $cases; do
	sed '1{/SPDX-License-Identifier/d}' "$ROOT/mk/misuse/$c.rs" >"$dir/$c.case"
	# A probe PMU (kernel::perf::probe) is registered by probe::register().
	probe=() t=$template
	if grep -q '^impl ProbePmu for P' "$dir/$c.case"; then
		if [ -n "$probe_template" ]; then
			t=$probe_template
		else
			probe=(-e 's/Registration<P>/Registration<Probes<P>>/' -e 's/Registration::register(\(module, \)\?/probe::register(/' -e 's/fn init(module:/fn init(_module:/')
		fi
	fi
	sed -e "/^@CASE@\$/{r $dir/$c.case" -e 'd}' -e "s/@NAME@/$c/g" "${probe[@]}" \
		"$t" >"$dir/$c.rs"
done
echo "obj-m := $(echo "$cases" | sed 's/$/.o/' | xargs)" >"$dir/Kbuild"

fail=0 n=0
for c in $cases; do
	n=$((n + 1))
	want=$(sed -n 's|^// misuse-check: ||p' "$ROOT/mk/misuse/$c.rs")
	log=$dir/$c.log
	make -C "$src" O="$out" "${KMAKE_VARS[@]}" M="$dir" "$c.o" >"$log" 2>&1 && built=1 || built=0
	case $want in
	builds)
		if [ "$built" = 1 ]; then
			echo "ok $n $c: builds"
		else
			echo "not ok $n $c: does not build (log: $log)"
			fail=1
		fi
		;;
	refused\ \"*\")
		msg=${want#refused \"}
		msg=${msg%\"}
		if [ "$built" = 1 ]; then
			echo "not ok $n $c: builds; it must be refused with \"$msg\""
			fail=1
		elif grep -qF -- "$msg" "$log"; then
			echo "ok $n $c: refused: $msg"
		else
			echo "not ok $n $c: does not build, but not with \"$msg\" (log: $log)"
			fail=1
		fi
		;;
	*) die "mk/misuse/$c.rs: no '// misuse-check: builds|refused \"MESSAGE\"' line" ;;
	esac
done
[ "$fail" = 0 ] || die "misuse-check: the Rust PMU API builds a misuse, or refuses a good use (above)"
say "misuse-check: the $n cases of mk/misuse/ are refused or build as they say"
