#!/usr/bin/env bash
# make deps: install what the build, boot and tests need, and fetch the
# kernel source of the base (BASE=7.3, the default, or BASE=6.12).
# Idempotent: what is already there is skipped, so a second run takes
# seconds.
set -euo pipefail
. "$(dirname "$0")/common.sh"

PKGS=(
	rustc-web rust-web-src rust-web-clippy rustfmt-web
	clang-19 lld-19 llvm-19 libclang-19-dev
	make flex bison bc libelf-dev libssl-dev cpio pahole rsync kmod udev xz-utils
	zlib1g-dev libzstd-dev
	qemu-system-x86 busybox-static
	linux-perf bpftrace trinity
	python3 python3-venv
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if ((${#missing[@]})); then
	[ "$(id -u)" = 0 ] || die "not root: cannot install ${missing[*]}"
	say "installing Debian packages: ${missing[*]}"
	run_logged "$LOGS/apt-update.log" apt-get update -q ||
		die "apt-get update failed: cannot install ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive run_logged "$LOGS/apt-install.log" \
		apt-get install -y -q "${missing[@]}" ||
		die "apt-get install failed for: ${missing[*]}"
fi

# The kernel source of the base: the tested version of its BASE file while
# the archive offers it, else the newest, said in one line.  Downloaded with
# build/debian's own apt lists (mk/common.sh apt_private): nothing of it is
# installed, and the machine's apt sources are not changed.
want=$(base_field version)
have=$(cat "$KSRC_DIR/version" 2>/dev/null || true)
if [ "$have" != "$want" ] || [ ! -f "$KSRC_TARBALL" ]; then
	run_logged "$LOGS/apt-private-update.log" apt_private update -q ||
		[ -f "$KSRC_TARBALL" ] || die "apt-get update of build/debian's lists failed: cannot fetch $KSRC_PKG"
	if archive_offers "$want"; then
		version=$want
		say "fetching $KSRC_PKG $want, the tested base ($PATCHES_REL/BASE)"
	else
		version=$(archive_versions | sed -n 1p)
		[ -n "$version" ] || version=$have
		[ -n "$version" ] || die "the package lists offer no $KSRC_PKG"
		say "base: tested on $KSRC_PKG $want, which the archive no longer offers;" \
			"building on $version ('make rebase BASE=$BASE' moves the series there)"
	fi
	if [ "$have" != "$version" ] || [ ! -f "$KSRC_TARBALL" ]; then
		fetch_source "$version" "$KSRC_DIR" || die "cannot fetch $KSRC_PKG $version"
	fi
fi

if ! "$TOOLS/bindgen/bin/bindgen" --version 2>/dev/null | grep -q " $BINDGEN_VERSION\$"; then
	cargo=$(command -v cargo || ls "${HOME:-/root}/.cargo/bin/cargo" /root/.cargo/bin/cargo 2>/dev/null | head -n 1)
	[ -x "$cargo" ] || die "no cargo found: cannot install bindgen-cli $BINDGEN_VERSION"
	say "installing bindgen-cli $BINDGEN_VERSION (about 70 s)"
	run_logged "$LOGS/bindgen-install.log" "$cargo" install --locked bindgen-cli \
		--version "$BINDGEN_VERSION" --root "$TOOLS/bindgen" ||
		die "cannot install bindgen-cli $BINDGEN_VERSION from crates.io"
fi

if ! "$TOOLS/vng/bin/vng" --version 2>/dev/null | grep -q "$VNG_VERSION"; then
	say "installing virtme-ng $VNG_VERSION in $TOOLS/vng"
	run_logged "$LOGS/vng-install.log" python3 -m venv "$TOOLS/vng"
	run_logged "$LOGS/vng-install.log" "$TOOLS/vng/bin/pip" install -q "virtme-ng==$VNG_VERSION" ||
		die "cannot install virtme-ng $VNG_VERSION from PyPI"
fi
# sparse for the series check's `C=2`: 7.3's checker-valid.sh wants
# __typeof_unqual__, which Debian 12's sparse 0.6.4 lacks.  Built from
# Debian's source package of a newer sparse (its binary package needs a
# newer glibc), fetched with private apt lists of that suite's sources:
# nothing is installed on the machine.  Only `make series-check` needs it,
# so a failure here is reported, not fatal.
build_sparse() {
	local d=$DEBIAN_DIR/apt-sparse
	apt_d() {
		apt-get -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$d/sources.list.d" \
			-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" -o Dir::State::status=/dev/null "$@"
	}
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/sources.list.d" "$TOOLS"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(debian_mirror) $SPARSE_SUITE main" \
		>"$d/sources.list.d/sparse.list"
	rm -rf "$TOOLS/sparse" "$TOOLS/sparse.src"
	mkdir -p "$TOOLS/sparse.src"
	run_logged "$LOGS/sparse.log" apt_d update -q &&
		(cd "$TOOLS/sparse.src" && run_logged "$LOGS/sparse.log" apt_d source --download-only "sparse=$SPARSE_VERSION") &&
		tar -xf "$TOOLS"/sparse.src/sparse_*.orig.tar.* -C "$TOOLS/sparse.src" &&
		run_logged "$LOGS/sparse.log" make -C "$TOOLS"/sparse.src/sparse-*/ -j"$JOBS" sparse \
			HAVE_LLVM=no HAVE_SQLITE=no HAVE_LIBXML=no HAVE_GTK=no &&
		mkdir -p "$TOOLS/sparse" &&
		cp "$TOOLS"/sparse.src/sparse-*/sparse "$TOOLS/sparse/" &&
		echo "$SPARSE_VERSION" >"$TOOLS/sparse/version"
}
if [ "$(cat "$TOOLS/sparse/version" 2>/dev/null)" != "$SPARSE_VERSION" ] ||
	[ ! -x "$TOOLS/sparse/sparse" ]; then
	say "building sparse $SPARSE_VERSION (Debian $SPARSE_SUITE's source) in $TOOLS/sparse"
	build_sparse || say "sparse $SPARSE_VERSION was not built (log: $LOGS/sparse.log):" \
		"make series-check needs it, nothing else does"
	rm -rf "$TOOLS/sparse.src"
fi
say "dependencies are installed"
