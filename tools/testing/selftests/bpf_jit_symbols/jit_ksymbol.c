// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_KSYMBOL at BPF JIT load and free, for eBPF programs and their
 * subprograms and for classic BPF filters (seccomp, socket filters), with
 * /proc/kallsyms listing the images while they live, and no kernel address
 * for openers who may not see one.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <fcntl.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/ppp-ioctl.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>

#include "../kselftest_harness.h"
#include "ksym_lib.h"

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			       int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), \
	.src_reg = (s), .off = (o), .imm = (i) })

/* Load a GPL program of @type, named @name; the verifier's log in @log. */
static int load_prog(enum bpf_prog_type type, const struct bpf_insn *insns, int n,
		     const char *name, char *log, size_t log_size)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = type;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = n;
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = log ? log_size : 0;
	attr.log_level = log ? 1 : 0;
	if (name)
		snprintf(attr.prog_name, sizeof(attr.prog_name), "%s", name);
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

/*
 * Fork a child that installs a seccomp filter, then waits for a byte on @go;
 * it dies with the test if the test fails before writing it.
 */
static pid_t seccomp_child(int go)
{
	pid_t pid = fork();
	char c;

	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
			    classic_filter(8, SECCOMP_RET_ALLOW)))
			_exit(1);
		if (go >= 0 && read(go, &c, 1) != 1)
			_exit(2);
		_exit(0);
	}
	return pid;
}

static int udp_socket(void)
{
	return socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

/*
 * The REGISTER of a classic image of @kind after the record at @after, with
 * the symbol's form, listed in /proc/kallsyms at its address while it lives.
 */
static int classic_registered(struct __test_metadata *_metadata, struct ksym_listener *l,
			      int after, const char *kind)
{
	char suffix[64];
	int reg, t;

	/* The name ends in _<kind>; others can too (_cbpf, _reuseport_cbpf). */
	snprintf(suffix, sizeof(suffix), "_%s", kind);
	for (t = 0, reg = ksym_wait(l, after, 0, suffix); reg >= 0 && t < MAX_RECORDS; t++) {
		if (ksym_is_classic(&l->rec[reg], kind))
			break;
		reg = ksym_wait(l, reg, 0, suffix);
	}
	if (reg < 0)
		return reg;
	EXPECT_TRUE(ksym_is_classic(&l->rec[reg], kind))
		TH_LOG("%s: len %u, addr %#llx", l->rec[reg].name, l->rec[reg].len,
		       (unsigned long long)l->rec[reg].addr);
	EXPECT_TRUE(kallsyms_has(l->rec[reg].name, l->rec[reg].addr))
		TH_LOG("%s at %#llx not in /proc/kallsyms", l->rec[reg].name,
		       (unsigned long long)l->rec[reg].addr);
	return reg;
}

/* Wait for the UNREGISTER of the REGISTER at @reg; its index or < 0. */
static int wait_unregister(struct ksym_listener *l, int reg)
{
	int u = -1, t;

	for (t = 0; t < KSYM_POLLS && u == -1; t++) {
		ksym_drain(l);
		u = ksym_unregister_of(l, reg);
		if (u == -1)
			usleep(10000);
	}
	return u;
}

/*
 * After the free: the UNREGISTER that pairs with the REGISTER at @reg (same
 * address, length and name) on the CPU-wide listener, and the symbol gone
 * from /proc/kallsyms.  The record is sent before the symbol is unlisted,
 * so the listing is polled.  The index of the record, or < 0.
 */
static int classic_unregistered(struct __test_metadata *_metadata, struct ksym_listener *l,
				int reg)
{
	struct ksym_record *r = &l->rec[reg];
	int u = wait_unregister(l, reg), t, listed = 1;

	if (u < 0)
		return u;
	for (t = 0; t < KSYM_POLLS && listed; t++) {
		listed = kallsyms_has(r->name, r->addr);
		if (listed)
			usleep(10000);
	}
	EXPECT_EQ(0, listed) TH_LOG("%s at %#llx still in /proc/kallsyms after its UNREGISTER",
				    r->name, (unsigned long long)r->addr);
	/* Who sent it: the test, or the worker of a deferred free. */
	TH_LOG("UNREGISTER of %s from pid %u (the test is %d)", r->name, l->rec[u].pid,
	       getpid());
	return u;
}

/*
 * The image of the REGISTER at @reg still lives: listed in /proc/kallsyms,
 * and no UNREGISTER for it yet.
 */
static void classic_lives(struct __test_metadata *_metadata, struct ksym_listener *l, int reg)
{
	struct ksym_record *r = &l->rec[reg];

	ksym_drain(l);
	EXPECT_EQ(-1, ksym_unregister_of(l, reg)) TH_LOG("%s unregistered while in use", r->name);
	EXPECT_TRUE(kallsyms_has(r->name, r->addr))
		TH_LOG("%s at %#llx not in /proc/kallsyms while in use", r->name,
		       (unsigned long long)r->addr);
}

/* Bring the loopback device up (virtme-ng's guest may leave it down); 0 or -errno. */
static int loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = udp_socket(), err = 0;

	if (s < 0)
		return -errno;
	if (ioctl(s, SIOCGIFFLAGS, &ifr)) {
		err = -errno;
	} else if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr))
			err = -errno;
	}
	close(s);
	return err;
}

/* A socket of @type bound to 127.0.0.1:@port (0: any free port), or -1. */
static int loopback_socket(int type, uint16_t port, int reuseport)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int s = socket(AF_INET, type | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -1;
	if ((reuseport && setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &reuseport, sizeof(reuseport))) ||
	    bind(s, (struct sockaddr *)&sin, sizeof(sin))) {
		close(s);
		return -1;
	}
	return s;
}

/* The local port of socket @s, 0 if none. */
static uint16_t local_port(int s)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	if (getsockname(s, (struct sockaddr *)&sin, &len))
		return 0;
	return ntohs(sin.sin_port);
}

/*
 * What runs while a test frees its images, so that a debug kernel (KASAN,
 * lockdep) reports a use-after-free or a wrong context on the free paths: a
 * child that reads /proc/kallsyms over and over (the reader walks the BPF
 * symbols while they are removed), with cpu-clock events on every CPU that
 * sample callchains (from the timer interrupt, the unwinder looks return
 * addresses up among the BPF symbols; the guess unwinder every word of the
 * stack), and that sends datagrams to 127.0.0.1:@port when @port is not 0,
 * so that the filters being freed still run.
 */
struct churn {
	pid_t pid;
	int stop;	/* closed to stop the child */
	int result;	/* the child's status, then its counts */
};

struct churn_counts {
	long kallsyms_reads;	/* read()s of /proc/kallsyms that returned data */
	long samples;		/* PERF_RECORD_SAMPLE records */
	long sent;		/* datagrams sent */
};

#define CHURN_PERIOD_NS 100000	/* 10 kHz on each CPU */
#define CHURN_PAGES 8

/* The samples in @mp's ring of @size bytes since the last call. */
static long churn_samples(struct perf_event_mmap_page *mp, size_t size)
{
	const char *data = (const char *)mp + sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE), tail = mp->data_tail;
	long n = 0;

	while (tail < head) {
		struct perf_event_header hdr;

		ksym_copy(&hdr, data, tail, sizeof(hdr), size);
		if (hdr.size < sizeof(hdr))
			break;
		n += hdr.type == PERF_RECORD_SAMPLE;
		tail += hdr.size;
	}
	__atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
	return n;
}

/* The churn child; its exit status. */
static int churn_run(int result, int stop, uint16_t port)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = CHURN_PERIOD_NS,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
	};
	struct sockaddr_in dst = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	size_t pg = sysconf(_SC_PAGESIZE), size = CHURN_PAGES * pg;
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN), cpu, fd, kfd = -1, err = 0, t = 0;
	struct perf_event_mmap_page *mp[MAX_CPUS];
	struct churn_counts n = { 0 };
	int s = udp_socket();
	static char buf[4096];
	struct pollfd p;
	ssize_t r;

	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	for (cpu = 0; cpu < ncpus && !err; cpu++) {
		fd = sys_perf_event_open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		mp[cpu] = fd < 0 ? MAP_FAILED : mmap(NULL, size + pg, PROT_READ | PROT_WRITE,
						     MAP_SHARED, fd, 0);
		if (mp[cpu] == MAP_FAILED)
			err = errno;
	}
	if (s < 0)
		err = errno;
	if (write(result, &err, sizeof(err)) != sizeof(err) || err)
		return 1;
	for (;;) {
		/* Asked to stop (or the test is gone): once it sampled, or at the bound. */
		p = (struct pollfd){ .fd = stop, .events = POLLIN };
		if (poll(&p, 1, 0) > 0) {
			if (n.samples || t++ == KSYM_POLLS)
				break;
			usleep(10000);
		}
		if (kfd < 0)
			kfd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
		r = kfd < 0 ? -1 : read(kfd, buf, sizeof(buf));
		if (r > 0) {
			n.kallsyms_reads++;
		} else if (kfd >= 0) {
			close(kfd);
			kfd = -1;
		}
		if (port && sendto(s, "x", 1, 0, (struct sockaddr *)&dst, sizeof(dst)) == 1)
			n.sent++;
		for (cpu = 0; cpu < ncpus; cpu++)
			n.samples += churn_samples(mp[cpu], size);
	}
	return write(result, &n, sizeof(n)) == sizeof(n) ? 0 : 1;
}

/* Start the churn child; 0, or the errno of what failed. */
static int churn_start(struct churn *c, uint16_t port)
{
	int result[2], stop[2], err = EIO;

	if (pipe2(result, O_CLOEXEC))
		return errno;
	if (pipe2(stop, O_CLOEXEC)) {
		err = errno;
		close(result[0]);
		close(result[1]);
		return err;
	}
	c->pid = fork();
	if (c->pid == 0) {
		/*
		 * Only its pipes: a copy of the test's sockets or files would
		 * keep them from being freed at their close() in the test.
		 */
		if (dup2(result[1], 0) < 0 || dup2(stop[0], 1) < 0 || close_range(2, ~0U, 0))
			_exit(1);
		/* It ends with the test, also one that fails before churn_stop(). */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL))
			_exit(1);
		_exit(churn_run(0, 1, port));
	}
	close(result[1]);
	close(stop[0]);
	c->stop = stop[1];
	c->result = result[0];
	if (c->pid < 0)
		err = errno;
	else if (read(c->result, &err, sizeof(err)) != sizeof(err))
		err = EIO;
	return err;
}

/* Stop the churn child: it read /proc/kallsyms, sampled and, to a port, sent. */
static void churn_stop(struct __test_metadata *_metadata, struct churn *c, int sends)
{
	struct churn_counts n = { 0 };

	close(c->stop);
	if (read(c->result, &n, sizeof(n)) != sizeof(n))
		memset(&n, 0, sizeof(n));
	close(c->result);
	EXPECT_EQ(0, reap(c->pid));
	EXPECT_LT(0, n.kallsyms_reads) TH_LOG("the /proc/kallsyms reader read nothing");
	EXPECT_LT(0, n.samples) TH_LOG("no callchain sample");
	if (sends)
		EXPECT_LT(0, n.sent) TH_LOG("no datagram sent through the filter");
}

/* Start the churn child with the harness's checks. */
#define CHURN_START(c, port) do {						\
	int __err = churn_start(c, port);					\
									\
	ASSERT_EQ(0, __err) TH_LOG("kallsyms reader and callchain sampler: %s",	\
				   strerror(__err));				\
} while (0)

/* The sysctls the tests change, restored after each test, failed or not. */
static const char *const sysctls[] = {
	"/proc/sys/kernel/kptr_restrict",
	"/proc/sys/kernel/perf_event_paranoid",
	"/proc/sys/net/core/bpf_jit_harden",
};

FIXTURE(ksym) {
	struct ksym_listener l;
	char sysctl[3][16];
};

FIXTURE_SETUP(ksym)
{
	int i;

	for (i = 0; i < 3; i++)
		sysctl_read(sysctls[i], self->sysctl[i], sizeof(self->sysctl[i]));
	ASSERT_EQ(0, ksym_listen(&self->l, 1));
}

FIXTURE_TEARDOWN(ksym)
{
	int i, t, unpaired = 0;

	for (i = 0; i < 3; i++)
		if (self->sysctl[i][0])
			sysctl_write(sysctls[i], self->sysctl[i]);
	/*
	 * The test freed every image it made: each REGISTER has its
	 * UNREGISTER (and no late one reaches the next test's listener).
	 */
	for (t = 0; t < KSYM_POLLS; t++) {
		ksym_drain(&self->l);
		for (i = unpaired = 0; i < self->l.nrec; i++)
			unpaired += ksym_is(&self->l.rec[i], 0, "") &&
				    ksym_unregister_of(&self->l, i) < 0;
		if (!unpaired)
			break;
		usleep(10000);
	}
	EXPECT_EQ(0, unpaired) TH_LOG("images of the test not freed");
	/* Every record parses with perf's layout. */
	for (i = 0; i < self->l.nrec; i++)
		EXPECT_EQ(0, self->l.rec[i].malformed)
			TH_LOG("record %d: %s", i, self->l.rec[i].name);
	EXPECT_EQ(0, self->l.lost);
	ksym_close(&self->l);
}

/* A program whose main function calls two subprograms. */
static int load_subprogs(char *log, size_t size)
{
	struct bpf_insn insns[] = {
		INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 3),	/* sub1 at 4 */
		INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 4),	/* sub2 at 6 */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1),	/* sub1 */
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 2),	/* sub2 */
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	return load_prog(BPF_PROG_TYPE_SOCKET_FILTER, insns, ARRAY_SIZE(insns), "ksym_subprogs",
			 log, size);
}

TEST_F(ksym, ebpf_program_and_subprograms)
{
	uint64_t ksyms[8] = { 0 };
	uint32_t lens[8] = { 0 };
	struct bpf_prog_info info;
	union bpf_attr attr;
	static char log[65536];
	int fd, i, n, bpf_load = -1, reg[8], nreg = 0;

	fd = load_subprogs(log, sizeof(log));
	ASSERT_LE(0, fd) TH_LOG("BPF_PROG_LOAD: %s\n%s", strerror(errno), log);
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = 8;
	info.jited_ksyms = (uintptr_t)ksyms;
	info.nr_jited_func_lens = 8;
	info.jited_func_lens = (uintptr_t)lens;
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uintptr_t)&info;
	ASSERT_EQ(0, sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr));
	n = info.nr_jited_ksyms;
	ASSERT_EQ(3, n);

	ksym_drain(&self->l);
	for (i = 0; i < self->l.nrec; i++) {
		struct ksym_record *r = &self->l.rec[i];

		if (r->type == PERF_RECORD_BPF_EVENT && r->bpf_type == PERF_BPF_EVENT_PROG_LOAD &&
		    r->prog_id == info.id)
			bpf_load = i;
		if (ksym_is(r, 0, "") && nreg < 8) {
			int k;

			for (k = 0; k < n; k++)
				if (r->addr == ksyms[k])
					reg[nreg++] = i;
		}
	}
	/* One REGISTER per function, with its address and length, before the LOAD. */
	ASSERT_EQ(n, nreg);
	ASSERT_LE(0, bpf_load);
	for (i = 0; i < n; i++) {
		struct ksym_record *r = &self->l.rec[reg[i]];
		int k;

		for (k = 0; k < n && ksyms[k] != r->addr; k++)
			;
		EXPECT_EQ(lens[k], r->len);
		EXPECT_EQ(PERF_RECORD_KSYMBOL_TYPE_BPF, r->ksym_type);
		EXPECT_EQ(r->addr, kallsyms_addr(r->name)) TH_LOG("%s", r->name);
		EXPECT_LT(r->time, self->l.rec[bpf_load].time);
	}

	close(fd);
	for (i = 0; i < n; i++)
		EXPECT_LE(0, wait_unregister(&self->l, reg[i]))
			TH_LOG("no single UNREGISTER for %s", self->l.rec[reg[i]].name);
}

TEST_F(ksym, seccomp_filter)
{
	int reg, unreg;

	int go[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	pid = seccomp_child(go[0]);
	reg = classic_registered(_metadata, &self->l, -1, "seccomp");
	ASSERT_LE(0, reg) TH_LOG("no REGISTER record for the seccomp filter");
	EXPECT_EQ((uint32_t)pid, self->l.rec[reg].pid);
	/* Freed when the child is reaped. */
	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ(0, reap(pid));
	unreg = wait_unregister(&self->l, reg);
	ASSERT_LE(0, unreg) TH_LOG("no UNREGISTER record for the seccomp filter");
	close(go[0]);
	close(go[1]);
}

TEST_F(ksym, socket_filter_attach_detach_close)
{
	struct sock_fprog *prog = classic_filter(4, 0xffff);
	int s = udp_socket(), reg, unreg, zero = 0;

	ASSERT_LE(0, s);
	ASSERT_EQ(0, setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog)));
	reg = classic_registered(_metadata, &self->l, -1, "sock_filter");
	ASSERT_LE(0, reg);
	ASSERT_EQ(0, setsockopt(s, SOL_SOCKET, SO_DETACH_FILTER, &zero, sizeof(zero)));
	unreg = wait_unregister(&self->l, reg);
	ASSERT_LE(0, unreg) TH_LOG("no UNREGISTER after SO_DETACH_FILTER");

	ASSERT_EQ(0, setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog)));
	reg = classic_registered(_metadata, &self->l, unreg, "sock_filter");
	ASSERT_LE(0, reg);
	close(s);
	ASSERT_LE(0, wait_unregister(&self->l, reg)) TH_LOG("no UNREGISTER after close()");
}

TEST_F(ksym, reuseport_cbpf)
{
	struct sock_fprog *prog = classic_filter(2, 0);
	int s = udp_socket(), one = 1, reg;

	ASSERT_LE(0, s);
	ASSERT_EQ(0, setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)));
	ASSERT_EQ(0, setsockopt(s, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, prog, sizeof(*prog)));
	reg = classic_registered(_metadata, &self->l, -1, "reuseport_cbpf");
	ASSERT_LE(0, reg);
	close(s);
	EXPECT_LE(0, wait_unregister(&self->l, reg));
}

/* The filter of a packet fanout group (PACKET_FANOUT_DATA). */
TEST_F(ksym, packet_fanout)
{
	struct sock_fprog *prog = classic_filter(3, 0);
	int s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL)), reg;
	int fanout = (getpid() & 0xffff) | (PACKET_FANOUT_CBPF << 16);

	ASSERT_LE(0, s);
	ASSERT_EQ(0, setsockopt(s, SOL_PACKET, PACKET_FANOUT, &fanout, sizeof(fanout)));
	ASSERT_EQ(0, setsockopt(s, SOL_PACKET, PACKET_FANOUT_DATA, prog, sizeof(*prog)));
	reg = classic_registered(_metadata, &self->l, -1, "packet_fanout");
	ASSERT_LE(0, reg);
	close(s);
	EXPECT_LE(0, wait_unregister(&self->l, reg));
}

/* Other bpf_prog_create() users, here PPP's pass filter: the "cbpf" kind. */
TEST_F(ksym, ppp_pass_filter_cbpf)
{
	struct sock_fprog *prog = classic_filter(5, 1);
	int fd = open("/dev/ppp", O_RDWR | O_CLOEXEC), unit = -1, reg;

	ASSERT_LE(0, fd) TH_LOG("/dev/ppp: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PPPIOCNEWUNIT, &unit)) TH_LOG("PPPIOCNEWUNIT: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PPPIOCSPASS, prog)) TH_LOG("PPPIOCSPASS: %s", strerror(errno));
	reg = classic_registered(_metadata, &self->l, -1, "cbpf");
	ASSERT_LE(0, reg);
	close(fd);
	EXPECT_LE(0, wait_unregister(&self->l, reg));
}

/*
 * The deferred frees of classic images: sockets freed after an RCU grace
 * period or with bottom halves disabled, where bpf_prog_free() retires the
 * symbol from a worker, whose records only CPU-wide listeners get.  Each
 * runs with the churn child reading /proc/kallsyms and sampling callchains.
 */

/* A UDP socket with a port is freed after an RCU grace period. */
TEST_F_TIMEOUT(ksym, udp_bound_socket_filter, 120)
{
	struct sock_fprog *prog = classic_filter(7, 0xffff);
	struct churn c;
	int s, reg;

	ASSERT_EQ(0, loopback_up());
	s = loopback_socket(SOCK_DGRAM, 0, 0);
	ASSERT_LE(0, s) TH_LOG("bound UDP socket: %s", strerror(errno));
	ASSERT_EQ(0, setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog)));
	reg = classic_registered(_metadata, &self->l, -1, "sock_filter");
	ASSERT_LE(0, reg) TH_LOG("no REGISTER record for the socket filter");
	/* The filter runs on the datagrams sent to the socket until it goes. */
	CHURN_START(&c, local_port(s));
	classic_lives(_metadata, &self->l, reg);
	close(s);
	ASSERT_LE(0, classic_unregistered(_metadata, &self->l, reg))
		TH_LOG("no UNREGISTER after the close() of a bound UDP socket");
	churn_stop(_metadata, &c, 1);
}

/* A netlink socket is freed from an RCU callback (deferred_put_nlk_sk()). */
TEST_F_TIMEOUT(ksym, netlink_socket_filter, 120)
{
	struct sock_fprog *prog = classic_filter(8, 0xffffffff);
	struct {
		struct nlmsghdr nh;
		struct rtgenmsg g;
	} req = {
		.nh.nlmsg_len = sizeof(req),
		.nh.nlmsg_type = RTM_GETLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.g.rtgen_family = AF_UNSPEC,
	};
	static char buf[65536];
	struct churn c;
	int s, reg;

	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	ASSERT_LE(0, s) TH_LOG("netlink socket: %s", strerror(errno));
	ASSERT_EQ(0, setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog)));
	reg = classic_registered(_metadata, &self->l, -1, "sock_filter");
	ASSERT_LE(0, reg) TH_LOG("no REGISTER record for the netlink socket's filter");
	CHURN_START(&c, 0);
	/* The filter runs on the replies of a dump (binding the socket). */
	ASSERT_EQ(sizeof(req), send(s, &req, sizeof(req), 0));
	EXPECT_LT(0, recv(s, buf, sizeof(buf), 0)) TH_LOG("no reply to RTM_GETLINK");
	classic_lives(_metadata, &self->l, reg);
	close(s);
	ASSERT_LE(0, classic_unregistered(_metadata, &self->l, reg))
		TH_LOG("no UNREGISTER after the close() of a netlink socket");
	churn_stop(_metadata, &c, 0);
}

/* /proc/net/tcp lists a socket from port @lport to port @rport. */
static int tcp_listed(uint16_t lport, uint16_t rport)
{
	unsigned int l, r;
	char line[256];
	FILE *f = fopen("/proc/net/tcp", "r");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, " %*u: %*x:%x %*x:%x", &l, &r) == 2 && l == lport &&
			r == rport;
	fclose(f);
	return found;
}

/*
 * A TCP listener with a filter and the connection it accepted, which
 * shares it (sk_clone_lock()): the listener is freed after an RCU grace
 * period, the connection when its FIN is acknowledged (in softirq, or in
 * the closing task if the ACK waited in the socket's backlog); whichever
 * goes last frees the image.
 */
static void tcp_listener_child(struct __test_metadata *_metadata, struct ksym_listener *l,
			       int child_first)
{
	struct sock_fprog *prog = classic_filter(9, 0xffff);
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int ls, cs, as, reg, t, listed = 1;
	uint16_t lport, cport;
	struct churn c;
	char x = 0;

	ASSERT_EQ(0, loopback_up());
	ls = loopback_socket(SOCK_STREAM, 0, 0);
	ASSERT_LE(0, ls) TH_LOG("bound TCP socket: %s", strerror(errno));
	ASSERT_EQ(0, setsockopt(ls, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog)));
	ASSERT_EQ(0, listen(ls, 1));
	reg = classic_registered(_metadata, l, -1, "sock_filter");
	ASSERT_LE(0, reg) TH_LOG("no REGISTER record for the listener's filter");
	CHURN_START(&c, 0);

	ASSERT_EQ(0, getsockname(ls, (struct sockaddr *)&sin, &len));
	lport = ntohs(sin.sin_port);
	cs = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, cs);
	ASSERT_EQ(0, connect(cs, (struct sockaddr *)&sin, sizeof(sin)))
		TH_LOG("connect: %s", strerror(errno));
	cport = local_port(cs);
	as = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
	ASSERT_LE(0, as) TH_LOG("accept: %s", strerror(errno));
	/* The child's filter (the listener's) runs on the data it receives. */
	ASSERT_EQ(1, write(cs, "x", 1));
	ASSERT_EQ(1, read(as, &x, 1));
	/* One image for both sockets: no second REGISTER. */
	ksym_drain(l);
	EXPECT_EQ(-1, ksym_find(l, reg, 0, "_sock_filter")) TH_LOG("the child has an image");

	if (child_first) {
		/*
		 * The client closes first: the child's FIN, once acknowledged,
		 * frees it (LAST_ACK to CLOSE); the listener still holds the image.
		 */
		close(cs);
		close(as);
		for (t = 0; t < KSYM_POLLS && listed; t++) {
			listed = tcp_listed(lport, cport);
			if (listed)
				usleep(10000);
		}
		ASSERT_EQ(0, listed) TH_LOG("the accepted connection never went");
		classic_lives(_metadata, l, reg);
		close(ls);
	} else {
		/* The connection holds the image past the listener's free. */
		close(ls);
		classic_lives(_metadata, l, reg);
		close(cs);
		close(as);
	}
	ASSERT_LE(0, classic_unregistered(_metadata, l, reg))
		TH_LOG("no UNREGISTER after the listener and the connection were closed");
	churn_stop(_metadata, &c, 0);
}

TEST_F_TIMEOUT(ksym, tcp_listener_child_close_listener_first, 120)
{
	tcp_listener_child(_metadata, &self->l, 0);
}

TEST_F_TIMEOUT(ksym, tcp_listener_child_close_child_first, 120)
{
	tcp_listener_child(_metadata, &self->l, 1);
}

#define GROUP 3

/*
 * A group of bound UDP sockets: its last socket leaves it at close() with
 * bottom halves disabled (the hash slot's lock), and the group and its
 * program are freed from RCU callbacks.
 */
TEST_F_TIMEOUT(ksym, reuseport_cbpf_bound_group, 120)
{
	struct sock_fprog *prog = classic_filter(4, 0);
	int s[GROUP], i, reg;
	uint16_t port = 0;
	struct churn c;

	ASSERT_EQ(0, loopback_up());
	for (i = 0; i < GROUP; i++) {
		s[i] = loopback_socket(SOCK_DGRAM, port, 1);
		ASSERT_LE(0, s[i]) TH_LOG("socket %d of the group: %s", i, strerror(errno));
		port = local_port(s[i]);
	}
	/* A bound socket's program is its group's. */
	ASSERT_EQ(0, setsockopt(s[1], SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, prog, sizeof(*prog)));
	reg = classic_registered(_metadata, &self->l, -1, "reuseport_cbpf");
	ASSERT_LE(0, reg) TH_LOG("no REGISTER record for the group's program");
	/* The program picks the socket of each datagram sent to the group. */
	CHURN_START(&c, port);
	for (i = 0; i < GROUP - 1; i++)
		close(s[i]);
	classic_lives(_metadata, &self->l, reg);
	close(s[GROUP - 1]);
	ASSERT_LE(0, classic_unregistered(_metadata, &self->l, reg))
		TH_LOG("no UNREGISTER after the group's last socket was closed");
	churn_stop(_metadata, &c, 1);
}

/* SO_ATTACH_FILTER on a packet socket, which sees every packet on lo. */
TEST_F_TIMEOUT(ksym, packet_socket_filter, 120)
{
	struct sock_fprog *prog = classic_filter(10, 0xffff);
	struct churn c;
	int s, reg;

	s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (s < 0 && errno == EAFNOSUPPORT)
		SKIP(return, "no AF_PACKET in this kernel (CONFIG_PACKET)");
	ASSERT_LE(0, s) TH_LOG("packet socket: %s", strerror(errno));
	ASSERT_EQ(0, loopback_up());
	ASSERT_EQ(0, setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog)));
	reg = classic_registered(_metadata, &self->l, -1, "sock_filter");
	ASSERT_LE(0, reg) TH_LOG("no REGISTER record for the packet socket's filter");
	/* Datagrams to the discard port, seen by the packet socket's filter. */
	CHURN_START(&c, 9);
	classic_lives(_metadata, &self->l, reg);
	close(s);
	ASSERT_LE(0, classic_unregistered(_metadata, &self->l, reg))
		TH_LOG("no UNREGISTER after the close() of a packet socket");
	churn_stop(_metadata, &c, 1);
}

/*
 * PPPIOCSPASS replaces the unit's pass filter under ppp_lock(), with
 * bottom halves disabled: the first filter's image is retired by a worker.
 */
TEST_F_TIMEOUT(ksym, ppp_pass_filter_replaced, 120)
{
	int fd = open("/dev/ppp", O_RDWR | O_CLOEXEC), unit = -1, first, second;
	struct churn c;

	if (fd < 0 && (errno == ENOENT || errno == ENODEV || errno == ENXIO))
		SKIP(return, "no /dev/ppp (CONFIG_PPP): %s", strerror(errno));
	ASSERT_LE(0, fd) TH_LOG("/dev/ppp: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PPPIOCNEWUNIT, &unit)) TH_LOG("PPPIOCNEWUNIT: %s", strerror(errno));
	CHURN_START(&c, 0);
	ASSERT_EQ(0, ioctl(fd, PPPIOCSPASS, classic_filter(11, 1)))
		TH_LOG("PPPIOCSPASS: %s", strerror(errno));
	first = classic_registered(_metadata, &self->l, -1, "cbpf");
	ASSERT_LE(0, first) TH_LOG("no REGISTER record for the first pass filter");
	ASSERT_EQ(0, ioctl(fd, PPPIOCSPASS, classic_filter(12, 1)))
		TH_LOG("second PPPIOCSPASS: %s", strerror(errno));
	second = classic_registered(_metadata, &self->l, first, "cbpf");
	ASSERT_LE(0, second) TH_LOG("no REGISTER record for the second pass filter");
	ASSERT_LE(0, classic_unregistered(_metadata, &self->l, first))
		TH_LOG("no UNREGISTER of the replaced pass filter");
	classic_lives(_metadata, &self->l, second);
	close(fd);
	ASSERT_LE(0, classic_unregistered(_metadata, &self->l, second))
		TH_LOG("no UNREGISTER of the pass filter after the unit was closed");
	churn_stop(_metadata, &c, 0);
}

/* Every REGISTER has exactly one UNREGISTER, however many come and go. */
TEST_F_TIMEOUT(ksym, thousand_cycles_pair_up, 240)
{
	struct sock_fprog *prog = classic_filter(3, 0xffff);
	int i, regs = 0, unregs = 0, t;

	for (i = 0; i < 1000; i++) {
		int s = udp_socket();

		ASSERT_LE(0, s);
		ASSERT_EQ(0, setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog)));
		close(s);
		if (i % 50 == 0)
			ksym_drain(&self->l);
	}
	for (t = 0; t < 1000; t++) {
		ksym_drain(&self->l);
		for (i = regs = unregs = 0; i < self->l.nrec; i++) {
			regs += ksym_is(&self->l.rec[i], 0, "_sock_filter");
			unregs += ksym_is(&self->l.rec[i], 1, "_sock_filter");
		}
		if (regs == 1000 && unregs == 1000)
			break;
		usleep(10000);
	}
	EXPECT_EQ(1000, regs);
	EXPECT_EQ(1000, unregs);
	for (i = 0; i < self->l.nrec; i++)
		if (ksym_is(&self->l.rec[i], 0, "_sock_filter"))
			EXPECT_LE(0, ksym_unregister_of(&self->l, i)) TH_LOG("record %d", i);
}

/*
 * The tag names identical filters alike: under constant blinding too, which
 * rewrites the copy of the program that is JIT compiled with random values.
 */
TEST_F(ksym, tag_same_under_jit_harden)
{
	static const char harden[] = "/proc/sys/net/core/bpf_jit_harden";
	struct sock_fprog *prog = classic_filter(4, 0x1234);
	int s1, s2, r1, r2;
	char old[16];

	ASSERT_EQ(0, sysctl_swap(harden, "2", old, sizeof(old)));
	s1 = udp_socket();
	s2 = udp_socket();
	r1 = setsockopt(s1, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog));
	r2 = setsockopt(s2, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog));
	ASSERT_EQ(0, sysctl_swap(harden, old, NULL, 0));
	ASSERT_EQ(0, r1);
	ASSERT_EQ(0, r2);
	r1 = ksym_wait(&self->l, -1, 0, "_sock_filter");
	ASSERT_LE(0, r1);
	r2 = ksym_wait(&self->l, r1, 0, "_sock_filter");
	ASSERT_LE(0, r2);
	EXPECT_STREQ(self->l.rec[r1].name, self->l.rec[r2].name);
	EXPECT_NE(self->l.rec[r1].addr, self->l.rec[r2].addr);
	close(s1);
	close(s2);
}

/*
 * Who sees classic images in /proc/kallsyms: the readers who see kernel
 * addresses, and nobody else; eBPF images are listed to every reader.
 * 1: the image is listed, 0: not; +2: the kernel's addresses are shown.
 */
static int kallsyms_view(const char *name, int unprivileged)
{
	char line[512], sym[256], type;
	unsigned long long a;
	int found = 0, shown = 0;
	FILE *f;

	if (unprivileged && (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
			     setresuid(65534, 65534, 65534)))
		return -1;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -2;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3)
			continue;
		if (!strcmp(sym, "_stext") && a)
			shown = 2;
		if (!strcmp(sym, name))
			found = 1;
	}
	fclose(f);
	return found | shown;
}

static int kallsyms_view_of(const char *name, int unprivileged)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(kallsyms_view(name, unprivileged) & 0x7f);
	return reap(pid);
}

TEST_F(ksym, classic_images_listed_to_who_sees_addresses)
{
	struct bpf_insn insns[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	struct sock_fprog *prog = classic_filter(6, 0xffff);
	char paranoid[16], restrict_[16];
	char classic[128], ebpf[128];
	int s = udp_socket(), fd, reg, root, nobody, nobody_open;

	ASSERT_LE(0, s);
	ASSERT_EQ(0, setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog)));
	fd = load_prog(BPF_PROG_TYPE_SOCKET_FILTER, insns, ARRAY_SIZE(insns), "ksym_seen", NULL, 0);
	ASSERT_LE(0, fd);
	reg = ksym_wait(&self->l, -1, 0, "_sock_filter");
	ASSERT_LE(0, reg);
	snprintf(classic, sizeof(classic), "%s", self->l.rec[reg].name);
	reg = ksym_wait(&self->l, -1, 0, "_ksym_seen");
	ASSERT_LE(0, reg);
	snprintf(ebpf, sizeof(ebpf), "%s", self->l.rec[reg].name);

	/* Addresses hidden from nobody: kptr_restrict 1 (CAP_SYSLOG needed). */
	ASSERT_EQ(0, sysctl_swap("/proc/sys/kernel/kptr_restrict", "1",
				 restrict_, sizeof(restrict_)));
	root = kallsyms_view_of(classic, 0);
	nobody = kallsyms_view_of(classic, 1);
	EXPECT_EQ(1 | 2, root) TH_LOG("root's view of %s", classic);
	EXPECT_EQ(0, nobody) TH_LOG("nobody's view of %s", classic);
	EXPECT_EQ(1, kallsyms_view_of(ebpf, 1)) TH_LOG("nobody's view of %s", ebpf);

	/* Shown to all at kptr_restrict 0 with perf_event_paranoid 1. */
	ASSERT_EQ(0, sysctl_swap("/proc/sys/kernel/kptr_restrict", "0", NULL, 0));
	ASSERT_EQ(0, sysctl_swap("/proc/sys/kernel/perf_event_paranoid", "1",
				 paranoid, sizeof(paranoid)));
	nobody_open = kallsyms_view_of(classic, 1);
	sysctl_swap("/proc/sys/kernel/perf_event_paranoid", paranoid, NULL, 0);
	sysctl_swap("/proc/sys/kernel/kptr_restrict", restrict_, NULL, 0);
	EXPECT_EQ(1 | 2, nobody_open) TH_LOG("nobody's view at perf_event_paranoid 1");

	close(fd);
	close(s);
}

#define CHURNED 300
#define LASTING 300

static int addr_cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * A reader of /proc/kallsyms gets each BPF image that lives through its
 * reading once, whatever goes meanwhile: CHURNED socket filters freed when
 * the reader has got one of them, LASTING reuseport programs that stay.
 */
TEST_F_TIMEOUT(ksym, kallsyms_reader_keeps_its_place, 120)
{
	struct sock_fprog *prog = classic_filter(3, 0);
	int churned[CHURNED], lasting[LASTING], i, fd, one = 1, n = 0, dups = 0;
	unsigned long long addr[LASTING + 1];
	size_t len = 0, size = 1 << 20;
	char *buf = malloc(size), *line, *end;
	ssize_t r;

	ASSERT_NE(NULL, buf);
	/* Root sees classic images at kptr_restrict 1 (restored by the fixture). */
	ASSERT_EQ(0, sysctl_swap("/proc/sys/kernel/kptr_restrict", "1", NULL, 0));
	for (i = 0; i < CHURNED; i++) {
		churned[i] = udp_socket();
		ASSERT_EQ(0, setsockopt(churned[i], SOL_SOCKET, SO_ATTACH_FILTER, prog,
					sizeof(*prog)));
	}
	for (i = 0; i < LASTING; i++) {
		lasting[i] = udp_socket();
		ASSERT_EQ(0, setsockopt(lasting[i], SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)));
		ASSERT_EQ(0, setsockopt(lasting[i], SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, prog,
					sizeof(*prog)));
	}

	fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	do {
		if (size - len < 4097) {
			size *= 2;
			buf = realloc(buf, size);
			ASSERT_NE(NULL, buf);
		}
		r = read(fd, buf + len, 4096);
		ASSERT_LE(0, r);
		buf[len + r] = '\0';
		/* The socket filters go once the reader has got one. */
		if (churned[0] >= 0 &&
		    strstr(buf + (len > 64 ? len - 64 : 0), "_sock_filter\t[bpf]"))
			for (i = 0; i < CHURNED; i++) {
				close(churned[i]);
				churned[i] = -1;
			}
		len += r;
	} while (r > 0);
	close(fd);
	EXPECT_EQ(-1, churned[0]) TH_LOG("no socket filter in /proc/kallsyms");

	for (line = buf; line < buf + len; line = end + 1) {
		end = strchr(line, '\n') ?: buf + len;
		*end = '\0';
		if (strstr(line, "_reuseport_cbpf\t[bpf]") && n <= LASTING)
			addr[n++] = strtoull(line, NULL, 16);
	}
	qsort(addr, n, sizeof(addr[0]), addr_cmp);
	for (i = 1; i < n; i++)
		dups += addr[i] == addr[i - 1];
	EXPECT_EQ(LASTING, n) TH_LOG("%d of the %d lasting images listed", n, LASTING);
	EXPECT_EQ(0, dups);
	for (i = 0; i < CHURNED; i++)
		if (churned[i] >= 0)
			close(churned[i]);
	for (i = 0; i < LASTING; i++)
		close(lasting[i]);
	free(buf);
}

/* A filter installed before any listener is in /proc/kallsyms while it lives. */
TEST(seccomp_filter_in_kallsyms)
{
	char line[512], sym[256], name[256] = "", type;
	unsigned long long a, addr = 0;
	int go[2], t, listed = 1;
	pid_t pid;
	FILE *f;

	ASSERT_EQ(0, pipe(go));
	pid = seccomp_child(go[0]);
	ASSERT_LT(0, pid);
	for (t = 0; t < 100 && !addr; t++) {
		f = fopen("/proc/kallsyms", "r");
		ASSERT_NE(NULL, f);
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 &&
			    strstr(sym, "_seccomp") && !strncmp(sym, "bpf_prog_", 9) &&
			    strstr(line, "[bpf]")) {
				addr = a;
				snprintf(name, sizeof(name), "%s", sym);
			}
		}
		fclose(f);
		if (!addr)
			usleep(10000);
	}
	ASSERT_NE(0, addr) TH_LOG("no bpf_prog_*_seccomp symbol in /proc/kallsyms");

	/* An unprivileged reader, who sees no address, does not see it. */
	{
		pid_t reader = fork();

		if (reader == 0) {
			if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
			    setresuid(65534, 65534, 65534))
				_exit(2);
			_exit(kallsyms_addr(name) == 0 ? 0 : 1);
		}
		EXPECT_EQ(0, reap(reader)) TH_LOG("nobody sees %s", name);
	}

	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ(0, reap(pid));
	for (t = 0; t < 500 && listed; t++) {
		listed = kallsyms_addr(name) != 0;
		if (listed)
			usleep(10000);
	}
	EXPECT_EQ(0, listed) TH_LOG("%s is still listed after its filter was freed", name);
	close(go[0]);
	close(go[1]);
}

/* attr.ksymbol = 0: no KSYMBOL records. */
TEST(no_ksymbol_no_records)
{
	struct ksym_listener *l = calloc(1, sizeof(*l)), *seen = calloc(1, sizeof(*seen));
	struct sock_fprog *prog = classic_filter(4, 0xffff);
	int s = udp_socket(), i, reg;

	ASSERT_EQ(0, ksym_listen(l, 0));
	ASSERT_EQ(0, ksym_listen(seen, 1));
	ASSERT_EQ(0, setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog)));
	close(s);
	ASSERT_EQ(0, reap(seccomp_child(-1)));
	/* The last record, sent to every listener at once: @seen has it. */
	reg = ksym_wait(seen, -1, 0, "_seccomp");
	ASSERT_LE(0, reg);
	ASSERT_LE(0, wait_unregister(seen, reg));
	reg = ksym_wait(seen, -1, 0, "_sock_filter");
	ASSERT_LE(0, reg);
	ASSERT_LE(0, wait_unregister(seen, reg));
	ksym_drain(l);
	for (i = 0; i < l->nrec; i++)
		EXPECT_NE(PERF_RECORD_KSYMBOL, l->rec[i].type);
	ksym_close(seen);
	ksym_close(l);
	free(seen);
	free(l);
}

/* A socket filter attached and freed, and a seccomp filter installed; 0 or < 0. */
static int install_filters(void)
{
	struct sock_fprog *prog = classic_filter(4, 0xffff);
	int s = udp_socket();

	if (setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog)))
		return -1;
	close(s);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, classic_filter(5, SECCOMP_RET_ALLOW)))
		return -2;
	return 0;
}

/*
 * In a child, as root or as nobody: a self-monitoring event with
 * attr.ksymbol (inherited by the task's children with @inherit), then the
 * filters of install_filters() installed by the task itself, or by a child
 * it forks.  Tells the parent on @ready, waits on @seen until the parent has
 * seen the records on its own listener, then returns what its event got:
 * 1 records with addresses, 2 records without, 0 none; >= 0x40 an error.
 */
static int self_monitor_filters(int unprivileged, int inherit, int ready, int seen)
{
	struct ksym_listener *l = calloc(1, sizeof(*l));
	int i, found = 0;
	char c;

	if (unprivileged && (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
			     setresuid(65534, 65534, 65534)))
		return 0x40;
	if (ksym_listen_self(l, 1, inherit))
		return 0x41;
	if (inherit) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(install_filters() ? 1 : 0);
		if (reap(pid))
			return 0x42;
	} else if (install_filters()) {
		return 0x43;
	}
	if (write(ready, "x", 1) != 1 || read(seen, &c, 1) != 1)
		return 0x44;
	ksym_drain(l);
	for (i = 0; i < l->nrec; i++)
		if (l->rec[i].type == PERF_RECORD_KSYMBOL)
			found |= l->rec[i].addr ? 1 : 2;
	return found;
}

static int run_in_child(int unprivileged, int inherit)
{
	struct ksym_listener *all = calloc(1, sizeof(*all));
	int ready[2], seen[2], reg = -1, ret;
	pid_t pid;
	char c;

	if (ksym_listen(all, 1) || pipe(ready) || pipe(seen))
		return -1;
	/* A child that failed early has closed its end of @seen. */
	signal(SIGPIPE, SIG_IGN);
	pid = fork();
	if (pid == 0)
		_exit(self_monitor_filters(unprivileged, inherit, ready[1], seen[0]));
	close(ready[1]);
	close(seen[0]);
	/* Records are sent as filters are installed: once root's has them, all have. */
	if (read(ready[0], &c, 1) == 1)
		reg = ksym_wait(all, -1, 0, "_seccomp");
	if (write(seen[1], "x", 1) != 1)
		reg = -1;
	close(ready[0]);
	close(seen[1]);
	ret = reap(pid);
	ksym_close(all);
	free(all);
	return reg < 0 ? -1 : ret;
}

TEST(self_monitoring_addresses)
{
	char old[16] = "";
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r+");
	int privileged, unprivileged, inherited, unprivileged_inherited;

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(old, sizeof(old), f));
	fclose(f);
	/* The default of upstream kernels, whatever this one's is. */
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "w");
	ASSERT_NE(NULL, f);
	fputs("2", f);
	fclose(f);

	privileged = run_in_child(0, 0);
	unprivileged = run_in_child(1, 0);
	inherited = run_in_child(0, 1);
	unprivileged_inherited = run_in_child(1, 1);

	f = fopen("/proc/sys/kernel/perf_event_paranoid", "w");
	fputs(old, f);
	fclose(f);

	/* 1: records, with addresses; 0: no records */
	EXPECT_EQ(1, privileged) TH_LOG("root's own filters: %d", privileged);
	EXPECT_EQ(0, unprivileged) TH_LOG("nobody's own filters: %d", unprivileged);
	/* An inherited event: the rule of the event that was opened. */
	EXPECT_EQ(1, inherited) TH_LOG("root's child's filters: %d", inherited);
	EXPECT_EQ(0, unprivileged_inherited)
		TH_LOG("nobody's child's filters: %d", unprivileged_inherited);
}

TEST_HARNESS_MAIN
