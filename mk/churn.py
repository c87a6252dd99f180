#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How much a patch series rewrites itself (issue 31).

  churn.py [--max-percent X] PATCH...
      PATCH... are patch files (git format-patch or plain git diffs) in
      the order they apply.  Prints, per patch, the lines it adds and how
      many of them later patches of the same list remove (and which
      patches), then one line

        churn: N of M added lines removed later (P %); largest patch: NAME (K lines changed)

      With --max-percent X, exits 1 when P > X.

What counts:

  - A line is its text with leading and trailing whitespace stripped.
    Lines of fewer than 8 characters (so stripped) are ignored: braces,
    "}", "else", "*/", blank lines and the like say nothing of the work.
  - A patch's additions and removals are netted per file: a line it both
    removes from and adds to the same file is neither (diff noise, a
    reindent, a move within the file).  A line removed from one file and
    added to another is a removal: code motion between files counts.
  - A line added to file F by patch i is removed later when a later patch
    removes the same line from F.  Each file keeps a multiset of the
    lines the series added to it, so one removal cancels one addition;
    lines the base already had are not in it, and removing them costs
    nothing.  When several earlier patches added the same line, the
    latest one loses it.
  - A renamed file keeps its lines under its new name; a deleted file
    loses all of them; a copy starts with none.

"lines changed" of the largest patch is every added and removed line,
short ones included (the diffstat's count).
"""
import argparse
import collections
import os
import re
import sys

MIN_LEN = 8
HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


class FileDiff:
    def __init__(self, path):
        self.path = path        # the file's name after the patch
        self.old = path         # its name before (differs on a rename)
        self.deleted = False
        self.added = []
        self.removed = []


def parse(name):
    """The FileDiffs of patch file NAME, in order."""
    files, cur = [], None
    old_left = new_left = 0     # lines still to come in the current hunk
    with open(name, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    for line in lines:
        if old_left > 0 or new_left > 0:
            tag, text = line[:1], line[1:]
            if tag == "+":
                cur.added.append(text)
                new_left -= 1
            elif tag == "-":
                cur.removed.append(text)
                old_left -= 1
            elif tag == "\\":       # "\ No newline at end of file"
                pass
            else:                   # context (" " or an emptied blank line)
                old_left -= 1
                new_left -= 1
            continue
        m = re.match(r"^diff --git a/(.*) b/(.*)$", line)
        if m:
            cur = FileDiff(m.group(2))
            cur.old = m.group(1)
            files.append(cur)
        elif cur is None:
            continue
        elif line.startswith("rename from "):
            cur.old = line[len("rename from "):]
        elif line.startswith("rename to "):
            cur.path = line[len("rename to "):]
        elif line.startswith("copy to "):
            cur.old = cur.path = line[len("copy to "):]
        elif line.startswith("deleted file mode"):
            cur.deleted = True
        elif line.startswith("--- a/"):
            cur.old = line[len("--- a/"):]
        elif line.startswith("+++ b/"):
            cur.path = line[len("+++ b/"):]
        else:
            m = HUNK.match(line)
            if m:
                old_left = int(m.group(1) or 1)
                new_left = int(m.group(2) or 1)
    return files


def counted(lines):
    """The multiset of LINES that count: stripped, at least MIN_LEN long."""
    return collections.Counter(s for s in (l.strip() for l in lines) if len(s) >= MIN_LEN)


def churn(patches):
    """Per patch: (lines added, {later patch: lines of them it removed},
    lines changed).  Indices are positions in PATCHES."""
    # live[file][line]: a Counter {patch index: copies of line it added}
    live = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    added = [0] * len(patches)
    changed = [0] * len(patches)
    lost = [collections.Counter() for _ in patches]

    def remove(j, owners, n):
        """Patch j removes n copies of a line added by OWNERS, latest first."""
        for i in sorted(owners, reverse=True):
            k = min(n, owners[i])
            owners[i] -= k
            lost[i][j] += k
            n -= k
        owners += collections.Counter()     # drop the zeros

    for j, name in enumerate(patches):
        for fd in parse(name):
            changed[j] += len(fd.added) + len(fd.removed)
            if fd.old != fd.path:           # rename: the lines go along
                if fd.old in live:
                    live[fd.path] = live.pop(fd.old)
            lines = live[fd.path]
            add, rem = counted(fd.added), counted(fd.removed)
            add, rem = add - rem, rem - add
            for text, n in rem.items():
                if text in lines:
                    remove(j, lines[text], n)
            if fd.deleted:                  # whatever is left goes too
                for owners in lines.values():
                    remove(j, owners, sum(owners.values()))
                del live[fd.path]
                continue
            for text, n in add.items():
                lines[text][j] += n
                added[j] += n
    return [(added[i], lost[i], changed[i]) for i in range(len(patches))]


def main():
    ap = argparse.ArgumentParser(
        description="How many lines a series adds are removed by its later patches.")
    ap.add_argument("--max-percent", type=float, metavar="X",
                    help="exit 1 when more than X %% of the added lines are removed later")
    ap.add_argument("patches", nargs="+", metavar="PATCH", help="patch files, in apply order")
    args = ap.parse_args()

    names = [os.path.basename(p) for p in args.patches]
    short = [re.sub(r"^(\d+)-.*", r"\1", n) for n in names]    # "0007"
    stats = churn(args.patches)
    width = max(len(n) for n in names)
    total_added = total_lost = 0
    for name, (added, lost, _) in zip(names, stats):
        n = sum(lost.values())
        total_added += added
        total_lost += n
        by = ", ".join(f"{short[j]}: {k}" for j, k in sorted(lost.items()))
        print(f"{name:{width}} adds {added:5}, {n:4} removed later" +
              (f" (by {by})" if by else ""))
    pct = 100.0 * total_lost / total_added if total_added else 0.0
    big = max(range(len(names)), key=lambda i: stats[i][2])
    print(f"churn: {total_lost} of {total_added} added lines removed later ({pct:.1f} %); "
          f"largest patch: {names[big]} ({stats[big][2]} lines changed)")
    if args.max_percent is not None and pct > args.max_percent:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
