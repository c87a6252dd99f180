// SPDX-License-Identifier: GPL-2.0
/*
 * Whose per-task events get the KSYMBOL records of classic BPF images: the
 * task that owns an image (it installs the filter, or lets go of it last),
 * never a bystander that an interrupt or softirq happened to find running
 * when an image was freed.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/ppp-ioctl.h>
#include <linux/seccomp.h>

#include "../kselftest_harness.h"
#include "ksym_lib.h"

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int become(uid_t uid)
{
	return setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid);
}

/* Attach a classic filter to a fresh UDP socket and close it. */
static int socket_filter_cycle(void)
{
	struct sock_fprog *prog = classic_filter(2, 0xffff);
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret;

	if (s < 0)
		return -1;
	ret = setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog));
	close(s);
	return ret;
}

/* The sysctls that the tests set, restored after each test, failed or not. */
FIXTURE(delivery) {
	char paranoid[16], restrict_[16];
};

FIXTURE_SETUP(delivery)
{
	sysctl_read("/proc/sys/kernel/perf_event_paranoid", self->paranoid, sizeof(self->paranoid));
	sysctl_read("/proc/sys/kernel/kptr_restrict", self->restrict_, sizeof(self->restrict_));
}

FIXTURE_TEARDOWN(delivery)
{
	if (self->paranoid[0])
		sysctl_write("/proc/sys/kernel/perf_event_paranoid", self->paranoid);
	if (self->restrict_[0])
		sysctl_write("/proc/sys/kernel/kptr_restrict", self->restrict_);
}

#define BYSTANDER_FILTERS 3000

/* Shared with the bystander; ready and stop accessed atomically. */
struct bystander {
	int ready, stop;
	int records, error;
};

/*
 * B, as nobody, spins on @cpu with a per-task listener on itself, as a
 * self-profiling program does, until told to stop; then counts what its
 * ring got.  B makes no BPF image.
 */
static void bystander(struct bystander *b, int cpu)
{
	struct ksym_listener *l = calloc(1, sizeof(*l));
	int i;

	if (!l || pin_to(cpu) || become(65534) || ksym_listen_self(l, 0, 0)) {
		b->error = errno ?: 1;
		__atomic_store_n(&b->ready, 1, __ATOMIC_RELEASE);
		_exit(1);
	}
	__atomic_store_n(&b->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE))
		;
	ksym_drain(l);
	for (i = 0; i < l->nrec; i++)
		b->records += ksym_is_classic(&l->rec[i], "sock_filter");
	_exit(0);
}

/*
 * A, another user, attaches and frees BYSTANDER_FILTERS socket filters on
 * B's CPU.  A socket filter is freed after an RCU grace period, from a
 * softirq on top of whichever task the CPU runs, often B: B's ring must
 * still get none of A's records.
 */
TEST_F_TIMEOUT(delivery, bystander_on_the_same_cpu_gets_no_records, 300)
{
	struct bystander *b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct ksym_listener *all = calloc(1, sizeof(*all));
	int i, t, unregs = 0, freed, status = -1;
	pid_t pb, pa;

	ASSERT_NE(MAP_FAILED, b);
	ASSERT_NE(NULL, all);
	/* As where it was seen: nobody may profile the kernel. */
	ASSERT_EQ(0, sysctl_swap("/proc/sys/kernel/perf_event_paranoid", "1", NULL, 0));
	ASSERT_EQ(0, sysctl_swap("/proc/sys/kernel/kptr_restrict", "1", NULL, 0));
	ASSERT_EQ(0, ksym_listen(all, 1));

	pb = fork();
	ASSERT_LE(0, pb);
	if (pb == 0)
		bystander(b, 0);
	while (!__atomic_load_n(&b->ready, __ATOMIC_ACQUIRE))
		usleep(1000);
	EXPECT_EQ(0, b->error) TH_LOG("bystander: %s", strerror(b->error));

	pa = fork();
	ASSERT_LE(0, pa);
	if (pa == 0) {
		if (pin_to(0) || become(1000))
			_exit(1);
		for (i = 0; i < BYSTANDER_FILTERS; i++)
			if (socket_filter_cycle())
				_exit(2);
		_exit(0);
	}
	/* Drained as A goes: the records of its filters outgrow a ring. */
	while (waitpid(pa, &status, WNOHANG) == 0) {
		ksym_drain(all);
		usleep(5000);
	}
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/*
	 * Until every filter of A is freed, as root's CPU-wide listener sees:
	 * the REGISTER records sent by A, each followed by its UNREGISTER.
	 */
	for (t = 0, freed = 0; t < KSYM_POLLS && !freed; t++) {
		ksym_drain(all);
		unregs = 0;
		for (i = 0; i < all->nrec; i++)
			unregs += ksym_is(&all->rec[i], 1, "_sock_filter");
		if (unregs >= BYSTANDER_FILTERS) {
			unregs = 0;
			for (i = 0; i < all->nrec; i++)
				unregs += all->rec[i].pid == (uint32_t)pa &&
					  ksym_is(&all->rec[i], 0, "_sock_filter") &&
					  ksym_unregister_of(all, i) >= 0;
		}
		freed = unregs == BYSTANDER_FILTERS;
		if (!freed)
			usleep(10000);
	}
	__atomic_store_n(&b->stop, 1, __ATOMIC_RELEASE);
	EXPECT_EQ(0, reap(pb));

	EXPECT_EQ(BYSTANDER_FILTERS, unregs) TH_LOG("root saw %d of the frees", unregs);
	EXPECT_EQ(0, all->lost);
	EXPECT_EQ(0, b->records) TH_LOG("the bystander got %d records of another user's images",
					b->records);
	ksym_close(all);
	free(all);
}

/* The kinds of classic image, and how the owner makes and frees one. */
enum { SECCOMP, SOCK_FILTER, SOCK_FILTER_DETACHED, REUSEPORT, FANOUT, CBPF, KINDS };

static const char *const kind_name[KINDS] = {
	"seccomp", "sock_filter", "sock_filter", "reuseport_cbpf", "packet_fanout", "cbpf",
};

/* A REGISTER (@unregister 0) or UNREGISTER record of an image of @kind. */
static int is_kind(const struct ksym_record *r, int unregister, int kind)
{
	return r->type == PERF_RECORD_KSYMBOL &&
	       !!(r->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) == unregister &&
	       ksym_is_classic(r, kind_name[kind]);
}

/* Make an image of @kind and free it; 0 or the step that failed. */
static int cycle(int kind, int n)
{
	struct sock_fprog *prog = classic_filter(2 + n % 8, 0);
	int s, one = 1, zero = 0, unit = -1;
	int fanout = (getpid() & 0xffff) | (PACKET_FANOUT_CBPF << 16);
	pid_t pid;

	switch (kind) {
	case SECCOMP:
		/* A child's filter, freed as the child exits. */
		pid = fork();
		if (pid == 0)
			_exit(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
			      syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
				      classic_filter(2 + n % 8, SECCOMP_RET_ALLOW)));
		return reap(pid) ? 1 : 0;
	case SOCK_FILTER:
	case SOCK_FILTER_DETACHED:
		s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s < 0 || setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, prog, sizeof(*prog)))
			return 2;
		if (kind == SOCK_FILTER_DETACHED &&
		    setsockopt(s, SOL_SOCKET, SO_DETACH_FILTER, &zero, sizeof(zero)))
			return 3;
		return close(s) ? 4 : 0;
	case REUSEPORT:
		s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) ||
		    setsockopt(s, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, prog, sizeof(*prog)))
			return 5;
		return close(s) ? 6 : 0;
	case FANOUT:
		s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
		if (s < 0 || setsockopt(s, SOL_PACKET, PACKET_FANOUT, &fanout, sizeof(fanout)) ||
		    setsockopt(s, SOL_PACKET, PACKET_FANOUT_DATA, prog, sizeof(*prog)))
			return 7;
		return close(s) ? 8 : 0;
	case CBPF:
		/* PPP's pass filter: a bpf_prog_create() user. */
		s = open("/dev/ppp", O_RDWR | O_CLOEXEC);
		if (s < 0 || ioctl(s, PPPIOCNEWUNIT, &unit) || ioctl(s, PPPIOCSPASS, prog))
			return 9;
		return close(s) ? 10 : 0;
	}
	return 11;
}

#define OWNER_CYCLES 20

struct owner {
	int regs[KINDS], unregs[KINDS], paired[KINDS];
	int error, lost;
};

/*
 * Whether the UNREGISTER at @u closes the REGISTER at @r: same address,
 * length and name, later.
 */
static int pairs(const struct ksym_record *r, const struct ksym_record *u)
{
	return u->addr == r->addr && u->len == r->len && u->time > r->time &&
	       !strcmp(u->name, r->name);
}

/*
 * The owner: a per-task listener on itself that its children inherit, as
 * perf record of a command has; OWNER_CYCLES images of each kind made and
 * freed, one kind after the other; then what its own ring got.
 */
static void owner(struct owner *o)
{
	struct ksym_listener *l = calloc(1, sizeof(*l));
	int k, n, i, j, t, done = 0;

	if (!l || ksym_listen_self(l, 0, 1)) {
		o->error = 100;
		_exit(1);
	}
	for (k = 0; k < KINDS; k++) {
		for (n = 0; n < OWNER_CYCLES; n++) {
			o->error = cycle(k, n);
			if (o->error)
				_exit(1);
		}
		/* Each kind's records before the next kind's: two share a name. */
		for (t = 0; t < KSYM_POLLS; t++) {
			ksym_drain(l);
			o->unregs[k] = 0;
			for (i = 0; i < l->nrec; i++)
				o->unregs[k] += is_kind(&l->rec[i], 1, k);
			if (o->unregs[k] >= OWNER_CYCLES * (k == SOCK_FILTER_DETACHED ? 2 : 1))
				break;
			usleep(10000);
		}
	}
	ksym_drain(l);
	for (k = 0; k < KINDS; k++) {
		/* The two socket filter kinds share a name: counted as one. */
		if (k == SOCK_FILTER_DETACHED)
			continue;
		o->regs[k] = 0;
		o->unregs[k] = 0;
		o->paired[k] = 0;
		for (i = 0; i < l->nrec; i++) {
			if (is_kind(&l->rec[i], 1, k)) {
				o->unregs[k]++;
				continue;
			}
			if (!is_kind(&l->rec[i], 0, k))
				continue;
			o->regs[k]++;
			for (j = 0, done = 0; j < l->nrec && !done; j++)
				done = is_kind(&l->rec[j], 1, k) && pairs(&l->rec[i], &l->rec[j]);
			o->paired[k] += done;
		}
	}
	o->lost = l->lost;
	_exit(0);
}

TEST_F_TIMEOUT(delivery, owner_gets_each_record_of_every_kind, 300)
{
	struct owner *o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int k, want;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, o);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		owner(o);
	EXPECT_EQ(0, reap(pid));
	ASSERT_EQ(0, o->error) TH_LOG("making or freeing an image failed at step %d", o->error);
	EXPECT_EQ(0, o->lost);
	for (k = 0; k < KINDS; k++) {
		if (k == SOCK_FILTER_DETACHED)
			continue;
		want = OWNER_CYCLES * (k == SOCK_FILTER ? 2 : 1);
		EXPECT_EQ(want, o->regs[k]) TH_LOG("%s: REGISTER records", kind_name[k]);
		EXPECT_EQ(want, o->unregs[k]) TH_LOG("%s: UNREGISTER records", kind_name[k]);
		EXPECT_EQ(want, o->paired[k]) TH_LOG("%s: pairs", kind_name[k]);
	}
}

#define TRACEFS "/sys/kernel/tracing/"
#define CAP_PROBE "ksym_delivery_capable"
#define CAP_INSTANCE TRACEFS "instances/ksym_delivery/"

static int tracefs_write(const char *path, const char *val, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

static void cap_probe_remove(void)
{
	tracefs_write(CAP_INSTANCE "events/kprobes/" CAP_PROBE "/enable", "0", O_TRUNC);
	rmdir(CAP_INSTANCE);
	tracefs_write(TRACEFS "kprobe_events", "-:kprobes/" CAP_PROBE "\n", O_APPEND);
}

/* Lines of the instance's trace buffer that the task @pid wrote. */
static int cap_probe_hits(pid_t pid)
{
	char line[512], who[32];
	FILE *f = fopen(CAP_INSTANCE "trace", "r");
	int n = 0;

	if (!f)
		return -1;
	snprintf(who, sizeof(who), "-%d ", pid);
	while (fgets(line, sizeof(line), f))
		n += line[0] != '#' && strstr(line, who) && strstr(line, CAP_PROBE ":");
	fclose(f);
	return n;
}

/*
 * In a child, as nobody: open a self-monitoring event as an unprivileged
 * perf record does (the kernel excluded), with or without @ksymbol.  Its
 * exit status: 0 or the step that failed.
 */
static pid_t unprivileged_open(int ksymbol)
{
	struct perf_event_attr attr;
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	if (become(65534))
		_exit(1);
	ksym_attr(&attr, ksymbol);
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	_exit(fd < 0 ? 3 : 0);
}

/*
 * Whether an unprivileged opener's event may get KSYMBOL records is decided
 * without an audited capability check, which an LSM logs as a denial: a
 * kprobe on cap_capable() (which every capable() reaches) counts the
 * CAP_PERFMON and CAP_SYS_ADMIN checks without CAP_OPT_NOAUDIT of an open
 * at perf_event_paranoid 2, and attr.ksymbol adds none.  (The open of any
 * event on a task makes two, in perf_check_permission(): the control.)
 */
TEST_F(delivery, unprivileged_open_audits_no_capability)
{
	pid_t plain_pid, ksymbol_pid;
	int plain_hits, ksymbol_hits;

	cap_probe_remove();
	ASSERT_EQ(0, tracefs_write(TRACEFS "kprobe_events", "p:kprobes/" CAP_PROBE
				   " cap_capable cap=$arg3:s32 opts=$arg4:u32\n", O_APPEND))
		TH_LOG("kprobe on cap_capable: %s", strerror(errno));
	ASSERT_EQ(0, mkdir(CAP_INSTANCE, 0755));
	/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21), audited (opts 0). */
	ASSERT_EQ(0, tracefs_write(CAP_INSTANCE "events/kprobes/" CAP_PROBE "/filter",
				   "(cap == 38 || cap == 21) && opts == 0", O_TRUNC));
	ASSERT_EQ(0, tracefs_write(CAP_INSTANCE "events/kprobes/" CAP_PROBE "/enable", "1",
				   O_TRUNC));
	ASSERT_EQ(0, sysctl_swap("/proc/sys/kernel/perf_event_paranoid", "2", NULL, 0));

	plain_pid = unprivileged_open(0);
	EXPECT_EQ(0, reap(plain_pid)) TH_LOG("the open without attr.ksymbol failed");
	ksymbol_pid = unprivileged_open(1);
	EXPECT_EQ(0, reap(ksymbol_pid)) TH_LOG("the open with attr.ksymbol failed");
	ASSERT_EQ(0, tracefs_write(CAP_INSTANCE "events/kprobes/" CAP_PROBE "/enable", "0",
				   O_TRUNC));
	plain_hits = cap_probe_hits(plain_pid);
	ksymbol_hits = cap_probe_hits(ksymbol_pid);
	cap_probe_remove();

	EXPECT_LE(1, plain_hits) TH_LOG("the probe saw no audited check of the plain open");
	EXPECT_EQ(plain_hits, ksymbol_hits)
		TH_LOG("audited capability checks: %d with attr.ksymbol, %d without",
		       ksymbol_hits, plain_hits);
}

TEST_HARNESS_MAIN
