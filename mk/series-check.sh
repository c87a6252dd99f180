#!/usr/bin/env bash
# make series-check: the series as a bisecting maintainer sees it.  In the git
# worktree build/series-check (of build/src-patched), starting at the pristine
# source, each patch of patches/series in turn is applied with `git am`,
# checked with checkpatch.pl --strict, and the kernel (with qemu/base.config
# and qemu/patched.config, as far as the options exist yet) and, when the
# patch touches them, the selftests are built, incrementally, in
# build/series-check-out, and perf when the patch touches tools/perf.  Fails
# naming the first patch that does not apply, is not clean or does not build.
# Prints one line per patch with its time, then the series' churn and its
# largest patch (mk/churn.py).  SERIES_CHECK_FROM=N only applies
# the patches before N (checked by an earlier run) and checks from N on.
set -euo pipefail
. "$(dirname "$0")/common.sh"

WT=$BUILD/series-check
OUT=$BUILD/series-check-out
log=$LOGS/series-check
"$ROOT/mk/tree.sh" pristine
git_w() { git -C "$WT" "$@"; }
worktree "$WT"
git_w am --abort 2>/dev/null || true
git_w checkout -q -f --detach pristine
git_w clean -q -f -d
mkdir -p "$OUT" "$log"
kmake() { make -C "$WT" O="$OUT" "${KMAKE_VARS[@]}" "$@"; }
configure() {
	configure_kernel "$WT" "$OUT" "$log/config.log" "$ROOT/qemu/base.config" \
		"$ROOT/qemu/patched.config"
}

n=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/patches/series" | wc -l)
i=0 total=$SECONDS
configure || die "configuring the pristine tree failed: $log/config.log"
for p in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/patches/series"); do
	i=$((i + 1))
	start=$SECONDS
	if [ "$i" -lt "${SERIES_CHECK_FROM:-1}" ]; then
		git_w -c user.name=series-check -c user.email=series-check@localhost \
			am -q --keep-cr "$ROOT/patches/$p" >"$log/am.log" 2>&1 ||
			die "$p does not apply with git am: $log/am.log"
		printf '%2d/%d %-64.64s applied\n' "$i" "$n" "$p"
		[ "$((i + 1))" != "$SERIES_CHECK_FROM" ] || configure ||
			die "configuring after $p failed: $log/config.log"
		continue
	fi
	git_w -c user.name=series-check -c user.email=series-check@localhost \
		am -q --keep-cr "$ROOT/patches/$p" >"$log/am.log" 2>&1 ||
		die "$p does not apply with git am: $log/am.log"
	(cd "$WT" && scripts/checkpatch.pl --strict --no-tree --terse \
		--ignore FILE_PATH_CHANGES "$ROOT/patches/$p") >"$log/checkpatch.log" 2>&1 || {
		cat "$log/checkpatch.log" >&2
		die "$p is not checkpatch --strict clean"
	}
	changed=$(git_w diff --name-only HEAD~1 HEAD)
	if grep -q 'Kconfig' <<<"$changed"; then
		configure || die "configuring after $p failed: $log/config.log"
	fi
	run_logged "$log/$i.log" kmake -j"$JOBS" bzImage modules ||
		die "the tree does not build after $p (log: $log/$i.log)"
	what=kernel
	if grep -q '^tools/testing/selftests/perf_bpf_probe/' <<<"$changed"; then
		run_logged "$log/$i-headers.log" kmake headers ||
			die "the uapi headers do not install after $p (log: $log/$i-headers.log)"
		run_logged "$log/$i-selftests.log" make -C "$WT/tools/testing/selftests" \
			O="$OUT/selftests" TARGETS=perf_bpf_probe FORCE_TARGETS=1 \
			KHDR_INCLUDES="-isystem $OUT/usr/include" all ||
			die "the selftests do not build after $p (log: $log/$i-selftests.log)"
		what+=" + selftests"
	fi
	if grep -q '^tools/perf/' <<<"$changed"; then
		mkdir -p "$OUT/perf"
		run_logged "$log/$i-perf.log" make -C "$WT/tools/perf" O="$OUT/perf" \
			-j"$JOBS" "${PERF_VARS[@]}" perf ||
			die "perf does not build after $p (log: $log/$i-perf.log)"
		what+=" + perf"
	fi
	printf '%2d/%d %-64.64s %s in %4d s\n' "$i" "$n" "$p" "$what" $((SECONDS - start))
done
say "series-check: every one of the $n patches applies, is checkpatch-clean and builds" \
	"($((SECONDS - total)) s)"
# How much of what the series adds a later patch of it removes again
# (mk/churn.py; a report, for now: it fails nothing).
"$ROOT/mk/churn.py" $(series_patches | sed "s|^|$ROOT/patches/|") | tail -n 1
