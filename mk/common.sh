# shellcheck shell=bash
# Shared settings for the project's scripts.  Sourced, not run.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The kernel the series are for: BASE=7.3 (the default: patches/) or
# BASE=6.12 (the LTS backport: backports/6.12/).  Each base has its own
# series, BASE file and build directory, build/BASE/.
BASE=${BASE:-7.3}
case $BASE in
7.3) PATCHES=$ROOT/patches ;;
6.12) PATCHES=$ROOT/backports/6.12 ;;
*)
	printf 'error: BASE=%s: the bases are 7.3 (patches/) and 6.12 (backports/6.12/)\n' "$BASE" >&2
	exit 1
	;;
esac
export BASE
BUILD=${BUILD:-$ROOT/build/$BASE}
LOGS=$BUILD/logs
TOOLS=$ROOT/build/tools
JOBS=${JOBS:-$(($(nproc) + 1))}

# The tested base: Debian's source package, its version, the suite that
# has it (when the machine's own apt sources do not) and the base-commit.
BASE_FILE=$PATCHES/BASE
# The patch folders, relative to the project (patches/ or backports/6.12/).
PATCHES_REL=${PATCHES#"$ROOT"/}
BINDGEN_VERSION=0.71.1
VNG_VERSION=1.42
# sparse of the series check, built from this Debian suite's source package.
SPARSE_VERSION=0.6.5~rc1-2 SPARSE_SUITE=sid

# The kernel's Rust needs Debian's rustc (it ships the matching core sources);
# the rustup toolchain in ~/.cargo/bin has none.
export PATH=/usr/lib/llvm-19/bin:$TOOLS/bindgen/bin:$TOOLS/vng/bin:/usr/sbin:/sbin:/usr/bin:/bin:$PATH
KMAKE_VARS=(LLVM=1 RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc HOSTRUSTC=/usr/bin/rustc
	RUSTFMT=/usr/bin/rustfmt CLIPPY_DRIVER=/usr/bin/clippy-driver
	BINDGEN="$TOOLS/bindgen/bin/bindgen" CLIPPY=1 KRUSTFLAGS=-Dwarnings)

# perf of the patched tree (make perf) with only what the tests use: libelf
# (kernel symbols, /proc/kcore), libbpf (BPF program info) and zlib; no
# scripting, UI, DWARF or tracepoint parsing, and no Rust workload (7.3: its
# bitcode objects break the archive step with LLVM=1).
PERF_VARS=(WERROR=1 NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBTRACEEVENT=1 NO_GTK2=1 NO_SLANG=1
	NO_LIBUNWIND=1 NO_DWARF=1 NO_LIBDW_DWARF_UNWIND=1 BUILD_BPF_SKEL=0 NO_JEVENTS=1
	NO_LIBNUMA=1 NO_LIBCAP=1 NO_LIBBABELTRACE=1 NO_LIBCRYPTO=1 NO_LIBZSTD=1 NO_LIBLLVM=1
	NO_DEMANGLE=1 NO_LZMA=1 NO_AUXTRACE=1 NO_LIBPFM4=1 NO_SDT=1 NO_LIBAUDIT=1 NO_RUST=1)

# The pristine source's git commit (build/BASE/src-patched's "pristine") is made
# with a fixed author, committer and date, so that its hash, the series'
# base-commit, is the same wherever the same source is committed.
PRISTINE_GIT_ENV=(GIT_AUTHOR_NAME=linux-build GIT_AUTHOR_EMAIL=build@localhost
	GIT_AUTHOR_DATE="2024-11-17T00:00:00Z" GIT_COMMITTER_NAME=linux-build
	GIT_COMMITTER_EMAIL=build@localhost GIT_COMMITTER_DATE="2024-11-17T00:00:00Z")

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# ksrc_version: the Debian package version of the kernel source that
# `make deps` fetched (build/debian/PACKAGE/).
ksrc_version() {
	cat "$KSRC_DIR/version" 2>/dev/null ||
		die "$KSRC_PKG is not fetched: run 'make deps${BASE:+ BASE=$BASE}'"
}

# patches/series names the series, one folder of patches/ each, in the
# order they apply; a line "NAME: PREREQ..." names the series that NAME
# needs applied first.  Each folder has its own `series` file (its patch
# files, in order) and 0000-cover-letter.patch.

# series_names: the series of patches/series, in order.
series_names() {
	[ ! -f "$PATCHES/series" ] ||
		sed -e 's/#.*//' -e 's/:.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$PATCHES/series"
}

# series_prereqs NAME: the series NAME needs applied first, directly or
# through another one, in the order of patches/series.
series_prereqs() {
	local want=" $1 " name deps changed=1
	# Close the set under "needs", then print it in series order.
	while [ "$changed" = 1 ]; do
		changed=0
		while IFS=: read -r name deps; do
			name=${name//[[:space:]]/}
			case $want in *" $name "*) ;; *) continue ;; esac
			for d in $deps; do
				case $want in *" $d "*) ;; *) want="$want$d " changed=1 ;; esac
			done
		done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PATCHES/series")
	done
	for name in $(series_names); do
		[ "$name" != "$1" ] || continue
		case $want in *" $name "*) echo "$name" ;; esac
	done
}

# prereq_patches NAME: the patch files of the series NAME needs, in order,
# as series_patches prints them (nothing when it needs none).
prereq_patches() {
	local prereqs
	prereqs=$(series_prereqs "$1")
	[ -z "$prereqs" ] || series_patches $prereqs
}

# series_patches [NAME...]: the patch files of the named series (default:
# all of the base's series file), in order, as FOLDER/FILE relative to
# $PATCHES.
series_patches() {
	local name
	for name in ${@:-$(series_names)}; do
		[ -f "$PATCHES/$name/series" ] || die "$PATCHES_REL/$name/series is missing"
		sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e "s|^|$name/|" "$PATCHES/$name/series"
	done
}

# checkpatch SRC PATCH: scripts/checkpatch.pl --strict of the kernel tree SRC
# on PATCH, with the findings the project ignores:
# FILE_PATH_CHANGES asks whether MAINTAINERS needs an update for new files
# (the series' new files are covered by the entries it touches);
# UNKNOWN_COMMIT_ID: the Debian source has no git history to look the
# hashes of Fixes: tags up in (two public sources agree on each); perf's
# shell tests describe themselves on line 2, where perf test reads it, and
# have their SPDX tag on line 3, as perf's others; perf's workloads end on a
# signal handler's volatile sig_atomic_t flag, as C requires of them.
checkpatch() {
	local src=$1 patch=$2 ignore=FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID
	grep -q '^+++ b/tools/perf/tests/shell/' "$patch" && ignore+=,SPDX_LICENSE_TAG
	grep -q '^+++ b/tools/perf/tests/workloads/' "$patch" && ignore+=,VOLATILE
	(cd "$src" && scripts/checkpatch.pl --strict --no-tree --terse --ignore "$ignore" "$patch")
}

# base_field NAME: the value of NAME (version, base-commit) in patches/BASE.
base_field() {
	sed -n "s/^$1: *//p" "$BASE_FILE"
}

# The kernel source of the base, fetched by `make deps` without touching
# the machine's apt configuration: apt_private downloads the package with
# lists of its own under build/debian/, from the machine's Debian sources
# and, when the BASE file names one, the suite that has the package
# (trixie-backports for 7.3 on Debian 12).
KSRC_PKG=$(base_field package)
KSRC_SUITE=$(base_field suite)
DEBIAN_DIR=$ROOT/build/debian
KSRC_DIR=$DEBIAN_DIR/$KSRC_PKG
KSRC_TARBALL=$KSRC_DIR/$KSRC_PKG.tar.xz

# debian_mirror: the Debian mirror of the machine's apt sources.
debian_mirror() {
	local f files=()
	# Only the files that exist: a machine may have no sources.list (deb822
	# sources only), and grep's "no such file" would fail the pipeline.
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
		/etc/apt/sources.list.d/*.list; do
		[ ! -f "$f" ] || files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || return 1
	grep -h -o -E 'https?://[^ ]*/debian/?( |$)' "${files[@]}" |
		sed -n '1s/ *$//p' | grep .
}

# apt_private ARG...: apt-get (or apt-cache, when the first ARG is
# "cache") with lists, cache and state of its own in build/debian/apt-BASE:
# what it downloads stays there, nothing is installed.
apt_private() {
	local d=$DEBIAN_DIR/apt-$BASE cmd=apt-get uri
	[ "$1" != cache ] || { cmd=apt-cache && shift; }
	if [ ! -f "$d/sources.list.d/base.list" ]; then
		mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/sources.list.d"
		# The machine's sources (its mirror), and the base's own suite
		# on the same mirror.
		cp /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
			"$d/sources.list.d/" 2>/dev/null || true
		[ ! -f /etc/apt/sources.list ] || cp /etc/apt/sources.list "$d/sources.list.d/machine.list"
		if [ -n "$KSRC_SUITE" ]; then
			uri=$(debian_mirror) || die "no Debian mirror in the machine's apt sources for $KSRC_SUITE"
			echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $KSRC_SUITE main" \
				>"$d/sources.list.d/base.list.tmp"
		else
			: >"$d/sources.list.d/base.list.tmp"
		fi
		mv "$d/sources.list.d/base.list.tmp" "$d/sources.list.d/base.list"
	fi
	"$cmd" -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$d/sources.list.d" \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" \
		-o Dir::State::status=/dev/null "$@"
}

# archive_versions: the versions of the base's source package that the
# private lists offer, newest first (apt_private update first for a
# current answer).
archive_versions() {
	apt_private cache madison "$KSRC_PKG" 2>/dev/null | awk -F' *[|] *' '!seen[$2]++ {print $2}'
}

# archive_offers VERSION: whether the private lists offer that version.
archive_offers() {
	archive_versions | grep -xF "$1" >/dev/null
}

# fetch_source VERSION DIR: download the base's source package VERSION and
# extract its tarball into DIR as $KSRC_PKG.tar.xz, with DIR/version.
fetch_source() {
	local version=$1 dir=$2 tmp
	mkdir -p "$DEBIAN_DIR"
	tmp=$(mktemp -d "$DEBIAN_DIR/fetch.XXXXXX")
	(cd "$tmp" && apt_private download -q "$KSRC_PKG=$version") >"$tmp/log" 2>&1 || {
		cat "$tmp/log" >&2
		rm -rf "$tmp"
		return 1
	}
	mkdir -p "$dir"
	dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -xO --wildcards "*/$KSRC_PKG.tar.xz" \
		>"$dir/$KSRC_PKG.tar.xz.tmp" || { rm -rf "$tmp"; return 1; }
	mv "$dir/$KSRC_PKG.tar.xz.tmp" "$dir/$KSRC_PKG.tar.xz"
	echo "$version" >"$dir/version"
	rm -rf "$tmp"
}

# base_mismatch: print one line, and return 0, when the installed source is
# not the tested base of patches/BASE.
base_mismatch() {
	local want have
	want=$(base_field version) have=$(ksrc_version)
	[ "$want" != "$have" ] || return 1
	echo "base: tested on $KSRC_PKG $want, building on $have" \
		"(the series is not tested on it: 'make rebase' moves it there)"
}

# apply_patch DIR PATCH [OPTION...]: git apply PATCH (with OPTIONs, such as
# --check or --index) in the git work tree DIR: as it is, else with one line
# of context (git's fuzz).  Print how it applied: "exact", or the hunks
# that moved ("offset +12 (2 hunks), -3 (1 hunk)") and "fuzz (-C1)"; on
# failure print git's error, which names the file and line of the hunk, and
# return 1.
apply_patch() {
	local dir=$1 patch=$2 c out how
	shift 2
	for c in -C3 -C1; do
		# -C3 is git's default: all the context lines must match.
		out=$(git -C "$dir" apply -v --whitespace=nowarn $c "$@" "$patch" 2>&1) || continue
		how=$(echo "$out" | sed -n 's/.*(offset \(-\{0,1\}[0-9]*\) lines\{0,1\}).*/\1/p' |
			sort -n | uniq -c | awk '{ d = ($2 > 0 ? "+" : "") $2
				s = s (s ? ", " : "") d " (" $1 " hunk" ($1 > 1 ? "s" : "") ")" }
				END { if (s) print "offset " s }')
		[ "$c" = -C3 ] || how="${how:+$how; }fuzz (-C1)"
		echo "${how:-exact}"
		return 0
	done
	echo "$out"
	return 1
}

# kernel_fragments KIND: the qemu/*.config fragments of a kernel, in the order
# they are merged over tinyconfig (a later one wins).  KIND is stock,
# patched, debug, stock-btf and patched-btf (make bpf-selftests), or
# patched-NAME: the patched kernel with qemu/matrix/NAME.config
# (make config-matrix).
kernel_fragments() {
	case $1 in
	stock) echo base ;;
	patched) echo base patched ;;
	debug) echo base patched debug ;;
	stock-btf) echo base btf ;;
	patched-btf) echo base patched btf ;;
	patched-*)
		[ -f "$ROOT/qemu/matrix/${1#patched-}.config" ] || return 1
		echo "base patched matrix/${1#patched-}"
		;;
	*) return 1 ;;
	esac
}

# kmake_vars KIND: the make variables of that kernel's build, one a line:
# KMAKE_VARS and, for a kernel with BTF (qemu/btf.config), a fixed build
# timestamp.  With it scripts/Makefile.btf runs pahole (Debian 12's 1.24)
# without -j, whose BTF is not reproducible (dwarves issue #42): which
# functions it encodes changes from one build to the next.
kmake_vars() {
	printf '%s\n' "${KMAKE_VARS[@]}"
	case " $(kernel_fragments "$1") " in
	*" btf "*) echo "KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970" ;;
	esac
}

# kernel_tree KIND: the source tree a kernel is built from, stock or patched.
kernel_tree() {
	case $1 in
	stock | stock-*) echo stock ;;
	*) echo patched ;;
	esac
}

# configure_kernel SRC OUT LOG FRAGMENT_FILE...: configure the kernel source
# SRC in the output directory OUT as tinyconfig with the fragment files merged
# over it (a later one wins), then olddefconfig; logs in LOG and LOG.*.
configure_kernel() {
	local src=$1 out=$2 log=$3
	shift 3
	run_logged "$log" make -C "$src" O="$out" "${KMAKE_VARS[@]}" tinyconfig &&
		run_logged "$log.merge" env -C "$src" scripts/kconfig/merge_config.sh \
			-m -O "$out" "$out/.config" "$@" &&
		run_logged "$log.olddefconfig" make -C "$src" O="$out" "${KMAKE_VARS[@]}" olddefconfig
}

# pristine_commit DIR TREE: the pristine commit of TREE in the git
# repository DIR; print its hash.
pristine_commit() {
	env "${PRISTINE_GIT_ENV[@]}" git -C "$1" commit-tree \
		-m "Linux $(ksrc_version) ($KSRC_PKG)" "$2"
}

# commit_pristine DIR: commit everything in the git repository DIR (a fresh
# extract of the source) as the pristine commit; print its hash.
commit_pristine() {
	git -C "$1" add -A -f
	pristine_commit "$1" "$(git -C "$1" write-tree)"
}

# worktree DIR: make DIR a git worktree of build/src-patched, detached at
# "pristine", unless it is one already.  A new source version extracts
# build/src-patched anew, with a new repository: older worktrees go.
worktree() {
	local repo=$BUILD/src-patched/.git
	[ "$(git -C "$1" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" != \
		"$(cd "$repo" && pwd -P)" ] || return 0
	rm -rf "$1"
	git -C "$repo" worktree prune
	git -C "$repo" worktree add -q --detach "$1" pristine
}

# run_logged LOG CMD...: run CMD with its output in LOG; on failure show the
# last lines and the log's path, and return 1.
run_logged() {
	local log=$1
	shift
	mkdir -p "$(dirname "$log")"
	if ! "$@" >"$log" 2>&1; then
		echo "---- last lines of $log ----" >&2
		tail -n 40 "$log" >&2
		echo "---- full log: $log ----" >&2
		return 1
	fi
}

# expectations NAME: qemu/expect/NAME, then qemu/expect/NAME-$BASE (what
# only this base's kernel or tests show) if there is one.
expectations() {
	cat "$ROOT/qemu/expect/$1" $(ls "$ROOT/qemu/expect/$1-$BASE" 2>/dev/null)
}
