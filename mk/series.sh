#!/usr/bin/env bash
# The series in patches/ is what gets mailed; build/dev is where it is edited.
# Debian's kernel source ignores every untracked top-level path in its
# .gitignore: add new files in build/dev with `git add -f`.
#
#   series.sh dev       check out patches/series as branch "dev" of the git
#                       worktree build/dev, one commit per patch
#   series.sh export    write the commits pristine..dev of build/dev back to
#                       patches/ (git format-patch, with the cover letter
#                       0000-cover-letter.patch, whose text is kept) and copy
#                       the files the series adds under the mirrored
#                       directories into the project
#   series.sh refresh   fold edits of mirrored files into the last patch that
#                       touches each file, then export
set -euo pipefail
. "$(dirname "$0")/common.sh"

DEV=$BUILD/dev
git_d() { git -C "$DEV" "$@"; }

dev() {
	"$ROOT/mk/tree.sh" patched >/dev/null
	worktree "$DEV"
	git_d checkout -q -f -B dev pristine
	for p in $(series_patches); do
		git_d am -q --keep-cr "$ROOT/patches/$p" || die "patch $p does not apply"
	done
	say "build/dev: branch dev has $(series_patches | wc -l) commits on pristine"
}

export_series() {
	local n added f cover old
	n=$(git_d rev-list --count pristine..dev)
	say "exporting $n commits of build/dev to patches/"
	cover=$ROOT/patches/0000-cover-letter.patch
	old=$BUILD/cover-letter.old
	rm -f "$old"
	[ ! -f "$cover" ] || mv "$cover" "$old"
	rm -f "$ROOT"/patches/*.patch
	git_d format-patch -q --no-signature --zero-commit --cover-letter --base=pristine \
		-o "$ROOT/patches" pristine..dev
	(cd "$ROOT/patches" && ls -1 ./*.patch | sed 's|^\./||' | grep -vxF "${cover##*/}") \
		>"$ROOT/patches/series"
	# The cover letter keeps its text; its To: and Cc: are whom
	# get_maintainer.pl names for the series (no git history: not the
	# authors of the commits Fixes: tags name).
	(cd "$DEV" && scripts/get_maintainer.pl --no-git --no-git-fallback --no-keywords --no-fixes \
		$(sed 's|^|'"$ROOT"'/patches/|' "$ROOT/patches/series")) >"$BUILD/maintainers"
	python3 "$ROOT/mk/cover.py" fill "$cover" "$old" "$BUILD/maintainers"
	added=$(git_d diff --name-only --diff-filter=A pristine dev -- $MIRROR_DIRS)
	mirror_files | (cd "$ROOT" && xargs -r rm -f)
	for f in $added; do
		mkdir -p "$ROOT/$(dirname "$f")"
		git_d show "dev:$f" >"$ROOT/$f"
		[ "$(git_d ls-tree dev -- "$f" | cut -c1-6)" = 100755 ] && chmod +x "$ROOT/$f"
	done
	(cd "$ROOT" && find $MIRROR_DIRS -type d -empty -delete 2>/dev/null || true)
	"$ROOT/mk/tree.sh" check
}

refresh() {
	local f c
	dev
	for f in $(mirror_files); do
		cmp -s "$ROOT/$f" "$DEV/$f" && continue
		c=$(git_d log -1 --format=%H pristine..dev -- "$f")
		[ -n "$c" ] || die "$f is in no patch: add it to one in build/dev, then run 'make export-patches'"
		say "folding $f into: $(git_d log -1 --format=%s "$c")"
		cp "$ROOT/$f" "$DEV/$f"
		git_d add -f "$f"
		git_d commit -q --fixup="$c"
	done
	GIT_SEQUENCE_EDITOR=true git_d rebase -q -i --autosquash pristine
	export_series
}

case ${1:-} in
dev) dev ;;
export) export_series ;;
refresh) refresh ;;
*) die "usage: $0 dev|export|refresh" ;;
esac
