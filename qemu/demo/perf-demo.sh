#!/bin/bash
# The perf part of `make run`, inside the guest: perf-demo.sh KSFT_DIR PERF
# A workload installs a seccomp filter, a classic socket filter, a classic
# SO_REUSEPORT filter and an eBPF program before perf starts, and a second
# set while perf record -a runs; then what the tree's perf (PERF) says of
# them: its KSYMBOL records (those of the first set synthesized by perf
# record from /proc/kallsyms) and perf report.
ksft=$1 perf=$2
tmp=$(mktemp -d)
mkfifo "$tmp/go"
("$ksft/perf_bpf_probe/bpf_workload" 4 <"$tmp/go" >"$tmp/workload.out" 2>&1; touch "$tmp/exited") &
exec 3>"$tmp/go"
for _ in $(seq 100); do
	grep -q "before filters installed" "$tmp/workload.out" && break
	sleep 0.1
done
echo "== BPF JIT images in /proc/kallsyms before perf starts"
grep '\[bpf\]' /proc/kallsyms | sed 's/^/   /'
# perf starts its command once it records: the command lets the workload go.
"$perf" record -a -e cpu-clock -F 1000 -o "$tmp/perf.data" -- \
	sh -c "echo go >$tmp/go; while [ ! -e $tmp/exited ]; do sleep 0.2; done; sleep 1" \
	>/dev/null 2>&1
exec 3>&-
wait
echo
echo "== $("$perf" version) script --show-bpf-events: KSYMBOL records"
"$perf" script -i "$tmp/perf.data" --show-bpf-events -F event 2>/dev/null |
	grep PERF_RECORD_KSYMBOL | sed 's/^ */   /'
echo
echo "== perf report --sort sym: samples in BPF JIT images (/proc/kcore readable)"
"$perf" report -i "$tmp/perf.data" --stdio --sort sym 2>/dev/null |
	awk '/bpf_prog_/ { print "   " $0 }
	     /\[k\] 0x/ { unnamed += $1 }
	     END { printf "   %.2f%% at kernel addresses perf cannot name\n", unnamed }'
rm -rf "$tmp"
