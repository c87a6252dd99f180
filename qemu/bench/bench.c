// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmarks run inside the guest, each REPEAT times; prints
 * "bench NAME ns/op ..." with every run:
 *   open_close          perf_event_open() + close() of one kprobe PMU event
 *   kprobe_hits         1e6 calls of getppid() with a counting kprobe on it
 *   uprobe_hits         1e6 calls of a function with a counting uprobe on it
 *   ebpf_load_unload    BPF_PROG_LOAD + close() of a small eBPF program
 *   seccomp_install_exit  fork, install a seccomp filter, exit, reap
 *   socket_filter_attach_close  socket() + SO_ATTACH_FILTER + close()
 *   socket_filter_reattach  SO_ATTACH_FILTER on one socket, each replacing
 *                       and freeing the last filter
 * and these three again with net.core.bpf_jit_kallsyms at 1 (_kallsyms1),
 * where classic images get no symbol (the series' patched kernels default
 * to 2; the stock kernel has no symbols for them either way);
 * and the last two again with a KSYMBOL listener on every CPU (_listening);
 *   kallsyms_read_0     read all of /proc/kallsyms (ns per read, as root)
 *   kallsyms_read_4000  the same with 4000 live socket filters
 *   close_256_kprobes   close() of 256 kprobe events on distinct functions, one
 *                       by one, until /sys/kernel/debug/kprobes/list is as
 *                       before (ns for all of them)
 *   close_64_uprobes    close() of 64 uprobe events on distinct instructions of
 *                       a file on a tmpfs, one by one, until the tmpfs can be
 *                       unmounted (ns for all of them)
 *   open_256_kprobes    perf_event_open() of 256 kprobe events on distinct
 *                       functions once the previous 256 are gone (ns for all)
 *   open_256_kprobes_settled  the same 1 s later, once the kprobe optimizer
 *                       has unoptimized and freed the closed ones
 *   setbpf_close_256_kprobes  close_256_kprobes with a BPF program on each
 *                       event (PERF_EVENT_IOC_SET_BPF), as bpftrace and bcc
 *                       attach them
 *   link_close_256_kprobes  the same with the programs attached through BPF
 *                       perf links, detached as libbpf's bpf_link__destroy()
 *                       does: disable, close the event, close the link
 *   link_close_64_uprobes  close_64_uprobes with BPF perf links, likewise
 *   kprobe_hits_fresh   kprobe_hits on getppid() with a kprobe opened when
 *                       none is pending, once it is [OPTIMIZED]
 *   kprobe_hits_reopened  the same with a kprobe opened right after closing
 *                       kprobes on 256 syscall entries, getppid()'s among them
 *   exit_256_kprobes    exit of a process with 256 kprobe events open: from
 *                       telling it to exit until waitpid() returns
 *   bpftrace_200_kprobes_exit  bpftrace with 200 kprobes (syscall entries,
 *                       each a kprobe PMU event) that calls exit() in one of
 *                       them: from the call that hits it until waitpid()
 *                       returns (when bpftrace is installed)
 *   bpftrace_200_kprobes_gone  the same run, until the kprobes list is as
 *                       before
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "perf_bpf_probe/teardown_lib.h"

#define REPEAT 5
#define MANY_KPROBES 256
#define MANY_UPROBES 64

/* A counting BPF program, for the rows that attach one. */
static int bench_prog = -1;

static int counting_prog_once(void)
{
	char log[4096];
	int map;

	if (bench_prog >= 0)
		return bench_prog;
	map = counter_map();
	bench_prog = map < 0 ? -1 : counting_prog(map, log, sizeof(log));
	if (bench_prog < 0) {
		fprintf(stderr, "BPF program: %s\n%s", strerror(errno), log);
		exit(1);
	}
	return bench_prog;
}

enum attach { NO_PROG, SET_BPF, LINK };

/* Attach the counting program to the @n events of @fds; link fds in @links. */
static void attach_all(enum attach how, int *fds, int *links, int n)
{
	int i, prog = how == NO_PROG ? -1 : counting_prog_once();

	for (i = 0; i < n; i++) {
		if (how == SET_BPF && ioctl(fds[i], PERF_EVENT_IOC_SET_BPF, prog)) {
			perror("PERF_EVENT_IOC_SET_BPF");
			exit(1);
		}
		if (how == LINK && (links[i] = bpf_link_perf_event(prog, fds[i])) < 0) {
			perror("BPF_LINK_CREATE");
			exit(1);
		}
	}
}

/* Close the events, and their links as libbpf's bpf_link__destroy() does. */
static void detach_all(enum attach how, int *fds, int *links, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (how == LINK)
			ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
		close(fds[i]);
		if (how == LINK)
			close(links[i]);
	}
}

/*
 * Open MANY_KPROBES kprobe events (@settle_ms after the call), attach
 * programs @how, close them all; return the ns until the kprobes are gone,
 * and in *open_ns (unless NULL) the ns the opening took.
 */
static double close_kprobes(enum attach how, double *open_ns, int settle_ms)
{
	struct perf_event_attr attr = { .disabled = 0 };
	int fds[MANY_KPROBES], links[MANY_KPROBES], n, listed = kprobes_listed();
	uint64_t t0;

	usleep(settle_ms * 1000);
	t0 = now_ns();
	n = open_syscall_kprobes(&attr, fds, MANY_KPROBES, NULL);
	if (open_ns)
		*open_ns = now_ns() - t0;
	if (n != MANY_KPROBES || listed < 0) {
		fprintf(stderr, "%d of %d kprobes opened, %d listed\n", n, MANY_KPROBES, listed);
		exit(1);
	}
	attach_all(how, fds, links, n);
	t0 = now_ns();
	detach_all(how, fds, links, n);
	if (wait_kprobes_listed(listed, 600000) < 0) {
		fprintf(stderr, "the kprobes stay listed\n");
		exit(1);
	}
	return now_ns() - t0;
}

static double close_uprobes(enum attach how)
{
	char dir[] = "/tmp/bench-uprobes.XXXXXX", path[256];
	struct perf_event_attr attr = { .disabled = 0 };
	int fds[MANY_UPROBES], links[MANY_UPROBES], err;
	uint64_t t0;

	if (!mkdtemp(dir) || copy_self_to_tmpfs(dir, path, sizeof(path)) ||
	    open_nop_uprobes(&attr, path, fds, MANY_UPROBES) != MANY_UPROBES) {
		perror("uprobes on a tmpfs");
		exit(1);
	}
	attach_all(how, fds, links, MANY_UPROBES);
	t0 = now_ns();
	detach_all(how, fds, links, MANY_UPROBES);
	err = umount_tmpfs(dir);
	t0 = now_ns() - t0;
	if (err) {
		fprintf(stderr, "umount: %s\n", strerror(-err));
		exit(1);
	}
	return t0;
}

static double exit_kprobes(void)
{
	int ready[2], go[2], status;
	uint64_t t0;
	char c = 0;
	pid_t pid;

	if (pipe(ready) || pipe(go))
		exit(1);
	pid = fork();
	if (pid == 0) {
		struct perf_event_attr attr = { .disabled = 0 };
		int fds[MANY_KPROBES];

		c = open_syscall_kprobes(&attr, fds, MANY_KPROBES, NULL) == MANY_KPROBES;
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1 || !c) {
		fprintf(stderr, "the child could not open %d kprobes\n", MANY_KPROBES);
		exit(1);
	}
	t0 = now_ns();
	if (write(go[1], &c, 1) != 1 || waitpid(pid, &status, 0) != pid || status)
		exit(1);
	t0 = now_ns() - t0;
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	return t0;
}

#define BPFTRACE_KPROBES 200

/*
 * bpftrace, as a user runs it: BPFTRACE_KPROBES kprobes, one of them on
 * getppid() calling exit() when this process makes the call, the others
 * counting.  Their attach points share a program and need no expansion, so
 * bpftrace opens one kprobe PMU event on each (with a wildcard, bpftrace 0.17
 * expands from ftrace's function list, which these kernels do not have).
 * Returns the ns from the getppid() call until waitpid() returns and in
 * *gone until the kprobes list is as before.
 */
static double bpftrace_exit(double *gone)
{
	static char prog[(BPFTRACE_KPROBES + 1) * (SYSCALL_NAME_MAX + 8) + 256];
	static char names[BPFTRACE_KPROBES + 1][SYSCALL_NAME_MAX];
	struct perf_event_attr attr = { .disabled = 0 };
	int fds[BPFTRACE_KPROBES + 1], i, n, counting = 0, status, r;
	int listed = kprobes_listed(), armed = kprobes_armed();
	const char *exit_func = getppid_symbol(NULL);
	uint64_t t0, exited;
	char arg[16];
	size_t len;
	pid_t pid;

	/*
	 * Syscall entries that take a kprobe; the one of getppid() exits.  It
	 * comes last: bpftrace attaches probes in reverse order, so that its
	 * program is attached and enabled before the other kprobes are armed.
	 */
	n = open_syscall_kprobes(&attr, fds, BPFTRACE_KPROBES + 1, names);
	close_all(fds, n);
	len = 0;
	for (i = 0; i < n && counting < BPFTRACE_KPROBES - 1; i++) {
		if (strcmp(names[i], exit_func))
			len += snprintf(prog + len, sizeof(prog) - len, "%skprobe:%s",
					counting++ ? "," : "", names[i]);
	}
	snprintf(prog + len, sizeof(prog) - len,
		 " { @calls = count(); }\nkprobe:%s /pid == $1/ { exit(); }\n", exit_func);
	if (counting != BPFTRACE_KPROBES - 1 || wait_kprobes_listed(listed, 600000) < 0) {
		fprintf(stderr, "%d functions for bpftrace\n", counting);
		exit(1);
	}

	snprintf(arg, sizeof(arg), "%d", getpid());
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		/* Without ftrace's function list it would warn of every kprobe. */
		execlp("bpftrace", "bpftrace", "--no-warnings", "-e", prog, arg, NULL);
		_exit(127);
	}
	/* Every kprobe registered and armed (the exit probe's program first). */
	t0 = now_ns();
	while (kprobes_armed() < armed + BPFTRACE_KPROBES) {
		if (waitpid(pid, &status, WNOHANG) || now_ns() - t0 > 600 * 1000000000ULL) {
			fprintf(stderr, "bpftrace armed %d of %d kprobes\n",
				kprobes_armed() - armed, BPFTRACE_KPROBES);
			exit(1);
		}
		usleep(10000);
	}
	/* Again every ms until it exits, should a call come too early. */
	t0 = now_ns();
	do {
		syscall(SYS_getppid);
		usleep(1000);
		r = waitpid(pid, &status, WNOHANG);
	} while (!r && now_ns() - t0 < 600 * 1000000000ULL);
	if (r != pid || status) {
		fprintf(stderr, "bpftrace did not exit (status %d)\n", r ? status : -1);
		exit(1);
	}
	exited = now_ns() - t0;
	if (wait_kprobes_listed(listed, 600000) < 0) {
		fprintf(stderr, "bpftrace's kprobes stay listed\n");
		exit(1);
	}
	*gone = now_ns() - t0;
	return exited;
}

static double open_close(const char *func, int n)
{
	uint64_t t = now_ns();
	int i;

	for (i = 0; i < n; i++) {
		int fd = probe_open("kprobe", 0, func, 0);

		if (fd < 0) {
			fprintf(stderr, "kprobe on %s: %s\n", func, strerror(-fd));
			exit(1);
		}
		close(fd);
	}
	return (double)(now_ns() - t) / n;
}

static double hits(int fd, void (*fn)(int), int n)
{
	uint64_t t = now_ns(), count;

	fn(n);
	t = now_ns() - t;
	count = read_count(fd);
	if (count < (uint64_t)n) {
		fprintf(stderr, "the event counted %llu of %d hits\n", (unsigned long long)count, n);
		exit(1);
	}
	return (double)t / n;
}

/*
 * ns per hit of a counting kprobe on @func, opened when no kprobe is
 * pending, or right after closing kprobes on 256 syscall entries (@func's
 * among them) when @reopened; measured once the probe is optimized.
 */
static double hits_on(const char *func, int reopened, int n)
{
	struct perf_event_attr attr = { .disabled = 0 };
	int fds[MANY_KPROBES], fd, listed = kprobes_listed();
	double v;

	if (reopened && open_syscall_kprobes(&attr, fds, MANY_KPROBES, NULL) != MANY_KPROBES)
		exit(1);
	if (reopened)
		close_all(fds, MANY_KPROBES);
	fd = probe_open("kprobe", 0, func, 0);
	if (fd < 0 || wait_kprobes_listed(listed + 1, 600000) < 0)
		exit(1);
	{
		char listed_as[128];

		snprintf(listed_as, sizeof(listed_as), " %s+0x", func);
		if (!wait_kprobe_optimized(listed_as, 10000))
			fprintf(stderr, "the kprobe on %s is not optimized\n", func);
	}
	v = hits(fd, trigger_getppid, n);
	close(fd);
	if (wait_kprobes_listed(listed, 600000) < 0)
		exit(1);
	return v;
}

static void call_target(int n)
{
	while (n--)
		probe_target(n);
}

static double ebpf_load_unload(int n)
{
	struct bpf_insn insns[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	union bpf_attr attr;
	uint64_t t = now_ns();
	int i, fd;

	for (i = 0; i < n; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
		attr.insns = (uintptr_t)insns;
		attr.insn_cnt = 2;
		attr.license = (uintptr_t)"GPL";
		fd = sys_bpf(BPF_PROG_LOAD, &attr);
		if (fd < 0) {
			perror("BPF_PROG_LOAD");
			exit(1);
		}
		close(fd);
	}
	return (double)(now_ns() - t) / n;
}

static double seccomp_install_exit(int n)
{
	struct sock_filter insns[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
	struct sock_fprog prog = { .len = 1, .filter = insns };
	uint64_t t = now_ns();
	int i, status;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
			    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
				_exit(1);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || status) {
			fprintf(stderr, "seccomp child failed\n");
			exit(1);
		}
	}
	return (double)(now_ns() - t) / n;
}

/* Set the sysctl at @path to @val, its old value in @old: 0 or -1. */
static int sysctl_swap(const char *path, const char *val, char *old, int size)
{
	int fd = open(path, O_RDWR), n, ok;

	if (fd < 0)
		return -1;
	n = read(fd, old, size - 1);
	old[n > 0 ? n : 0] = '\0';
	ok = n > 0 && pwrite(fd, val, strlen(val), 0) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

/* Attach a classic filter that accepts every packet to socket @s: 0 or -1. */
static int attach_accept_all(int s)
{
	static struct sock_filter insns[] = { BPF_STMT(BPF_RET | BPF_K, 0xffff) };
	static const struct sock_fprog prog = { .len = 1, .filter = insns };

	return s < 0 ? -1 : setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

/* ns per socket() + SO_ATTACH_FILTER + close(), as tcpdump or a DHCP client does. */
static double socket_filter_attach_close(int n)
{
	uint64_t t = now_ns();
	int i, s;

	for (i = 0; i < n; i++) {
		s = socket(AF_INET, SOCK_DGRAM, 0);
		if (attach_accept_all(s)) {
			perror("SO_ATTACH_FILTER");
			exit(1);
		}
		close(s);
	}
	return (double)(now_ns() - t) / n;
}

/* ns per SO_ATTACH_FILTER on one socket: each replaces and frees the last. */
static double socket_filter_reattach(int n)
{
	int i, s = socket(AF_INET, SOCK_DGRAM, 0);
	uint64_t t = now_ns();

	for (i = 0; i < n; i++) {
		if (attach_accept_all(s)) {
			perror("SO_ATTACH_FILTER");
			exit(1);
		}
	}
	t = now_ns() - t;
	close(s);
	return (double)t / n;
}

#define LISTEN_PAGES 16

/* A KSYMBOL listener on every CPU, as perf record -a has. */
static int listen_all(int *fds, void **rings, int max)
{
	int cpu, ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.ksymbol = 1,
		.bpf_event = 1,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
	};

	for (cpu = 0; cpu < ncpus && cpu < max; cpu++) {
		fds[cpu] = sys_perf_event_open(&attr, -1, cpu, -1, 0);
		rings[cpu] = mmap(NULL, (LISTEN_PAGES + 1) * getpagesize(), PROT_READ | PROT_WRITE,
				  MAP_SHARED, fds[cpu], 0);
		if (fds[cpu] < 0 || rings[cpu] == MAP_FAILED) {
			perror("listener");
			exit(1);
		}
	}
	return cpu;
}

/* Consume everything, as perf would, so that the rings never fill. */
static void consume(void **rings, int n)
{
	int cpu;

	for (cpu = 0; cpu < n; cpu++) {
		struct perf_event_mmap_page *pg = rings[cpu];

		pg->data_tail = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	}
}

/* ns to read all of /proc/kallsyms once. */
static double kallsyms_read(void)
{
	static char buf[65536];
	uint64_t t0 = now_ns();
	int fd = open("/proc/kallsyms", O_RDONLY);

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return now_ns() - t0;
}

/* Sockets with a socket filter each: @n of them, or -1. */
static int filtered_sockets(int *fds, int n)
{
	struct rlimit rl = { n + 64, n + 64 };
	int i;

	if (setrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	for (i = 0; i < n; i++) {
		fds[i] = socket(AF_INET, SOCK_DGRAM, 0);
		if (attach_accept_all(fds[i]))
			return -1;
	}
	return 0;
}

static void report(const char *name, double *v)
{
	int i;

	printf("bench %s", name);
	for (i = 0; i < REPEAT; i++)
		printf(" %.1f", v[i]);
	printf("\n");
	/* What was measured survives a guest that is stopped later. */
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int n_open = 100, n_hits = 1000000, n_jit = 200, i, fd, nl, lfds[64];
	void *rings[64];
	double v[REPEAT];
	const char *func;
	uint64_t addr;

	if (argc > 1)
		n_hits = atoi(argv[1]);
	func = getppid_symbol(&addr);
	if (!func)
		return 1;

	for (i = 0; i < REPEAT; i++)
		v[i] = open_close(func, n_open);
	report("open_close", v);

	fd = probe_open("kprobe", 0, func, 0);
	for (i = 0; i < REPEAT; i++)
		v[i] = hits(fd, trigger_getppid, n_hits);
	report("kprobe_hits", v);
	close(fd);

	fd = probe_open("uprobe", 0, self_exe(), self_file_offset((void *)probe_target));
	for (i = 0; i < REPEAT; i++)
		v[i] = hits(fd, call_target, n_hits);
	report("uprobe_hits", v);
	close(fd);

	for (i = 0; i < REPEAT; i++)
		v[i] = ebpf_load_unload(n_jit);
	report("ebpf_load_unload", v);
	for (i = 0; i < REPEAT; i++)
		v[i] = seccomp_install_exit(n_jit);
	report("seccomp_install_exit", v);
	for (i = 0; i < REPEAT; i++)
		v[i] = socket_filter_attach_close(n_jit);
	report("socket_filter_attach_close", v);
	for (i = 0; i < REPEAT; i++)
		v[i] = socket_filter_reattach(n_jit);
	report("socket_filter_reattach", v);
	{
		static const char kallsyms[] = "/proc/sys/net/core/bpf_jit_kallsyms";
		char old[16], now[16];

		if (sysctl_swap(kallsyms, "1", old, sizeof(old))) {
			perror(kallsyms);
			return 1;
		}
		for (i = 0; i < REPEAT; i++)
			v[i] = seccomp_install_exit(n_jit);
		report("seccomp_install_exit_kallsyms1", v);
		for (i = 0; i < REPEAT; i++)
			v[i] = socket_filter_attach_close(n_jit);
		report("socket_filter_attach_close_kallsyms1", v);
		for (i = 0; i < REPEAT; i++)
			v[i] = socket_filter_reattach(n_jit);
		report("socket_filter_reattach_kallsyms1", v);
		sysctl_swap(kallsyms, old, now, sizeof(now));
	}

	nl = listen_all(lfds, rings, 64);
	for (i = 0; i < REPEAT; i++) {
		v[i] = ebpf_load_unload(n_jit);
		consume(rings, nl);
	}
	report("ebpf_load_unload_listening", v);
	for (i = 0; i < REPEAT; i++) {
		v[i] = seccomp_install_exit(n_jit);
		consume(rings, nl);
	}
	report("seccomp_install_exit_listening", v);

	for (i = 0; i < REPEAT; i++)
		v[i] = kallsyms_read();
	report("kallsyms_read_0", v);
	{
		static int sfds[40000];
		pid_t churn;

		if (filtered_sockets(sfds, 4000)) {
			perror("socket filters");
			return 1;
		}
		for (i = 0; i < REPEAT; i++)
			v[i] = kallsyms_read();
		report("kallsyms_read_4000", v);
		for (i = 0; i < 4000; i++)
			close(sfds[i]);

		/* Ten times as many: a reader's cost stays linear. */
		if (filtered_sockets(sfds, 40000)) {
			perror("socket filters");
			return 1;
		}
		for (i = 0; i < REPEAT; i++)
			v[i] = kallsyms_read();
		report("kallsyms_read_40000", v);
		/* And while another process attaches and frees filters. */
		churn = fork();
		if (churn == 0) {
			struct sock_filter insns[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
			struct sock_fprog prog = { .len = 1, .filter = insns };

			for (;;) {
				int s = socket(AF_INET, SOCK_DGRAM, 0);

				if (s < 0 || setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
							sizeof(prog)))
					_exit(1);
				close(s);
			}
		}
		for (i = 0; i < REPEAT; i++)
			v[i] = kallsyms_read();
		report("kallsyms_read_40000_churn", v);
		kill(churn, SIGKILL);
		waitpid(churn, NULL, 0);
		for (i = 0; i < 40000; i++)
			close(sfds[i]);
	}

	for (i = 0; i < REPEAT; i++)
		v[i] = hits_on(func, 0, n_hits);
	report("kprobe_hits_fresh", v);
	for (i = 0; i < REPEAT; i++)
		v[i] = hits_on(func, 1, n_hits);
	report("kprobe_hits_reopened", v);

	{
		double opened[REPEAT];

		for (i = 0; i < REPEAT; i++)
			v[i] = close_kprobes(NO_PROG, &opened[i], 0);
		report("close_256_kprobes", v);
		report("open_256_kprobes", opened);
		for (i = 0; i < REPEAT; i++)
			close_kprobes(NO_PROG, &opened[i], 1000);
		report("open_256_kprobes_settled", opened);
	}
	for (i = 0; i < REPEAT; i++)
		v[i] = close_kprobes(SET_BPF, NULL, 0);
	report("setbpf_close_256_kprobes", v);
	for (i = 0; i < REPEAT; i++)
		v[i] = close_kprobes(LINK, NULL, 0);
	report("link_close_256_kprobes", v);
	for (i = 0; i < REPEAT; i++)
		v[i] = close_uprobes(NO_PROG);
	report("close_64_uprobes", v);
	for (i = 0; i < REPEAT; i++)
		v[i] = close_uprobes(LINK);
	report("link_close_64_uprobes", v);
	for (i = 0; i < REPEAT; i++)
		v[i] = exit_kprobes();
	report("exit_256_kprobes", v);

	if (!system("command -v bpftrace >/dev/null")) {
		double gone[REPEAT];

		for (i = 0; i < REPEAT; i++)
			v[i] = bpftrace_exit(&gone[i]);
		report("bpftrace_200_kprobes_exit", v);
		report("bpftrace_200_kprobes_gone", gone);
	}
	return 0;
}
