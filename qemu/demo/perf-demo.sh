#!/bin/bash
# The perf part of `make run`, inside the guest: perf-demo.sh KSFT_DIR
# A workload keeps a seccomp filter (installed before perf starts), a second
# seccomp filter, a classic socket filter and an eBPF program hot while
# `perf record -a` runs; then what perf script and perf report say of them.
ksft=$1
tmp=$(mktemp -d)
mkfifo "$tmp/go"
"$ksft/perf_bpf_probe/bpf_workload" 6 <"$tmp/go" >"$tmp/workload.out" 2>&1 &
exec 3>"$tmp/go"
sleep 1
echo "== BPF JIT images in /proc/kallsyms before perf starts"
grep '\[bpf\]' /proc/kallsyms | sed 's/^/   /'
perf record -a -e cpu-clock -F 2000 -o "$tmp/perf.data" -- sleep 4 >/dev/null 2>&1 &
record=$!
sleep 1
echo go >&3
exec 3>&-
wait $record
wait
echo
echo "== perf script --show-bpf-events: KSYMBOL records"
perf script -i "$tmp/perf.data" --show-bpf-events -F event 2>/dev/null |
	grep PERF_RECORD_KSYMBOL | sed 's/^ */   /'
echo
echo "== perf report --sort sym: BPF symbols and unknown kernel addresses"
perf report -i "$tmp/perf.data" --stdio --sort sym 2>/dev/null |
	grep -E 'bpf_prog_|\[unknown\]|\[k\] 0x' | sed 's/^ */   /'
rm -rf "$tmp"
