#!/usr/bin/env bash
# make perf: build tools/perf of the patched tree (the series' perf patches
# included) into build/perf, with the features of PERF_VARS (common.sh), and
# print the binary's path.  perf's own make rebuilds what changed since the
# last build, and mk/tree.sh rewrites only the files whose content changed.
set -euo pipefail
. "$(dirname "$0")/common.sh"

out=$BUILD/perf
"$ROOT/mk/tree.sh" patched >/dev/null
mkdir -p "$out"
say "building perf of the patched tree; log: $LOGS/perf.log"
start=$SECONDS
run_logged "$LOGS/perf.log" make -C "$BUILD/src-patched/tools/perf" O="$out" -j"$JOBS" \
	"${PERF_VARS[@]}" perf || die "perf did not build"
say "perf built or up to date in $((SECONDS - start)) s"
"$out/perf" version
echo "perf: $out/perf"
