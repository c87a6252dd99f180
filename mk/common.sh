# shellcheck shell=bash
# Shared settings for the project's scripts.  Sourced, not run.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
LOGS=$BUILD/logs
TOOLS=$BUILD/tools
JOBS=${JOBS:-$(($(nproc) + 1))}

# Directories of the project that mirror kernel-tree paths.  Files there are
# the new files of the series, kept in sync with patches/ by `make lint`.
MIRROR_DIRS="rust include kernel samples tools Documentation"

KSRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
KSRC_PKG=linux-source-6.12
# The tested base (Debian version and base-commit): see patches/BASE.
BASE_FILE=$ROOT/patches/BASE
BINDGEN_VERSION=0.71.1
VNG_VERSION=1.42

# The kernel's Rust needs Debian's rustc (it ships the matching core sources);
# the rustup toolchain in ~/.cargo/bin has none.
export PATH=/usr/lib/llvm-19/bin:$TOOLS/bindgen/bin:$TOOLS/vng/bin:/usr/sbin:/sbin:/usr/bin:/bin:$PATH
KMAKE_VARS=(LLVM=1 RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc HOSTRUSTC=/usr/bin/rustc
	RUSTFMT=/usr/bin/rustfmt CLIPPY_DRIVER=/usr/bin/clippy-driver
	BINDGEN="$TOOLS/bindgen/bin/bindgen" CLIPPY=1 KRUSTFLAGS=-Dwarnings)

# perf of the patched tree (make perf) with only what the tests use: libelf
# (kernel symbols, /proc/kcore), libbpf (BPF program info) and zlib; no
# scripting, UI, DWARF or tracepoint parsing.
PERF_VARS=(WERROR=1 NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBTRACEEVENT=1 NO_GTK2=1 NO_SLANG=1
	NO_LIBUNWIND=1 NO_DWARF=1 NO_LIBDW_DWARF_UNWIND=1 BUILD_BPF_SKEL=0 NO_JEVENTS=1
	NO_LIBNUMA=1 NO_LIBCAP=1 NO_LIBBABELTRACE=1 NO_LIBCRYPTO=1 NO_LIBZSTD=1 NO_LIBLLVM=1
	NO_DEMANGLE=1 NO_LZMA=1 NO_AUXTRACE=1 NO_LIBPFM4=1 NO_SDT=1 NO_LIBAUDIT=1)

# The pristine source's git commit (build/src-patched's "pristine") is made
# with a fixed author, committer and date, so that its hash, the series'
# base-commit, is the same wherever the same source is committed.
PRISTINE_GIT_ENV=(GIT_AUTHOR_NAME=linux-build GIT_AUTHOR_EMAIL=build@localhost
	GIT_AUTHOR_DATE="2024-11-17T00:00:00Z" GIT_COMMITTER_NAME=linux-build
	GIT_COMMITTER_EMAIL=build@localhost GIT_COMMITTER_DATE="2024-11-17T00:00:00Z")

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# ksrc_version: the Debian package version of the installed kernel source.
ksrc_version() {
	dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null ||
		die "linux-source-6.12 is not installed: run 'make deps'"
}

# patches/series names the series, one folder of patches/ each, in the
# order they apply; a line "NAME: PREREQ..." names the series that NAME
# needs applied first.  Each folder has its own `series` file (its patch
# files, in order) and 0000-cover-letter.patch.

# series_names: the series of patches/series, in order.
series_names() {
	[ ! -f "$ROOT/patches/series" ] ||
		sed -e 's/#.*//' -e 's/:.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$ROOT/patches/series"
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
		done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/patches/series")
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
# all of patches/series), in order, as FOLDER/FILE relative to patches/.
series_patches() {
	local name
	for name in ${@:-$(series_names)}; do
		[ -f "$ROOT/patches/$name/series" ] || die "patches/$name/series is missing"
		sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e "s|^|$name/|" "$ROOT/patches/$name/series"
	done
}

# checkpatch SRC PATCH: scripts/checkpatch.pl --strict of the kernel tree SRC
# on PATCH (under patches/), with the findings the project ignores:
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

# archive_versions: the versions of linux-source-6.12 that the apt lists
# offer, newest first as apt orders them (run 'apt-get update' before for a
# current answer).
archive_versions() {
	apt-cache madison "$KSRC_PKG" 2>/dev/null | awk -F' *[|] *' '!seen[$2]++ {print $2}'
}

# archive_offers VERSION: whether the apt lists offer linux-source-6.12 VERSION.
archive_offers() {
	archive_versions | grep -xF "$1" >/dev/null
}

# base_mismatch: print one line, and return 0, when the installed source is
# not the tested base of patches/BASE.
base_mismatch() {
	local want have
	want=$(base_field version) have=$(ksrc_version)
	[ "$want" != "$have" ] || return 1
	echo "base: tested on linux-source-6.12 $want, building on $have" \
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
		-m "Linux $(ksrc_version) (linux-source-6.12)" "$2"
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

# mirror_files: the project's files under the mirrored directories, relative
# to the project root, sorted.
mirror_files() {
	local d
	(cd "$ROOT" && for d in $MIRROR_DIRS; do
		[ ! -d "$d" ] || find "$d" -type f
	done | LC_ALL=C sort)
}
