#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The verdict fails every run that does not prove what it claims.

A small good run (two kselftest programs, one KUnit case) must pass; each
mutation of it (a case missing, a case not listed, an unexpected skip, a
KUnit ERROR, a plan that does not match, the guest cut short or dead in
its boot, a non-zero
status of the VM, of kunit.py or of a guest program, an expected failure
that passes, an expected skip that runs, a kernel report, a leak) must
fail, with the reason it prints.  make perf-test's verdict passes the
differences qemu/expect/perf-test lists and fails any other.  Run by
`make lint`.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = """A:p:one
A:p:two
A:p:flaky
A:p:skipped
A:script.sh
kunit:s.k1
kunit:s.k2
"""
EXPECT = """fail A:p:flaky  fails under emulation
skip A:p:skipped  needs hardware
"""
KTAP = """TAP version 13
1..2
# selftests: A: p
# TAP version 13
# 1..4
# ok 1 one
# ok 2 two
# not ok 3 flaky
# ok 4 skipped # SKIP no hardware
# # Totals: pass:2 fail:1 xfail:0 xpass:0 skip:1 error:0
not ok 1 selftests: A: p # exit=1
# selftests: A: script.sh
# ok: it works
ok 2 selftests: A: script.sh
"""
KUNIT = {"name": "KUnit Test Group", "test_cases": [], "sub_groups": [
    {"name": "s", "sub_groups": [], "test_cases": [
        {"name": "k1", "status": "PASS"}, {"name": "k2", "status": "PASS"}]}]}
INFO = "guest kernel: 6.12\nrun_kselftest.sh exited 0\n"
CONSOLE = "[    0.000000] Linux version 6.12\n[    1.000000] Run /init as init process\n"
# Linux 7.3's own doctest on the debug kernel (qemu/verdict.py KNOWN_REPORTS).
ODEBUG_HRTIMER = """\
[   24.0] ODEBUG: object 000000004621aaf3 is on stack 00000000f5e80fb6, but NOT annotated.
[   24.0] ------------[ cut here ]------------
[   24.0] WARNING: lib/debugobjects.c:672 at debug_object_is_on_stack+0x90/0xa0, CPU#0: k/724
[   24.0] Call Trace:
[   24.0]  <TASK>
[   24.0]  __debug_object_init+0x74/0x1c0
[   24.0]  hrtimer_setup+0x22/0xd0
[   24.0]  rust_doctest_kernel_time_hrtimer_rs_1+0x44/0xa8
[   24.0]  kunit_try_run_case+0x113/0x330
[   24.0]  </TASK>
[   24.0] ---[ end trace 0000000000000000 ]---
"""


def run(d, ktap=KTAP, kunit=None, info=INFO, console=CONSOLE, expect=EXPECT, cases=CASES,
        extra=(), kmemleak=None):
    files = {"ktap": ktap, "kunit.json": json.dumps(kunit or KUNIT), "info": info,
             "console": console, "expect": expect, "cases": cases,
             "kmemleak": kmemleak or ""}
    for name, text in files.items():
        if text is None:  # a file the run did not write
            if os.path.exists(os.path.join(d, name)):
                os.remove(os.path.join(d, name))
            continue
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    args = [sys.executable, os.path.join(HERE, "verdict.py"),
            "--ktap", f"{d}/ktap", "--kunit-json", f"{d}/kunit.json",
            "--guest-info", f"{d}/info", "--console", f"{d}/console",
            "--cases", f"{d}/cases", "--expected", f"{d}/expect",
            "--require-exit", "run_kselftest.sh", *extra]
    if kmemleak is not None:
        args += ["--kmemleak", f"{d}/kmemleak"]
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, p.stdout


def kunit_with(status):
    k = json.loads(json.dumps(KUNIT))
    k["sub_groups"][0]["test_cases"][1]["status"] = status
    return k


PERF_OUT = """ 1: vmlinux symtab matches kallsyms                               : Ok
 2: Number of exit events of a simple workload                      : Ok
 3: perf names the JIT images of classic BPF                        : Skip
"""
PERF_EXPECT = """perf names the JIT images of classic BPF  skips on stock
flaky Number of exit events of a simple workload  fails in some runs on both
"""


def with_result(out, desc, status):
    """`perf test` output OUT with test DESC's result changed to STATUS."""
    return "".join(re.sub(r": \S+$", f": {status}", line) if desc in line else line
                   for line in out.splitlines(keepends=True))


def perf_test_checks(d):
    """make perf-test's verdict: listed differences pass, others fail."""
    patched = with_result(PERF_OUT, "classic BPF", "Ok")
    checks = [
        ("the listed difference", patched, 0, "perf-test: OK"),
        ("a flaky test failed on one kernel",
         with_result(patched, "exit events", "FAILED!"),
         0, "differs (flaky): Number of exit events"),
        ("a test failed on one kernel only",
         with_result(patched, "symtab", "FAILED!"),
         1, "differs (UNEXPECTED): vmlinux symtab matches kallsyms"),
        ("a listed difference did not differ", PERF_OUT, 1,
         "expected to differ, did not: perf names the JIT images"),
    ]
    files = {"expect": PERF_EXPECT, "stock": PERF_OUT, "console": CONSOLE}
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    failed = 0
    for what, out_patched, want, reason in checks:
        with open(os.path.join(d, "patched"), "w") as f:
            f.write(out_patched)
        p = subprocess.run([sys.executable, os.path.join(HERE, "perf_test_verdict.py"),
                            f"{d}/expect", "stock", f"{d}/stock", "patched", f"{d}/patched",
                            f"{d}/console"], capture_output=True, text=True)
        if p.returncode == want and reason in p.stdout:
            print(f"ok: perf-test verdict exits {want} for {what}")
        else:
            print(f"not ok: perf-test verdict for {what} (exit {p.returncode}):\n{p.stdout}")
            failed += 1
    return failed


def main():
    checks = [
        ("a listed case did not run", {"ktap": KTAP.replace("# ok 2 two\n", "")
                                       .replace("# 1..4", "# 1..3")}, "A:p:two did not run"),
        ("a case ran that is not listed", {"cases": CASES.replace("A:p:one\n", "")},
         "NEW   A:p:one"),
        ("an unexpected skip", {"ktap": KTAP.replace("# ok 1 one", "# ok 1 one # SKIP no PMU")},
         "SKIP! A:p:one"),
        ("a whole program skipped", {"ktap": KTAP.replace(
            "ok 2 selftests: A: script.sh", "ok 2 selftests: A: script.sh # SKIP no tool")},
         "SKIP! A:script.sh"),
        ("a KUnit case crashed", {"kunit": kunit_with("ERROR")}, "FAIL  kunit:s.k2"),
        ("a KUnit case is missing", {"kunit": {"name": "KUnit Test Group", "test_cases": [],
                                               "sub_groups": []}}, "kunit:s.k1 did not run"),
        ("a sub-plan does not match", {"ktap": KTAP.replace("# 1..4", "# 1..5")},
         "planned 5 cases, reported 4"),
        ("the top-level plan does not match", {"ktap": KTAP.replace("\n1..2\n", "\n1..3\n")},
         "the plan said 3 programs, 2 reported"),
        ("the guest was cut short", {"ktap": KTAP.split("# ok 3")[0],
                                     "info": "guest kernel: 6.12\n"},
         "no 'run_kselftest.sh exited 0'"),
        ("the runner failed", {"info": INFO.replace("exited 0", "exited 2")},
         "guest: run_kselftest.sh exited 2"),
        ("the runner failed with every program ok",
         {"ktap": KTAP.replace("# not ok 3 flaky", "# ok 3 flaky")
          .replace("not ok 1 selftests", "ok 1 selftests"),
          "expect": EXPECT.replace("fail A:p:flaky", "flaky A:p:flaky"),
          "info": INFO.replace("exited 0", "exited 1")},
         "guest: run_kselftest.sh exited 1"),
        ("the VM timed out", {"extra": ["--vm-status", "124"]}, "the VM exited 124"),
        ("kunit.py failed", {"extra": ["--kunit-status", "1"]}, "kunit.py parse exited 1"),
        ("an expected failure passed", {"ktap": KTAP.replace("# not ok 3 flaky", "# ok 3 flaky")
                                        .replace("not ok 1 selftests", "ok 1 selftests")},
         "XPASS A:p:flaky"),
        ("an expected skip ran", {"ktap": KTAP.replace("# ok 4 skipped # SKIP no hardware",
                                                       "# ok 4 skipped")},
         "expected to skip"),
        ("an expectation names no listed case", {"expect": EXPECT + "skip A:p:gone  gone\n"},
         "expectation for A:p:gone"),
        ("a program timed out after an expected failure",
         {"ktap": KTAP.replace("not ok 1 selftests: A: p # exit=1",
                               "not ok 1 selftests: A: p # TIMEOUT 300 seconds")},
         "FAIL  A:p"),
        ("a program crashed after its cases", {"ktap": KTAP.replace(
            "# # Totals: pass:2 fail:1 xfail:0 xpass:0 skip:1 error:0\n", "")}, "FAIL  A:p"),
        ("a case reported XFAIL by its exit code",
         {"ktap": KTAP.replace("# ok 2 two", "# ok 2 two # XFAIL exit 2")}, "FAIL  A:p:two"),
        ("a case is reported twice", {"ktap": KTAP.replace("# ok 2 two", "# ok 2 two\n# ok 2 two")
                                      .replace("# 1..4", "# 1..5")}, "A:p:two reported twice"),
        ("an absent case ran", {"expect": EXPECT + "absent kunit:s.k2  not built\n"},
         "should not exist here"),
        ("a pattern's case ran", {"expect": EXPECT + "absent kunit:s.*  no KUnit here\n"},
         "should not exist here"),
        ("a pattern matches nothing", {"expect": EXPECT + "skip A:q:*  gone\n"},
         "matches no listed case"),
        ("two expectations for one case", {"expect": EXPECT + "flaky A:p:flaky  twice\n"},
         "a second expectation for A:p:flaky"),
        ("a kernel report", {"console": CONSOLE + "[    9.000000] BUG: KASAN: use-after-free\n"},
         "BUG: KASAN"),
        ("the known report's warning comes from elsewhere",
         {"console": CONSOLE + ODEBUG_HRTIMER.replace("rust_doctest_kernel_time_hrtimer_rs_1",
                                                      "perf_pmu_free")},
         "WARNING: lib/debugobjects.c"),
        ("another CPU's report inside the known one",
         {"console": CONSOLE + ODEBUG_HRTIMER.replace(
             "[   24.0]  hrtimer_setup",
             "[   24.0] BUG: KASAN: slab-use-after-free in perf_pmu_free\n[   24.0]  hrtimer_setup")},
         "BUG: KASAN"),
        ("a report follows the known one", {"console": CONSOLE + ODEBUG_HRTIMER
                                            + "[   25.0] BUG: KASAN: slab-use-after-free\n"},
         "BUG: KASAN"),
        ("a leak", {"kmemleak": "unreferenced object 0xffff8880 (size 64):\n"},
         "kmemleak: unreferenced object"),
        ("the guest died in its boot",
         {"info": None, "ktap": "", "extra": ["--vm-status", "1"],
          "console": CONSOLE.split("[    1.0")[0]
          + "[    0.500000] Kernel panic - not syncing: IO-APIC + timer doesn't work!\n"},
         "BOOT  the guest died before the tests started (the VM exited 1)\n"
         "      the console's last lines"),
    ]
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        rc, out = run(d, console=CONSOLE + ODEBUG_HRTIMER)
        if rc != 0 or "NOTE  a known upstream report left out: Linux 7.3's doctests" not in out:
            print(f"not ok: the known upstream hrtimer report fails the run or is not named:\n{out}")
            failed += 1
        else:
            print("ok: the known upstream hrtimer report is named and fails nothing")
        rc, out = run(d)
        if rc != 0 or not out.rstrip().endswith("5 passed, 0 failed, 2 skipped"):
            print(f"not ok: the good run does not pass:\n{out}")
            failed += 1
        else:
            print("ok: the good run passes (5 passed, 0 failed, 2 skipped)")
        rc, out = run(d, extra=["--note", "base: tested on X, building on Y"])
        if rc != 0 or not out.rstrip().endswith(
                "NOTE  base: tested on X, building on Y\n5 passed, 0 failed, 2 skipped"):
            print(f"not ok: a note fails the run or is not before the last line:\n{out}")
            failed += 1
        else:
            print("ok: a note is shown before the last line and fails nothing")
        for what, change, reason in checks:
            rc, out = run(d, **change)
            if rc == 1 and reason in out:
                print(f"ok: fails when {what}")
            else:
                print(f"not ok: does not fail with '{reason}' when {what} (exit {rc}):\n{out}")
                failed += 1
    with tempfile.TemporaryDirectory() as d:
        failed += perf_test_checks(d)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
