// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe and uprobe PMUs at work: probes by symbol, symbol+offset and
 * address, return probes, counts, samples, the uprobe reference counter,
 * and BPF programs attached to probe events.
 */
#define _GNU_SOURCE
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "../kselftest_harness.h"
#include "probe_lib.h"
#include "probe_target.h"

#define HITS 100

static void call_target(int n)
{
	while (n--)
		probe_target(1);
}

FIXTURE(kprobe) {
	const char *func;
	uint64_t addr;
};

FIXTURE_SETUP(kprobe)
{
	if (pmu_type("kprobe") < 0)
		SKIP(return, "no kprobe PMU");
	self->func = getppid_symbol(&self->addr);
	ASSERT_NE(NULL, self->func) TH_LOG("no getppid syscall symbol in /proc/kallsyms");
	ASSERT_NE(0, self->addr) TH_LOG("/proc/kallsyms hides addresses: run as root");
}

FIXTURE_TEARDOWN(kprobe)
{
}

/* The event, opened as @what, counts every call of getppid() by this task. */
static void expect_getppid_hits(struct __test_metadata *_metadata, int fd, const char *what)
{
	ASSERT_LE(0, fd) TH_LOG("%s: %s", what, strerror(-fd));
	trigger_getppid(HITS);
	EXPECT_EQ(HITS, read_count(fd));
	close(fd);
}

TEST_F(kprobe, by_symbol_counts_hits)
{
	expect_getppid_hits(_metadata, probe_open("kprobe", 0, self->func, 0), self->func);
}

TEST_F(kprobe, by_address_counts_hits)
{
	expect_getppid_hits(_metadata, probe_open("kprobe", 0, NULL, self->addr), "by address");
}

TEST_F(kprobe, empty_name_means_address)
{
	expect_getppid_hits(_metadata, probe_open("kprobe", 0, "", self->addr), "empty name");
}

/*
 * The first offset into the function that is an instruction boundary (the
 * others are refused with EILSEQ) is in its straight-line prologue.
 */
TEST_F(kprobe, by_symbol_and_offset_counts_hits)
{
	int fd = -EILSEQ, off;

	for (off = 1; off < 16 && fd == -EILSEQ; off++)
		fd = probe_open("kprobe", 0, self->func, off);
	expect_getppid_hits(_metadata, fd, "symbol+offset");
}

TEST_F(kprobe, retprobe_counts_returns)
{
	expect_getppid_hits(_metadata, probe_open("kprobe", RETPROBE, self->func, 0), "kretprobe");
}

TEST_F(kprobe, disabled_event_counts_nothing)
{
	struct perf_event_attr attr = { .disabled = 1 };
	int fd = probe_open_attr(&attr, "kprobe", 0, (uintptr_t)self->func, 0);

	ASSERT_LE(0, fd);
	trigger_getppid(HITS);
	EXPECT_EQ(0, read_count(fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	trigger_getppid(HITS);
	EXPECT_EQ(HITS, read_count(fd));
	close(fd);
}

/* Every hit is a sample from this task, at the probed function. */
TEST_F(kprobe, samples_into_ring_buffer)
{
	struct perf_event_attr attr = {
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		.wakeup_events = 1,
	};
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *meta;
	int fd, samples = 0, others = 0;
	uint64_t tail, head;
	char *data;

	fd = probe_open_attr(&attr, "kprobe", 0, (uintptr_t)self->func, 0);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(-fd));
	meta = mmap(NULL, 17 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, meta);
	data = (char *)meta + page;
	trigger_getppid(HITS);
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	for (tail = 0; tail < head;) {
		struct perf_event_header *hdr = (void *)(data + tail % (16 * page));

		if (hdr->type == PERF_RECORD_SAMPLE) {
			uint64_t *ip = (void *)(hdr + 1);
			uint32_t *pid = (void *)(ip + 1);

			/* The sampled IP is at the probe (x86 reports it past the int3). */
			if (*ip - self->addr < 16 && pid[0] == (uint32_t)getpid() &&
			    pid[1] == (uint32_t)gettid())
				samples++;
			else
				others++;
		}
		tail += hdr->size;
	}
	EXPECT_EQ(HITS, samples);
	EXPECT_EQ(0, others);
	munmap(meta, 17 * page);
	close(fd);
}

FIXTURE(uprobe) {
	long offset;
};

FIXTURE_SETUP(uprobe)
{
	if (pmu_type("uprobe") < 0)
		SKIP(return, "no uprobe PMU");
	self->offset = self_file_offset((void *)probe_target);
	ASSERT_LT(0, self->offset);
}

FIXTURE_TEARDOWN(uprobe)
{
}

TEST_F(uprobe, by_path_and_offset_counts_hits)
{
	int fd = probe_open("uprobe", 0, self_exe(), self->offset);

	ASSERT_LE(0, fd) TH_LOG("uprobe on %s:%#lx: %s", self_exe(), self->offset,
				strerror(-fd));
	call_target(HITS);
	EXPECT_EQ(HITS, read_count(fd));
	close(fd);
}

TEST_F(uprobe, retprobe_counts_returns)
{
	int fd = probe_open("uprobe", RETPROBE, self_exe(), self->offset);

	ASSERT_LE(0, fd) TH_LOG("%s", strerror(-fd));
	call_target(HITS);
	EXPECT_EQ(HITS, read_count(fd));
	close(fd);
}

/* The reference counter (config:32-63) is 1 while the probe exists. */
TEST_F(uprobe, ref_ctr_offset_counts_probes)
{
	long sem = self_file_offset(&probe_semaphore.count);
	int fd;

	ASSERT_LT(0, sem);
	ASSERT_EQ(0, semaphore_count());
	fd = probe_open("uprobe", (uint64_t)sem << 32, self_exe(), self->offset);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(-fd));
	EXPECT_EQ(1, semaphore_count());
	call_target(HITS);
	EXPECT_EQ(HITS, read_count(fd));
	close(fd);
	EXPECT_EQ(0, semaphore_count());
}

/* A BPF program on a probe event runs once per hit, however attached. */
FIXTURE(bpf) {
	int map, prog;
	char log[4096];
};

FIXTURE_VARIANT(bpf) {
	const char *pmu;
	bool link;
};

FIXTURE_VARIANT_ADD(bpf, kprobe_ioctl) { .pmu = "kprobe", .link = false };
FIXTURE_VARIANT_ADD(bpf, kprobe_link) { .pmu = "kprobe", .link = true };
FIXTURE_VARIANT_ADD(bpf, uprobe_ioctl) { .pmu = "uprobe", .link = false };
FIXTURE_VARIANT_ADD(bpf, uprobe_link) { .pmu = "uprobe", .link = true };

FIXTURE_SETUP(bpf)
{
	if (pmu_type(variant->pmu) < 0)
		SKIP(return, "no %s PMU", variant->pmu);
	self->map = counter_map();
	ASSERT_LE(0, self->map) TH_LOG("BPF_MAP_CREATE: %s", strerror(errno));
	self->prog = counting_prog(self->map, self->log, sizeof(self->log));
	ASSERT_LE(0, self->prog) TH_LOG("BPF_PROG_LOAD: %s\n%s", strerror(errno), self->log);
}

FIXTURE_TEARDOWN(bpf)
{
	close(self->prog);
	close(self->map);
}

TEST_F(bpf, runs_once_per_hit)
{
	bool kprobe = !strcmp(variant->pmu, "kprobe");
	int fd, link = -1;
	uint64_t addr;

	if (kprobe)
		fd = probe_open("kprobe", 0, getppid_symbol(&addr), 0);
	else
		fd = probe_open("uprobe", 0, self_exe(), self_file_offset((void *)probe_target));
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(-fd));
	if (variant->link) {
		link = bpf_link_perf_event(self->prog, fd);
		ASSERT_LE(0, link) TH_LOG("BPF_LINK_CREATE: %s", strerror(errno));
	} else {
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, self->prog))
			TH_LOG("PERF_EVENT_IOC_SET_BPF: %s", strerror(errno));
	}
	if (kprobe)
		trigger_getppid(HITS);
	else
		call_target(HITS);
	EXPECT_EQ(HITS, counter_value(self->map));
	if (link >= 0)
		close(link);
	close(fd);
}

TEST_HARNESS_MAIN
