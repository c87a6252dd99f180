#!/usr/bin/env bash
# make bpf-selftests: the upstream BPF selftests that use probes and perf
# links, on the stock and on the patched kernel, as a BPF developer runs them:
#
#   test_progs -t attach_probe,perf_link,bpf_cookie,fill_link_info,uprobe,usdt,kprobe
#
# Both kernels are built with BTF (qemu/btf.config; build/BASE/kernel-stock-btf,
# build/BASE/kernel-patched-btf) and bpf_testmod.ko is built for each.  test_progs
# is built from the stock source's tools/testing/selftests/bpf with only the
# test files that the list selects (and test_lsm.c: bpf_cookie.c calls its
# stack_mprotect()) and the BPF programs they include, which takes minutes
# instead of the hour the whole suite takes here.
#
# The bpf series adds test_progs tests of its own (qemu/expect/bpf-selftests-new):
# they are taken from the patched tree, and must pass on the patched kernel
# and skip on the stock one.
#
# Prints each kernel's results and fails unless both kernels give the same
# result for every other test and subtest, and the failures are the ones this
# machine is known to have (qemu/expect/bpf-selftests, with the reasons).
set -euo pipefail
. "$(dirname "$0")/common.sh"

NEW_TESTS=$(sed 's/#.*//' "$ROOT/qemu/expect/bpf-selftests-new" | xargs)
TESTS=${BPF_SELFTESTS:-attach_probe,perf_link,bpf_cookie,fill_link_info,uprobe,usdt,kprobe${NEW_TESTS:+,${NEW_TESTS// /,}}}
KINDS="stock-btf patched-btf"
top=$BUILD/bpf-selftests
src=$top/src
sel=$src/tools/testing/selftests/bpf

for kind in $KINDS; do "$ROOT/mk/kernel.sh" "$kind" >/dev/null; done
vmlinux=$BUILD/kernel-stock-btf/vmlinux

# The selftests' source: the stock tree's tools/ and what their build reads
# outside it (disasm.c is kernel/bpf's), copied afresh when the base version
# or the list of tests changes.
new_files=()
for t in $NEW_TESTS; do
	new_files+=("$BUILD/src-patched/tools/testing/selftests/bpf/prog_tests/$t.c")
done
stamp="$(ksrc_version) $TESTS $(cat "${new_files[@]}" | sha1sum)"
if [ "$(cat "$src/.stamp" 2>/dev/null)" != "$stamp" ]; then
	say "copying the BPF selftests' sources into $src"
	rm -rf "$src"
	mkdir -p "$src"
	(cd "$BUILD/src-stock" && cp -a --parents tools scripts include arch/x86/include kernel/bpf \
		Makefile "$src/")
	cp "${new_files[@]}" "$sel/prog_tests/"
	# Keep the tests that the list selects, and the BPF programs whose
	# skeletons they include.
	patterns=$(tr ',' '|' <<<"$TESTS")
	keep=$(grep -lE "^void (serial_)?test_[a-zA-Z0-9_]*($patterns)[a-zA-Z0-9_]*\((void)?\)" \
		"$sel"/prog_tests/*.c | xargs -n1 basename)
	keep="$keep test_lsm.c"
	for f in "$sel"/prog_tests/*.c; do
		grep -qxF "$(basename "$f")" <(tr ' ' '\n' <<<"$keep") || rm "$f"
	done
	progs=$(cd "$sel/prog_tests" && grep -ohE '"[a-z0-9_]+\.skel\.h"' $keep |
		sed 's/"//g; s/\.skel\.h$/.c/' | sort -u)
	# test_usdt.skel.h links test_usdt_multispec.bpf.o; test_progs reads
	# btf_data.bpf.o's BTF when it is linked.
	progs="$progs test_usdt_multispec.c btf_data.c"
	for f in "$sel"/progs/*.c; do
		grep -qxF "$(basename "$f")" <(tr ' ' '\n' <<<"$progs") || rm "$f"
	done
	echo "$stamp" >"$src/.stamp"
fi

# Light skeletons (7.3 also has signed ones) and linked skeletons of
# programs that are not kept are not built; nor are the extra files of tests
# that are not kept, nor 7.3's libarena, which only its own test uses (and
# which clang 19 cannot build: its arena spin lock needs BPF CPU v3 atomics).  The selftests
# set OUTPUT only in a top-level make: not as a child of `make bpf-selftests`.
say "building test_progs (-j$JOBS); log: $LOGS/bpf-selftests-build.log"
run_logged "$LOGS/bpf-selftests-build.log" env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS \
	make -C "$sel" -j"$JOBS" \
	VMLINUX_BTF="$vmlinux" \
	KHDR_INCLUDES="-isystem $BUILD/kernel-stock-btf/usr/include" \
	LSKELS= LSKELS_EXTRA= LSKELS_SIGNED= LINKED_SKELS=test_usdt.skel.h \
	LIBARENA_SKEL= LIBARENA_ASAN_SKEL= \
	TRUNNER_EXTRA_FILES="$sel/urandom_read $sel/liburandom_read.so $sel/uprobe_multi" \
	test_progs ||
	die "test_progs did not build: see $LOGS/bpf-selftests-build.log"

summary=()
for kind in $KINDS; do
	kdir=$BUILD/kernel-$kind
	mod=$top/testmod-$kind
	say "building bpf_testmod.ko for the $kind kernel"
	mkdir -p "$mod"
	# 6.12 has it in bpf_testmod/, 7.3 in test_kmods/ (with four others).
	testmods=$sel/test_kmods
	[ -d "$testmods" ] || testmods=$sel/bpf_testmod
	rsync -a "$testmods/" "$mod/"
	mapfile -t kvars < <(kmake_vars "$kind")
	run_logged "$LOGS/bpf-testmod-$kind.log" make -C "$kdir" "${kvars[@]}" \
		M="$mod" -j"$JOBS" modules ||
		die "bpf_testmod did not build for $kind: see $LOGS/bpf-testmod-$kind.log"

	# test_progs loads ./bpf_testmod.ko and finds its helpers in its
	# directory: a run directory with links to them and this kernel's module.
	run=$BUILD/run-bpf-selftests-$kind
	rm -rf "$run"
	mkdir -p "$run"
	for f in test_progs urandom_read liburandom_read.so uprobe_multi; do
		ln -s "$sel/$f" "$run/$f"
	done
	cp "$mod/bpf_testmod.ko" "$run/"
	# One vCPU: under TCG, the live patching of kernel text (ftrace's for
	# kprobe_multi, kprobes') races with another vCPU running it, which
	# oopses on an int3 now and then, on either kernel.
	VM_CPUS=1 VM_TIMEOUT=2400 "$ROOT/qemu/vm.sh" "$kind" "$run" \
		"mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug;" \
		"mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing;" \
		"mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf;" \
		"ulimit -l unlimited; ./test_progs -t $TESTS >$run/test_progs.out 2>&1;" \
		"echo \$? >$run/test_progs.rc" ||
		die "the $kind kernel did not run test_progs: see $run/console.log"
	[ -s "$run/test_progs.out" ] || die "test_progs printed nothing on $kind: see $run/"
	summary+=("$kind" "$run/test_progs.out")
done

expectations bpf-selftests >"$top/expect"
python3 "$ROOT/qemu/bpf_selftests_verdict.py" --new "$ROOT/qemu/expect/bpf-selftests-new" "$top/expect" \
	"${summary[@]}" "$BUILD"/run-bpf-selftests-*/console.log
