#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf's own tests of how perf names BPF JIT images, run by the tree's perf
# (./perf next to this test, or tools/perf/perf in the source tree) with
# its tests/shell next to it: "KSYMBOL records in the kernel maps", which
# needs no kernel, and "perf names the JIT images of classic BPF", which
# skips on a kernel that lists no classic BPF image.  A KTAP case for each
# perf test case, named after its description.

. "$(dirname "$0")/../kselftest/ktap_helpers.sh"

here=$(cd "$(dirname "$0")" && pwd)
tests=("KSYMBOL records in the kernel maps" "perf names the JIT images of classic BPF")
cases=15

ktap_print_header
ktap_set_plan "$cases"
perf=$here/perf
[ -x "$perf" ] || perf=$here/../../../perf/perf
if [ ! -x "$perf" ] || [ ! -d "$(dirname "$perf")/tests/shell" ]; then
	ktap_skip_all "no perf of the tree with its tests/shell (copy tools/perf/perf and" \
		"tools/perf/tests/shell next to this test)"
	exit "$KSFT_SKIP"
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
# perf test finds the shell tests in ./tests/shell; the shell tests run
# "perf", which must be this one.  By number: perf test matches the cases
# of a suite by their own descriptions.
cd "$(dirname "$perf")"
export PATH=$PWD:$PATH
# A name perf test does not list, or lists twice, is a failure: with no
# number, perf test would run its whole suite.
nums=()
for t in "${tests[@]}"; do
	num=$("$perf" test list 2>&1 | awk -v t="$t" -F': ' '$2 == t { print $1 + 0 }')
	[[ "$num" =~ ^[0-9]+$ ]] || ktap_exit_fail_msg "perf test lists \"$t\" ${num:-nowhere}"
	nums+=("$num")
done
"$perf" test -v "${nums[@]}" >"$out" 2>&1
seen=0
while IFS= read -r line; do
	# " 52.1: Images in the kernel's main map    : Ok"
	status=${line##*: }
	desc=${line#*: }
	desc=${desc% : *}
	name=$(echo "$desc" | tr -c 'a-zA-Z0-9\n' _ | tr A-Z a-z | sed 's/__*/_/g; s/_$//')
	seen=$((seen + 1))
	case $status in
	Ok) ktap_test_pass "$name" ;;
	Skip*) ktap_test_skip "$name" ;;
	*)
		sed -e 's/^/# /' "$out"
		ktap_test_fail "$name"
		;;
	esac
done < <(sed -e 's/ *$//' "$out" | grep -E '^ *[0-9]+(\.[0-9]+)?: .* : (Ok|FAILED!|Skip.*)$')
[ "$seen" = "$cases" ] || echo "# $seen perf test cases ran, not $cases"
ktap_finished
