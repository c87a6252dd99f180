// SPDX-License-Identifier: GPL-2.0
/*
 * probe_fuzz [-n CALLS] [-s SEED] [-u]: a seeded generator of
 * perf_event_open() calls on the kprobe and uprobe PMUs, for `make fuzz-diff`.
 *
 * Each call gets random attributes: config, config1 pointing at a valid name
 * or path, an unterminated string that ends at an unmapped page, a string
 * that straddles two pages, unmapped or kernel memory, huge strings or a
 * random value; a random config2, sample_type, read_format, flag and
 * exclude_* bits, size, pid, cpu, group and flags.  What opened is then
 * enabled, read, given a filter and a BPF program, mapped, disabled and
 * closed.  One line per call says what each step returned, and nothing that
 * differs between two kernels with the same ABI (no fd numbers, counts or
 * addresses), so the outputs of the stock and the patched kernel must be
 * identical.  -u: run as nobody.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>

#include "perf_bpf_probe/probe_lib.h"
#include "perf_bpf_probe/probe_target.h"

static uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static int chance(int percent)
{
	return rnd() % 100 < (uint64_t)percent;
}

static uint64_t pick(const uint64_t *v, size_t n)
{
	return v[rnd() % n];
}

#define PICK(...) ({ static const uint64_t v_[] = { __VA_ARGS__ }; \
	pick(v_, sizeof(v_) / sizeof(v_[0])); })

static long page;
static char *unterminated;	/* no NUL before the unmapped page */
static char *straddling;	/* a name that crosses a page boundary */
static char *unmapped;
static char *huge_name, *huge_path;
static char exe[512];
static long target_off;

static void setup_memory(void)
{
	char *m = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t n;

	if (m == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	/* pages 0, 1: readable; page 2: unmapped; page 3: readable */
	munmap(m + 2 * page, page);
	unmapped = m + 2 * page;
	memset(m + page, 'a', page);
	unterminated = m + 2 * page - 64;
	straddling = m + page - 8;
	memcpy(straddling, "__x64_sys_getppid", sizeof("__x64_sys_getppid"));

	n = 600;	/* past KSYM_NAME_LEN */
	huge_name = malloc(n + 1);
	memset(huge_name, 'f', n);
	huge_name[n] = '\0';
	n = 5000;	/* past PATH_MAX */
	huge_path = malloc(n + 1);
	memset(huge_path, '/', n);
	huge_path[n] = '\0';
}

static uint64_t fuzz_name(int kprobe)
{
	switch (rnd() % 12) {
	case 0: return 0;
	case 1: return (uintptr_t)"";
	case 2: return (uintptr_t)unterminated;
	case 3: return (uintptr_t)straddling;
	case 4: return (uintptr_t)unmapped;
	case 5: return PICK(0xffffffff81000000ULL, 0xffff888000000000ULL, 1, 4096);
	case 6: return (uintptr_t)(kprobe ? huge_name : huge_path);
	case 7: return rnd();
	case 8: return (uintptr_t)(kprobe ? "no_such_function_xyz" : "/no/such/file");
	case 9: return (uintptr_t)(kprobe ? "kprobe_int3_handler" : "/proc/self/status");
	default:
		if (kprobe)
			return (uintptr_t)(const char *)PICK((uintptr_t)"__x64_sys_getppid",
							(uintptr_t)"vfs_read",
							(uintptr_t)"__x64_sys_getpid");
		return (uintptr_t)exe;
	}
}

static uint64_t fuzz_offset(int kprobe)
{
	switch (rnd() % 6) {
	case 0: return 0;
	case 1: return rnd();
	case 2: return rnd() % 64;
	case 3: return kprobe ? PICK(1, 4, 5) : (uint64_t)target_off + PICK(0, 1, 2);
	default: return kprobe ? 0 : (uint64_t)target_off;
	}
}

/* The bits after read_format: disabled ... sigtrap etc., as one word. */
static uint64_t *flag_word(struct perf_event_attr *attr)
{
	return (uint64_t *)((char *)&attr->read_format + sizeof(attr->read_format));
}

/* A socket filter program: the wrong type for a probe event. */
static int socket_prog(void)
{
	struct bpf_insn insns[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	return load_prog(BPF_PROG_TYPE_SOCKET_FILTER, insns, 2, NULL, NULL, 0);
}

#define RC(x) ((x) < 0 ? -errno : 0)

int main(int argc, char **argv)
{
	int kprobe_type, uprobe_type, opt, as_nobody = 0, leader = -1, sock_prog;
	long calls = 100000, i;
	uint64_t seed = 1;

	while ((opt = getopt(argc, argv, "n:s:u")) != -1) {
		if (opt == 'n')
			calls = atol(optarg);
		else if (opt == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (opt == 'u')
			as_nobody = 1;
	}
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	page = sysconf(_SC_PAGESIZE);
	setup_memory();
	if (readlink("/proc/self/exe", exe, sizeof(exe) - 1) < 0)
		exe[0] = '\0';
	{
		FILE *f = fopen("/proc/self/maps", "r");
		unsigned long s, e, o;
		char line[1024], path[512];

		target_off = -1;
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %511s", &s, &e, &o, path) == 4 &&
			    (uintptr_t)probe_target >= s && (uintptr_t)probe_target < e)
				target_off = (uintptr_t)probe_target - s + o;
		if (f)
			fclose(f);
	}
	kprobe_type = pmu_type("kprobe");
	uprobe_type = pmu_type("uprobe");
	sock_prog = socket_prog();
	if (as_nobody && (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
			  setresuid(65534, 65534, 65534))) {
		perror("setuid");
		return 1;
	}
	printf("probe_fuzz: seed %llu, %ld calls, kprobe %s, uprobe %s, %s\n",
	       (unsigned long long)seed, calls, kprobe_type < 0 ? "missing" : "present",
	       uprobe_type < 0 ? "missing" : "present", as_nobody ? "nobody" : "root");

	for (i = 0; i < calls; i++) {
		struct perf_event_attr attr;
		int kprobe = chance(50), fd, group = -1, pid, cpu;
		unsigned long flags;
		char out[256];
		size_t len;

		memset(&attr, 0, sizeof(attr));
		attr.type = kprobe ? kprobe_type : uprobe_type;
		attr.size = chance(90) ? sizeof(attr) : PICK(0, 64, 72, 80, 96, 112, 120, 128,
							 sizeof(attr) + 8, 4096, 1);
		attr.config = chance(70) ? PICK(0, 1) : chance(50) ? rnd() : (rnd() << 32) | (rnd() & 1);
		attr.config1 = fuzz_name(kprobe);
		attr.config2 = fuzz_offset(kprobe);
		if (chance(30))
			attr.sample_type = rnd() & ((PERF_SAMPLE_MAX << 1) - 1);
		if (chance(20))
			attr.read_format = rnd() & 0x1f;
		if (chance(40))
			*flag_word(&attr) = rnd() & rnd() & rnd();
		if (chance(30))
			attr.sample_period = chance(50) ? 1 : rnd();
		if (chance(5))
			attr.clockid = rnd() % 16;

		pid = chance(70) ? 0 : PICK(-1, 1, 999999);
		pid = pid == 1 ? getpid() : pid;
		cpu = chance(70) ? -1 : PICK(0, 1, 4096, -2);
		if (pid == -1 && cpu == -1)
			cpu = 0;
		if (leader >= 0 && chance(20))
			group = leader;
		else if (chance(3))
			group = PICK(0, 1000);
		flags = chance(80) ? PERF_FLAG_FD_CLOEXEC :
			PICK(0, PERF_FLAG_FD_NO_GROUP, PERF_FLAG_FD_OUTPUT, PERF_FLAG_PID_CGROUP, 16);

		fd = syscall(__NR_perf_event_open, &attr, pid, cpu, group, flags);
		len = snprintf(out, sizeof(out), "%ld %s open=%d", i, kprobe ? "k" : "u",
			       fd < 0 ? -errno : 0);
		if (attr.size != sizeof(attr) && fd < 0 && errno == E2BIG)
			len += snprintf(out + len, sizeof(out) - len, " size=%u", attr.size);
		if (fd >= 0) {
			uint64_t buf[64];
			void *m;
			int r;

			r = ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			len += snprintf(out + len, sizeof(out) - len, " en=%d", RC(r));
			r = read(fd, buf, sizeof(buf));
			len += snprintf(out + len, sizeof(out) - len, " rd=%d", r < 0 ? -errno : r);
			r = ioctl(fd, PERF_EVENT_IOC_SET_FILTER,
				  chance(50) ? "common_pid != 0" : "no_such_field == 1");
			len += snprintf(out + len, sizeof(out) - len, " flt=%d", RC(r));
			r = ioctl(fd, PERF_EVENT_IOC_SET_BPF, chance(50) ? sock_prog : 12345);
			len += snprintf(out + len, sizeof(out) - len, " bpf=%d", RC(r));
			m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			len += snprintf(out + len, sizeof(out) - len, " mmap=%d",
					m == MAP_FAILED ? -errno : 0);
			if (m != MAP_FAILED)
				munmap(m, 2 * page);
			r = ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			len += snprintf(out + len, sizeof(out) - len, " dis=%d", RC(r));
			if (leader >= 0)
				close(leader);
			leader = -1;
			if (group < 0 && chance(30))
				leader = fd;
			else
				close(fd);
		}
		puts(out);
	}
	if (leader >= 0)
		close(leader);
	printf("probe_fuzz: done, %ld calls\n", calls);
	return 0;
}
