# SPDX-License-Identifier: GPL-2.0
#
# The series for Linux 7.3 (patches/, the default) and their Linux 6.12 LTS
# backport (backports/6.12/): every target takes BASE=7.3 or BASE=6.12 and
# builds in build/BASE/.  See README.md and docs/testing.md.
#
# Build output goes to build/ (ignored by git).

SHELL := /bin/bash
.DEFAULT_GOAL := help
BASE ?= 7.3
export BASE

.PHONY: help deps kernel kernel-stock kernel-debug perf check-debug fuzz-diff kselftest kselftest-stock lint misuse-check check run abi-diff bench bpf-selftests perf-test \
	series-check config-matrix am-test stale-test dev-tree export-patches \
	rebase base-check clean

## help: this list (every target takes BASE=7.3, the default, or BASE=6.12)
help:
	@echo "make TARGET [BASE=7.3|6.12]   (base now: $(BASE); build output in build/$(BASE)/)"
	@sed -n 's/^## \([^:]*\): /  \1\t/p' Makefile | expand -t 20

## deps: install the toolchain, QEMU, perf, bpftrace; fetch the base's kernel source
deps:
	@mk/deps.sh

## kernel: build the patched kernel; print the paths of bzImage and vmlinux
kernel: deps
	@mk/kernel.sh patched

## kernel-stock: build the stock kernel of the base; print bzImage and vmlinux
kernel-stock: deps
	@mk/kernel.sh stock

# The patched kernel with KASAN, lockdep, kmemleak, UBSAN, KFENCE, PREEMPT.
## kernel-debug: the patched kernel with KASAN, lockdep, kmemleak, UBSAN
kernel-debug: deps
	@mk/kernel.sh debug

# perf of the patched tree, which the tests (qemu/kselftest.sh builds it)
# and the demo use besides Debian's perf.
## perf: build tools/perf of the patched tree
perf: deps
	@mk/perf.sh

# Boot the (already built, current) kernel and run the tests.
## kselftest: boot the patched kernel and run the suite (no lint)
kselftest: kernel
	@qemu/kselftest.sh patched

## kselftest-stock: the suite on the stock kernel: only the features fail
kselftest-stock: kernel-stock kernel
	@qemu/kselftest.sh stock

## lint: checkpatch --strict, cover letters, rustfmt, the verdict's tests
lint: deps
	@mk/lint.sh

# Modules that misuse the Rust PMU API (mk/misuse/), compiled against the
# patched kernel: each must be refused at build time, the controls build.
## misuse-check: the Rust PMU API refuses what would corrupt the kernel
misuse-check: kernel
	@mk/misuse-check.sh

## check: lint, base check, build, misuse check, boot and run every test (the README's test command)
check: deps lint kernel
	-@mk/base-check.sh --brief
	@mk/misuse-check.sh
	@qemu/kselftest.sh patched

# The whole suite (with the stress) on the debug kernel; any report fails.
## check-debug: the suite, a stress and fuzzers on the debug kernel
check-debug: deps kernel-debug
	@qemu/kselftest.sh debug

# The probe PMU fuzzer on the stock and the patched kernel: same output.
## fuzz-diff: the probe PMU fuzzer on stock and patched: same output
fuzz-diff: kernel-stock kernel
	@qemu/fuzz-diff.sh

## run: build the patched kernel, boot it, show a demo
run: kernel
	@qemu/demo.sh

# Boot the stock and the patched kernel, compare what user space sees.
## abi-diff: what user space sees of the probe PMUs, stock against patched
abi-diff: kernel-stock kernel
	@qemu/abi-diff.sh

## bench: teardown, probe hits, BPF and seccomp loads: ratios patched/stock
bench: kernel-stock kernel
	@qemu/bench.sh

# The upstream BPF selftests of probes and perf links (test_progs) on the
# stock and the patched kernel, both with BTF: same results on both.
## bpf-selftests: upstream test_progs of probes and perf links, stock and patched
bpf-selftests: deps
	@mk/bpf-selftests.sh

# The whole `perf test` of the tree's perf on the stock and the patched
# kernel: same results on both, but for the cases the series fixes.
## perf-test: perf's own perf test, stock and patched
perf-test: deps
	@mk/perf-test.sh

# What a maintainer checks: each patch applies, is clean and builds; other
# configurations build (and two boot with the suite); git am on a git tree.
## series-check: each series alone, each patch clean and building, churn
series-check: deps
	@mk/series-check.sh

## config-matrix: other configurations build (two boot with the suite)
config-matrix: deps
	@mk/config-matrix.sh

## am-test: git am of the series on a git tree of the base, and build
am-test: deps
	@mk/am-test.sh

## stale-test: an edited patch is what the next build has, and a reverted edit is not
stale-test: deps
	@mk/stale-test.sh

# The series' git workflow (see README.md).
## dev-tree: check the series out as commits of build/BASE/dev for editing
dev-tree: deps
	@mk/series.sh dev

## export-patches: write build/BASE/dev back to the patch folders
export-patches:
	@mk/series.sh export

# The tested base (patches/BASE, backports/6.12/BASE) and the archive.
## rebase: move the base's series to the newest source package (KSRC_VERSION=V)
rebase: deps
	@mk/rebase.sh

## base-check: does the archive offer a newer base, and do the series apply
base-check:
	@mk/base-check.sh

## clean: remove the base's build output (not build/tools, build/debian)
clean:
	rm -rf build/$(BASE)
