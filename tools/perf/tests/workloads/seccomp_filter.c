// SPDX-License-Identifier: GPL-2.0
/*
 * A process under a classic BPF seccomp filter of a given length, which it
 * runs at every system call, for the tests of how perf names the filter's
 * JIT image.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/compiler.h>
#include <uapi/linux/filter.h>
#include <linux/seccomp.h>
#include "../tests.h"

static volatile sig_atomic_t done;

static void sighandler(int sig __maybe_unused)
{
	done = 1;
}

/*
 * seccomp_filter [seconds [instructions [variant]]]: install a filter of
 * that many instructions that allows everything, then make system calls
 * for that many seconds.  Filters of different variants have the same
 * length and JIT to the same size, but differ, and so do their names.
 * Says "seccomp filter installed" on stdout once the filter is.
 */
static int seccomp_filter(int argc, const char **argv)
{
	struct sock_fprog prog;
	struct sock_filter *insns;
	int sec = 1, len = 1000, variant = 0, i;

	if (argc > 0)
		sec = atoi(argv[0]);
	if (argc > 1)
		len = atoi(argv[1]);
	if (argc > 2)
		variant = atoi(argv[2]);
	if (len < 2 || len > BPF_MAXINSNS || variant < 0 || variant > 100) {
		fprintf(stderr, "%s: 2 to %d instructions, variant 0 to 100\n", __func__,
			BPF_MAXINSNS);
		return 1;
	}

	insns = calloc(len, sizeof(*insns));
	if (!insns)
		return 1;
	insns[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						offsetof(struct seccomp_data, nr));
	for (i = 1; i < len - 1; i++)
		insns[i] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, variant + 1);
	insns[len - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = len;
	prog.filter = insns;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		fprintf(stderr, "%s: %s\n", __func__, strerror(errno));
		free(insns);
		return 1;
	}
	free(insns);
	/* The tests wait for this line: kallsyms lists the filter now */
	printf("seccomp filter installed\n");
	fflush(stdout);

	signal(SIGINT, sighandler);
	signal(SIGALRM, sighandler);
	alarm(sec);

	while (!done)
		syscall(SYS_getppid);

	return 0;
}

DEFINE_WORKLOAD(seccomp_filter);
