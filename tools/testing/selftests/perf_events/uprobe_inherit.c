// SPDX-License-Identifier: GPL-2.0
/*
 * A uprobe PMU event opened with attr.inherit counts the hits of the task's
 * children and grandchildren, and the task's own hits once they have exited.
 *
 * Parent and children run on one CPU, where the scheduler switches straight
 * from the parent to the child it waits for and back, and the perf core may
 * swap the two tasks' event contexts instead of scheduling their events.
 * Each inherited uprobe PMU event has a uprobe of its own, which lets
 * through only the hits in its task's address space: swapped, the child ran
 * with the parent's events and its hits were lost.  Every round must count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"

#define ROUNDS 20
#define HITS 3

/* The probed function. */
int probed_function(int x)
{
	return x + 1;
}

static int pmu_type(const char *pmu)
{
	char path[128];
	int type = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

/* The offset of @addr in the file of this program, from /proc/self/maps. */
static long self_file_offset(const void *addr, char *exe, size_t size)
{
	unsigned long start, end, off, a = (unsigned long)addr;
	char line[1024], path[512];
	ssize_t n;
	long ret = -1;
	FILE *f;

	n = readlink("/proc/self/exe", exe, size - 1);
	if (n < 0)
		return -1;
	exe[n] = '\0';
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %511s", &start, &end, &off, path) != 4)
			continue;
		if (a >= start && a < end && !strcmp(path, exe)) {
			ret = a - start + off;
			break;
		}
	}
	fclose(f);
	return ret;
}

FIXTURE(uprobe_inherit) {
	struct perf_event_attr attr;
	char exe[512];
};

FIXTURE_SETUP(uprobe_inherit)
{
	int type = pmu_type("uprobe");
	cpu_set_t cpus;
	long offset;

	if (type < 0)
		SKIP(return, "no uprobe PMU");
	offset = self_file_offset((void *)probed_function, self->exe, sizeof(self->exe));
	ASSERT_LE(0, offset) TH_LOG("probed_function is in no mapping of %s", self->exe);
	memset(&self->attr, 0, sizeof(self->attr));
	self->attr.size = sizeof(self->attr);
	self->attr.type = type;
	self->attr.inherit = 1;
	/* config1 is the path of the probed file, config2 the offset in it. */
	self->attr.config1 = (uintptr_t)self->exe;
	self->attr.config2 = offset;
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus)) TH_LOG("%s", strerror(errno));
}

FIXTURE_TEARDOWN(uprobe_inherit)
{
}

static void hit(int n)
{
	int (*fn)(int) = probed_function;

	/* Hide where fn points: the calls cannot be inlined. */
	asm("" : "+r" (fn));
	while (n--)
		fn(n);
}

/*
 * Fork a child that hits the probe @n times, or with @depth 2 a child that
 * forks a grandchild that does, and wait for it.  0 if it exited with 0.
 */
static int hit_in_child(int depth, int n)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (depth > 1)
			_exit(hit_in_child(depth - 1, n) ? 1 : 0);
		hit(n);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

static uint64_t read_count(int fd)
{
	uint64_t count;

	if (read(fd, &count, sizeof(count)) != sizeof(count))
		return UINT64_MAX;
	return count;
}

TEST_F(uprobe_inherit, counts_children_and_parent)
{
	uint64_t child, grandchild, parent;
	int round, fd, bad = 0;

	for (round = 0; round < ROUNDS; round++) {
		struct perf_event_attr attr = self->attr;

		fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && (errno == EACCES || errno == EPERM))
			SKIP(return, "the uprobe PMU needs CAP_SYS_ADMIN");
		ASSERT_LE(0, fd) TH_LOG("uprobe event: %s", strerror(errno));
		ASSERT_EQ(0, hit_in_child(1, HITS));
		child = read_count(fd);
		ASSERT_EQ(0, hit_in_child(2, HITS));
		grandchild = read_count(fd) - child;
		hit(HITS);
		parent = read_count(fd) - child - grandchild;
		close(fd);
		if (child == HITS && grandchild == HITS && parent == HITS)
			continue;
		if (!bad++)
			TH_LOG("round %d: child %llu, grandchild %llu, parent %llu of %d hits",
			       round, (unsigned long long)child, (unsigned long long)grandchild,
			       (unsigned long long)parent, HITS);
	}
	EXPECT_EQ(0, bad) TH_LOG("%d of %d rounds miscounted", bad, ROUNDS);
}

TEST_HARNESS_MAIN
