#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Who sends the series: the From: and Signed-off-by: of its patch files.

  ident.py sign "NAME <EMAIL>" PATCH...
      Makes NAME <EMAIL> the author of each PATCH (a `git format-patch`
      file): its From: header, and its Signed-off-by: trailer in place of
      the previous author's (one is added after the last trailer if it had
      none).  The other trailers stay.  The cover letter (no Signed-off-by:)
      gets only the From: header.  A file already signed so is not changed.

  ident.py check PATCH...
      Prints a warning for each sender of the PATCHes whose address no
      maintainer can take a Developer's Certificate of Origin from (.example
      domains, noreply addresses).  Never fails.
"""
import email.header
import email.utils
import re
import sys


def split(text):
    head, _, body = text.partition("\n\n")
    return head.split("\n"), body


def author(head):
    """(first and last index of the From: header's lines, the decoded
    "Name <email>" it holds)."""
    for i, line in enumerate(head):
        if line.startswith("From: "):
            j = i
            while j + 1 < len(head) and head[j + 1][:1] in (" ", "\t"):
                j += 1
            folded = " ".join(part.strip() for part in head[i:j + 1])[6:]
            parts = email.header.decode_header(folded)
            value = "".join(p.decode(c or "ascii") if isinstance(p, bytes) else p
                            for p, c in parts)
            name, addr = email.utils.parseaddr(value)
            return i, j, f"{name} <{addr}>"
    raise SystemExit("no From: header")


def from_header(ident):
    name, addr = email.utils.parseaddr(ident)
    if not name.isascii():
        name = email.header.Header(name, "utf-8").encode()
    elif re.search(r"[^\w .-]", name):
        name = '"' + name.replace('"', r"\"") + '"'
    return f"From: {name} <{addr}>"


def sign(ident, path):
    with open(path) as f:
        head, body = split(f.read())
    i, j, old = author(head)
    if old == ident:
        return
    head[i:j + 1] = [from_header(ident)]
    sob = f"Signed-off-by: {ident}"
    message, sep, rest = body.partition("\n---\n")
    if sep:  # a patch: its message ends at the first "---" line
        lines = message.split("\n")
        lines = [sob if line == f"Signed-off-by: {old}" else line for line in lines]
        if sob not in lines:
            lines.append(sob)
        # One Signed-off-by of the sender.
        seen, kept = False, []
        for line in lines:
            if line == sob:
                if seen:
                    continue
                seen = True
            kept.append(line)
        body = "\n".join(kept) + sep + rest
    with open(path, "w") as f:
        f.write("\n".join(head) + "\n\n" + body)


def check(paths):
    senders = {}
    for path in paths:
        with open(path) as f:
            head, _ = split(f.read())
        ident = author(head)[2]
        senders[ident] = senders.get(ident, 0) + 1
    for ident, n in senders.items():
        addr = email.utils.parseaddr(ident)[1]
        if re.search(r"\.example$|noreply", addr):
            print(f"warning: {n} patches are from {ident}, who cannot certify the "
                  "DCO: make export-patches with your own git user.name and user.email",
                  file=sys.stderr)


def main(argv):
    if len(argv) >= 3 and argv[1] == "sign":
        name, addr = email.utils.parseaddr(argv[2])
        if not name or "@" not in addr:
            raise SystemExit(f"not NAME <EMAIL>: {argv[2]}")
        for path in argv[3:]:
            sign(f"{name} <{addr}>", path)
    elif len(argv) >= 2 and argv[1] == "check":
        check(argv[2:])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
