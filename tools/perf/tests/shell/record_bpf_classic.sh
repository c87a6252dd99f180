#!/bin/bash
# perf names the JIT images of classic BPF (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# On a kernel that lists the JIT images of classic BPF in /proc/kallsyms and
# announces them with PERF_RECORD_KSYMBOL, perf names a seccomp filter's
# image ("bpf_prog_<tag>_seccomp", installed by perf test -w seccomp_filter):
#
#  1. one that predates the recording and is gone before the report, by the
#     record perf synthesized when it started;
#  2. perf annotate shows its instructions, from the copy of kcore that
#     perf record --kcore makes, also once it was freed during the recording;
#  3. filters that take its address after the recording, which kallsyms
#     lists when perf report reads /proc/kcore, do not name its samples;
#  4. perf top names one that predates it.

err=0
tmp=$(mktemp -d /tmp/__perf_test.bpf_classic.XXXXX)
min_samples=20
# disassembly format: "percent : offset: instruction (operands ...)"
disasm_regex="[0-9]*\.[0-9]* *: *\w*: *\w*"

# The workloads still running (jobs lists no reaped one)
kill_workloads() {
  local pids

  pids=$(jobs -pr)
  [ -z "${pids}" ] || kill ${pids} 2>/dev/null
}

cleanup() {
  kill_workloads
  wait 2>/dev/null
  rm -rf "${tmp}"
  trap - EXIT TERM INT
}

trap_cleanup() {
  echo "Unexpected signal in ${FUNCNAME[1]}"
  cleanup
  exit 1
}
trap trap_cleanup EXIT TERM INT

# The seccomp filters of /proc/kallsyms, as "address name" lines
seccomp_images() {
  awk '$4 == "[bpf]" && $3 ~ /_seccomp$/ { print $1, $3 }' /proc/kallsyms | sort
}

# start_filter SECONDS INSTRUCTIONS VARIANT: a process under a new seccomp
# filter for SECONDS; sets fpid, and faddr and fname of the filter's image.
# Returns 1 at once if the workload installed no filter, and 2 if kallsyms
# does not list the filter it installed.
start_filter() {
  local before new ready=

  before=$(seccomp_images)
  rm -f "${tmp}/ready"
  mkfifo "${tmp}/ready" || return 1
  perf test -w seccomp_filter "$1" "$2" "$3" >"${tmp}/ready" &
  fpid=$!
  # The workload's line once its filter is installed, or its end
  read -r ready <"${tmp}/ready"
  rm -f "${tmp}/ready"
  [ "${ready}" = "seccomp filter installed" ] || return 1
  new=$(comm -13 <(echo "${before}") <(seccomp_images) | head -1)
  faddr=${new%% *}
  fname=${new##* }
  [ -n "${new}" ] || return 2
}

# wait_gone PID NAME: stop PID, and kallsyms no longer lists NAME
wait_gone() {
  kill "$1"
  wait "$1"
  for _ in $(seq 100); do
    grep -q " $2\b" /proc/kallsyms || return 0
    sleep 0.1
  done
  return 1
}

# samples FILE NAME: how many samples perf report attributes to NAME
samples() {
  awk -v n="$2" '$NF == n { s += $2 } END { print s + 0 }' "$1"
}

# failed CASE REASON
failed() {
  echo "$1 [Failed: $2]"
  err=1
}

# explain REPORT DATA NAME: what perf made of a recording that names too
# few samples NAME
explain() {
  echo "The report's largest entries:"
  sort -k2 -n -r "$1" | head -5
  echo "The recording's KSYMBOL records of $3:"
  perf script -i "$2" --show-bpf-events 2>/dev/null | grep -m 4 "KSYMBOL.* $3\$"
}

report() {
  perf report -i "$1" --stdio --sort sym -F overhead,sample,sym -q "${@:2}" 2>/dev/null
}

test_predating() {
  local name="A filter that predates the recording" a_pid a_name n

  echo "${name}"
  start_filter 600 1000 1 || { failed "${name}" "no filter"; return; }
  a_pid=${fpid}
  a_name=${fname}
  perf record -a -e cpu-clock -o "${tmp}/predating.data" -- sleep 2 2>/dev/null
  wait_gone "${a_pid}" "${a_name}" || { failed "${name}" "${a_name} still listed"; return; }
  report "${tmp}/predating.data" >"${tmp}/predating.report"
  n=$(samples "${tmp}/predating.report" "${a_name}")
  if [ "${n}" -lt "${min_samples}" ]; then
    explain "${tmp}/predating.report" "${tmp}/predating.data" "${a_name}"
    failed "${name}" "${n} samples named ${a_name}"
    return
  fi
  echo "${name} [Success: ${n} samples]"
}

# annotate DATA NAME CASE: perf annotate shows instructions of NAME
annotate() {
  perf annotate -i "$1" --stdio -s "$2" >"${tmp}/annotate.out" 2>&1
  if [ "$(grep -cE "${disasm_regex}" "${tmp}/annotate.out")" -lt 10 ]; then
    head -5 "${tmp}/annotate.out"
    failed "$3" "no instructions"
    return 1
  fi
}

# A filter that outlives the recording, and one freed during it: the copy of
# kcore that perf record made when it started has the code of both.
test_annotate() {
  local name="Annotate a filter from kcore"

  echo "${name}"
  if ! command -v objdump >/dev/null; then
    echo "${name} [Skipped: no objdump]"
    return
  fi
  start_filter 600 1000 2 || { failed "${name}" "no filter"; return; }
  if ! perf record -a --kcore -e cpu-clock -o "${tmp}/kcore.data" -- sleep 2 2>/dev/null; then
    failed "${name}" "perf record --kcore failed"
    return
  fi
  annotate "${tmp}/kcore.data" "${fname}" "${name}" || return
  # The recorded workload frees the filter once it ran for a second, and
  # waits for kallsyms to drop it, for 10 s at most.
  perf record -a --kcore -e cpu-clock -o "${tmp}/freed.data" -- \
    sh -c "sleep 1; kill ${fpid}; for i in \$(seq 100); do
             grep -q ' ${fname}\b' /proc/kallsyms || break; sleep 0.1; done" 2>/dev/null
  annotate "${tmp}/freed.data" "${fname}" "${name} freed while recorded" || return
  echo "${name} [Success]"
}

test_reused_address() {
  local name="Filters at the address of a recorded one"
  local a_pid a_addr a_name others=() n variant other fails=0

  echo "${name}"
  # A larger filter, then smaller ones in the space it leaves
  start_filter 600 2000 3 || { failed "${name}" "no filter"; return; }
  a_pid=${fpid}
  a_addr=${faddr}
  a_name=${fname}
  perf record -a -e cpu-clock -o "${tmp}/reuse.data" -- sleep 2 2>/dev/null
  wait_gone "${a_pid}" "${a_name}" || { failed "${name}" "${a_name} still listed"; return; }
  # Smaller filters in the space A left, once those below are filled: two
  # that start in A's first page.
  for variant in $(seq 4 16); do
    start_filter 60 500 "${variant}" || break
    if [ $((0x${faddr} - 0x${a_addr})) -ge 0 ] && [ $((0x${faddr} - 0x${a_addr})) -lt 4096 ]; then
      others+=("${fname}")
      [ "${#others[@]}" = 2 ] && break
    fi
  done
  if [ "${#others[@]}" != 2 ]; then
    # The allocator put them elsewhere: nothing to check
    echo "${name} [Skipped: ${#others[@]} filters in ${a_addr}'s page]"
    kill_workloads
    return
  fi
  report "${tmp}/reuse.data" --ignore-vmlinux --kallsyms=/proc/kallsyms >"${tmp}/reuse.report"
  kill_workloads
  n=$(samples "${tmp}/reuse.report" "${a_name}")
  if [ "${n}" -lt "${min_samples}" ]; then
    explain "${tmp}/reuse.report" "${tmp}/reuse.data" "${a_name}"
    failed "${name}" "${n} samples named ${a_name}"
    fails=1
  fi
  for other in "${others[@]}"; do
    if [ "$(samples "${tmp}/reuse.report" "${other}")" != 0 ]; then
      failed "${name}" "samples named ${other}"
      fails=1
    fi
  done
  [ "${fails}" = 1 ] || echo "${name} [Success: ${n} samples]"
}

test_top() {
  local name="perf top names a filter that predates it" top_pid

  echo "${name}"
  start_filter 600 1000 14 || { failed "${name}" "no filter"; return; }
  # Its keyboard input stays open, and empty; it runs until it shows the
  # filter, for a minute at most.
  sleep 90 | perf top --stdio -a -e cpu-clock -d 1 --sort sym >"${tmp}/top.out" 2>&1 &
  top_pid=$!
  for _ in $(seq 600); do
    grep -q "${fname}" "${tmp}/top.out" && break
    kill -0 "${top_pid}" 2>/dev/null || break
    sleep 0.1
  done
  kill -INT "${top_pid}" 2>/dev/null
  # The filter and the sleep that feeds perf top: then perf top is done
  kill_workloads
  wait
  if ! grep -q "${fname}" "${tmp}/top.out"; then
    tail -20 "${tmp}/top.out"
    failed "${name}" "${fname} not shown"
    return
  fi
  echo "${name} [Success]"
}

if [ "$(id -u)" != 0 ]; then
  echo "perf names the JIT images of classic BPF [Skipped: not root]"
  trap - EXIT TERM INT
  rm -rf "${tmp}"
  exit 2
fi
start_filter 60 10 0
case $? in
1)
  echo "perf names the JIT images of classic BPF [Failed: perf test -w seccomp_filter]"
  cleanup
  exit 1
  ;;
2)
  echo "perf names the JIT images of classic BPF [Skipped: no seccomp filter in /proc/kallsyms]"
  cleanup
  exit 2
  ;;
esac
kill "${fpid}"
wait "${fpid}"
if [ $((0x${faddr})) = 0 ]; then
  echo "perf names the JIT images of classic BPF [Skipped: /proc/kallsyms shows no addresses]"
  cleanup
  exit 2
fi

test_predating
test_annotate
test_reused_address
test_top

cleanup
exit "${err}"
