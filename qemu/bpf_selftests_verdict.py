#!/usr/bin/env python3
"""Compare test_progs results of two kernels (make bpf-selftests).

usage: bpf_selftests_verdict.py [--new NEW] EXPECT STOCK OUT1 PATCHED OUT2 CONSOLE...

Prints each kernel's counts and failures, then the tests and subtests whose
result differs between the kernels.  Exits 1 if any differs, if a kernel's
failures are not exactly the ones EXPECT lists (one "test[/subtest]" a line,
"#" starts a comment: the reason), or if a console shows a kernel report.
The tests that NEW lists (the same format), which the series adds, are not
compared: they and their subtests must pass on the second kernel (the
patched one), and the tests skip on the first.
"""
import re
import sys

from verdict import console_reports

RESULT = re.compile(r"^#(\d+)(?:/(\d+))?\s+(\S.*):(OK|SKIP|FAIL)$")


def results(path):
    """{name: status} for every test ("t") and subtest ("t/s") in a log."""
    out = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = RESULT.match(line.rstrip())
            if m:
                out[m.group(3)] = m.group(4)
    return out


def expected(path):
    with open(path) as f:
        return {l.split("#")[0].strip() for l in f} - {""}


def is_new(name, new):
    return name.split("/")[0] in new


def check_new(new, stock, patched):
    """Problems with the series' own tests: stock skips them, patched passes."""
    (k1, r1), (k2, r2) = stock, patched
    problems = []
    for t in sorted(new):
        if r1.get(t) != "SKIP":
            problems.append(f"{t}: {k1} {r1.get(t, 'not run')}, must skip")
        names = sorted(n for n in r2 if is_new(n, {t}))
        if not names:
            problems.append(f"{t}: not run on {k2}")
        problems += [f"{n}: {k2} {r2[n]}" for n in names if r2[n] != "OK"]
    return problems


def main(argv):
    new = set()
    if argv[1] == "--new":
        new = expected(argv[2])
        argv = argv[:1] + argv[3:]
    expect = expected(argv[1])
    runs = [(argv[i], results(argv[i + 1])) for i in range(2, 6, 2)]
    consoles = argv[6:]
    bad = False
    for problem in check_new(new, *runs):
        print(f"  the series' test {problem}")
        bad = True
    if new:
        print(f"the series' tests ({', '.join(sorted(new))}): "
              + ("FAILED" if bad else "skip on the first kernel, pass on the second"))
    runs = [(k, {n: v for n, v in r.items() if not is_new(n, new)}) for k, r in runs]
    for kind, res in runs:
        counts = {s: sum(1 for v in res.values() if v == s) for s in ("OK", "FAIL", "SKIP")}
        print(f"{kind}: {len(res)} results: {counts['OK']} passed, "
              f"{counts['FAIL']} failed, {counts['SKIP']} skipped")
        fails = {n for n, s in res.items() if s == "FAIL"}
        if not res:
            print(f"  {kind}: no results")
            bad = True
        for n in sorted(fails - expect):
            print(f"  {kind}: unexpected failure: {n}")
            bad = True
        for n in sorted(expect - fails):
            print(f"  {kind}: expected to fail, did not: {n} ({res.get(n, 'not run')})")
            bad = True
    (k1, r1), (k2, r2) = runs
    diff = sorted(n for n in set(r1) | set(r2) if r1.get(n) != r2.get(n))
    for n in diff:
        print(f"  differs: {n}: {k1} {r1.get(n, 'not run')}, {k2} {r2.get(n, 'not run')}")
    if diff:
        bad = True
    else:
        print(f"identical on both kernels: {len(r1)} results")
    for report in console_reports(consoles):
        print(f"  kernel report in {report}")
        bad = True
    print("bpf-selftests: " + ("FAILED" if bad else "OK"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
