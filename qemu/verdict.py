#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one test boot into a verdict.

Reads the KTAP that run_kselftest.sh wrote, the KUnit results that
tools/testing/kunit/kunit.py parsed from the console (JSON), the guest's
notes and the console log.  Prints every test case, what went wrong, and a
last line "N passed, N failed, N skipped".  Exits 1 when anything failed.

What must run is committed: qemu/expect/cases names every test case (the
kselftest cases and the KUnit cases, the Rust doctests by name), and the
expectation files (qemu/expect/all, plus one per kernel) say, one line each,
"KIND CASE REASON" where KIND is

  fail    the case must fail here (reported XFAIL, counted as skipped; if it
          passes, that is XPASS and a failure, so the list cannot go stale)
  flaky   the case may pass or fail (a failure is reported XFAIL)
  skip    the case must report SKIP here
  absent  the case does not exist on this kernel (it must not run)

A CASE with a "*" applies to every listed case it matches (fnmatch), and must
match one.

Anything else fails the run: a listed case that did not run, a case that ran
but is not listed, a SKIP that is not expected, a KUnit case that crashed
(ERROR), a KTAP plan that does not match the results, a guest program that
did not report "exited 0", a non-zero status of the VM or of kunit.py, and
any kernel report on the console.

A guest that died before its test script started (no guest notes) is one
failure, "the guest died before the tests started", shown with the
console's last lines, not a list of cases that did not run.  --note adds
a line (NOTE) before the last one: a finding of the run that fails nothing,
such as a kernel source that is not the series' tested base.
"""
import argparse
import fnmatch
import json
import os
import re
import sys

SPLAT = re.compile(r"BUG:|WARNING:|Oops|KASAN|UBSAN|Call Trace:|"
                   r"possible recursive locking|circular locking dependency|"
                   r"hung_task|blocked for more than|Kernel panic")
TOP = re.compile(r"^(not )?ok \d+ selftests: (\S+): (\S+)(.*)$")
SUB = re.compile(r"^# (not )?ok \d+ (\S+)(.*)$")
TOP_PLAN = re.compile(r"^1\.\.(\d+)$")
SUB_PLAN = re.compile(r"^# 1\.\.(\d+)$")
KINDS = ("fail", "flaky", "skip", "absent")


def read_list(path):
    """The non-comment lines of a file, split in words."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if line:
                yield n, line.split(None, 2)


def load_expectations(paths, problems):
    """{case: (kind, reason)}"""
    expected = {}
    for path in paths:
        for n, words in read_list(path):
            if len(words) < 3 or words[0] not in KINDS:
                problems.append(f"{path}:{n}: not 'KIND CASE REASON' with KIND one of "
                                f"{', '.join(KINDS)}")
                continue
            if words[1] in expected:
                problems.append(f"{path}:{n}: a second expectation for {words[1]}")
            expected[words[1]] = (words[0], words[2])
    return expected


def expand_patterns(expected, listed, problems):
    """Expectations whose CASE has a '*' apply to every listed case it matches."""
    out = {}
    for name, exp in expected.items():
        names = fnmatch.filter(listed, name) if "*" in name else [name]
        if not names:
            problems.append(f"expectation for {name}, which matches no listed case")
        for n in names:
            if n in out:
                problems.append(f"a second expectation for {n}")
            out[n] = exp
    return out


def status(not_ok, rest):
    if re.search(r"#\s*SKIP", rest, re.I):
        return "SKIP"
    # The harness reports XFAIL/XPASS for a test that exited 2 or 3: what is
    # expected to fail is said in qemu/expect/, not by a test's exit code.
    if re.search(r"#\s*(XFAIL|XPASS|TIMEOUT)", rest, re.I):
        return "FAIL"
    return "FAIL" if not_ok else "PASS"


def kselftest_cases(path, problems):
    """Yield (name, status) for each test case, or each program without any.

    Checks the plans: each "1..N" of run_kselftest.sh must be followed by N
    programs, each program's "# 1..M" by M cases.
    """
    pending, sub_plan, top_plan, top_seen, totals = [], None, None, 0, None

    def close_top():
        if top_plan is not None and top_plan != top_seen:
            problems.append(f"KTAP: the plan said {top_plan} programs, {top_seen} reported")

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = TOP_PLAN.match(line)
            if m:
                close_top()
                top_plan, top_seen = int(m.group(1)), 0
                continue
            m = SUB_PLAN.match(line)
            if m:
                sub_plan = int(m.group(1))
                continue
            m = re.match(r"^# # Totals: pass:\d+ fail:(\d+)", line)
            if m:
                totals = int(m.group(1))
                continue
            m = SUB.match(line)
            if m:
                pending.append((m.group(2), status(m.group(1), m.group(3))))
                continue
            m = TOP.match(line)
            if not m:
                continue
            top_seen += 1
            prog = f"{m.group(2)}:{m.group(3)}"
            prog_status = status(m.group(1), m.group(4))
            if sub_plan is not None and sub_plan != len(pending):
                problems.append(f"KTAP: {prog} planned {sub_plan} cases, "
                                f"reported {len(pending)}")
            for name, st in pending:
                yield f"{prog}:{name}", st
            # A program that failed for more than its failed cases (a
            # timeout, a crash after its last case, no totals, a non-zero exit
            # with every case passing) is a failure of its own.
            own = prog_status == "FAIL" and (
                re.search(r"#\s*TIMEOUT", m.group(4), re.I) or not totals or
                all(st != "FAIL" for _, st in pending))
            if not pending or own:
                yield prog, prog_status
            pending, sub_plan, totals = [], None, None
    if pending:
        problems.append(f"KTAP: {len(pending)} cases after the last program's result "
                        "(the run was cut short)")
    close_top()
    if top_plan is None:
        problems.append("KTAP: no plan (run_kselftest.sh did not start)")


KUNIT_STATUS = {"PASS": "PASS", "SKIP": "SKIP", "FAIL": "FAIL"}


def kunit_cases(group, prefix=""):
    name = group.get("name", "")
    here = prefix + name + "." if name and name != "KUnit Test Group" else prefix
    for case in group.get("test_cases", []):
        # ERROR (a crashed case) and anything else kunit.py reports is a failure.
        yield "kunit:" + here + case["name"], KUNIT_STATUS.get(case["status"], "FAIL")
    for sub in group.get("sub_groups", []):
        yield from kunit_cases(sub, here)


# Reports of upstream code that the series does not touch: the line that
# starts one (it has "BUG:" in "ODEBUG:"), a frame its call trace must have,
# its other report lines, and why it is upstream's.  A report is dropped
# only whole (its first line to "---[ end trace") and only with that frame;
# a report line of another kind inside it (another CPU's) still counts.  The
# verdict names each report it drops.
KNOWN_REPORTS = [
    (re.compile(r"ODEBUG: object \S+ is on stack \S+, but NOT annotated\."),
     re.compile(r"^\s*rust_doctest_kernel_time_hrtimer_rs_\d+\+"),
     re.compile(r"WARNING: lib/debugobjects\.c:\d+ at debug_object_is_on_stack\+|"
                r"Call Trace:"),
     "Linux 7.3's doctests of rust/kernel/time/hrtimer.rs (lines 245 and 315) "
     "put an HrTimer on the stack, which HrTimer::new() sets up with "
     "hrtimer_setup(), not hrtimer_setup_on_stack(): DEBUG_OBJECTS_TIMERS "
     "warns on the stock kernel too"),
]
END_TRACE = re.compile(r"---\[ end trace ")


def untimed(line):
    """A console line without its timestamp and line end."""
    return re.sub(r"^\[[ 0-9.]+\] ", "", line.rstrip())


def kernel_lines(lines, known):
    """The lines of a log but the known upstream reports among them.

    Each dropped report's reason is added to the set KNOWN.
    """
    block, rule = [], None
    for line in lines:
        if rule is None:
            rule = next((r for r in KNOWN_REPORTS if r[0].search(line)), None)
            if rule is None:
                yield line
                continue
        block.append(line)
        ended = END_TRACE.search(line)
        if not ended and len(block) < 200:
            continue
        if ended and any(rule[1].search(untimed(b)) for b in block):
            known.add(rule[3])
            yield from (b for b in block if SPLAT.search(b)
                        and not rule[0].search(b) and not rule[2].search(b))
        else:
            yield from block
        block, rule = [], None
    yield from block


def splats(args, known=None):
    """The kernel reports on the console and, at the end of the run, in dmesg.

    A fuzzer's output interleaved with the console can hide the first line of
    a report: the kernel's log read at the end of the run has it whole.  The
    known upstream reports (KNOWN_REPORTS) are left out; their reasons are
    added to the set KNOWN.
    """
    found, seen = [], set()
    known = set() if known is None else known
    for label, path in (("console", args.console), ("dmesg", args.dmesg)):
        if not path:
            continue
        try:
            with open(path, errors="replace") as f:
                for line in kernel_lines(f, known):
                    text = untimed(line)
                    if SPLAT.search(line) and text not in seen:
                        seen.add(text)
                        found.append(f"{label}: {line.rstrip()}")
        except OSError as e:
            if label == "console":
                found.append(f"no console log: {e}")
    return found


def console_reports(paths):
    """"PATH: LINE" for each kernel report in the console logs PATHS."""
    for path in paths:
        with open(path, errors="replace") as f:
            for line in kernel_lines(f, set()):
                if SPLAT.search(line):
                    yield f"{path}: {line.rstrip()}"


def ktap_program_failed(path):
    """Whether the KTAP of run_kselftest.sh has a program that is "not ok"."""
    try:
        with open(path, errors="replace") as f:
            return any(line.startswith("not ok ") for line in f)
    except (OSError, TypeError):
        return False


def guest_notes(args, problems):
    """Every 'X exited N' line must say 0, and every required X must be there.

    run_kselftest.sh of 7.3 exits 1 when a program failed (6.12's exits 0):
    that is its exit when the KTAP has a program that is "not ok", whose
    cases the verdict judges one by one.
    """
    exited = {}
    try:
        with open(args.guest_info, errors="replace") as f:
            for line in f:
                m = re.match(r"(.*) exited (\d+)$", line.strip())
                if m:
                    exited[m.group(1)] = m.group(2)
                    if (m.group(1), m.group(2)) == ("run_kselftest.sh", "1") and \
                            ktap_program_failed(args.ktap):
                        continue
                    if m.group(2) != "0":
                        problems.append(f"guest: {line.strip()}")
    except OSError as e:
        problems.append(f"no guest notes: {e}")
    for prog in args.require_exit or []:
        if prog not in exited:
            problems.append(f"guest: no '{prog} exited 0' (the guest did not get there)")


def boot_failed(args):
    """Report a guest that never reached its test script; return 1."""
    print("BOOT  the guest died before the tests started"
          + (f" (the VM exited {args.vm_status}"
             + (", killed: timeout" if args.vm_status == 124 else "") + ")"
             if args.vm_status else ""))
    try:
        with open(args.console, errors="replace") as f:
            tail = f.read().splitlines()[-25:]
    except OSError as e:
        tail = [f"no console log: {e}"]
    print(f"      the console's last lines ({args.console}):")
    for line in tail:
        print(f"      | {line}")
    reports = splats(args)
    for p in reports:
        print(f"FAIL  {p}")
    for note in args.note or []:
        print(f"NOTE  {note}")
    print(f"0 passed, {1 + len(reports)} failed, 0 skipped")
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ktap")
    ap.add_argument("--kunit-json")
    ap.add_argument("--kunit-status", type=int, default=0,
                    help="kunit.py parse's exit status")
    ap.add_argument("--vm-status", type=int, default=0, help="vm.sh's exit status")
    ap.add_argument("--console", required=True)
    ap.add_argument("--cases", action="append",
                    help="every test case that must run (qemu/expect/cases and the "
                    "base's cases-BASE); may be given more than once")
    ap.add_argument("--expected", action="append",
                    help="an expectation file (may be given more than once)")
    ap.add_argument("--splats-only", action="store_true",
                    help="only scan the console and dmesg for kernel reports")
    ap.add_argument("--kmemleak", help="kmemleak's report after the run (debug kernel)")
    ap.add_argument("--dmesg", help="the guest's dmesg at the end of the run")
    ap.add_argument("--guest-info", help="the guest's notes: every 'X exited N' must say 0")
    ap.add_argument("--require-exit", action="append",
                    help="a guest program whose 'exited 0' must be in the notes")
    ap.add_argument("--note", action="append",
                    help="a finding printed before the last line; fails nothing")
    args = ap.parse_args()
    if args.splats_only:
        problems = splats(args)
        for p in problems:
            print(f"FAIL  {p}")
        return 1 if problems else 0
    if not (args.ktap and args.kunit_json and args.cases and args.guest_info):
        ap.error("--ktap, --kunit-json, --cases and --guest-info are required")
    if not os.path.exists(args.guest_info):
        return boot_failed(args)

    problems = []
    expected = load_expectations(args.expected or [], problems)
    listed = [words[0] for path in args.cases for _, words in read_list(path)]
    expected = expand_patterns(expected, listed, problems)
    for name in expected:
        if name not in listed:
            problems.append(f"expectation for {name}, which is not in {' '.join(args.cases)}")

    cases = []
    try:
        cases += list(kselftest_cases(args.ktap, problems))
    except OSError as e:
        problems.append(f"no kselftest results: {e}")
    try:
        with open(args.kunit_json) as f:
            cases += list(kunit_cases(json.load(f)))
    except (OSError, ValueError) as e:
        problems.append(f"no KUnit results: {e}")
    if args.kunit_status:
        problems.append(f"kunit.py parse exited {args.kunit_status}")
    if args.vm_status:
        problems.append(f"the VM exited {args.vm_status}"
                        + (" (killed: timeout)" if args.vm_status == 124 else ""))

    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    ran = {}
    for name, st in cases:
        if name in ran:
            problems.append(f"{name} reported twice")
        ran[name] = st
        kind, reason = expected.get(name, (None, ""))
        label = st
        if name not in listed:
            label = "FAIL" if st == "FAIL" else "NEW"
            st, reason = "FAIL", f"not in {' '.join(args.cases)}"
        elif kind == "absent":
            st, label = "FAIL", st + "!"
            reason = "should not exist here: " + reason
        elif kind == "skip":
            if st != "SKIP":
                st, label = "FAIL", st + "!"
                reason = "expected to skip: " + reason
        elif st == "SKIP":
            st, label = "FAIL", "SKIP!"
            reason = "a skip that is not expected"
        elif kind in ("fail", "flaky") and st == "FAIL":
            st, label = "SKIP", "XFAIL"
        elif kind == "fail" and st == "PASS":
            st, label = "FAIL", "XPASS"
        counts[st] += 1
        print(f"{label:5} {name}" + (f"  ({reason})" if reason else ""))

    for name in listed:
        if name in ran:
            continue
        kind, reason = expected.get(name, (None, ""))
        if kind == "absent":
            print(f"ABSENT {name}  ({reason})")
            counts["SKIP"] += 1
        else:
            problems.append(f"{name} did not run")

    known = set()
    problems += splats(args, known)
    guest_notes(args, problems)
    if args.kmemleak:
        try:
            with open(args.kmemleak, errors="replace") as f:
                leaks = [line.strip() for line in f if line.startswith("unreferenced object")]
        except OSError as e:
            leaks = [f"no kmemleak report: {e}"]
        for line in leaks:
            problems.append(f"kmemleak: {line}")

    for p in problems:
        print(f"FAIL  {p}")
    counts["FAIL"] += len(problems)
    for note in args.note or []:
        print(f"NOTE  {note}")
    for reason in sorted(known):
        print(f"NOTE  a known upstream report left out: {reason}")
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
