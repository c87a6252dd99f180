#!/usr/bin/env bash
# The series in patches/ is what gets mailed; build/dev is where it is edited.
# Debian's kernel source ignores every untracked top-level path in its
# .gitignore: add new files in build/dev with `git add -f`.
#
#   series.sh dev       check out the series of patches/series as branch
#                       "dev" of the git worktree build/dev, one commit per
#                       patch, with a branch series/NAME at the last commit of
#                       each series (git rebase -i moves them with dev)
#   series.sh export    write each series NAME, the commits
#                       series/PREVIOUS..series/NAME of build/dev, back to
#                       patches/NAME/ (git format-patch, with the cover letter
#                       0000-cover-letter.patch, whose text is kept; its To:
#                       and Cc: from get_maintainer.pl on that series alone,
#                       its prerequisite-patch-id lines those of the series
#                       it needs) and copy the files the series add under the
#                       mirrored directories into the project
#   series.sh refresh   fold edits of mirrored files into the last patch that
#                       touches each file, then export
set -euo pipefail
. "$(dirname "$0")/common.sh"

DEV=$BUILD/dev
git_d() { git -C "$DEV" "$@"; }

dev() {
	local name p
	"$ROOT/mk/tree.sh" patched >/dev/null
	worktree "$DEV"
	git_d checkout -q -f -B dev pristine
	git_d config rebase.updateRefs true
	for name in $(series_names); do
		for p in $(series_patches "$name"); do
			git_d am -q --keep-cr "$ROOT/patches/$p" || die "patch $p does not apply"
		done
		git_d branch -f "series/$name" HEAD
	done
	say "build/dev: branch dev has $(series_patches | wc -l) commits on pristine," \
		"series/NAME the last of each series ($(series_names | xargs))"
}

export_series() {
	local name prev=pristine dir old added f p
	for name in $(series_names); do
		git_d merge-base --is-ancestor "series/$name" dev ||
			die "build/dev: series/$name is not on dev (run 'make dev-tree')"
	done
	for name in $(series_names); do
		dir=$ROOT/patches/$name
		old=$BUILD/cover-letter.$name.old
		say "exporting $(git_d rev-list --count "$prev..series/$name") commits of series/$name to patches/$name/"
		mkdir -p "$dir"
		rm -f "$old"
		[ ! -f "$dir/0000-cover-letter.patch" ] || mv "$dir/0000-cover-letter.patch" "$old"
		rm -f "$dir"/*.patch
		git_d format-patch -q --no-signature --zero-commit --cover-letter --base=pristine \
			-o "$dir" "$prev..series/$name"
		(cd "$dir" && ls -1 ./*.patch | sed 's|^\./||' | grep -vxF 0000-cover-letter.patch) \
			>"$dir/series"
		# The cover letter keeps its text; its To: and Cc: are whom
		# get_maintainer.pl names for this series (no git history: not the
		# authors of the commits Fixes: tags name).
		(cd "$DEV" && scripts/get_maintainer.pl --no-git --no-git-fallback --no-keywords --no-fixes \
			$(series_patches "$name" | sed "s|^|$ROOT/patches/|")) >"$BUILD/maintainers.$name"
		for p in $(prereq_patches "$name"); do
			echo "prerequisite-patch-id: $(git patch-id --stable <"$ROOT/patches/$p" | cut -d' ' -f1)"
		done >"$BUILD/prerequisites.$name"
		python3 "$ROOT/mk/cover.py" fill "$dir/0000-cover-letter.patch" "$old" \
			"$BUILD/maintainers.$name" "$BUILD/prerequisites.$name"
		prev=series/$name
	done
	[ "$(git_d rev-parse "$prev")" = "$(git_d rev-parse dev)" ] ||
		die "build/dev: dev has commits after series/${prev#series/}, in no series"
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
	GIT_SEQUENCE_EDITOR=true git_d rebase -q -i --autosquash --update-refs pristine
	export_series
}

case ${1:-} in
dev) dev ;;
export) export_series ;;
refresh) refresh ;;
*) die "usage: $0 dev|export|refresh" ;;
esac
