#!/usr/bin/env bash
# make series-check: the series as maintainers and bisecting users see them.
#
# First each series of patches/series is applied alone with `git am` to the
# pristine source, after only the series it names as prerequisites.  Then,
# in the git worktree build/series-check (of build/src-patched), starting at
# the pristine source, every patch of every series in turn is applied with
# `git am`, checked with checkpatch.pl --strict, and the kernel (with
# qemu/base.config and qemu/patched.config, as far as the options exist yet)
# is built incrementally in build/series-check-out, with the selftests of
# the directories the patch touches and perf when it touches tools/perf,
# and what the maintainers' bots run is run on what the patch changes
# (W=1, sparse, kernel-doc, rustfmtcheck, rustdoc: see bots() below).
# Fails naming the first patch that does not apply, is not clean, does
# not build or has a finding of those on its lines.  Prints one line per
# patch with its time, then per series its patches, its churn (the lines
# its patches add that a later patch of it removes; mk/churn.py, at most
# 1 %) and its largest patch.
# SERIES_CHECK_FROM=N only applies the patches before N (checked by an
# earlier run) and checks from N on; SERIES_CHECK_BUILD=0 builds nothing.
set -euo pipefail
. "$(dirname "$0")/common.sh"

WT=$BUILD/series-check
OUT=$BUILD/series-check-out
log=$LOGS/series-check
MAX_CHURN=1
"$ROOT/mk/tree.sh" pristine
git_w() { git -C "$WT" "$@"; }
am() {
	git_w -c user.name=series-check -c user.email=series-check@localhost \
		am -q --keep-cr "$@" >"$log/am.log" 2>&1
}
reset() {
	git_w am --abort 2>/dev/null || true
	git_w checkout -q -f --detach pristine
	git_w clean -q -f -d
}
worktree "$WT"
mkdir -p "$OUT" "$log"

for name in $(series_names); do
	reset
	prereqs=$(series_prereqs "$name" | xargs)
	for p in $(prereq_patches "$name") $(series_patches "$name"); do
		am "$PATCHES/$p" || die "series $name${prereqs:+ on $prereqs}: $p does not apply" \
			"with git am to the pristine source (log: $log/am.log)"
	done
	say "series $name applies alone to the pristine source${prereqs:+, after $prereqs}"
done

reset
kmake() { make -C "$WT" O="$OUT" "${KMAKE_VARS[@]}" "$@"; }
configure() {
	configure_kernel "$WT" "$OUT" "$log/config.log" "$ROOT/qemu/base.config" \
		"$ROOT/qemu/patched.config"
}
# What the maintainers' bots run on a patch, on what it changes: W=1 and
# sparse (C=2) on the objects of its C files, kernel-doc on its C files and
# headers and, when it changes Rust, rustfmtcheck and rustdoc.  A finding
# on a line the patch adds fails it (mk/new_warnings.py): a patch answers
# for what it adds, not for what its files had.  Sets bots_run to what ran.
bots() {
	local i=$1 changed=$2 f objs=() docs=() logs=()
	bots_run="W=1, sparse, kernel-doc"
	# rust/helpers/ is left out: its helpers have no prototypes by design
	# (sparse's "not declared" on every one of upstream's, on 6.12).
	for f in $(grep -E '\.c$' <<<"$changed" | grep -v -E '^(tools|scripts|rust/helpers)/' || true); do
		[ ! -f "$OUT/${f%.c}.o" ] || objs+=("${f%.c}.o")
	done
	if ((${#objs[@]})); then
		kmake W=1 C=2 CHECK="$TOOLS/sparse/sparse" "${objs[@]}" >"$log/$i-w1-sparse.log" 2>&1 || true
		logs+=("$log/$i-w1-sparse.log")
	fi
	for f in $(grep -E '\.[ch]$' <<<"$changed" | grep -v -E '^(tools|scripts|samples)/' || true); do
		[ ! -f "$WT/$f" ] || docs+=("$f")
	done
	if ((${#docs[@]})); then
		(cd "$WT" && scripts/kernel-doc -none -Wall "${docs[@]}") >"$log/$i-kernel-doc.log" 2>&1 || true
		logs+=("$log/$i-kernel-doc.log")
		# The same files before the patch: their warnings are not its own.
		rm -rf "$log/parent" && mkdir -p "$log/parent"
		for f in "${docs[@]}"; do
			mkdir -p "$log/parent/$(dirname "$f")"
			git -C "$WT" show "HEAD~1:$f" >"$log/parent/$f" 2>/dev/null || rm -f "$log/parent/$f"
		done
		: >"$log/$i-kernel-doc-parent.log"
		[ -z "$(find "$log/parent" -type f)" ] ||
			(cd "$log/parent" && "$WT/scripts/kernel-doc" -none -Wall $(find . -type f -printf '%P\n')) \
				>"$log/$i-kernel-doc-parent.log" 2>&1 || true
		logs+=(--known "$log/$i-kernel-doc-parent.log")
	fi
	if grep -q '\.rs$' <<<"$changed"; then
		bots_run+=", rustfmt, rustdoc"
		kmake rustfmtcheck >"$log/$i-rustfmtcheck.log" 2>&1 || {
			cat "$log/$i-rustfmtcheck.log" >&2
			return 1
		}
		kmake -j"$JOBS" rustdoc >"$log/$i-rustdoc.log" 2>&1 || {
			tail -n 30 "$log/$i-rustdoc.log" >&2
			return 1
		}
		logs+=("$log/$i-rustdoc.log")
	fi
	((${#logs[@]} == 0)) || python3 "$ROOT/mk/new_warnings.py" "$WT" "${logs[@]}" >&2
}

build=${SERIES_CHECK_BUILD:-1}
[ "$build" = 0 ] || [ -x "$TOOLS/sparse/sparse" ] ||
	die "no sparse in $TOOLS/sparse: 'make deps' builds it (log: $LOGS/sparse.log)"
n=$(series_patches | wc -l)
i=0 total=$SECONDS
[ "$build" = 0 ] || configure || die "configuring the pristine tree failed: $log/config.log"
for p in $(series_patches); do
	i=$((i + 1))
	start=$SECONDS
	am "$PATCHES/$p" || die "$p does not apply with git am: $log/am.log"
	if [ "$i" -lt "${SERIES_CHECK_FROM:-1}" ]; then
		printf '%2d/%d %-64.64s applied\n' "$i" "$n" "$p"
		[ "$build" = 0 ] || [ "$((i + 1))" != "$SERIES_CHECK_FROM" ] || configure ||
			die "configuring after $p failed: $log/config.log"
		continue
	fi
	checkpatch "$WT" "$PATCHES/$p" >"$log/checkpatch.log" 2>&1 || {
		cat "$log/checkpatch.log" >&2
		die "$p is not checkpatch --strict clean"
	}
	what=clean
	if [ "$build" != 0 ]; then
		changed=$(git_w diff --name-only HEAD~1 HEAD)
		if grep -q 'Kconfig' <<<"$changed"; then
			configure || die "configuring after $p failed: $log/config.log"
		fi
		run_logged "$log/$i.log" kmake -j"$JOBS" bzImage modules ||
			die "the tree does not build after $p (log: $log/$i.log)"
		what="clean, builds: kernel"
		bots "$i" "$changed" ||
			die "$p: what the maintainers' bots run finds something on its lines (above; logs: $log/$i-*.log)"
		what+=" ($bots_run: nothing new)"
		targets=$(sed -n 's|^tools/testing/selftests/\([^/]*\)/.*|\1|p' <<<"$changed" | sort -u | xargs)
		if [ -n "$targets" ]; then
			run_logged "$log/$i-headers.log" kmake headers ||
				die "the uapi headers do not install after $p (log: $log/$i-headers.log)"
			run_logged "$log/$i-selftests.log" make -C "$WT/tools/testing/selftests" \
				O="$OUT/selftests" TARGETS="$targets" FORCE_TARGETS=1 \
				KHDR_INCLUDES="-isystem $OUT/usr/include" all ||
				die "the selftests do not build after $p (log: $log/$i-selftests.log)"
			what+=" + selftests ($targets)"
		fi
		if grep -q '^tools/perf/' <<<"$changed"; then
			mkdir -p "$OUT/perf"
			run_logged "$log/$i-perf.log" make -C "$WT/tools/perf" O="$OUT/perf" \
				-j"$JOBS" "${PERF_VARS[@]}" perf ||
				die "perf does not build after $p (log: $log/$i-perf.log)"
			what+=" + perf"
		fi
	fi
	printf '%2d/%d %-64.64s %s in %4d s\n' "$i" "$n" "$p" "$what" $((SECONDS - start))
done
if [ "$build" = 0 ]; then
	say "series-check: every one of the $n patches applies and is checkpatch-clean (not built)"
else
	say "series-check: every one of the $n patches applies, is checkpatch-clean and builds" \
		"($((SECONDS - total)) s)"
fi

# How much of what each series adds a later patch of it removes again.
fail=0
for name in $(series_names); do
	printf '%-16s %2d patches; ' "$name" "$(series_patches "$name" | wc -l)"
	"$ROOT/mk/churn.py" --max-percent "$MAX_CHURN" \
		$(series_patches "$name" | sed "s|^|$PATCHES/|") | tail -n 1 | sed "s|$PATCHES/||" ||
		fail=1
done
[ "$fail" = 0 ] || die "a series rewrites more than $MAX_CHURN % of what it adds (above)"
