#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one test boot into a verdict.

Reads the KTAP that run_kselftest.sh wrote, the KUnit results that
tools/testing/kunit/kunit.py parsed from the console (JSON), and the console
log itself.  Prints every test case, the console splats, and a last line
"N passed, N failed, N skipped".  Exits 1 when anything failed.

An upstream test case that cannot pass under emulation is listed, with the
reason, in qemu/expected-failures: its failure is reported as XFAIL and
counted as skipped; if it passes, that is reported as XPASS and counted as a
failure, so the list cannot go stale.  A case listed as ~name (the debug
kernel's upstream tests that may time out) may pass or fail.
"""
import argparse
import json
import re
import sys

SPLAT = re.compile(r"BUG:|WARNING:|Oops|KASAN|UBSAN|Call Trace:|"
                   r"possible recursive locking|circular locking dependency|"
                   r"hung_task|blocked for more than|Kernel panic")
TOP = re.compile(r"^(not )?ok \d+ selftests: (\S+): (\S+)(.*)$")
SUB = re.compile(r"^# (not )?ok \d+ (\S+)(.*)$")


def load_expected(paths):
    """{case: (reason, may_pass)}; a name written ~name may pass or fail."""
    expected = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    name, _, reason = line.partition(" ")
                    may_pass = name.startswith("~")
                    expected[name.lstrip("~")] = (reason.strip(), may_pass)
    return expected


def status(not_ok, rest):
    if re.search(r"#\s*SKIP", rest, re.I):
        return "SKIP"
    return "FAIL" if not_ok else "PASS"


def kselftest_cases(path):
    """Yield (name, status) for each test case, or each program without any."""
    pending = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = SUB.match(line)
            if m:
                pending.append((m.group(2), status(m.group(1), m.group(3))))
                continue
            m = TOP.match(line)
            if not m:
                continue
            prog = f"{m.group(2)}:{m.group(3)}"
            prog_status = status(m.group(1), m.group(4))
            for name, st in pending:
                yield f"{prog}:{name}", st
            # A program that failed though none of its cases did (a timeout,
            # a crash, a non-zero exit) is a failure of its own.
            if not pending or (prog_status == "FAIL" and
                               all(st != "FAIL" for _, st in pending)):
                yield prog, prog_status
            pending = []


def kunit_cases(group, prefix=""):
    name = group.get("name", "")
    here = prefix + name + "." if name and name != "KUnit Test Group" else prefix
    for case in group.get("test_cases", []):
        yield "kunit:" + here + case["name"], case["status"]
    for sub in group.get("sub_groups", []):
        yield from kunit_cases(sub, here)


def splats(args):
    """The kernel reports on the console and, at the end of the run, in dmesg.

    A fuzzer's output interleaved with the console can hide the first line of
    a report: the kernel's log read at the end of the run has it whole.
    """
    found, seen = [], set()
    for label, path in (("console", args.console), ("dmesg", args.dmesg)):
        if not path:
            continue
        try:
            with open(path, errors="replace") as f:
                for line in f:
                    text = re.sub(r"^\[[ 0-9.]+\] ", "", line.rstrip())
                    if SPLAT.search(line) and text not in seen:
                        seen.add(text)
                        found.append(f"{label}: {line.rstrip()}")
        except OSError as e:
            if label == "console":
                found.append(f"no console log: {e}")
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ktap")
    ap.add_argument("--kunit-json")
    ap.add_argument("--console", required=True)
    ap.add_argument("--expected", action="append",
                    help="a list of expected failures (may be given more than once)")
    ap.add_argument("--splats-only", action="store_true",
                    help="only scan the console and dmesg for kernel reports")
    ap.add_argument("--kmemleak", help="kmemleak's report after the run (debug kernel)")
    ap.add_argument("--dmesg", help="the guest's dmesg at the end of the run")
    ap.add_argument("--guest-info", help="the guest's notes: every 'X exited N' must say 0")
    ap.add_argument("--min-kunit", type=int, default=1,
                    help="fewer KUnit cases than this is a failure")
    args = ap.parse_args()
    if args.splats_only:
        problems = splats(args)
        for p in problems:
            print(f"FAIL  {p}")
        return 1 if problems else 0
    if not (args.ktap and args.kunit_json and args.expected):
        ap.error("--ktap, --kunit-json and --expected are required")

    expected = load_expected(args.expected)
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    problems = []

    cases = []
    try:
        cases += list(kselftest_cases(args.ktap))
    except OSError as e:
        problems.append(f"no kselftest results: {e}")
    if not cases:
        problems.append("the guest ran no kselftest (did it boot?)")
    try:
        with open(args.kunit_json) as f:
            kunit = list(kunit_cases(json.load(f)))
    except (OSError, ValueError) as e:
        kunit = []
        problems.append(f"no KUnit results: {e}")
    if len(kunit) < args.min_kunit:
        problems.append(f"{len(kunit)} KUnit cases ran, expected at least {args.min_kunit}")
    cases += kunit

    for name, st in cases:
        label = st
        if name in expected:
            if st == "FAIL":
                st, label = "SKIP", "XFAIL"
            elif st == "PASS" and not expected[name][1]:
                st, label = "FAIL", "XPASS"
        counts[st] += 1
        note = f"  ({expected[name][0]})" if name in expected else ""
        print(f"{label:5} {name}{note}")

    problems += splats(args)
    if args.guest_info:
        try:
            with open(args.guest_info, errors="replace") as f:
                for line in f:
                    m = re.match(r"(.*) exited (\d+)$", line.strip())
                    if m and m.group(2) != "0":
                        problems.append(f"guest: {line.strip()}")
        except OSError as e:
            problems.append(f"no guest notes: {e}")

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
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
