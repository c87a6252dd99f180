#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How perf named the samples taken in BPF JIT images.

perf_names.py BASE BEFORE DURING SCRIPT [--callchain]

BASE, BEFORE and DURING are /proc/kallsyms read before the workload
started, before the recording and while every image of the workload
lived; images BASE lists are not the workload's, and not counted.
SCRIPT is `perf script -F ip,sym` of the recording (with --callchain: of
a recording with -g, one block of lines per sample, the sampled IP
first).  An image spans from its address to the next
symbol of kallsyms.  Each sample whose IP is in an image of the workload is
named (perf gave the image's name), unknown ([unknown] or no symbol) or
misnamed (any other name).  Images listed in BEFORE are of the phase
"before", the others of "during".

Prints one line per phase, "PHASE samples N named N unknown N misnamed N
kinds K,K,...", then one line per image, "#"-prefixed.  With --callchain
also "callchain N": the samples in a seccomp filter whose callchain names
the filter and, above it, __seccomp_filter and do_syscall_64.
"""
import bisect
import re
import sys

KINDS = ("seccomp", "sock_filter", "reuseport_cbpf", "wl_before", "wl_during")
IMAGE = re.compile(r"^bpf_prog_[0-9a-f]{16}_(\w+)$")


def kallsyms(path):
    """[(addr, name, module)] sorted by address, zero addresses left out."""
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or int(parts[0], 16) == 0:
                continue
            syms.append((int(parts[0], 16), parts[2], parts[3] if len(parts) > 3 else ""))
    syms.sort()
    return syms


def images(base_path, before_path, during_path):
    """The workload's images: sorted starts, and [(start, end, name, phase)]."""
    base = {(addr, name) for addr, name, mod in kallsyms(base_path) if mod == "[bpf]"}
    before = {name for _, name, mod in kallsyms(before_path) if mod == "[bpf]"}
    syms = kallsyms(during_path)
    addrs = [a for a, _, _ in syms]
    found = []
    for i, (addr, name, mod) in enumerate(syms):
        m = IMAGE.match(name)
        if mod != "[bpf]" or not m or m.group(1) not in KINDS or (addr, name) in base:
            continue
        end = next((a for a in addrs[i + 1:] if a > addr), addr + 4096)
        found.append((addr, end, name, "before" if name in before else "during"))
    return [s for s, _, _, _ in found], found


def samples(path, callchain):
    """Yield the lines of each sample: [(ip, sym)], the sampled IP first."""
    block = []
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.split()
            if not parts or not re.fullmatch(r"[0-9a-f]+", parts[0]):
                if block:
                    yield block
                block = []
                continue
            entry = (int(parts[0], 16), parts[1] if len(parts) > 1 else "[unknown]")
            if callchain:
                block.append(entry)
            else:
                yield [entry]
    if block:
        yield block


def main():
    base, before, during, script = sys.argv[1:5]
    callchain = "--callchain" in sys.argv[5:]
    starts, imgs = images(base, before, during)
    per_image = {img[2]: [0, 0, 0] for img in imgs}
    chains = 0
    for block in samples(script, callchain):
        ip, sym = block[0]
        i = bisect.bisect_right(starts, ip) - 1
        if i < 0 or ip >= imgs[i][1]:
            continue
        name = imgs[i][2]
        counts = per_image[name]
        if sym == name:
            counts[0] += 1
        elif sym.startswith("[unknown]") or re.fullmatch(r"0x[0-9a-f]+", sym):
            counts[1] += 1
        else:
            counts[2] += 1
        names = [s for _, s in block]
        if (callchain and sym == name and name.endswith("_seccomp") and
                "__seccomp_filter" in names and "do_syscall_64" in names and
                names.index("__seccomp_filter") < names.index("do_syscall_64")):
            chains += 1
    for phase in ("before", "during"):
        mine = [img for img in imgs if img[3] == phase]
        tot = [sum(per_image[img[2]][k] for img in mine) for k in range(3)]
        kinds = sorted({IMAGE.match(img[2]).group(1) for img in mine})
        print(f"{phase} samples {sum(tot)} named {tot[0]} unknown {tot[1]} "
              f"misnamed {tot[2]} kinds {','.join(kinds) or '-'}")
    for start, end, name, phase in imgs:
        n, u, m = per_image[name]
        print(f"# {phase:6} {name} {start:#x}-{end:#x}: named {n} unknown {u} misnamed {m}")
    if callchain:
        print(f"callchain {chains}")


if __name__ == "__main__":
    main()
