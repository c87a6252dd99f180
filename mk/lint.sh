#!/usr/bin/env bash
# make lint: the series as a maintainer would check it.
#  - scripts/checkpatch.pl --strict is clean on every patch;
#  - each series' cover letter's subject, per-patch summary, shortlog,
#    base-commit and prerequisite-patch-ids are those of the series, of
#    patches/BASE and of the series it needs (mk/cover.py), and the
#    installed source, when it is that base, gives that base-commit;
#  - the Rust files the series adds or changes are rustfmt-clean;
#  - the test verdict fails the runs it must (qemu/test_verdict.py).
# Clippy runs in every kernel build (CLIPPY=1 KRUSTFLAGS=-Dwarnings in
# mk/common.sh), so a clippy finding or a rustc warning fails `make kernel`.
set -euo pipefail
. "$(dirname "$0")/common.sh"

src=$BUILD/src-patched
"$ROOT/mk/tree.sh" patched

fail=0
say "checkpatch.pl --strict on $(series_patches | wc -l) patches"
for p in $(series_patches); do
	out=$(checkpatch "$src" "$PATCHES/$p" 2>&1) || {
		echo "$out" >&2
		fail=1
	}
done

# The cover letter's base-commit is the tested base's (patches/BASE).  On
# another source version the pristine commit differs: a finding of the run
# (make check reports it with the verdict), not a reason to test nothing.
base=$(base_field base-commit)
pristine=$(git -C "$src" rev-parse pristine)
if mismatch=$(base_mismatch); then
	echo "$mismatch" >&2
elif [ "$pristine" != "$base" ]; then
	echo "$PATCHES_REL/BASE: $KSRC_PKG $(ksrc_version) is committed as $pristine," \
		"not as its base-commit $base" >&2
	fail=1
fi

# Whoever mails the series signs it (make export-patches): a placeholder
# sender is worth a warning, not a failure.
python3 "$ROOT/mk/ident.py" check $(series_patches | sed "s|^|$PATCHES/|")

say "each cover letter lists its series: $(series_names | xargs)"
for name in $(series_names); do
	python3 "$ROOT/mk/cover.py" check "$PATCHES/$name/0000-cover-letter.patch" "$base" \
		--prerequisites $(prereq_patches "$name" | sed "s|^|$PATCHES/|") -- \
		$(series_patches "$name" | sed "s|^|$PATCHES/|") || fail=1
done

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
