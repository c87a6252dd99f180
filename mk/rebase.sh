#!/usr/bin/env bash
# make rebase [BASE=7.3|6.12] [KSRC_VERSION=V]: move the series of the base
# to the newest version of its source package in the archive (or to V).
# Fetches that source (mk/common.sh fetch_source), applies the series to
# it in build/dev (each patch as it is, else with git's fuzz, -C1), exports
# the series again (patches and the cover letter with the new base-commit
# and version), rewrites the BASE file and the README's "tested on" line, and
# builds the patched kernel.  Prints how each patch applied and which patch
# files changed.  A patch that does not apply stops it with the patch's name
# and git's error, which names the hunk.
set -euo pipefail
. "$(dirname "$0")/common.sh"

DEV=$BUILD/dev
git_d() { git -C "$DEV" "$@"; }

run_logged "$LOGS/apt-private-update.log" apt_private update -q || die "apt-get update of build/debian's lists failed"
old=$(base_field version)
new=${KSRC_VERSION:-$(archive_versions | sed -n 1p)}
archive_offers "$new" || die "the archive does not offer $KSRC_PKG $new"
if [ "$new" = "$old" ] && ! base_mismatch >/dev/null; then
	say "the series is on $KSRC_PKG $new already ($PATCHES_REL/BASE)"
	exit 0
fi
say "moving the series from $KSRC_PKG $old to $new"
if [ "$(ksrc_version 2>/dev/null || true)" != "$new" ]; then
	fetch_source "$new" "$KSRC_DIR" || die "cannot fetch $KSRC_PKG $new"
fi

# build/src-patched is extracted again for the new version, with a new
# repository; build/dev becomes a worktree of it.
"$ROOT/mk/tree.sh" pristine
worktree "$DEV"
git_d checkout -q -f -B dev pristine
git_d config rebase.updateRefs true

say "applying the series to $new"
for p in $(series_patches); do
	how=$(apply_patch "$DEV" "$PATCHES/$p" --check) || {
		echo "$how" | sed 's/^/    /' >&2
		die "patch $p does not apply to $new (the hunk above).  build/dev has" \
			"the patches before it as commits on $new: apply it there by hand" \
			"(git am, fix, git am --continue) and the rest with git am, then" \
			"'make export-patches' and set $PATCHES_REL/BASE to $new and the" \
			"base-commit of build/dev's pristine"
	}
	fuzz=
	[[ $how != *fuzz* ]] || fuzz=-C1
	git_d am -q --keep-cr $fuzz "$PATCHES/$p" || die "git am $p failed in $DEV"
	printf '    %-70s %s\n' "$p" "$how" >&2
	# The last patch of series NAME: branch series/NAME, as make dev-tree.
	[ "$p" != "$(series_patches "${p%%/*}" | tail -n 1)" ] || git_d branch -f "series/${p%%/*}" HEAD
done

# The cover letter's text and the README name the base: Debian's version
# and the upstream version it packages.
esc() { printf '%s' "$1" | sed 's/[.[\*^$/]/\\&/g'; }
sed -i -e "s/$(esc "$old")/$new/g" -e "s/\\b$(esc "${old%%-*}")\\b/${new%%-*}/g" \
	"$PATCHES"/*/0000-cover-letter.patch
sed -i "s/tested on \*\*$(esc "$old")\*\*/tested on **$new**/" "$ROOT/README.md"
grep -q "tested on \*\*$(esc "$new")\*\*" "$ROOT/README.md" ||
	say "README.md has no 'tested on **$new**': update it by hand"
"$ROOT/mk/series.sh" export
commit=$(git_d rev-parse pristine)
sed -i -e "s/^version: .*/version: $new/" -e "s/^base-commit: .*/base-commit: $commit/" \
	"$BASE_FILE"

say "$PATCHES_REL/BASE: $new, base-commit $commit"
changed=$(git -C "$ROOT" status --porcelain -- "$PATCHES" | grep -c '\.patch$' || true)
say "$changed patch files changed (git diff --stat $PATCHES_REL README.md):"
git -C "$ROOT" diff --stat -- "$PATCHES" README.md | sed 's/^/    /' >&2
"$ROOT/mk/kernel.sh" patched
say "the series is on $new: run 'make check' (and check-debug, abi-diff," \
	"kselftest-stock) before committing"
