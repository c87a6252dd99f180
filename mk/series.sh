#!/usr/bin/env bash
# The patch files are the source of the series; build/BASE/dev is where
# they are edited (BASE=7.3: patches/, BASE=6.12: backports/6.12/).
# Debian's kernel source ignores every untracked top-level path in its
# .gitignore: add new files in build/BASE/dev with `git add -f`.
#
#   series.sh dev       check out the base's series as branch "dev" of the
#                       git worktree build/BASE/dev, one commit per patch,
#                       with a branch series/NAME at the last commit of each
#                       series (git rebase -i moves them with dev)
#   series.sh export    write each series NAME, the commits
#                       series/PREVIOUS..series/NAME of build/BASE/dev, back
#                       to its folder (git format-patch, with the cover
#                       letter 0000-cover-letter.patch, whose text is kept;
#                       its To: and Cc: from get_maintainer.pl on that series
#                       alone, its prerequisite-patch-id lines those of the
#                       series it needs), signed as whoever runs it: git's
#                       user.name and user.email in this checkout make the
#                       From: and the author's Signed-off-by: of every patch
#                       (mk/ident.py)
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
			git_d am -q --keep-cr "$PATCHES/$p" || die "patch $p does not apply"
		done
		git_d branch -f "series/$name" HEAD
	done
	say "$DEV: branch dev has $(series_patches | wc -l) commits on pristine," \
		"series/NAME the last of each series ($(series_names | xargs))"
}

export_series() {
	local name prev=pristine dir old p who
	# Whoever exports the series sends them: the patches carry their name.
	who="$(git -C "$ROOT" config user.name || true) <$(git -C "$ROOT" config user.email || true)>"
	case $who in
	" <"* | *"<>" | "linux-build <"*)
		die "export-patches signs the patches as you: set git config user.name and user.email" ;;
	esac
	for name in $(series_names); do
		git_d merge-base --is-ancestor "series/$name" dev ||
			die "$DEV: series/$name is not on dev (run 'make dev-tree BASE=$BASE')"
	done
	# The length of the abbreviated blob ids on the patches' index lines,
	# kept as the exported patches have it (git's own choice depends on
	# the number of objects in the tree), so that an export changes no
	# line it need not.
	abbrev=$(sed -n 's/^index \([0-9a-f]*\)\.\..*/\1/p' "$PATCHES"/*/0001-*.patch 2>/dev/null |
		awk 'NR == 1 { print length }')
	for name in $(series_names); do
		dir=$PATCHES/$name
		old=$BUILD/cover-letter.$name.old
		say "exporting $(git_d rev-list --count "$prev..series/$name") commits of series/$name to $PATCHES_REL/$name/"
		mkdir -p "$dir"
		rm -f "$old"
		[ ! -f "$dir/0000-cover-letter.patch" ] || mv "$dir/0000-cover-letter.patch" "$old"
		rm -f "$dir"/*.patch
		git_d format-patch -q --no-signature --zero-commit --abbrev="${abbrev:-9}" --cover-letter --base=pristine \
			-o "$dir" "$prev..series/$name"
		(cd "$dir" && ls -1 ./*.patch | sed 's|^\./||' | grep -vxF 0000-cover-letter.patch) \
			>"$dir/series"
		python3 "$ROOT/mk/ident.py" sign "$who" "$dir"/*.patch
		# The cover letter keeps its text; its To: and Cc: are whom
		# get_maintainer.pl names for this series (no git history: not the
		# authors of the commits Fixes: tags name).
		(cd "$DEV" && scripts/get_maintainer.pl --no-git --no-git-fallback --no-keywords --no-fixes \
			$(series_patches "$name" | sed "s|^|$PATCHES/|")) >"$BUILD/maintainers.$name"
		for p in $(prereq_patches "$name"); do
			echo "prerequisite-patch-id: $(git patch-id --stable <"$PATCHES/$p" | cut -d' ' -f1)"
		done >"$BUILD/prerequisites.$name"
		python3 "$ROOT/mk/cover.py" fill "$dir/0000-cover-letter.patch" "$old" \
			"$BUILD/maintainers.$name" "$BUILD/prerequisites.$name"
		prev=series/$name
	done
	[ "$(git_d rev-parse "$prev")" = "$(git_d rev-parse dev)" ] ||
		die "$DEV: dev has commits after series/${prev#series/}, in no series"
}

case ${1:-} in
dev) dev ;;
export) export_series ;;
*) die "usage: $0 dev|export" ;;
esac
