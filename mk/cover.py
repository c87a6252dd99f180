#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The series' cover letter, patches/0000-cover-letter.patch.

  cover.py fill GENERATED OLD MAINTAINERS
      GENERATED is what `git format-patch --cover-letter --base=...` wrote
      (its shortlog, diffstat and base-commit are current); OLD the cover
      letter it replaces.  Rewrites GENERATED with OLD's subject, date and
      text, and To:/Cc: headers from MAINTAINERS (the output of
      scripts/get_maintainer.pl on the patches): maintainers and supporters
      in To:, reviewers and lists in Cc:.

  cover.py check COVER BASE PATCH...
      Fails unless COVER is the cover letter of the patches PATCH...: its
      "[PATCH 00/N]" counts them, its per-patch summary ("NN/N subject"
      lines) and its shortlog name each one's subject in order, and its
      base-commit is BASE (patches/BASE).
"""
import email
import email.policy
import re
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


def fill(generated, old, maintainers):
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
    with open(generated, "w") as f:
        f.write("\n".join(head) + "\n\n" + body)


def check(cover, base, patches):
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
    if not subject.startswith(f"[PATCH 00/{n}]"):
        problems.append(f"the subject should start with [PATCH 00/{n}]: {subject}")
    if PLACEHOLDER_SUBJECT in subject or PLACEHOLDER_BLURB in body:
        problems.append("the subject or the text is still git's placeholder")
    listed = re.findall(r"^(\d+)/(\d+) (.*)$", blurb(body), re.M)
    want = [(f"{i:02d}", f"{n:02d}", s) for i, s in enumerate(subjects, 1)]
    if listed != want:
        problems.append("the per-patch summary (lines 'NN/%02d subject') does not list "
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
    if not header(head, "To"):
        problems.append("no To: (scripts/get_maintainer.pl's maintainers)")
    for p in problems:
        print(f"{cover}: {p}", file=sys.stderr)
    return 1 if problems else 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "fill":
        fill(*sys.argv[2:])
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "check":
        return check(sys.argv[2], sys.argv[3], sys.argv[4:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
