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

/*
 * Open a sampling probe event (every hit a sample of IP and TID), call
 * @hit(HITS), and collect the sampled IPs of this thread into @ips; the
 * number of samples, or -errno.  @others counts samples of other threads.
 */
static int sample_ips(const char *pmu, uint64_t config, uint64_t config1, uint64_t config2,
		      void (*hit)(int), uint64_t *ips, int *others)
{
	struct perf_event_attr attr = {
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		.wakeup_events = 1,
	};
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *meta;
	int fd, n = 0;
	uint64_t tail, head;
	char *data;

	*others = 0;
	fd = probe_open_attr(&attr, pmu, config, config1, config2);
	if (fd < 0)
		return fd;
	meta = mmap(NULL, 17 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED) {
		close(fd);
		return -errno;
	}
	data = (char *)meta + page;
	hit(HITS);
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	for (tail = 0; tail < head;) {
		struct perf_event_header *hdr = (void *)(data + tail % (16 * page));

		if (hdr->size < sizeof(*hdr))
			break;
		if (hdr->type == PERF_RECORD_SAMPLE) {
			uint64_t *ip = (void *)(hdr + 1);
			uint32_t *pid = (void *)(ip + 1);

			if (pid[0] == (uint32_t)getpid() && pid[1] == (uint32_t)gettid() &&
			    n < HITS)
				ips[n++] = *ip;
			else
				(*others)++;
		}
		tail += hdr->size;
	}
	munmap(meta, 17 * page);
	close(fd);
	return n;
}

/* All @n IPs are the same; 0 if not. */
static uint64_t same_ip(const uint64_t *ips, int n)
{
	int i;

	for (i = 1; i < n; i++)
		if (ips[i] != ips[0])
			return 0;
	return n ? ips[0] : 0;
}

/* Every hit is a sample from this task, at the probed function. */
TEST_F(kprobe, samples_into_ring_buffer)
{
	uint64_t ips[HITS];
	int n, others;

	n = sample_ips("kprobe", 0, (uintptr_t)self->func, 0, trigger_getppid, ips, &others);
	ASSERT_EQ(HITS, n) TH_LOG("%s", n < 0 ? strerror(-n) : "samples missing");
	EXPECT_EQ(0, others);
	/* The sampled IP is at the probe (x86 reports it past the int3). */
	EXPECT_GT(16, same_ip(ips, n) - self->addr)
		TH_LOG("IP %#llx, %s at %#llx", (unsigned long long)ips[0], self->func,
		       (unsigned long long)self->addr);
}

/*
 * A probe at symbol+offset (config2) is hit there, not at the symbol: an
 * offset past the first two instructions (with IBT, a probe on the symbol
 * goes to the instruction after its ENDBR), at the probe or just past it.
 */
TEST_F(kprobe, offset_samples_at_offset)
{
	uint64_t ips[HITS];
	int n = -EILSEQ, off, others;

	for (off = 8; off < 32 && n == -EILSEQ; off++)
		n = sample_ips("kprobe", 0, (uintptr_t)self->func, off, trigger_getppid, ips,
			       &others);
	off--;
	ASSERT_EQ(HITS, n) TH_LOG("%s+%d: %s", self->func, off, n < 0 ? strerror(-n) : "");
	EXPECT_GT(2, same_ip(ips, n) - (self->addr + off))
		TH_LOG("%s at %#llx, +%d sampled at %#llx", self->func,
		       (unsigned long long)self->addr, off, (unsigned long long)ips[0]);
}

/* The text symbol that contains kernel address @ip, in @name. */
static int kernel_symbol_at(uint64_t ip, char *name, size_t size)
{
	char line[512], sym[256], type;
	unsigned long long a, best = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 &&
		    (type == 't' || type == 'T') && a <= ip && a > best) {
			best = a;
			snprintf(name, size, "%s", sym);
		}
	fclose(f);
	return best ? 0 : -1;
}

/*
 * A kretprobe (config bit 0) samples the return: the IP is the return
 * address, in the caller, the same for every call from one call site.
 */
TEST_F(kprobe, retprobe_samples_at_return_address)
{
	uint64_t ips[HITS], ip;
	char caller[256];
	int n, others;

	n = sample_ips("kprobe", RETPROBE, (uintptr_t)self->func, 0, trigger_getppid, ips,
		       &others);
	ASSERT_EQ(HITS, n) TH_LOG("%s", n < 0 ? strerror(-n) : "samples missing");
	ip = same_ip(ips, n);
	ASSERT_NE(0, ip) TH_LOG("IPs %#llx and others", (unsigned long long)ips[0]);
	ASSERT_EQ(0, kernel_symbol_at(ip, caller, sizeof(caller)));
	EXPECT_STRNE(self->func, caller) TH_LOG("IP %#llx", (unsigned long long)ip);
	/* Not the return trampoline: the caller's own code. */
	EXPECT_EQ(NULL, strstr(caller, "trampoline")) TH_LOG("IP %#llx in %s",
							     (unsigned long long)ip, caller);
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

/* A uprobe samples the probed instruction, a uretprobe the return address. */
TEST_F(uprobe, samples_at_probe_and_return)
{
	uint64_t entry[HITS], ret[HITS], target = (uintptr_t)probe_target;
	int n, others;

	n = sample_ips("uprobe", 0, (uintptr_t)self_exe(), self->offset, call_target, entry,
		       &others);
	ASSERT_EQ(HITS, n) TH_LOG("%s", n < 0 ? strerror(-n) : "samples missing");
	EXPECT_EQ(0, others);
	/* At the probe, or just past its breakpoint. */
	EXPECT_GT(2, same_ip(entry, n) - target)
		TH_LOG("IP %#llx, probe_target at %#llx", (unsigned long long)entry[0],
		       (unsigned long long)target);

	n = sample_ips("uprobe", RETPROBE, (uintptr_t)self_exe(), self->offset, call_target,
		       ret, &others);
	ASSERT_EQ(HITS, n) TH_LOG("%s", n < 0 ? strerror(-n) : "samples missing");
	/* In the caller, in this program: not in the callee, nor the trampoline. */
	ASSERT_NE(0, same_ip(ret, n));
	EXPECT_LE(0, self_file_offset((void *)(uintptr_t)ret[0]))
		TH_LOG("IP %#llx is not in %s", (unsigned long long)ret[0], self_exe());
	EXPECT_LT(16, same_ip(ret, n) - target)
		TH_LOG("IP %#llx, probe_target at %#llx", (unsigned long long)ret[0],
		       (unsigned long long)target);
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

/* What rust_pmus_registered looks for in /proc/kallsyms, read once. */
struct pmu_symbols {
	char callback[2][768];	/* the Rust event_init callbacks, "" if none */
	int any_rust;		/* any Rust symbol */
	int c_init;		/* core.c's event_init of either PMU */
};

/*
 * The first symbol that contains every one of @parts[i] (up to a NULL) in
 * @syms->callback[i], for the two PMUs.  Debug kernels list /proc/kallsyms
 * slowly: one read for all.
 */
static int scan_symbols(const char *const parts[][4], struct pmu_symbols *syms)
{
	char line[1024], sym[768], type;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");
	int i, p;

	if (!f)
		return -1;
	memset(syms, 0, sizeof(*syms));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %767s", &a, &type, sym) != 3)
			continue;
		syms->any_rust |= !strncmp(sym, "_R", 2);
		syms->c_init |= !strcmp(sym, "perf_kprobe_event_init") ||
				!strcmp(sym, "perf_uprobe_event_init");
		for (p = 0; p < 2; p++) {
			for (i = 0; parts[p][i] && strstr(sym, parts[p][i]); i++)
				;
			if (!parts[p][i] && !syms->callback[p][0])
				snprintf(syms->callback[p], sizeof(syms->callback[p]), "%s", sym);
		}
	}
	fclose(f);
	return 0;
}

static void open_probe_event_of(const char *pmu)
{
	uint64_t addr;
	int fd;

	if (!strcmp(pmu, "kprobe"))
		fd = probe_open("kprobe", 0, getppid_symbol(&addr), 0);
	else
		fd = probe_open("uprobe", 0, self_exe(), self_file_offset((void *)probe_target));
	if (fd >= 0)
		close(fd);
}

/*
 * The kprobe and uprobe PMUs are the ones written in Rust: core.c's C
 * event_init functions are not in the kernel, and a kprobe on the Rust
 * event_init callback of each PMU (kernel::perf's Adapter<KprobePmu> and
 * Adapter<UprobePmu>) counts one call per event opened on that PMU.
 * Skipped on a kernel built with the C PMUs, whose event_init functions are
 * there and the Rust ones not.
 */
TEST(rust_pmus_registered)
{
	static const char *const pmus[] = { "kprobe", "uprobe" };
	static const char *const parts[][4] = {
		{ "7Adapter", "9probe_pmu9KprobePmuE", "19event_init_callback", NULL },
		{ "7Adapter", "9probe_pmu9UprobePmuE", "19event_init_callback", NULL },
	};
	struct pmu_symbols syms;
	int i, fd;

	ASSERT_EQ(0, scan_symbols(parts, &syms)) TH_LOG("/proc/kallsyms: %s", strerror(errno));
	if (!syms.callback[0][0] && syms.c_init)
		SKIP(return, "the C probe PMUs: a kernel %s",
		     syms.any_rust ? "with PERF_PROBE_PMU_RUST=n" : "without Rust");
	EXPECT_EQ(0, syms.c_init) TH_LOG("core.c's event_init is in");
	for (i = 0; i < 2; i++) {
		ASSERT_NE(0, syms.callback[i][0])
			TH_LOG("no Rust event_init callback of the %s PMU in kallsyms", pmus[i]);
		fd = probe_open("kprobe", 0, syms.callback[i], 0);
		ASSERT_LE(0, fd) TH_LOG("kprobe on %s: %s", syms.callback[i], strerror(-fd));
		open_probe_event_of(pmus[i]);
		open_probe_event_of(pmus[1 - i]);
		open_probe_event_of(pmus[i]);
		EXPECT_EQ(2, read_count(fd)) TH_LOG("calls of %s", syms.callback[i]);
		close(fd);
	}
}

TEST_HARNESS_MAIN
