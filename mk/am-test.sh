#!/usr/bin/env bash
# make am-test: the series as a maintainer takes it.  Makes a git repository
# of the pristine source in build/BASE/am-test (extracted from the Debian tarball
# and committed as mk/tree.sh commits it), checks that its commit is the
# cover letters' base-commit, runs `git am` of NAME/*.patch for each
# series NAME of the base's series file (patches/ or backports/6.12/) in order (the cover letters, which have no
# diff, are dropped), checks that the result is the
# series' tree, and builds it (base.config + patched.config) in
# build/BASE/am-test-out.  AM_TEST_BUILD=0 stops before the build (the tree is
# then the one `make kernel` builds, checked by its git tree hash).
set -euo pipefail
. "$(dirname "$0")/common.sh"

dir=$BUILD/am-test
out=$BUILD/am-test-out
cover=$PATCHES/$(series_names | head -n 1)/0000-cover-letter.patch
start=$SECONDS

say "extracting $KSRC_PKG $(ksrc_version) into $dir"
rm -rf "$dir"
mkdir -p "$dir"
tar -xf "$KSRC_TARBALL" -C "$dir" --strip-components=1
echo "$(ksrc_version)" >"$dir/.ksrc-version" # as mk/tree.sh writes it
git -C "$dir" init -q
git -C "$dir" config gc.auto 0
commit=$(commit_pristine "$dir")
git -C "$dir" checkout -q -f --detach "$commit"
base=$(sed -n 's/^base-commit: //p' "$cover")
if base_mismatch >&2; then
	say "the pristine commit is $commit, not the cover letter's base-commit $base"
else
	[ "$commit" = "$base" ] ||
		die "the pristine commit is $commit, the cover letter's base-commit $base"
	say "base-commit $base: the pristine source"
fi

for name in $(series_names); do
	git -C "$dir" -c user.name=am-test -c user.email=am-test@localhost \
		am -q --keep-cr --empty=drop "$PATCHES/$name"/*.patch ||
		die "git am of $PATCHES_REL/$name/*.patch failed in $dir"
done
n=$(git -C "$dir" rev-list --count "$commit..HEAD")
want=$(series_patches | wc -l)
[ "$n" = "$want" ] || die "git am made $n commits, the series have $want patches"
"$ROOT/mk/tree.sh" patched >/dev/null
[ "$(git -C "$dir" rev-parse 'HEAD^{tree}')" = "$(git -C "$BUILD/src-patched" rev-parse 'HEAD^{tree}')" ] ||
	die "the tree git am made differs from $BUILD/src-patched"
say "git am: $n commits, the series' tree"

if [ "${AM_TEST_BUILD:-1}" = 0 ]; then
	say "am-test: git am of the series on the pristine source applies ($((SECONDS - start)) s; not built)"
	exit 0
fi
mkdir -p "$out"
configure_kernel "$dir" "$out" "$LOGS/am-test-config.log" "$ROOT/qemu/base.config" \
	"$ROOT/qemu/patched.config" || die "configuring the git am tree failed"
"$ROOT/mk/config-check.sh" "$out/.config" "$ROOT/qemu/base.config" "$ROOT/qemu/patched.config"
say "building the git am tree (-j$JOBS); log: $LOGS/am-test.log"
run_logged "$LOGS/am-test.log" make -C "$dir" O="$out" "${KMAKE_VARS[@]}" -j"$JOBS" bzImage modules ||
	die "the git am tree does not build"
say "am-test: git am of the series on the pristine source applies and builds ($((SECONDS - start)) s)"
