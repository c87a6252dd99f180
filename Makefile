# SPDX-License-Identifier: GPL-2.0
#
# make run    build the patched kernel, boot it under QEMU and show a demo
# make check  lint, build, boot and run every test; the last line of its
#             output is "N passed, N failed, N skipped"
# make rebase move the series to the newest linux-source-6.12 (patches/BASE)
#
# See README.md.  Build output goes to build/ (ignored by git).

SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help deps kernel kernel-stock kernel-debug perf check-debug fuzz-diff kselftest kselftest-stock lint check run abi-diff bench bpf-selftests perf-test \
	series-check config-matrix am-test dev-tree export-patches refresh-patches \
	rebase base-check clean

help:
	@sed -n '3,7p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@mk/deps.sh

kernel: deps
	@mk/kernel.sh patched

kernel-stock: deps
	@mk/kernel.sh stock

# The patched kernel with KASAN, lockdep, kmemleak, UBSAN, KFENCE, PREEMPT.
kernel-debug: deps
	@mk/kernel.sh debug

# perf of the patched tree, which the tests (qemu/kselftest.sh builds it)
# and the demo use besides Debian's perf.
perf: deps
	@mk/perf.sh

# Boot the (already built, current) kernel and run the tests.
kselftest: kernel
	@qemu/kselftest.sh patched

kselftest-stock: kernel-stock kernel
	@qemu/kselftest.sh stock

lint: deps
	@mk/lint.sh

check: deps lint kernel
	-@mk/base-check.sh --brief
	@qemu/kselftest.sh patched

# The whole suite (with the stress) on the debug kernel; any report fails.
check-debug: deps kernel-debug
	@qemu/kselftest.sh debug

# The probe PMU fuzzer on the stock and the patched kernel: same output.
fuzz-diff: kernel-stock kernel
	@qemu/fuzz-diff.sh

run: kernel
	@qemu/demo.sh

# Boot the stock and the patched kernel, compare what user space sees.
abi-diff: kernel-stock kernel
	@qemu/abi-diff.sh

bench: kernel-stock kernel
	@qemu/bench.sh

# The upstream BPF selftests of probes and perf links (test_progs) on the
# stock and the patched kernel, both with BTF: same results on both.
bpf-selftests: deps
	@mk/bpf-selftests.sh

# The whole `perf test` of the tree's perf on the stock and the patched
# kernel: same results on both, but for the cases the series fixes.
perf-test: deps
	@mk/perf-test.sh

# What a maintainer checks: each patch applies, is clean and builds; other
# configurations build (and two boot with the suite); git am on a git tree.
series-check: deps
	@mk/series-check.sh

config-matrix: deps
	@mk/config-matrix.sh

am-test: deps
	@mk/am-test.sh

# The series' git workflow (see README.md).
dev-tree: deps
	@mk/series.sh dev

export-patches:
	@mk/series.sh export

refresh-patches: deps
	@mk/series.sh refresh

# The tested base (patches/BASE) and the archive: `make rebase` moves the
# series to the newest linux-source-6.12 (or KSRC_VERSION=...); `make base-check`
# says whether a newer one exists and whether the series applies to it.
rebase: deps
	@mk/rebase.sh

base-check:
	@mk/base-check.sh

clean:
	rm -rf build/kernel-* build/run-* build/kselftest* build/logs build/series-check-out build/am-test* build/perf \
		build/bpf-selftests
