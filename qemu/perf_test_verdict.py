#!/usr/bin/env python3
"""Compare `perf test` results of two kernels (make perf-test).

usage: perf_test_verdict.py EXPECT KIND1 OUT1 KIND2 OUT2 CONSOLE...

Prints each kernel's counts, then the tests and subtests whose result
differs between the kernels.  Exits 1 if one differs that EXPECT does not
list (a test's description, "suite / case" for a subtest, then two spaces
and the reason), if EXPECT lists one that does not differ, or if a console
shows a kernel report.  A line "flaky NAME  reason" of EXPECT names a test
that passes in some runs and fails in others on both kernels: it may differ
or not.
"""
import re
import sys

from verdict import console_reports

# " 52: KSYMBOL records in the kernel maps    :" and
# " 52.1: Images in the kernel's main map     : Ok"
LINE = re.compile(r"^\s*(\d+)(?:\.(\d+))?: (.*?)\s*:(?: (Ok|FAILED!|Skip.*))?$")


def results(path):
    """{name: status}, "suite / case" for subtests, status Ok, FAILED! or Skip."""
    out, suites = {}, {}
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line.rstrip())
            if not m:
                continue
            num, sub, desc, status = m.groups()
            if sub is None:
                suites[num] = desc
                name = desc
            else:
                name = f"{suites.get(num, num)} / {desc}"
            if status and not status.startswith("Running"):
                out[name] = "Skip" if status.startswith("Skip") else status
    return out


def expected(path):
    """(the names that must differ, the names that may differ) of EXPECT."""
    must, may = set(), set()
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name = line.split("  ")[0].strip()
            if name.startswith("flaky "):
                may.add(name[len("flaky "):].strip())
            else:
                must.add(name)
    return must, may


def main(argv):
    expect, flaky = expected(argv[1])
    runs = [(argv[i], results(argv[i + 1])) for i in range(2, 6, 2)]
    consoles = argv[6:]
    bad = False
    for kind, res in runs:
        counts = {s: sum(1 for v in res.values() if v == s) for s in ("Ok", "FAILED!", "Skip")}
        print(f"{kind}: {len(res)} results: {counts['Ok']} passed, "
              f"{counts['FAILED!']} failed, {counts['Skip']} skipped")
        if not res:
            bad = True
    (k1, r1), (k2, r2) = runs
    diff = sorted(n for n in set(r1) | set(r2) if r1.get(n) != r2.get(n))
    for n in diff:
        note = "expected" if n in expect else "flaky" if n in flaky else "UNEXPECTED"
        print(f"  differs ({note}): {n}: {k1} {r1.get(n, 'not run')}, {k2} {r2.get(n, 'not run')}")
        bad |= n not in expect | flaky
    for n in sorted(expect - set(diff)):
        print(f"  expected to differ, did not: {n}: {r1.get(n, 'not run')}")
        bad = True
    for report in console_reports(consoles):
        print(f"  kernel report in {report}")
        bad = True
    print("perf-test: " + ("FAILED" if bad else "OK"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
