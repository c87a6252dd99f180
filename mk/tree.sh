#!/usr/bin/env bash
# Source trees of the kernels.
#
#   tree.sh stock     extract the pristine source into build/src-stock
#   tree.sh pristine  make build/src-patched's commit "pristine" (only)
#   tree.sh patched   bring build/src-patched to pristine + patches/series +
#                     mirrored files, touching only the files whose content
#                     changes (so kbuild rebuilds only what changed)
#   tree.sh check     fail unless every file the series adds under a mirrored
#                     directory is in the project with the same content, and
#                     the other way round
#
# build/src-patched is a git repository whose commit "pristine" is the
# extracted source.  The wanted tree is assembled in a scratch index with
# `git apply --cached`, then checked out over the previous one: git rewrites
# only the paths that differ.
set -euo pipefail
. "$(dirname "$0")/common.sh"

STOCK=$BUILD/src-stock
PATCHED=$BUILD/src-patched

extract() {
	local dest=$1 ver
	ver=$(ksrc_version)
	if [ "$(cat "$dest/.ksrc-version" 2>/dev/null)" = "$ver" ]; then
		return 1
	fi
	say "extracting linux-source-6.12 $ver into $dest"
	rm -rf "$dest" "$dest.tmp"
	mkdir -p "$dest.tmp"
	tar -xf "$KSRC_TARBALL" -C "$dest.tmp" --strip-components=1
	mv "$dest.tmp" "$dest"
	echo "$ver" >"$dest/.ksrc-version"
}

git_p() { git -C "$PATCHED" "$@"; }

init_patched() {
	local commit
	if extract "$PATCHED"; then
		say "recording the pristine tree in git (once per source version)"
		echo .ksrc-version >"$PATCHED/.git-info-exclude.tmp"
		git_p init -q
		mv "$PATCHED/.git-info-exclude.tmp" "$PATCHED/.git/info/exclude"
		git_p config user.name "linux-build"
		git_p config user.email "build@localhost"
		git_p config gc.auto 0
		commit=$(commit_pristine "$PATCHED")
		git_p tag -f pristine "$commit" >/dev/null
		git_p checkout -q -f --detach pristine
		return 0
	fi
	# A tree recorded before the pristine commit was reproducible: the
	# same tree, committed again.
	commit=$(pristine_commit "$PATCHED" 'pristine^{tree}')
	[ "$(git_p rev-parse pristine)" = "$commit" ] || git_p tag -f pristine "$commit" >/dev/null
}

# build_tree WITH_MIRROR: print the tree object of pristine + series
# (+ mirrored files when WITH_MIRROR=1), built in a scratch index.
build_tree() {
	local with_mirror=$1 p f mode idx
	idx=$PATCHED/.git/index.scratch
	GIT_INDEX_FILE=$idx git_p read-tree pristine
	for p in $(series_patches); do
		[ -f "$ROOT/patches/$p" ] || die "patches/series names $p, which is not in patches/"
		if ! how=$(GIT_INDEX_FILE=$idx apply_patch "$PATCHED" "$ROOT/patches/$p" --cached); then
			echo "$how" | sed 's/^/    /' >&2
			die "patch $p does not apply to linux-source-6.12 $(ksrc_version)" \
				"(the hunk above; 'error: patch failed: FILE:LINE')"
		fi
		# On another base than the tested one a hunk's context may have
		# moved and the patch apply only with git's fuzz; on the tested
		# base every patch applies as it is (as git am applies it).
		case $how in
		*fuzz*)
			base_mismatch >/dev/null ||
				die "patch $p applies to the tested base $(ksrc_version) only with fuzz (-C1)"
			say "base: patch $p applies to $(ksrc_version) only with fuzz (-C1): run 'make rebase'"
			;;
		esac
	done
	if [ "$with_mirror" = 1 ]; then
		for f in $(mirror_files); do
			mode=100644
			[ -x "$ROOT/$f" ] && mode=100755
			GIT_INDEX_FILE=$idx git_p update-index --add --cacheinfo \
				"$mode,$(git_p hash-object -w "$ROOT/$f"),$f"
		done
	fi
	GIT_INDEX_FILE=$idx git_p write-tree
}

case ${1:-} in
pristine)
	init_patched
	;;
stock)
	extract "$STOCK" || true
	;;
patched)
	init_patched
	n=$(series_patches | wc -l)
	say "applying $n patches and $(mirror_files | wc -l) mirrored files"
	tree=$(build_tree 1)
	if [ "$(git_p rev-parse 'HEAD^{tree}')" != "$tree" ]; then
		commit=$(git_p commit-tree "$tree" -p pristine -m "series + mirrored files")
		git_p checkout -q -f --detach "$commit"
		git_p diff --stat pristine HEAD | tail -n 1 >&2
	fi
	;;
check)
	init_patched
	series_tree=$(build_tree 0)
	full_tree=$(build_tree 1)
	bad=$(git_p diff --name-status "$series_tree" "$full_tree")
	added=$(git_p diff --name-only --diff-filter=A pristine "$series_tree" -- $MIRROR_DIRS)
	extra=$(comm -13 <(echo "$added" | LC_ALL=C sort) <(mirror_files))
	missing=$(comm -23 <(echo "$added" | LC_ALL=C sort) <(mirror_files))
	if [ -n "$bad$extra$missing" ]; then
		echo "mirrored files and patches/ disagree (M: content differs," \
			"A: in no patch, D: added by a patch but not mirrored):" >&2
		echo "$bad" | sed '/^$/d; /^D/d; s/^/    /' >&2
		echo "$extra" | sed '/^$/d; s/^/    A\t/' >&2
		echo "$missing" | sed '/^$/d; s/^/    D\t/' >&2
		die "run 'make refresh-patches' to fold mirror edits into the series"
	fi
	say "mirrored files match the series"
	;;
*)
	die "usage: $0 stock|pristine|patched|check"
	;;
esac
