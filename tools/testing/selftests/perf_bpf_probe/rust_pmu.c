// SPDX-License-Identifier: GPL-2.0
/*
 * The Rust PMU sample module (samples/rust/rust_pmu.rs), a PMU in a module
 * built on the kernel crate's perf API: load it, count with it through
 * perf_event_open() and perf stat, check that it cannot be removed while
 * an event is open, and load and unload it many times.
 *
 * The module is loaded from ./rust_pmu.ko (or $RUST_PMU_KO), else with
 * modprobe; without it the tests are skipped.
 */
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "probe_lib.h"
#include "../kselftest_harness.h"

#define PMU "rust_pmu"
#define WEIGHT_MASK 0xffffULL

static int load_module(void)
{
	const char *path = getenv("RUST_PMU_KO");
	int fd, ret;

	fd = open(path ? path : PMU ".ko", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ret = syscall(__NR_finit_module, fd, "", 0) ? -errno : 0;
		close(fd);
		return ret;
	}
	/* Installed with the kernel's modules, or not at all. */
	if (system("modprobe -q -n " PMU " 2>/dev/null"))
		return -ENOENT;
	return system("modprobe -q " PMU) ? -EIO : 0;
}

static bool module_loaded(void)
{
	return access("/sys/module/" PMU "/initstate", F_OK) == 0;
}

static int unload_module(void)
{
	return syscall(__NR_delete_module, PMU, O_NONBLOCK) ? -errno : 0;
}

static long module_refcnt(void)
{
	long refcnt = -1;
	FILE *f;

	f = fopen("/sys/module/" PMU "/refcnt", "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &refcnt) != 1)
		refcnt = -1;
	fclose(f);
	return refcnt;
}

/* A field of /proc/meminfo, in kB, or -1. */
static long meminfo_kb(const char *field)
{
	char line[256];
	size_t len = strlen(field);
	long kb = -1;
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':')
			kb = strtol(line + len + 1, NULL, 10);
	fclose(f);
	return kb;
}

static int open_counter(int type, uint64_t config, pid_t pid, int cpu,
			int group_fd, bool disabled)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.disabled = disabled,
	};
	int fd;

	fd = sys_perf_event_open(&attr, pid, cpu, group_fd,
				 PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

FIXTURE(rust_pmu) {
	int type;
	bool loaded;	/* by this test, which unloads it */
};

FIXTURE_SETUP(rust_pmu)
{
	int err;

	self->loaded = false;
	/* A test that failed with events open may have left it loaded. */
	if (module_loaded())
		ASSERT_EQ(0, unload_module());
	if (pmu_type(PMU) < 0) {
		err = load_module();
		if (err == -ENOENT)
			SKIP(return, "no " PMU " module (CONFIG_SAMPLE_RUST_PMU=m)");
		ASSERT_EQ(0, err);
		self->loaded = true;
	}
	self->type = pmu_type(PMU);
	ASSERT_GE(self->type, PERF_TYPE_MAX);
}

FIXTURE_TEARDOWN(rust_pmu)
{
	if (self->loaded)
		EXPECT_EQ(0, unload_module());
}

TEST_F(rust_pmu, format_attribute)
{
	char buf[64] = "";
	FILE *f;

	f = fopen(PMU_DIR "/" PMU "/format/weight", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	EXPECT_STREQ("config:0-15\n", buf);
}

/*
 * A task's event counts each time the task is scheduled in, by its weight:
 * once when enabled, then once per context switch, which the software
 * context-switches event of the same group counts.
 */
TEST_F(rust_pmu, counts_task_scheduling)
{
	uint64_t weight = 3, count, switches;
	int lead, cs, i;

	lead = open_counter(self->type, weight, 0, -1, -1, true);
	ASSERT_GE(lead, 0);
	cs = open_counter(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
			  0, -1, lead, false);
	ASSERT_GE(cs, 0);
	ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	for (i = 0; i < 20; i++)
		usleep(1000);
	ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	count = read_count(lead);
	switches = read_count(cs);
	TH_LOG("count %llu, context switches %llu", (unsigned long long)count,
	       (unsigned long long)switches);
	/*
	 * Not one per usleep(): under emulation the timer can fire before the
	 * task blocks, and then it does not switch.
	 */
	EXPECT_GT(switches, 0);
	EXPECT_EQ(weight * (switches + 1), count);

	/* Disabled, it counts no more. */
	usleep(1000);
	EXPECT_EQ(count, read_count(lead));
	close(cs);
	close(lead);
}

TEST_F(rust_pmu, weight_zero_counts_one)
{
	uint64_t count, switches;
	int lead, cs;

	lead = open_counter(self->type, 0, 0, -1, -1, true);
	ASSERT_GE(lead, 0);
	cs = open_counter(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
			  0, -1, lead, false);
	ASSERT_GE(cs, 0);
	ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	usleep(1000);
	ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	count = read_count(lead);
	switches = read_count(cs);
	EXPECT_GE(switches, 1);
	EXPECT_EQ(switches + 1, count);
	close(cs);
	close(lead);
}

/*
 * A pinned CPU-wide event, alone on its CPU, is scheduled in once, when it
 * is installed (installing another pinned CPU event would schedule it in
 * again).
 */
TEST_F(rust_pmu, counts_cpu_event)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = self->type,
		.config = 7,
		.pinned = 1,
	};
	int fd;

	fd = sys_perf_event_open(&attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_GE(fd, 0);
	usleep(10000);
	EXPECT_EQ(7, read_count(fd));
	close(fd);
}

TEST_F(rust_pmu, refuses_bad_events)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = self->type,
		.sample_period = 1000,
	};

	/* Counting only: the perf core refuses to sample. */
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EOPNOTSUPP, errno);
	attr.freq = 1;
	attr.sample_freq = 1;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* config bits past the weight. */
	EXPECT_EQ(-EINVAL, open_counter(self->type, WEIGHT_MASK + 1, 0, -1, -1, false));
	EXPECT_EQ(-EINVAL, open_counter(self->type, 1ULL << 63, 0, -1, -1, false));
}

/* Each event holds the module: rmmod fails while one is open. */
TEST_F(rust_pmu, busy_while_event_open)
{
	int fd, fd2;

	if (!self->loaded)
		SKIP(return, PMU " was not loaded by this test (built in?)");
	ASSERT_EQ(0, module_refcnt());
	fd = open_counter(self->type, 1, 0, -1, -1, false);
	ASSERT_GE(fd, 0);
	fd2 = open_counter(self->type, 1, -1, 0, -1, false);
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(2, module_refcnt());
	EXPECT_EQ(-EWOULDBLOCK, unload_module());
	close(fd);
	EXPECT_EQ(1, module_refcnt());
	EXPECT_EQ(-EWOULDBLOCK, unload_module());
	EXPECT_EQ(self->type, pmu_type(PMU));
	close(fd2);
	EXPECT_EQ(0, module_refcnt());
	ASSERT_EQ(0, unload_module());
	self->loaded = false;
	EXPECT_EQ(-1, pmu_type(PMU));
	/* The type number is free: gone from the perf core too. */
	fd = open_counter(self->type, 1, 0, -1, -1, false);
	EXPECT_EQ(-ENOENT, fd);
}

/* perf stat, as users run it, with the format attribute by name. */
TEST_F_TIMEOUT(rust_pmu, perf_stat, 300)
{
	char out[] = "/tmp/rust_pmu_stat.XXXXXX", line[512], cmd[768];
	unsigned long long count = 0, switches = 0, value;
	char name[256];
	FILE *f;
	int fd;

	if (system("perf --version >/dev/null 2>&1"))
		SKIP(return, "no perf");
	fd = mkstemp(out);
	ASSERT_GE(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "perf stat -x, -o %s -e " PMU "/weight=2/,context-switches -- sleep 0.2",
		 out);
	ASSERT_EQ(0, system(cmd));
	f = fopen(out, "r");
	ASSERT_NE(NULL, f);
	/* value,unit,event,... with an empty unit */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu,,%255[^,]", &value, name) != 2)
			continue;
		if (!strcmp(name, PMU "/weight=2/"))
			count = value;
		else if (!strcmp(name, "context-switches"))
			switches = value;
	}
	fclose(f);
	unlink(out);
	TH_LOG("perf stat: %llu " PMU "/weight=2/, %llu context-switches",
	       count, switches);
	EXPECT_GE(switches, 1);
	EXPECT_EQ(2 * (switches + 1), count);
}

/*
 * Load and unload the module 100 times: the PMU comes and goes with it, with
 * the same type number each time, and no memory stays behind: the perf
 * core's per-CPU data of a PMU (a leak of it would take 24 kB per CPU in 100
 * cycles), module memory; the debug kernel's kmemleak sees the rest.
 */
TEST_F_TIMEOUT(rust_pmu, load_unload_100, 600)
{
	long percpu, vmalloc, fd, i;

	if (!self->loaded)
		SKIP(return, PMU " was not loaded by this test (built in?)");
	ASSERT_EQ(0, unload_module());
	self->loaded = false;
	/* One cycle first: what the first load allocates for good. */
	ASSERT_EQ(0, load_module());
	ASSERT_EQ(0, unload_module());
	percpu = meminfo_kb("Percpu");
	vmalloc = meminfo_kb("VmallocUsed");
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, load_module());
		ASSERT_EQ(self->type, pmu_type(PMU));
		fd = open_counter(self->type, 1, 0, -1, -1, false);
		ASSERT_GE(fd, 0);
		close(fd);
		ASSERT_EQ(0, unload_module());
		ASSERT_EQ(-1, pmu_type(PMU));
	}
	TH_LOG("after 100 cycles: Percpu %+ld kB, VmallocUsed %+ld kB",
	       meminfo_kb("Percpu") - percpu, meminfo_kb("VmallocUsed") - vmalloc);
	EXPECT_LT(meminfo_kb("Percpu") - percpu, 16);
	EXPECT_LT(meminfo_kb("VmallocUsed") - vmalloc, 256);
	ASSERT_EQ(0, load_module());
	self->loaded = true;
}

/*
 * A write to perf_event_mux_interval_ms arms the PMU's multiplexing hrtimer
 * on every CPU, events or not: unloading the module must not free the armed
 * timers (the next load would initialise the per-CPU data over them, which
 * the debug kernel reports; or the timers would fire on freed memory).
 */
TEST_F_TIMEOUT(rust_pmu, unload_with_mux_timer_armed, 120)
{
	FILE *f;

	if (!self->loaded)
		SKIP(return, PMU " was not loaded by this test (built in?)");
	f = fopen(PMU_DIR "/" PMU "/perf_event_mux_interval_ms", "w");
	ASSERT_NE(NULL, f);
	ASSERT_GT(fprintf(f, "5000\n"), 0);
	ASSERT_EQ(0, fclose(f));
	ASSERT_EQ(0, unload_module());
	self->loaded = false;
	ASSERT_EQ(0, load_module());
	self->loaded = true;
	EXPECT_EQ(self->type, pmu_type(PMU));
	/* Past the interval: a timer left armed has fired by now. */
	sleep(6);
	EXPECT_EQ(self->type, pmu_type(PMU));
}

TEST_HARNESS_MAIN
