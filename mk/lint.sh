#!/usr/bin/env bash
# make lint: the series as a maintainer would check it.
#  - the mirrored files are the ones the series adds (mk/tree.sh check);
#  - scripts/checkpatch.pl --strict is clean on every patch;
#  - the cover letter's subject, per-patch summary, shortlog and base-commit
#    are those of the series and of patches/BASE (mk/cover.py), and the
#    installed source, when it is that base, gives that base-commit;
#  - the Rust files the series adds or changes are rustfmt-clean;
#  - the test verdict fails the runs it must (qemu/test_verdict.py).
# Clippy runs in every kernel build (CLIPPY=1 KRUSTFLAGS=-Dwarnings in
# mk/common.sh), so a clippy finding or a rustc warning fails `make kernel`.
set -euo pipefail
. "$(dirname "$0")/common.sh"

src=$BUILD/src-patched
"$ROOT/mk/tree.sh" check
"$ROOT/mk/tree.sh" patched

fail=0
say "checkpatch.pl --strict on $(grep -vc '^#' "$ROOT/patches/series") patches"
for p in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/patches/series"); do
	# FILE_PATH_CHANGES asks whether MAINTAINERS needs an update for new
	# files; the series' new files are covered by the entries it touches.
	# UNKNOWN_COMMIT_ID: the Debian source has no git history to look the
	# hashes of Fixes: tags up in (two public sources agree on each).
	# perf's shell tests describe themselves on line 2, where perf test
	# reads it, and have their SPDX tag on line 3, as perf's others.
	ignore=FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID
	grep -q '^+++ b/tools/perf/tests/shell/' "$ROOT/patches/$p" && ignore+=,SPDX_LICENSE_TAG
	# perf's workloads end on a signal handler's volatile sig_atomic_t flag,
	# as C requires of them.
	grep -q '^+++ b/tools/perf/tests/workloads/' "$ROOT/patches/$p" && ignore+=,VOLATILE
	if ! out=$(cd "$src" && scripts/checkpatch.pl --strict --no-tree --terse \
		--ignore "$ignore" "$ROOT/patches/$p" 2>&1); then
		echo "$out" >&2
		fail=1
	fi
done

# The cover letter's base-commit is the tested base's (patches/BASE).  On
# another source version the pristine commit differs: a finding of the run
# (make check reports it with the verdict), not a reason to test nothing.
base=$(base_field base-commit)
pristine=$(git -C "$src" rev-parse pristine)
if mismatch=$(base_mismatch); then
	echo "$mismatch" >&2
elif [ "$pristine" != "$base" ]; then
	echo "patches/BASE: linux-source-6.12 $(ksrc_version) is committed as $pristine," \
		"not as its base-commit $base" >&2
	fail=1
fi

say "the cover letter lists the series"
python3 "$ROOT/mk/cover.py" check "$ROOT/patches/0000-cover-letter.patch" "$base" \
	$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e "s|^|$ROOT/patches/|" "$ROOT/patches/series") || fail=1

rs=$(git -C "$src" diff --name-only --diff-filter=AM pristine HEAD -- '*.rs')
if [ -n "$rs" ]; then
	say "rustfmt --check on $(echo "$rs" | wc -w) Rust files of the series"
	(cd "$src" && /usr/bin/rustfmt --check --edition 2021 --config-path .rustfmt.toml $rs) || fail=1
fi
say "the verdict's own tests"
mkdir -p "$LOGS"
python3 "$ROOT/qemu/test_verdict.py" >"$LOGS/test_verdict.log" 2>&1 || {
	cat "$LOGS/test_verdict.log" >&2
	fail=1
}
[ "$fail" = 0 ] || die "lint found problems (above)"
say "lint is clean"
