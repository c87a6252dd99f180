#!/usr/bin/env bash
# make base-check [--brief]: does the archive offer a newer version of the
# base's source package (BASE=7.3: linux-source-7.3 in trixie-backports;
# BASE=6.12: linux-source-6.12) than the tested base (its BASE file), and do
# the series apply to it?  The newer package is downloaded with
# build/debian's own apt lists (not installed) into build/BASE/base-check,
# its source extracted and the series applied with git apply (no build).
# Prints what it found, ending with one line "base-check: ..." (--brief
# prints only that line).  Exits 0 when the base is the newest or the series
# apply to the newer one, 1 when they do not apply, 2 when the archive could
# not be read.
set -euo pipefail
. "$(dirname "$0")/common.sh"

brief=0
[ "${1:-}" != --brief ] || brief=1
dir=$BUILD/base-check
log=$LOGS/base-check.log
mkdir -p "$LOGS"
: >"$log"
note() { [ "$brief" = 1 ] && echo "$*" >>"$log" || echo "$*"; }
verdict() {
	echo "base-check: $1"
	exit "$2"
}

want=$(base_field version)
stale=
if ! apt_private update -q >>"$log" 2>&1; then
	stale=" (apt-get update failed: the lists may be old, $log)"
	note "apt-get update failed: using the package lists as they are"
fi
newest=$(archive_versions | sed -n 1p)
[ -n "$newest" ] || verdict "the package lists offer no $KSRC_PKG; tested base $want$stale" 2
if dpkg --compare-versions "$newest" le "$want"; then
	archive_offers "$want" ||
		verdict "the archive no longer offers the tested base $want; its newest is $newest$stale" 0
	verdict "the tested base $KSRC_PKG $want is the newest in the archive$stale" 0
fi

note "the archive offers $KSRC_PKG $newest, newer than the tested base $want"
src=$dir/$newest
if [ ! -f "$src/.ready" ]; then
	rm -rf "$dir"
	mkdir -p "$src"
	fetch_source "$newest" "$dir" >>"$log" 2>&1 ||
		verdict "$newest is newer than the tested base $want, but cannot be downloaded ($log)" 2
	tar -xJf "$dir/$KSRC_PKG.tar.xz" -C "$src" --strip-components=1 ||
		verdict "$newest is newer than the tested base $want, but its source cannot be extracted" 2
	rm -f "$dir/$KSRC_PKG.tar.xz"
	touch "$src/.ready"
fi
# The series is applied to a copy of the files it touches.
work=$dir/apply
rm -rf "$work"
mkdir -p "$work"
git -C "$work" init -q # git apply works on this tree, not on the project's
series=$(series_patches)
for f in $(cd "$PATCHES" && sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' $series | sort -u); do
	[ ! -f "$src/$f" ] || install -D -m "$(stat -c %a "$src/$f")" "$src/$f" "$work/$f"
done

exact=0 moved=0 fuzzed=0
for p in $series; do
	if ! how=$(apply_patch "$work" "$PATCHES/$p"); then
		note "$(echo "$how" | sed 's/^/    /')"
		hunk=$(echo "$how" | grep -m1 '^error: patch failed' || echo "$how" | grep -m1 '^error' || echo "${how%%$'\n'*}")
		verdict "$newest is newer than the tested base $want, and patch $p does not apply to it ($hunk)" 1
	fi
	note "    $p: $how"
	case $how in
	exact) exact=$((exact + 1)) ;;
	*fuzz*) fuzzed=$((fuzzed + 1)) ;;
	*) moved=$((moved + 1)) ;;
	esac
done
verdict "$newest is newer than the tested base $want; the series applies to it ($exact patches exact, $moved at an offset, $fuzzed with fuzz): run 'make rebase BASE=$BASE'" 0
