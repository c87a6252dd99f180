#!/usr/bin/env bash
# Source trees of the kernels.
#
#   tree.sh stock     extract the pristine source into build/src-stock
#   tree.sh pristine  make build/src-patched's commit "pristine" (only)
#   tree.sh patched   bring build/src-patched to pristine + the base's
#                     series, touching only the files whose content changes
#                     (so kbuild rebuilds only what changed)
#
# The patches are the only source of the files the series change or add:
# every target that builds or runs something first brings the tree to them.
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
	say "extracting $KSRC_PKG $ver into $dest"
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

# build_tree: print the tree object of pristine + the series, built in a
# scratch index.
build_tree() {
	local p idx how
	idx=$PATCHED/.git/index.scratch
	GIT_INDEX_FILE=$idx git_p read-tree pristine
	for p in $(series_patches); do
		[ -f "$PATCHES/$p" ] || die "$PATCHES_REL/series names $p, which is not there"
		if ! how=$(GIT_INDEX_FILE=$idx apply_patch "$PATCHED" "$PATCHES/$p" --cached); then
			echo "$how" | sed 's/^/    /' >&2
			die "patch $p does not apply to $KSRC_PKG $(ksrc_version)" \
				"(the hunk above; 'error: patch failed: FILE:LINE')"
		fi
		# On another base than the tested one a hunk's context may have
		# moved and the patch apply only with git's fuzz; on the tested
		# base every patch applies as it is (as git am applies it).
		case $how in
		*fuzz*)
			base_mismatch >/dev/null ||
				die "patch $p applies to the tested base $(ksrc_version) only with fuzz (-C1)"
			say "base: patch $p applies to $(ksrc_version) only with fuzz (-C1): run 'make rebase BASE=$BASE'"
			;;
		esac
	done
	GIT_INDEX_FILE=$idx git_p write-tree
}

# Targets that run at once (make check-debug and make abi-diff) share the
# source trees: one at a time brings them to the patches.
mkdir -p "$BUILD"
exec 9>"$BUILD/.tree.lock"
flock 9

case ${1:-} in
pristine)
	init_patched
	;;
stock)
	extract "$STOCK" || true
	;;
patched)
	init_patched
	say "applying the $(series_patches | wc -l) patches of $PATCHES_REL"
	tree=$(build_tree)
	if [ "$(git_p rev-parse 'HEAD^{tree}')" != "$tree" ]; then
		commit=$(git_p commit-tree "$tree" -p pristine -m "the series of $PATCHES_REL")
		git_p checkout -q -f --detach "$commit"
		git_p diff --stat pristine HEAD | tail -n 1 >&2
	fi
	;;
*)
	die "usage: $0 stock|pristine|patched"
	;;
esac
