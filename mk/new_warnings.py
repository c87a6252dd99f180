#!/usr/bin/env python3
# new_warnings.py TREE [--known LOG]... LOG...: print the warnings and
# errors of the LOGs (compiler, sparse, kernel-doc, rustdoc output) that
# fall on lines the commit HEAD of the git tree TREE adds or changes; exit 1
# if there is one.  A patch answers for what it adds, not for the warnings
# its files had: one that a --known LOG (the same check on the files before
# the patch) has too, but for its line numbers, is not the patch's (a
# kernel-doc warning of a function whose body the patch edits, say).
import re
import subprocess
import sys

args = sys.argv[2:]
tree, logs, known_logs = sys.argv[1], [], []
while args:
    if args[0] == '--known':
        known_logs.append(args[1])
        args = args[2:]
    else:
        logs.append(args.pop(0))
diff = subprocess.run(['git', '-C', tree, 'diff', '-U0', 'HEAD~1', 'HEAD'],
                      capture_output=True, text=True, check=True).stdout
added = {}  # path -> set of line numbers
path = None
for line in diff.splitlines():
    if line.startswith('+++ '):
        path = line[6:] if line.startswith('+++ b/') else None
    elif line.startswith('@@') and path:
        m = re.match(r'@@ -\S+ \+(\d+)(?:,(\d+))? @@', line)
        start, count = int(m.group(1)), int(m.group(2) or 1)
        added.setdefault(path, set()).update(range(start, start + count))

prefix = tree.rstrip('/') + '/'


def unnumbered(text):
    """The warning without its line and column numbers."""
    return re.sub(r':\d+(?::\d+)?', '', text.strip())


known = set()
for log in known_logs:
    with open(log, errors='replace') as f:
        known.update(unnumbered(l) for l in f if re.search(r'\b(warning|error)\b', l, re.I))
# "FILE:LINE[:COL]: warning|error: ..." (clang, sparse), "Warning: FILE:LINE ..."
# (kernel-doc), and rustdoc's "warning: ..." followed by "--> FILE:LINE:COL".
loc = re.compile(r'(?:^|\s)(?:-->\s*)?(\S+?):(\d+)(?::\d+)?(?::|\s|$)')
found = []
for log in logs:
    with open(log, errors='replace') as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        text = line.strip()
        kind = re.search(r'\b(warning|error)\b', text, re.I)
        if not kind:
            continue
        # rustdoc and rustc name the place on a following line.
        where = [text] + [l.strip() for l in lines[i + 1:i + 4] if l.strip().startswith('-->')]
        for w in where:
            m = loc.search(w)
            if not m:
                continue
            p = m.group(1)
            if p.startswith(prefix):
                p = p[len(prefix):]
            if int(m.group(2)) in added.get(p, ()) and unnumbered(text) not in known:
                found.append(f'{log}: {text}' + ('' if w == text else f' ({w})'))
            break
for w in dict.fromkeys(found):
    print(w)
sys.exit(1 if found else 0)
