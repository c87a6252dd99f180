// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_workload SECONDS: keep BPF JIT images of every kind hot, for a
 * profiler to find: seccomp filters, classic socket filters, classic
 * SO_REUSEPORT filters and eBPF socket filters.
 *
 * A first set of one image of each kind ("before") is installed at once; a
 * second set ("during"), with other programs, after a line is read from
 * stdin, so that a profiler can start in between.  Then, for SECONDS, every
 * loop makes a system call (through both seccomp filters) and sends a UDP
 * datagram to each socket (through its filter), and the program exits.
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
	static struct sock_filter insns[1024];
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

static int ebpf_filter(int n, const char *name)
{
	struct bpf_insn insns[1024];
	int i;

	/* r0 = skb->len, then enough arithmetic to be sampled. */
	insns[0] = INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_0, BPF_REG_1, 0, 0);
	for (i = 1; i < n - 1; i++)
		insns[i] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_0, 0, 0, 0);
	insns[n - 1] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return load_prog(BPF_PROG_TYPE_SOCKET_FILTER, insns, n, name, NULL, 0);
}

static int udp_socket(struct sockaddr_in *addr, int reuseport)
{
	socklen_t len = sizeof(*addr);
	int s = socket(AF_INET, SOCK_DGRAM, 0), one = 1;

	if (s < 0 || (reuseport && setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one))) ||
	    bind(s, (void *)addr, sizeof(*addr)) || getsockname(s, (void *)addr, &len))
		exit(1);
	return s;
}

/* The sockets of one set, which its datagrams go to. */
struct set {
	struct sockaddr_in filtered, ebpf, reuseport;
	int socks[4];
};

/*
 * One image of each kind, @n instructions long (each set its own length,
 * so that its programs have their own tags).
 */
static void install(struct set *set, int n, const char *ebpf_name)
{
	int prog = ebpf_filter(n, ebpf_name), i;

	memset(set, 0, sizeof(*set));
	set->filtered.sin_family = AF_INET;
	set->filtered.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	set->ebpf = set->filtered;
	set->reuseport = set->filtered;
	set->socks[0] = udp_socket(&set->filtered, 0);
	set->socks[1] = udp_socket(&set->ebpf, 0);
	/* A reuseport group of two; the filter picks the first. */
	set->socks[2] = udp_socket(&set->reuseport, 1);
	set->socks[3] = udp_socket(&set->reuseport, 1);
	if (prog < 0 || install_seccomp(n) ||
	    setsockopt(set->socks[0], SOL_SOCKET, SO_ATTACH_FILTER, long_filter(n, 0, 0xffff),
		       sizeof(struct sock_fprog)) ||
	    setsockopt(set->socks[1], SOL_SOCKET, SO_ATTACH_BPF, &prog, sizeof(prog)) ||
	    setsockopt(set->socks[2], SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, long_filter(n, 0, 0),
		       sizeof(struct sock_fprog)))
		exit(1);
	close(prog);
	for (i = 0; i < 4; i++)
		if (set->socks[i] < 0)
			exit(1);
}

static void run(const struct set *set, int tx)
{
	char buf[64] = "";
	int i;

	sendto(tx, buf, sizeof(buf), 0, (void *)&set->filtered, sizeof(set->filtered));
	sendto(tx, buf, sizeof(buf), 0, (void *)&set->ebpf, sizeof(set->ebpf));
	sendto(tx, buf, sizeof(buf), 0, (void *)&set->reuseport, sizeof(set->reuseport));
	for (i = 0; i < 4; i++)
		recv(set->socks[i], buf, sizeof(buf), MSG_DONTWAIT);
}

int main(int argc, char **argv)
{
	struct set before, during;
	char line[16];
	time_t end;
	int tx;

	if (argc != 2)
		return 2;
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (tx < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return 1;
	install(&before, 400, "wl_before");
	printf("before filters installed\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;

	install(&during, 450, "wl_during");
	printf("during filters installed\n");
	fflush(stdout);

	end = time(NULL) + atoi(argv[1]);
	while (time(NULL) < end) {
		run(&before, tx);
		run(&during, tx);
		syscall(SYS_getppid);
	}
	return 0;
}
