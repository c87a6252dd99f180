// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency stress of BPF JIT image symbols and of the probe PMUs.
 *
 * One worker of each kind per CPU, for STRESS_SECONDS (default 20):
 * classic images created and freed on every path that makes them (socket
 * filter attach/detach/close, reuseport attach and the refused reuseport
 * attach, seccomp filters of short-lived children and the refused second
 * listener filter, packet fanout filters), /proc/kallsyms read as root and as
 * nobody, CPU-wide sampling with callchains, KSYMBOL listeners opened and
 * closed (CPU-wide and inherited), eBPF programs loaded and freed, kprobe and
 * uprobe PMU events opened, enabled, disabled and closed with BPF programs
 * attached by ioctl and by link while other workers hit the probes.
 *
 * A CPU-wide KSYMBOL listener runs throughout: at the end every REGISTER
 * record must have its UNREGISTER, no record may be lost, and /proc/kallsyms
 * must list no image that a worker created.  The kernel's own checkers
 * (KASAN, lockdep, kmemleak on the debug kernel) judge the rest.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/seccomp.h>

#include "../bpf_jit_symbols/ksym_lib.h"
#include "probe_lib.h"
#include "probe_target.h"

enum kind {
	W_SOCK, W_REUSEPORT, W_SECCOMP, W_FANOUT, W_KALLSYMS, W_KALLSYMS_NOBODY,
	W_SAMPLER, W_LISTENER, W_EBPF, W_KPROBE, W_UPROBE, W_HITTER, NKINDS
};

/* Each kind's test case: a name, then what it does. */
static const char *const kind_name[NKINDS] = {
	"sock_filter attach/detach/close",
	"reuseport attach, refused attach",
	"seccomp fork/install/exit, refused listener",
	"packet_fanout cbpf",
	"kallsyms_root read",
	"kallsyms_nobody read",
	"sampling CPU-wide with callchains",
	"ksymbol_listeners opened/closed, inherited",
	"ebpf load/free",
	"kprobe_pmu open/enable/disable/close with BPF",
	"uprobe_pmu open/enable/disable/close with BPF",
	"probe_hits getppid, uprobe target",
};

struct shared {
	unsigned long ops[NKINDS];
	unsigned long errs[NKINDS];
	char err[NKINDS][160];
};

static struct shared *sh;
static struct timespec deadline;

static int expired(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline.tv_sec ||
	       (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec);
}

static void fail(enum kind k, const char *what, int err)
{
	if (__atomic_fetch_add(&sh->errs[k], 1, __ATOMIC_RELAXED) == 0)
		snprintf(sh->err[k], sizeof(sh->err[k]), "%s%s%s", what, err ? ": " : "",
			 err ? strerror(err) : "");
}

static void done(enum kind k)
{
	__atomic_fetch_add(&sh->ops[k], 1, __ATOMIC_RELAXED);
}

static void sock_churn(unsigned int i)
{
	struct sock_fprog *f = classic_filter(2 + i % 4, 0xffff);
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), zero = 0;

	if (s < 0)
		return fail(W_SOCK, "socket", errno);
	if (setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, f, sizeof(*f)))
		fail(W_SOCK, "SO_ATTACH_FILTER", errno);
	else if (setsockopt(s, SOL_SOCKET, SO_DETACH_FILTER, &zero, sizeof(zero)))
		fail(W_SOCK, "SO_DETACH_FILTER", errno);
	else if (setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, f, sizeof(*f)))
		fail(W_SOCK, "SO_ATTACH_FILTER again", errno);
	else
		done(W_SOCK);
	close(s);
}

static void reuseport_churn(unsigned int i)
{
	struct sock_fprog *f = classic_filter(2 + i % 4, 0);
	int one = 1, s;

	/* Refused after the filter was JIT compiled: no SO_REUSEPORT. */
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return fail(W_REUSEPORT, "socket", errno);
	if (!setsockopt(s, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, f, sizeof(*f)) ||
	    errno != EINVAL) {
		close(s);
		return fail(W_REUSEPORT, "reuseport attach without SO_REUSEPORT",
			    errno ?: EEXIST);
	}
	close(s);

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return fail(W_REUSEPORT, "socket", errno);
	if (setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) ||
	    setsockopt(s, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, f, sizeof(*f)))
		fail(W_REUSEPORT, "SO_ATTACH_REUSEPORT_CBPF", errno);
	else
		done(W_REUSEPORT);
	close(s);
}

static void seccomp_churn(unsigned int i)
{
	struct sock_fprog *f = classic_filter(2 + i % 4, SECCOMP_RET_ALLOW);
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return fail(W_SECCOMP, "fork", errno);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			_exit(1);
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_NEW_LISTENER, f) < 0)
			_exit(2);
		/* A second listener is refused after its filter was compiled. */
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_NEW_LISTENER, f) >= 0 || errno != EBUSY)
			_exit(3);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return fail(W_SECCOMP, "waitpid", errno);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return fail(W_SECCOMP, "child (1 prctl, 2 seccomp, 3 no EBUSY)",
			    WIFEXITED(status) ? WEXITSTATUS(status) : EINTR);
	done(W_SECCOMP);
}

static void fanout_churn(unsigned int i)
{
	struct sock_fprog *f = classic_filter(2 + i % 4, 0);
	int s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	int arg = (getpid() & 0xffff) | (PACKET_FANOUT_CBPF << 16);

	if (s < 0)
		return fail(W_FANOUT, "AF_PACKET socket", errno);
	if (setsockopt(s, SOL_PACKET, PACKET_FANOUT, &arg, sizeof(arg)))
		fail(W_FANOUT, "PACKET_FANOUT", errno);
	else if (setsockopt(s, SOL_PACKET, PACKET_FANOUT_DATA, f, sizeof(*f)) ||
		 setsockopt(s, SOL_PACKET, PACKET_FANOUT_DATA, f, sizeof(*f)))
		fail(W_FANOUT, "PACKET_FANOUT_DATA", errno);
	else
		done(W_FANOUT);
	close(s);
}

static void kallsyms_read(enum kind k)
{
	static char buf[65536];
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return fail(k, "open /proc/kallsyms", errno);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		fail(k, "read /proc/kallsyms", errno);
	else
		done(k);
	close(fd);
}

/* Sample every CPU's kernel and user stacks every 50 us of CPU time. */
static void sampler(void)
{
	size_t pg = sysconf(_SC_PAGESIZE), len = 9 * pg;
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 50000,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN,
	};
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN), fd[MAX_CPUS], cpu, round;
	struct perf_event_mmap_page *mp[MAX_CPUS];

	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	while (!expired()) {
		for (cpu = 0; cpu < ncpus; cpu++) {
			fd[cpu] = sys_perf_event_open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd[cpu] < 0) {
				fail(W_SAMPLER, "perf_event_open cpu-clock", errno);
				return;
			}
			mp[cpu] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd[cpu], 0);
			if (mp[cpu] == MAP_FAILED) {
				fail(W_SAMPLER, "mmap", errno);
				return;
			}
		}
		for (round = 0; round < 50 && !expired(); round++) {
			usleep(10000);
			for (cpu = 0; cpu < ncpus; cpu++) {
				uint64_t head = __atomic_load_n(&mp[cpu]->data_head,
								__ATOMIC_ACQUIRE);

				if (head != mp[cpu]->data_tail)
					done(W_SAMPLER);
				__atomic_store_n(&mp[cpu]->data_tail, head, __ATOMIC_RELEASE);
			}
		}
		for (cpu = 0; cpu < ncpus; cpu++) {
			munmap(mp[cpu], len);
			close(fd[cpu]);
		}
	}
}

static void listener_churn(unsigned int i, int cpu)
{
	static struct ksym_listener l;
	struct perf_event_attr attr;
	struct perf_event_mmap_page *page;
	int fd, s, status;
	pid_t pid;

	if (i % 2 == 0) {
		int err = ksym_listen(&l, 1);

		if (err)
			return fail(W_LISTENER, "CPU-wide KSYMBOL listener", -err);
		usleep(5000);
		ksym_close(&l);
		return done(W_LISTENER);
	}
	/*
	 * Inherited by a child that creates and frees a socket filter; on the
	 * worker's CPU, where the child runs too (an inherited event of any
	 * CPU cannot be mapped).
	 */
	ksym_attr(&attr, 1);
	attr.inherit = 1;
	fd = ksym_open_one(&attr, 0, cpu, &page);
	if (fd < 0)
		return fail(W_LISTENER, "inherited KSYMBOL listener", -fd);
	pid = fork();
	if (pid == 0) {
		struct sock_fprog *f = classic_filter(3, 0xffff);

		s = socket(AF_INET, SOCK_DGRAM, 0);
		_exit(s < 0 || setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, f, sizeof(*f)));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		fail(W_LISTENER, "child with an inherited listener", pid < 0 ? errno : EIO);
	else
		done(W_LISTENER);
	munmap(page, (KSYM_PAGES + 1) * sysconf(_SC_PAGESIZE));
	close(fd);
}

static void ebpf_churn(void)
{
	struct bpf_insn insns[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	int fd = load_prog(BPF_PROG_TYPE_SOCKET_FILTER, insns, ARRAY_SIZE(insns),
			   "jit_stress", NULL, 0);

	if (fd < 0)
		return fail(W_EBPF, "BPF_PROG_LOAD", errno);
	close(fd);
	done(W_EBPF);
}

/*
 * Open a CPU-wide probe event, enable it, attach @prog by ioctl or by link,
 * let the hitters hit it a while, disable and close it.
 */
static void probe_churn(enum kind k, unsigned int i, int prog, const char *name,
			uint64_t off, int ncpus)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.disabled = 1,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
		.wakeup_events = 1,
	};
	int fd, link = -1;

	attr.type = pmu_type(k == W_KPROBE ? "kprobe" : "uprobe");
	attr.config = i % 3 == 2 ? RETPROBE : 0;
	attr.config1 = (uintptr_t)name;
	attr.config2 = off;
	fd = sys_perf_event_open(&attr, -1, i % ncpus, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fail(k, "perf_event_open", errno);
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		fail(k, "PERF_EVENT_IOC_ENABLE", errno);
		goto out;
	}
	if (i % 2) {
		link = bpf_link_perf_event(prog, fd);
		if (link < 0) {
			fail(k, "BPF_LINK_CREATE", errno);
			goto out;
		}
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog)) {
		fail(k, "PERF_EVENT_IOC_SET_BPF", errno);
		goto out;
	}
	usleep(1000);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		fail(k, "PERF_EVENT_IOC_DISABLE", errno);
	else
		done(k);
out:
	if (link >= 0)
		close(link);
	close(fd);
}

static void worker(enum kind k, int cpu, int ncpus)
{
	const char *ksym = getppid_symbol(NULL);
	long uoff = self_file_offset((void *)probe_target);
	char exe[512];
	int map = -1, prog = -1;
	unsigned int i;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	snprintf(exe, sizeof(exe), "%s", self_exe());

	if (k == W_KALLSYMS_NOBODY && (setgroups(0, NULL) || setgid(65534) || setuid(65534)))
		return fail(k, "setuid nobody", errno);
	if (k == W_KPROBE || k == W_UPROBE) {
		map = counter_map();
		prog = map < 0 ? -1 : counting_prog(map, NULL, 0);
		if (prog < 0)
			return fail(k, "counting BPF program", errno);
		if ((k == W_KPROBE && !ksym) || (k == W_UPROBE && uoff < 0))
			return fail(k, "probe target", ENOENT);
	}
	if (k == W_SAMPLER)
		return cpu == 0 ? sampler() : done(k);

	for (i = cpu; !expired(); i++) {
		switch (k) {
		case W_SOCK:
			sock_churn(i);
			break;
		case W_REUSEPORT:
			reuseport_churn(i);
			break;
		case W_SECCOMP:
			seccomp_churn(i);
			break;
		case W_FANOUT:
			fanout_churn(i);
			break;
		case W_KALLSYMS:
		case W_KALLSYMS_NOBODY:
			kallsyms_read(k);
			break;
		case W_LISTENER:
			listener_churn(i, cpu);
			break;
		case W_EBPF:
			ebpf_churn();
			break;
		case W_KPROBE:
			probe_churn(k, i, prog, ksym, 0, ncpus);
			break;
		case W_UPROBE:
			probe_churn(k, i, prog, exe, uoff, ncpus);
			break;
		case W_HITTER:
			trigger_getppid(100);
			probe_target(i);
			done(k);
			break;
		default:
			break;
		}
	}
}

/*
 * The listener's bookkeeping: +1 for a REGISTER, -1 for an UNREGISTER of
 * the same (address, name), in whatever order the CPUs' rings give them.
 */
#define SLOTS 65536
static struct slot {
	uint64_t addr;
	char name[128];
	long count;
} slots[SLOTS];
static unsigned long registers, unregisters, lost;

static void account(const struct ksym_record *r)
{
	uint64_t h = r->addr * 0x9e3779b97f4a7c15ULL;
	const char *p;
	int i;

	for (p = r->name; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	for (i = 0; i < SLOTS; i++) {
		struct slot *s = &slots[(h + i) % SLOTS];

		if (!s->name[0]) {
			s->addr = r->addr;
			memcpy(s->name, r->name, sizeof(s->name));
		} else if (s->addr != r->addr || strcmp(s->name, r->name)) {
			continue;
		}
		s->count += (r->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) ? -1 : 1;
		return;
	}
}

/* Read every ring of @l, accounting the KSYMBOL records of BPF images. */
static void drain(struct ksym_listener *l, size_t pages)
{
	size_t size = pages * sysconf(_SC_PAGESIZE);
	int cpu;

	for (cpu = 0; cpu < l->ncpus; cpu++) {
		struct perf_event_mmap_page *pg = l->page[cpu];
		const char *data = (const char *)pg + sysconf(_SC_PAGESIZE);
		uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);

		while (l->tail[cpu] < head) {
			struct perf_event_header hdr;
			struct ksym_record r;
			char buf[512];

			ksym_copy(&hdr, data, l->tail[cpu], sizeof(hdr), size);
			if (hdr.size < sizeof(hdr))
				break;
			if (hdr.type == PERF_RECORD_LOST)
				lost++;
			if (hdr.type == PERF_RECORD_KSYMBOL && hdr.size <= sizeof(buf)) {
				ksym_copy(buf, data, l->tail[cpu], hdr.size, size);
				ksym_parse(&r, buf, hdr.size);
				if (r.ksym_type == PERF_RECORD_KSYMBOL_TYPE_BPF) {
					account(&r);
					if (r.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER)
						unregisters++;
					else
						registers++;
				}
			}
			l->tail[cpu] += hdr.size;
		}
		__atomic_store_n(&pg->data_tail, l->tail[cpu], __ATOMIC_RELEASE);
	}
}

static int unbalanced(int report)
{
	int i, n = 0;

	for (i = 0; i < SLOTS; i++) {
		if (!slots[i].count)
			continue;
		if (report && n < 5)
			ksft_print_msg("%s %s at 0x%llx: %ld unmatched\n",
				       slots[i].count > 0 ? "REGISTER" : "UNREGISTER",
				       slots[i].name, (unsigned long long)slots[i].addr,
				       labs(slots[i].count));
		n++;
	}
	return n;
}

/* Images of the stress's kinds that /proc/kallsyms lists; one example in @ex. */
static int listed_images(char *ex, size_t size)
{
	static const char *const kinds[] = {
		"_sock_filter", "_reuseport_cbpf", "_seccomp", "_packet_fanout", "_jit_stress",
	};
	char line[512], sym[256], type;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");
	int n = 0;
	size_t i;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3 ||
		    strncmp(sym, "bpf_prog_", 9))
			continue;
		for (i = 0; i < ARRAY_SIZE(kinds); i++) {
			size_t n1 = strlen(sym), n2 = strlen(kinds[i]);

			if (n1 > n2 && !strcmp(sym + n1 - n2, kinds[i])) {
				if (!n++)
					snprintf(ex, size, "%s", sym);
				break;
			}
		}
	}
	fclose(f);
	return n;
}

int main(void)
{
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN), seconds = 20, before, after, k, cpu;
	const char *env = getenv("STRESS_SECONDS");
	static struct ksym_listener l;
	size_t pages = KSYM_PAGES;
	char ex[256] = "";
	pid_t pids[NKINDS * MAX_CPUS];
	enum kind pid_kind[NKINDS * MAX_CPUS];
	int npids = 0, status, t;

	ksft_print_header();
	ksft_set_plan(NKINDS + 2);
	if (geteuid())
		ksft_exit_skip("needs root\n");
	if (env && atoi(env) > 0)
		seconds = atoi(env);
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	before = listed_images(ex, sizeof(ex));
	if (before)
		ksft_print_msg("%d images listed before the run, e.g. %s\n", before, ex);

	if (ksym_listen(&l, 1))
		ksft_exit_fail_msg("KSYMBOL listener: %s\n", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += seconds;
	ksft_print_msg("%d s, %d CPUs, %d worker kinds per CPU\n", seconds, ncpus, NKINDS);

	for (cpu = 0; cpu < ncpus; cpu++)
		for (k = 0; k < NKINDS; k++) {
			pid_t pid = fork();

			if (pid == 0) {
				ksym_close(&l);
				worker(k, cpu, ncpus);
				_exit(0);
			}
			if (pid > 0) {
				pid_kind[npids] = k;
				pids[npids++] = pid;
			} else {
				fail(k, "fork", errno);
			}
		}
	while (!expired()) {
		drain(&l, pages);
		usleep(10000);
	}
	/* A worker that did not exit 0 (a signal, a crash) fails its kind. */
	for (k = 0; k < npids; k++)
		if (waitpid(pids[k], &status, 0) != pids[k] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fail(pid_kind[k], WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) :
			     "a worker did not exit 0", 0);
	/* Classic images go after an RCU grace period, eBPF ones after two. */
	for (t = 0; t < 1000; t++) {
		drain(&l, pages);
		if (registers == unregisters && !unbalanced(0))
			break;
		usleep(10000);
	}

	for (k = 0; k < NKINDS; k++) {
		if (sh->errs[k])
			ksft_print_msg("%s: %lu errors, first: %s\n", kind_name[k],
				       sh->errs[k], sh->err[k]);
		ksft_test_result(sh->ops[k] && !sh->errs[k], "%s: %lu operations\n",
				 kind_name[k], sh->ops[k]);
	}

	ksft_print_msg("KSYMBOL records of BPF images: %lu REGISTER, %lu UNREGISTER, %lu LOST\n",
		       registers, unregisters, lost);
	ksft_test_result(!lost && registers && !unbalanced(1),
			 "records_pair_up (every REGISTER has its UNREGISTER)\n");

	after = listed_images(ex, sizeof(ex));
	if (after > before)
		ksft_print_msg("%d images still listed, e.g. %s\n", after, ex);
	ksft_test_result(after >= 0 && after <= before,
			 "kallsyms_clean (no image of the run left in kallsyms)\n");
	ksym_close(&l);
	ksft_finished();
}
