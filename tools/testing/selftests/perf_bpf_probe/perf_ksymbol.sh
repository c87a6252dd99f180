#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf (the tool) names the samples taken in BPF JIT images, as users run
# it: perf record -a -g while a workload keeps a seccomp filter, a classic
# socket filter, a classic SO_REUSEPORT filter and an eBPF program hot, one
# set installed before perf started ("before") and one while it records
# ("during"); perf script then resolves the samples with /proc/kcore
# readable and with it hidden.  perf_names.py compares each sample's name
# with the image /proc/kallsyms lists at its address.
#
# Two perfs: the tree's ($PERF, ./perf next to the test, or tools/perf/perf
# when the test runs in the source tree, if built) and the one on $PATH (a
# distribution's).  Only the workload's images count: those /proc/kallsyms
# did not list before it started.  Cases:
#
#   tree.kcore.before, tree.kcore.during, tree.nokcore.before,
#   tree.nokcore.during   every kind of image is listed, at least
#                         MIN_SAMPLES samples in the phase's images, under
#                         1 % of them (or at most STRAY) [unknown] and
#                         under 1 % (or at most STRAY) misnamed
#   tree.bpf_events       perf script --show-bpf-events lists a REGISTER
#                         and an UNREGISTER record of every image
#   tree.callchain        a sample in a seccomp filter whose callchain names
#                         the filter, then __seccomp_filter, do_syscall_64
#   path.nokcore.during   the same as tree.nokcore.during
#   path.bpf_events       REGISTER and UNREGISTER of the "during" images
#
# perf 6.1 (Debian 12's) synthesizes no record of images that predate the
# recording and misplaces images when it reads /proc/kcore: its other
# phases are measured and printed, not checked.

. "$(dirname "$0")/../kselftest/ktap_helpers.sh"

here=$(cd "$(dirname "$0")" && pwd)
MIN_SAMPLES=${MIN_SAMPLES:-100}
# A phase may have this many samples unknown or misnamed, whatever its share
STRAY=${STRAY:-2}
tmp=$(mktemp -d)
cleanup() {
	rm -rf "$tmp"
}
trap cleanup EXIT

tree_perf=${PERF:-$here/perf}
[ -x "$tree_perf" ] || tree_perf=$here/../../../perf/perf
TREE_HINT="set PERF to the tree's tools/perf/perf"
perfs=()
[ -x "$tree_perf" ] && perfs+=(tree)
command -v perf >/dev/null && perf version >/dev/null 2>&1 && perfs+=(path)
perf_of() {
	if [ "$1" = tree ]; then echo "$tree_perf"; else echo perf; fi
}

ktap_print_header
ktap_set_plan 8
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "needs root"
	exit "$KSFT_SKIP"
fi

# record NAME SECONDS: the workload, hot for SECONDS, under perf record -a
# -g by perf NAME, into $tmp/NAME.*; kallsyms.before is read before perf
# starts, kallsyms.during while every image lives.  The workload is reaped
# inside the recording, so that the seccomp filters' UNREGISTER records are
# in it too.
record() {
	local name=$1 p d=$tmp/$1
	p=$(perf_of "$name")
	rm -rf "$d"
	mkdir -p "$d"
	mkfifo "$d/go"
	grep '\[bpf\]' /proc/kallsyms >"$d/kallsyms.base"
	(
		"$here/bpf_workload" "$2" <"$d/go" >"$d/workload.out" 2>&1
		echo "exited $?" >"$d/workload.exit"
	) &
	exec 3>"$d/go"
	for _ in $(seq 600); do
		grep -q "before filters installed" "$d/workload.out" && break
		sleep 0.1
	done
	grep '\[bpf\]' /proc/kallsyms >"$d/kallsyms.before"
	cat >"$d/during.sh" <<-EOF
		echo go >$d/go
		for i in \$(seq 600); do
			grep -q "during filters installed" $d/workload.out && break
			sleep 0.1
		done
		cat /proc/kallsyms >$d/kallsyms.during
		for i in \$(seq 600); do
			[ -e $d/workload.exit ] && break
			sleep 0.1
		done
		# until kallsyms lists none of the workload's images
		grep '\\[bpf\\]' $d/kallsyms.during | grep -vxFf $d/kallsyms.base |
			awk '{ print \$3 }' >$d/images
		for i in \$(seq 100); do
			awk '{ print \$3 }' /proc/kallsyms | grep -qxFf $d/images || break
			sleep 0.1
		done
	EOF
	"$p" record -a -g -e cpu-clock -F 1000 -o "$d/perf.data" -- sh "$d/during.sh" \
		>"$d/record.out" 2>&1
	exec 3>&-
	wait
	if ! grep -q "exited 0" "$d/workload.exit" 2>/dev/null; then
		echo "# the workload failed: $(cat "$d/workload.out" "$d/workload.exit" 2>&1)"
		return 1
	fi
	"$p" script -i "$d/perf.data" --show-bpf-events -F event >"$d/events.out" 2>&1
}

# analyse NAME KCORE: perf NAME resolves the recording, /proc/kcore readable
# (kcore) or hidden (nokcore); prints the phases' figures.
analyse() {
	local name=$1 kcore=$2 d=$tmp/$1 p
	p=$(perf_of "$name")
	if [ "$kcore" = kcore ]; then
		"$p" script -i "$d/perf.data" -F ip,sym >"$d/script.$kcore" 2>"$d/script.$kcore.err"
	else
		# /proc/kcore hidden in a mount namespace of its own
		unshare -m sh -c 'mount --bind /dev/null /proc/kcore && exec "$0" "$@"' \
			"$p" script -i "$d/perf.data" -F ip,sym >"$d/script.$kcore" \
			2>"$d/script.$kcore.err"
	fi
	python3 "$here/perf_names.py" "$d/kallsyms.base" "$d/kallsyms.before" "$d/kallsyms.during" \
		"$d/script.$kcore" --callchain >"$d/names.$kcore"
	sed -e "s/^/# $name $kcore: /" "$d/names.$kcore"
}

# kinds_ok NAME KCORE PHASE: kallsyms listed an image of every kind.
kinds_ok() {
	local want=reuseport_cbpf,seccomp,sock_filter,wl_$3 kinds

	kinds=$(awk -v p="$3" '$1 == p { print $11 }' "$tmp/$1/names.$2")
	[ "$kinds" = "$want" ] && return 0
	echo "# kallsyms lists the $3 images $kinds, not $want"
	return 1
}

# phase_ok NAME KCORE PHASE: the phase's figures meet the bounds.
phase_ok() {
	kinds_ok "$@" || return 1
	# PHASE samples N named N unknown N misnamed N kinds K,...
	set -- $(grep "^$3 " "$tmp/$1/names.$2")
	if [ "$3" -lt "$MIN_SAMPLES" ]; then
		echo "# $3 samples, fewer than $MIN_SAMPLES"
		return 1
	fi
	# under 1 %: 100 * count < samples, or no more than STRAY samples
	{ [ $((100 * $7)) -lt "$3" ] || [ "$7" -le "$STRAY" ]; } &&
		{ [ $((100 * $9)) -lt "$3" ] || [ "$9" -le "$STRAY" ]; }
}

# bpf_events_ok NAME PHASES...: a REGISTER and an UNREGISTER of each image.
bpf_events_ok() {
	local name=$1 img phase rc=0
	shift
	for phase in "$@"; do
		kinds_ok "$name" kcore "$phase" || rc=1
		for img in $(awk -v p="$phase" '$2 == p { print $3 }' "$tmp/$name/names.kcore"); do
			grep -q "KSYMBOL .*flags 0x0 name $img" "$tmp/$name/events.out" ||
				{ echo "# no REGISTER record of $img"; rc=1; }
			grep -q "KSYMBOL .*flags 0x1 name $img" "$tmp/$name/events.out" ||
				{ echo "# no UNREGISTER record of $img"; rc=1; }
		done
	done
	return $rc
}

# callchain_ok NAME: some sample's callchain went through a seccomp filter.
callchain_ok() {
	grep -Eq '^callchain [1-9]' "$tmp/$1/names.kcore"
}

# few_samples NAME: a phase of the recording has fewer than MIN_SAMPLES
# samples in its images.
few_samples() {
	awk -v min="$MIN_SAMPLES" '$2 == "samples" && $3 < min { few = 1 }
		END { exit !few }' "$tmp/$1/names.nokcore"
}

# A slow kernel (the debug kernel under emulation) spends less of the
# workload's time in the images: record again, twice as long each time,
# until every phase has MIN_SAMPLES samples or the workload ran 40 s.
for name in tree path; do
	if [[ " ${perfs[*]} " != *" $name "* ]]; then
		echo "# no $name perf"
		continue
	fi
	echo "# $name perf: $($(perf_of $name) version)"
	seconds=5
	while record "$name" "$seconds"; do
		analyse "$name" kcore
		analyse "$name" nokcore
		few_samples "$name" && [ "$seconds" -lt 40 ] || break
		seconds=$((2 * seconds))
		echo "# $name: fewer than $MIN_SAMPLES samples in a phase, recording for $seconds s"
	done
done

case_result() {
	local case=$1 hint
	shift
	if [[ " ${perfs[*]} " != *" ${case%%.*} "* ]]; then
		[ "${case%%.*}" = tree ] && hint=": $TREE_HINT"
		ktap_test_skip "$case (no ${case%%.*} perf$hint)"
	elif [ ! -s "$tmp/${case%%.*}/names.nokcore" ]; then
		ktap_test_fail "$case"
	else
		ktap_test_result "$case" "$@"
	fi
}
case_result tree.kcore.before phase_ok tree kcore before
case_result tree.kcore.during phase_ok tree kcore during
case_result tree.nokcore.before phase_ok tree nokcore before
case_result tree.nokcore.during phase_ok tree nokcore during
case_result tree.bpf_events bpf_events_ok tree before during
case_result tree.callchain callchain_ok tree
case_result path.nokcore.during phase_ok path nokcore during
case_result path.bpf_events bpf_events_ok path during
ktap_finished
