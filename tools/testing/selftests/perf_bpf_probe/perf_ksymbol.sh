#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf (the tool) names the samples taken in BPF JIT images: perf record -a
# while a workload keeps two seccomp filters, a classic socket filter and an
# eBPF program hot, the first seccomp filter installed before perf started.
# perf script --show-bpf-events lists the KSYMBOL records of the filters
# loaded while it ran, and perf report attributes samples to them by name.
# The first seccomp filter is listed in /proc/kallsyms while perf runs; perf
# 6.1 reads only trampolines and dispatchers from there, so it cannot name
# that one.

ksft_skip=4
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v perf >/dev/null || ! perf version >/dev/null 2>&1; then
	echo "SKIP: perf is not installed"
	exit $ksft_skip
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkfifo "$tmp/go"
"$here/bpf_workload" 6 <"$tmp/go" >"$tmp/workload.out" 2>&1 &
workload=$!
exec 3>"$tmp/go"
for _ in $(seq 600); do
	grep -q "seccomp filter installed" "$tmp/workload.out" && break
	sleep 0.1
done
if ! grep -q "seccomp filter installed" "$tmp/workload.out"; then
	echo "not ok: the workload did not install its first filter within 60 s"
	cat "$tmp/workload.out"
	exit 1
fi

grep -E 'bpf_prog_[0-9a-f]{16}_seccomp' /proc/kallsyms >"$tmp/kallsyms.before"
# perf starts its command once it records: the command lets the workload go.
perf record -a -e cpu-clock -F 2000 -o "$tmp/perf.data" -- \
	sh -c "echo go >$tmp/go; sleep 4" >"$tmp/record.out" 2>&1
exec 3>&-
wait $workload

perf script -i "$tmp/perf.data" --show-bpf-events -F event >"$tmp/script.out" 2>&1
perf report -i "$tmp/perf.data" --stdio --sort sym >"$tmp/report.out" 2>&1

rc=0
expect() {
	local what=$1 file=$2 pattern=$3
	if grep -qE "$pattern" "$file"; then
		echo "ok: $what"
	else
		echo "not ok: $what ($pattern not in $(basename "$file"))"
		rc=1
	fi
}
# Enough samples that each image's share of them is not luck.
samples=$(grep -c 'cpu-clock' "$tmp/script.out")
if [ "$samples" -ge 500 ]; then
	echo "ok: $samples samples"
else
	echo "not ok: $samples samples, fewer than 500"
	rc=1
fi
expect "the first seccomp filter in /proc/kallsyms" "$tmp/kallsyms.before" \
	'bpf_prog_[0-9a-f]{16}_seccomp.*\[bpf\]'
expect "KSYMBOL record of the second seccomp filter" "$tmp/script.out" \
	'PERF_RECORD_KSYMBOL .*name bpf_prog_[0-9a-f]{16}_seccomp'
expect "KSYMBOL record of the socket filter" "$tmp/script.out" \
	'PERF_RECORD_KSYMBOL .*name bpf_prog_[0-9a-f]{16}_sock_filter'
expect "KSYMBOL record of the eBPF program" "$tmp/script.out" \
	'PERF_RECORD_KSYMBOL .*name bpf_prog_[0-9a-f]{16}_bpf_workload'
expect "samples in the second seccomp filter" "$tmp/report.out" 'bpf_prog_[0-9a-f]{16}_seccomp'
expect "samples in the socket filter" "$tmp/report.out" 'bpf_prog_[0-9a-f]{16}_sock_filter'
expect "samples in the eBPF program" "$tmp/report.out" 'bpf_prog_[0-9a-f]{16}_bpf_workload'
if [ $rc != 0 ]; then
	echo "# perf script --show-bpf-events (KSYMBOL lines):"
	grep KSYMBOL "$tmp/script.out" | head -20 | sed 's/^/#   /'
	echo "# perf report --sort sym (top):"
	grep -v '^#' "$tmp/report.out" | grep . | head -20 | sed 's/^/#   /'
fi
exit $rc
