// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_workload SECONDS: keep a seccomp filter, a classic socket filter and
 * an eBPF socket filter hot, for a profiler to find.
 *
 * A first seccomp filter is installed at once; a second one and the socket
 * filters after a line is read from stdin, so that a profiler can start in
 * between.  Then every loop makes a system call (through the seccomp
 * filters) and sends a UDP datagram to each of two sockets (through the
 * socket filters).
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "probe_lib.h"

/*
 * A long, branch-free classic filter of @n instructions loading the word at
 * @k: samples land in it.
 */
static struct sock_fprog *long_filter(int n, uint32_t k, uint32_t ret)
{
	static struct sock_filter insns[256];
	static struct sock_fprog prog;
	int i;

	for (i = 0; i < n - 1; i++)
		insns[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, k);
	insns[n - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ret);
	prog.len = n;
	prog.filter = insns;
	return &prog;
}

/*
 * The filter loads an argument, so that the kernel cannot tell its result
 * from the system call number alone and skip it (the seccomp action cache).
 */
static int install_seccomp(int n)
{
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
		       long_filter(n, offsetof(struct seccomp_data, args[0]), SECCOMP_RET_ALLOW));
}

static int ebpf_filter(void)
{
	struct bpf_insn insns[1000];
	int i;

	/* r0 = skb->len, then enough arithmetic to be sampled. */
	insns[0] = INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_0, BPF_REG_1, 0, 0);
	for (i = 1; i < 999; i++)
		insns[i] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_0, 0, 0, 0);
	insns[999] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return load_prog(BPF_PROG_TYPE_SOCKET_FILTER, insns, ARRAY_SIZE(insns), "bpf_workload",
			 NULL, 0);
}

static int udp_bound(struct sockaddr_in *addr)
{
	socklen_t len = sizeof(*addr);
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (void *)addr, sizeof(*addr)) || getsockname(s, (void *)addr, &len))
		exit(1);
	return s;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a1, a2;
	int r1, r2, tx, prog;
	char buf[64], line[16];
	time_t end;

	if (argc != 2)
		return 2;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || install_seccomp(200))
		return 1;
	printf("seccomp filter installed\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;

	r1 = udp_bound(&a1);
	r2 = udp_bound(&a2);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	prog = ebpf_filter();
	if (prog < 0 || install_seccomp(250) ||
	    setsockopt(r1, SOL_SOCKET, SO_ATTACH_FILTER, long_filter(200, 0, 0xffff),
		       sizeof(struct sock_fprog)) ||
	    setsockopt(r2, SOL_SOCKET, SO_ATTACH_BPF, &prog, sizeof(prog)))
		return 1;
	printf("second seccomp filter and socket filters attached\n");
	fflush(stdout);

	end = time(NULL) + atoi(argv[1]);
	while (time(NULL) < end) {
		sendto(tx, buf, sizeof(buf), 0, (void *)&a1, sizeof(a1));
		sendto(tx, buf, sizeof(buf), 0, (void *)&a2, sizeof(a2));
		recv(r1, buf, sizeof(buf), MSG_DONTWAIT);
		recv(r2, buf, sizeof(buf), MSG_DONTWAIT);
		syscall(SYS_getppid);
	}
	return 0;
}
