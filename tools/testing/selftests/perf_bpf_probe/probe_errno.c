// SPDX-License-Identifier: GPL-2.0
/*
 * What perf_event_open() says to bad input for the kprobe and uprobe PMUs.
 *
 * Each case prints "errno-table: <case> <result>", so that the tables of two
 * kernels can be compared line by line, and asserts the result of the C
 * PMUs of Linux 6.12.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <linux/capability.h>

#include "../kselftest_harness.h"
#include "probe_lib.h"
#include "probe_target.h"

static const char *result_name(int r)
{
	static char buf[32];

	switch (r) {
	case 0: return "ok";
	case -ENOENT: return "ENOENT";
	case -EACCES: return "EACCES";
	case -EPERM: return "EPERM";
	case -EINVAL: return "EINVAL";
	case -EFAULT: return "EFAULT";
	case -E2BIG: return "E2BIG";
	case -EOPNOTSUPP: return "EOPNOTSUPP";
	case -EILSEQ: return "EILSEQ";
	case -ENOMEM: return "ENOMEM";
	case -EBUSY: return "EBUSY";
	case -EEXIST: return "EEXIST";
	case -ENOTDIR: return "ENOTDIR";
	case -EISDIR: return "EISDIR";
	case -ENAMETOOLONG: return "ENAMETOOLONG";
	case -EBADF: return "EBADF";
	case -ENODEV: return "ENODEV";
	case -ESRCH: return "ESRCH";
	}
	snprintf(buf, sizeof(buf), "errno %d", -r);
	return buf;
}

/* A page whose last bytes are @s without its NUL, followed by an unmapped page. */
static char *unterminated(const char *s)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p + page, page);
	memcpy(p + page - strlen(s), s, strlen(s));
	return p + page - strlen(s);
}

static char *unmapped(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* Open, record, close; the result is the fd's success or -errno. */
static int try_open(struct perf_event_attr *attr, const char *pmu, uint64_t config,
		    const void *config1, uint64_t config2)
{
	int fd = probe_open_attr(attr, pmu, config, (uintptr_t)config1, config2);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return fd;
}

/* Become nobody, keeping only the capabilities in @caps (a mask of the second word). */
static int become_nobody(uint32_t caps)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0 } };

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
	    setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return -1;
	data[1].effective = caps;
	data[1].permitted = caps;
	return syscall(SYS_capset, &hdr, data);
}

/*
 * The same, as the user nobody with no capabilities, or with CAP_PERFMON
 * only: the kprobe PMU asks for CAP_PERFMON, the uprobe PMU for CAP_SYS_ADMIN.
 * With @user_only, the event excludes the kernel and the hypervisor, so that
 * the core's own check (perf_allow_kernel()) lets it reach the PMU.
 */
static int try_open_as(uint32_t caps, int user_only, const char *pmu, uint64_t config,
		       const void *config1, uint64_t config2)
{
	struct perf_event_attr attr = { .exclude_kernel = user_only, .exclude_hv = user_only };
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		if (become_nobody(caps))
			_exit(255);
		_exit(-try_open(&attr, pmu, config, config1, config2));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -ECHILD;
	return -WEXITSTATUS(status);
}

#define NO_CAPS 0
#define ONLY_PERFMON (1U << (CAP_PERFMON - 32))

static void record(struct __test_metadata *_metadata, const char *name, int got,
		   int want)
{
	ksft_print_msg("errno-table: %-32s %s\n", name, result_name(got));
	EXPECT_STREQ(result_name(want), result_name(got)) TH_LOG("%s", name);
}

#define CASE(name, want, ...) record(_metadata, name, (__VA_ARGS__), want)

FIXTURE(bad_input) {
	const char *func;
	uint64_t addr;
	long target;
};

FIXTURE_SETUP(bad_input)
{
	if (pmu_type("kprobe") < 0 || pmu_type("uprobe") < 0)
		SKIP(return, "no kprobe or uprobe PMU");
	self->func = getppid_symbol(&self->addr);
	ASSERT_NE(NULL, self->func);
	self->target = self_file_offset((void *)probe_target);
	ASSERT_LT(0, self->target);
}

FIXTURE_TEARDOWN(bad_input)
{
}

TEST_F(bad_input, kprobe)
{
	struct perf_event_attr attr = { 0 }, branch = {
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY,
	};
	char *name_at_max = repeat('x', 511), *too_long = repeat('x', 600);

	CASE("kprobe.ok_symbol", 0, try_open(&attr, "kprobe", 0, self->func, 0));
	CASE("kprobe.ok_address", 0, try_open(&attr, "kprobe", 0, NULL, self->addr));
	CASE("kprobe.ok_retprobe", 0, try_open(&attr, "kprobe", RETPROBE, self->func, 0));
	CASE("kprobe.unknown_config_bits", 0,
	     try_open(&attr, "kprobe", 0xfffffffeULL, self->func, 0));
	CASE("kprobe.branch_stack", -EOPNOTSUPP,
	     try_open(&branch, "kprobe", 0, self->func, 0));
	CASE("kprobe.no_name_no_address", -EINVAL, try_open(&attr, "kprobe", 0, NULL, 0));
	CASE("kprobe.unmapped_name", -EFAULT, try_open(&attr, "kprobe", 0, unmapped(), 0));
	CASE("kprobe.kernel_pointer_name", -EFAULT,
	     try_open(&attr, "kprobe", 0, (void *)(uintptr_t)self->addr, 0));
	CASE("kprobe.unterminated_name", -EFAULT,
	     try_open(&attr, "kprobe", 0, unterminated(self->func), 0));
	CASE("kprobe.too_long_name", -E2BIG, try_open(&attr, "kprobe", 0, too_long, 0));
	CASE("kprobe.longest_name", -ENOENT, try_open(&attr, "kprobe", 0, name_at_max, 0));
	CASE("kprobe.nonexistent_symbol", -ENOENT,
	     try_open(&attr, "kprobe", 0, "no_such_function_in_this_kernel", 0));
	CASE("kprobe.empty_name_bad_address", -ENOENT, try_open(&attr, "kprobe", 0, "", 1));
	CASE("kprobe.unaligned_offset", -EILSEQ, try_open(&attr, "kprobe", 0, self->func, 1));
	CASE("kprobe.offset_past_function", 0,
	     try_open(&attr, "kprobe", 0, self->func, 1ULL << 40));
	CASE("kprobe.retprobe_with_offset", -EINVAL,
	     try_open(&attr, "kprobe", RETPROBE, self->func, 1));
	CASE("kprobe.unprivileged", -EACCES, try_open_as(NO_CAPS, 0, "kprobe", 0, self->func, 0));
	CASE("kprobe.unprivileged_user_only", -EACCES,
	     try_open_as(NO_CAPS, 1, "kprobe", 0, self->func, 0));
	CASE("kprobe.cap_perfmon_only", 0,
	     try_open_as(ONLY_PERFMON, 0, "kprobe", 0, self->func, 0));
	free(name_at_max);
	free(too_long);
}

TEST_F(bad_input, uprobe)
{
	struct perf_event_attr attr = { 0 }, branch = {
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY,
	};
	const char *exe = self_exe();
	char *too_long = repeat('/', PATH_MAX + 10);
	char *longest = repeat('/', PATH_MAX - 1);

	CASE("uprobe.ok", 0, try_open(&attr, "uprobe", 0, exe, self->target));
	CASE("uprobe.ok_retprobe", 0, try_open(&attr, "uprobe", RETPROBE, exe, self->target));
	CASE("uprobe.unknown_config_bits", 0,
	     try_open(&attr, "uprobe", 0xfffefffeULL, exe, self->target));
	CASE("uprobe.branch_stack", -EOPNOTSUPP,
	     try_open(&branch, "uprobe", 0, exe, self->target));
	CASE("uprobe.null_path", -EINVAL, try_open(&attr, "uprobe", 0, NULL, self->target));
	CASE("uprobe.empty_path", -EINVAL, try_open(&attr, "uprobe", 0, "", self->target));
	CASE("uprobe.unmapped_path", -EFAULT,
	     try_open(&attr, "uprobe", 0, unmapped(), self->target));
	CASE("uprobe.unterminated_path", -EFAULT,
	     try_open(&attr, "uprobe", 0, unterminated(exe), self->target));
	CASE("uprobe.too_long_path", -E2BIG, try_open(&attr, "uprobe", 0, too_long, 0));
	CASE("uprobe.longest_path", -EINVAL, try_open(&attr, "uprobe", 0, longest, 0));
	CASE("uprobe.nonexistent_file", -ENOENT,
	     try_open(&attr, "uprobe", 0, "/no/such/file", self->target));
	CASE("uprobe.directory", -EINVAL, try_open(&attr, "uprobe", 0, "/", 0));
	CASE("uprobe.offset_past_file", -EINVAL, try_open(&attr, "uprobe", 0, exe, 1ULL << 40));
	CASE("uprobe.ref_ctr_past_file", 0,
	     try_open(&attr, "uprobe", 1ULL << 62, exe, self->target));
	CASE("uprobe.unprivileged", -EACCES,
	     try_open_as(NO_CAPS, 0, "uprobe", 0, exe, self->target));
	CASE("uprobe.unprivileged_user_only", -EACCES,
	     try_open_as(NO_CAPS, 1, "uprobe", 0, exe, self->target));
	CASE("uprobe.cap_perfmon_only", -EACCES,
	     try_open_as(ONLY_PERFMON, 0, "uprobe", 0, exe, self->target));
	free(too_long);
	free(longest);
}

/* Open on @pid/@cpu in @group; 0 (closed) or -errno. */
static int open_on(struct perf_event_attr *attr, const char *pmu, const void *config1,
		   uint64_t config2, pid_t pid, int cpu, int group)
{
	int fd;

	attr->size = sizeof(*attr);
	attr->type = pmu_type(pmu);
	attr->config1 = (uintptr_t)config1;
	attr->config2 = config2;
	fd = sys_perf_event_open(attr, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* How many of @n hits an event of this task, opened with @attr, counts; or -errno. */
static long hits_counted(struct perf_event_attr *attr, const char *pmu, const void *config1,
			 uint64_t config2, int n)
{
	int fd = probe_open_attr(attr, pmu, 0, (uintptr_t)config1, config2);
	long count;

	if (fd < 0)
		return fd;
	if (!strcmp(pmu, "kprobe"))
		trigger_getppid(n);
	else
		while (n--)
			probe_target(1);
	count = read_count(fd);
	close(fd);
	return count;
}

static void record_count(struct __test_metadata *_metadata, const char *name, long got,
			 long want)
{
	char g[32], w[32];

	if (got < 0)
		snprintf(g, sizeof(g), "%s", result_name(got));
	else
		snprintf(g, sizeof(g), "%ld hits", got);
	snprintf(w, sizeof(w), "%ld hits", want);
	ksft_print_msg("errno-table: %-32s %s\n", name, g);
	EXPECT_STREQ(w, g) TH_LOG("%s", name);
}

/* ioctl(@fd, @cmd, @arg): 0 or -errno. */
static int ioctl_result(int fd, unsigned long cmd, unsigned long arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/*
 * Events that are not plain: CPU-wide, of another task, inherited, in
 * groups, with exclude_* bits, and the ioctls that take a filter or a BPF
 * program.
 */
TEST_F(bad_input, events)
{
	struct bpf_insn ret0[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	struct perf_event_attr attr = { 0 }, sw = {
		.size = sizeof(sw), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
	};
	const char *exe = self_exe();
	int leader, fd, prog, sock_prog, map;

	CASE("kprobe.cpu_wide", 0, open_on(&attr, "kprobe", self->func, 0, -1, 0, -1));
	CASE("uprobe.cpu_wide", 0, open_on(&attr, "uprobe", exe, self->target, -1, 0, -1));
	CASE("kprobe.other_task", 0, open_on(&attr, "kprobe", self->func, 0, getppid(), -1, -1));
	CASE("kprobe.no_such_cpu", -EINVAL, open_on(&attr, "kprobe", self->func, 0, -1, 4096, -1));
	CASE("kprobe.no_task_no_cpu", -EINVAL, open_on(&attr, "kprobe", self->func, 0, -1, -1, -1));
	memset(&attr, 0, sizeof(attr));
	attr.inherit = 1;
	CASE("kprobe.inherit", 0, open_on(&attr, "kprobe", self->func, 0, 0, -1, -1));
	memset(&attr, 0, sizeof(attr));
	attr.inherit = 1;
	attr.sample_type = PERF_SAMPLE_READ;
	attr.sample_period = 1;
	CASE("uprobe.inherit_sample_read", -EINVAL,
	     open_on(&attr, "uprobe", exe, self->target, 0, -1, -1));

	leader = sys_perf_event_open(&sw, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, leader);
	memset(&attr, 0, sizeof(attr));
	CASE("kprobe.in_software_group", 0, open_on(&attr, "kprobe", self->func, 0, 0, -1, leader));
	CASE("uprobe.in_software_group", 0,
	     open_on(&attr, "uprobe", exe, self->target, 0, -1, leader));
	CASE("kprobe.group_on_other_cpu", -EINVAL,
	     open_on(&attr, "kprobe", self->func, 0, -1, 0, leader));
	close(leader);
	leader = probe_open("uprobe", 0, exe, self->target);
	ASSERT_LE(0, leader);
	CASE("kprobe.in_uprobe_group", 0, open_on(&attr, "kprobe", self->func, 0, 0, -1, leader));
	close(leader);

	memset(&attr, 0, sizeof(attr));
	attr.exclude_kernel = 1;
	record_count(_metadata, "kprobe.exclude_kernel",
		     hits_counted(&attr, "kprobe", self->func, 0, 10), 0);
	record_count(_metadata, "uprobe.exclude_kernel",
		     hits_counted(&attr, "uprobe", exe, self->target, 10), 10);
	memset(&attr, 0, sizeof(attr));
	attr.exclude_user = 1;
	record_count(_metadata, "kprobe.exclude_user",
		     hits_counted(&attr, "kprobe", self->func, 0, 10), 10);
	record_count(_metadata, "uprobe.exclude_user",
		     hits_counted(&attr, "uprobe", exe, self->target, 10), 10);

	map = counter_map();
	ASSERT_LE(0, map);
	prog = counting_prog(map, NULL, 0);
	ASSERT_LE(0, prog);
	sock_prog = load_prog(BPF_PROG_TYPE_SOCKET_FILTER, ret0, ARRAY_SIZE(ret0), NULL, NULL, 0);
	ASSERT_LE(0, sock_prog);
	fd = probe_open("kprobe", 0, self->func, 0);
	ASSERT_LE(0, fd);
	CASE("kprobe.set_filter_bad_field", -EINVAL,
	     ioctl_result(fd, PERF_EVENT_IOC_SET_FILTER, (uintptr_t)"no_such_field == 1"));
	CASE("kprobe.set_filter", 0,
	     ioctl_result(fd, PERF_EVENT_IOC_SET_FILTER, (uintptr_t)"common_pid != 0"));
	CASE("kprobe.set_filter_twice", -EEXIST,
	     ioctl_result(fd, PERF_EVENT_IOC_SET_FILTER, (uintptr_t)"common_pid != 1"));
	CASE("kprobe.set_bpf_not_bpf", -EBADF, ioctl_result(fd, PERF_EVENT_IOC_SET_BPF, 9999));
	CASE("kprobe.set_bpf_wrong_type", -EINVAL,
	     ioctl_result(fd, PERF_EVENT_IOC_SET_BPF, sock_prog));
	CASE("kprobe.set_bpf", 0, ioctl_result(fd, PERF_EVENT_IOC_SET_BPF, prog));
	CASE("kprobe.set_bpf_twice", -EEXIST, ioctl_result(fd, PERF_EVENT_IOC_SET_BPF, prog));
	close(fd);
	fd = probe_open("uprobe", 0, exe, self->target);
	ASSERT_LE(0, fd);
	CASE("uprobe.set_filter_bad_field", -EINVAL,
	     ioctl_result(fd, PERF_EVENT_IOC_SET_FILTER, (uintptr_t)"no_such_field == 1"));
	CASE("uprobe.set_bpf_wrong_type", -EINVAL,
	     ioctl_result(fd, PERF_EVENT_IOC_SET_BPF, sock_prog));
	CASE("uprobe.set_bpf", 0, ioctl_result(fd, PERF_EVENT_IOC_SET_BPF, prog));
	close(fd);
	close(sock_prog);
	close(prog);
	close(map);
}

/*
 * The hits of a child that an inherited uprobe event counts, parent and
 * child on one CPU: 3 with the series' fix, 0 in most rounds on stock 6.12,
 * whose context switch loses them.  The one row not asserted here:
 * perf_events/uprobe_inherit tests it, and make abi-diff states it as an
 * intended difference from stock.
 */
TEST_F(bad_input, inherited_uprobe)
{
	struct perf_event_attr attr = { .inherit = 1 };
	cpu_set_t cpus;
	int fd, status;
	pid_t pid;

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	fd = probe_open_attr(&attr, "uprobe", 0, (uintptr_t)self_exe(), self->target);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(-fd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		probe_target(1);
		probe_target(2);
		probe_target(3);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ksft_print_msg("errno-table: %-32s %llu hits\n", "uprobe.inherit_child_hits",
		       (unsigned long long)read_count(fd));
	close(fd);
}

TEST_HARNESS_MAIN
