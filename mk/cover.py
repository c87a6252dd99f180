#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A series' cover letter, patches/NAME/0000-cover-letter.patch.

  cover.py fill GENERATED OLD MAINTAINERS [PREREQUISITES]
      GENERATED is what `git format-patch --cover-letter --base=...` wrote
      (its shortlog, diffstat and base-commit are current); OLD the cover
      letter it replaces.  Rewrites GENERATED with OLD's subject, date and
      text, To:/Cc: headers from MAINTAINERS (the output of
      scripts/get_maintainer.pl on the series' patches): maintainers and
      supporters in To:, reviewers and lists in Cc:, and after base-commit
      the lines of the file PREREQUISITES ("prerequisite-patch-id: ID").

  cover.py check COVER BASE [--prerequisites PATCH... --] PATCH...
      Fails unless COVER is the cover letter of the patches PATCH...: its
      "[PATCH 0/N]" counts them, its per-patch summary ("N/N subject"
      lines, numbered as git numbers the patches) and its shortlog name each
      one's subject in order, its base-commit is BASE (patches/BASE) and its
      prerequisite-patch-id lines are the `git patch-id --stable` of the
      prerequisite series' patches, in order.
"""
import email
import email.policy
import re
import subprocess
import sys

PLACEHOLDER_SUBJECT = "*** SUBJECT HERE ***"
PLACEHOLDER_BLURB = "*** BLURB HERE ***"
SHORTLOG_HEAD = re.compile(r"^\S.* \(\d+\):$", re.M)


def split(text):
    """(header lines, body) of a format-patch file."""
    head, _, body = text.partition("\n\n")
    return head.split("\n"), body


def header(lines, name):
    """The value of header NAME in LINES, folded lines joined."""
    out, on = [], False
    for line in lines:
        if line.lower().startswith(name.lower() + ":"):
            out, on = [line.split(":", 1)[1].strip()], True
        elif on and line[:1] in (" ", "\t"):
            out.append(line.strip())
        else:
            on = False
    return " ".join(out) if out else None


def blurb(body):
    """The hand-written text of a cover letter's body: what precedes the shortlog."""
    m = SHORTLOG_HEAD.search(body)
    return body[: m.start()] if m else body


def subject_text(subject):
    return re.sub(r"^\[PATCH[^\]]*\]\s*", "", subject)


def width(n):
    """How wide git's format-patch writes the numbers of an N-patch series."""
    return len(str(n))


def patch_id(path):
    """`git patch-id --stable` of the patch file PATH."""
    with open(path, "rb") as f:
        out = subprocess.run(["git", "patch-id", "--stable"], stdin=f, capture_output=True,
                             check=True).stdout.decode()
    return out.split()[0]


def fill(generated, old, maintainers, prerequisites=None):
    with open(generated) as f:
        gen_head, gen_body = split(f.read())
    try:
        with open(old) as f:
            old_head, old_body = split(f.read())
        subject = subject_text(header(old_head, "Subject"))
        date = header(old_head, "Date")
        text = blurb(old_body)
    except FileNotFoundError:
        subject, date, text = PLACEHOLDER_SUBJECT, None, PLACEHOLDER_BLURB + "\n\n"
    to, cc = [], []
    with open(maintainers) as f:
        for line in f:
            m = re.match(r"^(.*?) \((.*)\)$", line.strip())
            if not m:
                continue
            (to if re.match(r"(maintainer|supporter):", m.group(2)) else cc).append(m.group(1))

    head, skip = [], False
    for line in gen_head:
        if skip and line[:1] in (" ", "\t"):
            continue
        skip = False
        if line.startswith("Subject:"):
            count = re.match(r"Subject: (\[PATCH[^\]]*\])", line).group(1)
            line, skip = f"Subject: {count} {subject}", True
        elif line.startswith("Date:") and date:
            line = f"Date: {date}"
        head.append(line)
    for name, people in (("To", to), ("Cc", cc)):
        if people:
            head.append(f"{name}: " + ",\n\t".join(people))
    body = text + gen_body[len(blurb(gen_body)):]
    if prerequisites:
        with open(prerequisites) as f:
            prereq = f.read()
        body = re.sub(r"^prerequisite-patch-id: .*\n", "", body, flags=re.M)
        body = re.sub(r"^(base-commit: .*\n)", lambda m: m.group(1) + prereq, body,
                      count=1, flags=re.M)
    with open(generated, "w") as f:
        f.write("\n".join(head) + "\n\n" + body)


def check(cover, base, patches, prerequisites=()):
    problems = []
    subjects = []
    for p in patches:
        with open(p, "rb") as f:
            msg = email.message_from_binary_file(f, policy=email.policy.default)
        subjects.append(subject_text(str(msg["Subject"])))
    with open(cover) as f:
        head, body = split(f.read())
    n = len(patches)
    subject = header(head, "Subject") or ""
    w = width(n)
    if not subject.startswith(f"[PATCH {0:0{w}d}/{n}]"):
        problems.append(f"the subject should start with [PATCH {0:0{w}d}/{n}]: {subject}")
    if PLACEHOLDER_SUBJECT in subject or PLACEHOLDER_BLURB in body:
        problems.append("the subject or the text is still git's placeholder")
    listed = re.findall(r"^(\d+)/(\d+) (.*)$", blurb(body), re.M)
    want = [(f"{i:0{w}d}", f"{n}", s) for i, s in enumerate(subjects, 1)]
    if listed != want:
        problems.append("the per-patch summary (lines 'N/%d subject') does not list "
                        "the series:\n    have: %s\n    want: %s" % (
                            n, "\n          ".join("/".join(x[:2]) + " " + x[2] for x in listed),
                            "\n          ".join("/".join(x[:2]) + " " + x[2] for x in want)))
    m = SHORTLOG_HEAD.search(body)
    shortlog = []
    if m:
        for line in body[m.end():].split("\n")[1:]:
            if line.startswith("    ") and shortlog:  # a wrapped subject
                shortlog[-1] += " " + line.strip()
            elif line.startswith("  "):
                shortlog.append(line.strip())
            else:
                break
    if shortlog != [re.sub(r"\s+", " ", s) for s in subjects]:
        problems.append("the shortlog does not match the series: run 'make export-patches'")
    if f"\nbase-commit: {base}\n" not in body + "\n":
        problems.append(f"the base-commit is not patches/BASE's {base}: run 'make export-patches'")
    have = re.findall(r"^prerequisite-patch-id: (\S+)$", body, re.M)
    if have != [patch_id(p) for p in prerequisites]:
        problems.append("the prerequisite-patch-id lines are not the ids of the "
                        "prerequisite series' patches: run 'make export-patches'")
    if not header(head, "To"):
        problems.append("no To: (scripts/get_maintainer.pl's maintainers)")
    for p in problems:
        print(f"{cover}: {p}", file=sys.stderr)
    return 1 if problems else 0


def main():
    if len(sys.argv) in (5, 6) and sys.argv[1] == "fill":
        fill(*sys.argv[2:])
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "check":
        args, prereq = sys.argv[4:], []
        if args[:1] == ["--prerequisites"]:
            end = args.index("--")
            prereq, args = args[1:end], args[end + 1:]
        return check(sys.argv[2], sys.argv[3], args, prereq)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
