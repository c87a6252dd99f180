// SPDX-License-Identifier: GPL-2.0
/*
 * What perf_event_open() says to bad input for the kprobe and uprobe PMUs.
 *
 * Each case prints "errno-table: <case> <result>", so that the tables of two
 * kernels can be compared line by line; cases whose error the ABI documents
 * also assert it.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "probe_lib.h"
#include "probe_target.h"

#define ANY 1	/* the result is recorded, not asserted */

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

/* The same, as the unprivileged user nobody, with no capabilities. */
static int try_open_unprivileged(const char *pmu, uint64_t config, const void *config1,
				 uint64_t config2)
{
	struct perf_event_attr attr = { 0 };
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(255);
		_exit(-try_open(&attr, pmu, config, config1, config2));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -ECHILD;
	return -WEXITSTATUS(status);
}

static void record(struct __test_metadata *_metadata, const char *name, int got,
		   int want)
{
	ksft_print_msg("errno-table: %-32s %s\n", name, result_name(got));
	if (want != ANY)
		EXPECT_STREQ(result_name(want), result_name(got));
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
	CASE("kprobe.unknown_config_bits", ANY,
	     try_open(&attr, "kprobe", 0xfffffffeULL, self->func, 0));
	CASE("kprobe.branch_stack", -EOPNOTSUPP,
	     try_open(&branch, "kprobe", 0, self->func, 0));
	CASE("kprobe.no_name_no_address", ANY, try_open(&attr, "kprobe", 0, NULL, 0));
	CASE("kprobe.unmapped_name", -EFAULT, try_open(&attr, "kprobe", 0, unmapped(), 0));
	CASE("kprobe.kernel_pointer_name", -EFAULT,
	     try_open(&attr, "kprobe", 0, (void *)(uintptr_t)self->addr, 0));
	CASE("kprobe.unterminated_name", -EFAULT,
	     try_open(&attr, "kprobe", 0, unterminated(self->func), 0));
	CASE("kprobe.too_long_name", -E2BIG, try_open(&attr, "kprobe", 0, too_long, 0));
	CASE("kprobe.longest_name", ANY, try_open(&attr, "kprobe", 0, name_at_max, 0));
	CASE("kprobe.nonexistent_symbol", ANY,
	     try_open(&attr, "kprobe", 0, "no_such_function_in_this_kernel", 0));
	CASE("kprobe.empty_name_bad_address", ANY, try_open(&attr, "kprobe", 0, "", 1));
	CASE("kprobe.unaligned_offset", ANY, try_open(&attr, "kprobe", 0, self->func, 1));
	CASE("kprobe.offset_past_function", ANY,
	     try_open(&attr, "kprobe", 0, self->func, 1ULL << 40));
	CASE("kprobe.retprobe_with_offset", ANY,
	     try_open(&attr, "kprobe", RETPROBE, self->func, 1));
	CASE("kprobe.unprivileged", -EACCES, try_open_unprivileged("kprobe", 0, self->func, 0));
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
	CASE("uprobe.unknown_config_bits", ANY,
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
	CASE("uprobe.longest_path", ANY, try_open(&attr, "uprobe", 0, longest, 0));
	CASE("uprobe.nonexistent_file", ANY,
	     try_open(&attr, "uprobe", 0, "/no/such/file", self->target));
	CASE("uprobe.directory", ANY, try_open(&attr, "uprobe", 0, "/", 0));
	CASE("uprobe.offset_past_file", ANY, try_open(&attr, "uprobe", 0, exe, 1ULL << 40));
	CASE("uprobe.ref_ctr_past_file", ANY,
	     try_open(&attr, "uprobe", 1ULL << 62, exe, self->target));
	CASE("uprobe.unprivileged", -EACCES,
	     try_open_unprivileged("uprobe", 0, exe, self->target));
	free(too_long);
	free(longest);
}

TEST_HARNESS_MAIN
