// SPDX-License-Identifier: GPL-2.0
/*
 * The teardown of probe events: what must hold once close() returns (no
 * more samples or BPF runs, the probe disarmed and a kprobe unlisted, the
 * same probe open again at once), that the closing task waits for no grace
 * period whether the program was attached with PERF_EVENT_IOC_SET_BPF or a
 * BPF link (the kprobe and uprobe PMUs release their probes and programs in
 * batches, from a work item), that the kernel's lists and the probed files
 * and modules are free again soon after the last close or the exit of the
 * process, and that a task opening and closing probes in a loop keeps what
 * is pending bounded.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "teardown_lib.h"

#define MANY_KPROBES 256
#define MANY_UPROBES PROBE_NOPS
/* The ring buffer of synchronize_rcu()'s callers: 256 KiB, two per close and more. */
#define CALLCHAIN_PAGES 64
/* The reapers' capacity, of PROBE_REAPER_CAPACITY in rust/kernel/perf/probe.rs. */
#define REAPER_CAPACITY 1024
/* Long enough for a few grace periods of the debug kernel under QEMU. */
#define GONE_TIMEOUT_MS 60000

static void call_target(int n)
{
	while (n--)
		probe_target(1);
}

static int open_target(const char *pmu, struct perf_event_attr *attr)
{
	uint64_t addr;

	if (!strcmp(pmu, "kprobe"))
		return probe_open_attr(attr, "kprobe", 0, (uintptr_t)getppid_symbol(&addr), 0);
	return probe_open_attr(attr, "uprobe", 0, (uintptr_t)self_exe(),
			       self_file_offset((void *)probe_target));
}

static void hit_target(const char *pmu, int n)
{
	if (!strcmp(pmu, "kprobe"))
		trigger_getppid(n);
	else
		call_target(n);
}

FIXTURE(teardown) {
	const char *pmu;
	int map, prog;
	char log[4096];
};

FIXTURE_VARIANT(teardown) {
	const char *pmu;
};

FIXTURE_VARIANT_ADD(teardown, kprobe) { .pmu = "kprobe" };
FIXTURE_VARIANT_ADD(teardown, uprobe) { .pmu = "uprobe" };

FIXTURE_SETUP(teardown)
{
	self->pmu = variant->pmu;
	self->map = -1;
	self->prog = -1;
	if (pmu_type(self->pmu) < 0)
		SKIP(return, "no %s PMU", self->pmu);
	ASSERT_LE(0, kprobes_listed()) TH_LOG("no " KPROBES_LIST);
	self->map = counter_map();
	ASSERT_LE(0, self->map) TH_LOG("BPF_MAP_CREATE: %s", strerror(errno));
	self->prog = counting_prog(self->map, self->log, sizeof(self->log));
	ASSERT_LE(0, self->prog) TH_LOG("BPF_PROG_LOAD: %s\n%s", strerror(errno), self->log);
}

FIXTURE_TEARDOWN(teardown)
{
	close(self->prog);
	close(self->map);
}

#define RING_PAGES 8

/*
 * A probe event that samples every hit into the ring buffer of another
 * event (which outlives it), and one that runs a BPF program (which, as it
 * returns 0, would drop the first one's samples): once close() has
 * returned, hits add neither samples nor program runs.
 */
TEST_F(teardown, close_stops_samples_and_programs)
{
	struct perf_event_attr ring_attr = {
		.size = sizeof(ring_attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
	};
	struct perf_event_attr attr = {
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP,
		.wakeup_events = 1,
	};
	struct perf_event_attr bpf_attr = { .disabled = 0 };
	struct perf_event_mmap_page *page;
	uint64_t head, runs;
	int ring, fd, bpf_fd;

	ring = sys_perf_event_open(&ring_attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, ring) TH_LOG("dummy event: %s", strerror(errno));
	page = mmap(NULL, (RING_PAGES + 1) * getpagesize(), PROT_READ | PROT_WRITE,
		    MAP_SHARED, ring, 0);
	ASSERT_NE(MAP_FAILED, page);

	fd = open_target(self->pmu, &attr);
	ASSERT_LE(0, fd) TH_LOG("%s event: %s", self->pmu, strerror(-fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring));
	bpf_fd = open_target(self->pmu, &bpf_attr);
	ASSERT_LE(0, bpf_fd) TH_LOG("%s event: %s", self->pmu, strerror(-bpf_fd));
	ASSERT_EQ(0, ioctl(bpf_fd, PERF_EVENT_IOC_SET_BPF, self->prog));
	hit_target(self->pmu, 10);
	head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE);
	runs = counter_value(self->map);
	ASSERT_EQ(10, runs);
	ASSERT_LT(0, head) TH_LOG("the event took no sample");

	close(fd);
	close(bpf_fd);
	hit_target(self->pmu, 1000);
	EXPECT_EQ(runs, counter_value(self->map)) TH_LOG("BPF runs after close()");
	EXPECT_EQ(head, __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE))
		TH_LOG("samples after close()");
	munmap(page, (RING_PAGES + 1) * getpagesize());
	close(ring);
}

struct hammer {
	const char *pmu;
	int stop, pause, paused, pinned;
	uint64_t rounds;
};

/* Hit the probed function on CPU 1 until told to stop, pausing on request. */
static void *hammer_target(void *arg)
{
	struct hammer *h = arg;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	h->pinned = !sched_setaffinity(0, sizeof(cpus), &cpus);
	while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED)) {
		if (__atomic_load_n(&h->pause, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&h->paused, 1, __ATOMIC_RELEASE);
			usleep(100);
			continue;
		}
		__atomic_store_n(&h->paused, 0, __ATOMIC_RELEASE);
		hit_target(h->pmu, 10);
		__atomic_add_fetch(&h->rounds, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * The probed function hit in a loop on another CPU, and the event with the
 * program closed on this one: once close() has returned, the program starts
 * no new run there either; thousands of hits follow, and count nothing.
 * The uprobe is hit during the close too: a run in progress on that CPU
 * may finish after close() returns (one count at most).  The kprobe's
 * hitter pauses during the close: the stock 6.12 kernel under QEMU TCG
 * oopses ("Oops: int3" in the probed function) when a kprobe is disarmed
 * while another vCPU hits it, with the C PMU as with these.
 */
TEST_F_TIMEOUT(teardown, close_stops_programs_on_other_cpus, 120)
{
	struct perf_event_attr attr = { .disabled = 0 };
	struct hammer h = { .pmu = self->pmu };
	uint64_t t0, closed, rounds;
	pthread_t thread;
	cpu_set_t cpus;
	int fd;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU");
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	fd = open_target(self->pmu, &attr);
	ASSERT_LE(0, fd) TH_LOG("%s event: %s", self->pmu, strerror(-fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, self->prog));
	ASSERT_EQ(0, pthread_create(&thread, NULL, hammer_target, &h));
	t0 = now_ns();
	while (counter_value(self->map) < 1000 && now_ns() - t0 < 60 * 1000000000ULL)
		usleep(1000);

	if (!strcmp(self->pmu, "kprobe")) {
		__atomic_store_n(&h.pause, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&h.paused, __ATOMIC_ACQUIRE))
			usleep(100);
	}
	close(fd);
	closed = counter_value(self->map);
	__atomic_store_n(&h.pause, 0, __ATOMIC_RELEASE);
	rounds = __atomic_load_n(&h.rounds, __ATOMIC_RELAXED);
	t0 = now_ns();
	while (__atomic_load_n(&h.rounds, __ATOMIC_RELAXED) < rounds + 100 &&
	       now_ns() - t0 < 60 * 1000000000ULL)
		usleep(1000);
	__atomic_store_n(&h.stop, 1, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);

	ASSERT_TRUE(h.pinned) TH_LOG("the hitter could not run on CPU 1");
	ASSERT_LE(1000, closed) TH_LOG("the program ran %llu times before the close",
				       (unsigned long long)closed);
	ASSERT_LE(rounds + 100, h.rounds) TH_LOG("the other CPU stopped hitting the target");
	EXPECT_GE(closed + !strcmp(self->pmu, "uprobe"), counter_value(self->map))
		TH_LOG("%llu runs after close() returned, %llu hits",
		       (unsigned long long)(counter_value(self->map) - closed),
		       (unsigned long long)(h.rounds - rounds) * 10);
}

/*
 * Many events on the same function (or file offset) closed, and one opened
 * on it at once: it counts every hit, and only those.
 */
TEST_F(teardown, reopen_at_once_counts)
{
	struct perf_event_attr attr = { .disabled = 0 };
	int fds[32], i, fd;

	for (i = 0; i < 32; i++) {
		struct perf_event_attr a = attr;

		fds[i] = open_target(self->pmu, &a);
		ASSERT_LE(0, fds[i]) TH_LOG("%s event %d: %s", self->pmu, i, strerror(-fds[i]));
	}
	hit_target(self->pmu, 5);
	close_all(fds, 32);
	fd = open_target(self->pmu, &attr);
	ASSERT_LE(0, fd) TH_LOG("%s event: %s", self->pmu, strerror(-fd));
	hit_target(self->pmu, 100);
	EXPECT_EQ(100, read_count(fd));
	close(fd);
}

/*
 * Closing many events, one by one, each with a BPF program as tools attach
 * them: with PERF_EVENT_IOC_SET_BPF (bpftrace, bcc), or through a BPF perf
 * link, detached as libbpf's bpf_link__destroy() does (disable the event,
 * close its fd, then the link's) or the link first (as some versions of
 * cilium/ebpf do).  The closing task calls neither
 * synchronize_rcu() nor synchronize_rcu_tasks_trace() per close, as each
 * close of the C PMUs does (the latter for the program's detach, and for a
 * uprobe's unregister; the uprobes' dup_mmap_sem may still wait once,
 * below).  Then the kprobes leave the kernel's list soon; the uprobes have
 * released their file (its mount can be unmounted) when the last close
 * returns, as with the C PMUs; and the program, closed too, is freed.
 */
enum detach { SET_BPF, LINK_EVENT_FIRST, LINK_FIRST };

/* struct _test_data_teardown is FIXTURE_DATA(teardown). */

static void close_many(struct __test_metadata *_metadata, struct _test_data_teardown *self,
		       enum detach how)
{
	bool links = how != SET_BPF;
	static const char *const waits[] = { "synchronize_rcu", "synchronize_rcu_tasks_trace" };
	struct perf_event_attr attr = { .disabled = 0 };
	char dir[] = "/tmp/probe_teardown.XXXXXX", path[256];
	int fds[MANY_KPROBES], link_fds[MANY_KPROBES], n, i, listed, counters[2], samples, lost;
	uint32_t id = prog_id(self->prog);
	uint64_t calls[2], allowed[2] = { 0, 0 }, rcu_sync[2];
	size_t rb_size = (1 + CALLCHAIN_PAGES) * getpagesize();
	int64_t gone;
	void *rb;

	ASSERT_NE(0, id) TH_LOG("BPF_OBJ_GET_INFO_BY_FD: %s", strerror(errno));
	listed = kprobes_armed();
	if (!strcmp(self->pmu, "kprobe")) {
		n = open_unused_kprobes(&attr, fds, MANY_KPROBES);
		ASSERT_LE(64, n) TH_LOG("only %d Rust doctests take a kprobe", n);
		ASSERT_LE(listed + n, kprobes_armed());
	} else {
		ASSERT_NE(NULL, mkdtemp(dir));
		ASSERT_EQ(0, copy_self_to_tmpfs(dir, path, sizeof(path)));
		n = open_nop_uprobes(&attr, path, fds, MANY_UPROBES);
		ASSERT_EQ(MANY_UPROBES, n) TH_LOG("uprobe: %s", strerror(-n));
		ASSERT_NE(0, umount(dir)) TH_LOG("a uprobe's file does not keep its mount busy");
		ASSERT_EQ(EBUSY, errno);
	}

	for (i = 0; i < n; i++) {
		if (!links) {
			ASSERT_EQ(0, ioctl(fds[i], PERF_EVENT_IOC_SET_BPF, self->prog));
			continue;
		}
		link_fds[i] = bpf_link_perf_event(self->prog, fds[i]);
		ASSERT_LE(0, link_fds[i]) TH_LOG("BPF_LINK_CREATE: %s", strerror(errno));
	}

	/*
	 * Count the calls of this task only, from when both counters are open:
	 * opening a task's event may wait for a grace period (account_event()).
	 * The first also samples the callers of synchronize_rcu(): disarming a
	 * uprobe takes dup_mmap_sem for writing (register_for_each_vma()),
	 * whose rcu_sync_enter() calls synchronize_rcu() in the writer when no
	 * writer came for a grace period, with the C PMUs too, once per pause
	 * between closes, not once per close: those calls are not the close's.
	 */
	ASSERT_EQ(0, kernel_function_range("rcu_sync_enter", &rcu_sync[0], &rcu_sync[1]));
	for (i = 0; i < 2; i++) {
		struct perf_event_attr counter_attr = {
			.disabled = 1,
			.sample_period = i == 0,
			.sample_type = i == 0 ? PERF_SAMPLE_CALLCHAIN : 0,
			.exclude_callchain_user = 1,
		};

		counters[i] = probe_open_attr(&counter_attr, "kprobe", 0, (uintptr_t)waits[i], 0);
		ASSERT_LE(0, counters[i])
			TH_LOG("kprobe on %s: %s", waits[i], strerror(-counters[i]));
	}
	rb = mmap(NULL, rb_size, PROT_READ | PROT_WRITE, MAP_SHARED, counters[0], 0);
	ASSERT_NE(MAP_FAILED, rb) TH_LOG("mmap: %s", strerror(errno));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, ioctl(counters[i], PERF_EVENT_IOC_ENABLE, 0));
	for (i = 0; i < n; i++) {
		if (how == LINK_FIRST)
			close(link_fds[i]);
		if (how == LINK_EVENT_FIRST)
			ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
		close(fds[i]);
		if (how == LINK_EVENT_FIRST)
			close(link_fds[i]);
	}
	for (i = 0; i < 2; i++)
		calls[i] = read_count(counters[i]);
	allowed[0] = samples_through(rb, rcu_sync[0], rcu_sync[1], &samples, &lost);
	munmap(rb, rb_size);
	EXPECT_EQ(0, lost) TH_LOG("%d records of synchronize_rcu()'s callers lost", lost);
	EXPECT_EQ(calls[0], samples)
		TH_LOG("%llu calls of synchronize_rcu(), %d sampled",
		       (unsigned long long)calls[0], samples);
	if (calls[0])
		ksft_print_msg("%d %s closes: %llu synchronize_rcu(), %llu from rcu_sync_enter()\n",
			       n, self->pmu, (unsigned long long)calls[0],
			       (unsigned long long)allowed[0]);

	/*
	 * The counters, on functions the kernel's workers call too, are
	 * closed once the batches are released: no worker is then in them.
	 */
	if (!strcmp(self->pmu, "kprobe")) {
		gone = wait_kprobes_listed(listed + 2, GONE_TIMEOUT_MS);
		EXPECT_LE(0, gone) TH_LOG("%d kprobes listed %d s after the close, %d before",
					  kprobes_listed(), GONE_TIMEOUT_MS / 1000, listed + 2);
		if (gone >= 0)
			ksft_print_msg("%d kprobe events closed, their probes gone %.1f ms later\n",
				       n, gone / 1e6);
	} else {
		gone = umount_tmpfs(dir);
		EXPECT_EQ(0, gone)
			TH_LOG("the uprobes' file keeps its mount busy after the close: %s",
			       strerror(-gone));
	}

	for (i = 0; i < 2; i++) {
		close(counters[i]);
		EXPECT_LE(calls[i], allowed[i])
			TH_LOG("closing %d %s events called %s %llu times (%llu by rcu_sync)",
			       n, self->pmu, waits[i], (unsigned long long)calls[i],
			       (unsigned long long)allowed[i]);
	}

	close(self->prog);
	self->prog = -1;
	EXPECT_LE(0, wait_prog_freed(id, GONE_TIMEOUT_MS))
		TH_LOG("BPF program %u still loaded %d s after its events were closed", id,
		       GONE_TIMEOUT_MS / 1000);
}

TEST_F_TIMEOUT(teardown, close_many_waits_in_batches, 600)
{
	close_many(_metadata, self, SET_BPF);
}

TEST_F_TIMEOUT(teardown, close_many_links_waits_in_batches, 600)
{
	close_many(_metadata, self, LINK_EVENT_FIRST);
}

TEST_F_TIMEOUT(teardown, close_many_links_first_waits_in_batches, 600)
{
	close_many(_metadata, self, LINK_FIRST);
}

/*
 * The link closed before the event's fd (as some versions of cilium/ebpf
 * detach): the program no longer runs once the link's close returns, the
 * event lives on and counts the hits the program no longer filters, and the
 * program is freed once the event is closed too.
 */
TEST_F_TIMEOUT(teardown, link_closed_first_detaches, 120)
{
	struct perf_event_attr attr = { .disabled = 0 };
	uint32_t id = prog_id(self->prog);
	uint64_t runs, count;
	int fd, link;

	fd = open_target(self->pmu, &attr);
	ASSERT_LE(0, fd) TH_LOG("%s event: %s", self->pmu, strerror(-fd));
	link = bpf_link_perf_event(self->prog, fd);
	ASSERT_LE(0, link) TH_LOG("BPF_LINK_CREATE: %s", strerror(errno));
	runs = counter_value(self->map);
	hit_target(self->pmu, 10);
	ASSERT_EQ(runs + 10, counter_value(self->map));
	/* The program returns 0: the event counts none of those hits. */
	count = read_count(fd);

	close(link);
	hit_target(self->pmu, 10);
	EXPECT_EQ(runs + 10, counter_value(self->map)) TH_LOG("BPF runs after the link's close");
	EXPECT_EQ(count + 10, read_count(fd));
	close(fd);

	close(self->prog);
	self->prog = -1;
	EXPECT_LE(0, wait_prog_freed(id, GONE_TIMEOUT_MS))
		TH_LOG("BPF program %u still loaded after its link and event were closed", id);
}

/*
 * A pinned link keeps its event, and the program runs on, after the tool
 * closed both fds; removing the pin releases the event, its probe and the
 * program.
 */
TEST_F_TIMEOUT(teardown, pinned_link_outlives_its_fds, 120)
{
	struct perf_event_attr attr = { .disabled = 0 };
	char dir[] = "/tmp/probe_teardown.XXXXXX", pin[256];
	uint32_t id = prog_id(self->prog);
	int fd, link, listed = kprobes_armed();
	union bpf_attr pin_attr;
	uint64_t runs;
	bool pinned;

	ASSERT_NE(NULL, mkdtemp(dir));
	if (mount("bpf", dir, "bpf", 0, NULL)) {
		rmdir(dir);
		SKIP(return, "no BPF filesystem: %s", strerror(errno));
	}
	snprintf(pin, sizeof(pin), "%s/link", dir);
	/* No ASSERT until the pin and the mount are gone again. */
	fd = open_target(self->pmu, &attr);
	link = fd < 0 ? -1 : bpf_link_perf_event(self->prog, fd);
	memset(&pin_attr, 0, sizeof(pin_attr));
	pin_attr.pathname = (uintptr_t)pin;
	pin_attr.bpf_fd = link;
	pinned = link >= 0 && !sys_bpf(BPF_OBJ_PIN, &pin_attr);
	EXPECT_LE(0, fd) TH_LOG("%s event: %s", self->pmu, strerror(-fd));
	EXPECT_LE(0, link) TH_LOG("BPF_LINK_CREATE: %s", strerror(errno));
	EXPECT_TRUE(pinned) TH_LOG("BPF_OBJ_PIN: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	if (link >= 0)
		close(link);

	if (pinned) {
		runs = counter_value(self->map);
		hit_target(self->pmu, 10);
		EXPECT_EQ(runs + 10, counter_value(self->map)) TH_LOG("the pinned link's program");
		EXPECT_EQ(0, unlink(pin)) TH_LOG("removing the pin: %s", strerror(errno));
	}
	EXPECT_EQ(0, umount(dir)) TH_LOG("umount: %s", strerror(errno));
	rmdir(dir);
	if (!pinned)
		return;
	close(self->prog);
	self->prog = -1;
	EXPECT_LE(0, wait_prog_freed(id, GONE_TIMEOUT_MS))
		TH_LOG("BPF program %u still loaded after its pin was removed", id);
	if (!strcmp(self->pmu, "kprobe"))
		EXPECT_LE(0, wait_kprobes_listed(listed, GONE_TIMEOUT_MS))
			TH_LOG("%d kprobes listed, %d before", kprobes_listed(), listed);
}

/*
 * An event inherited by a child holds a reference of its own to the
 * parent's BPF program: once the child has exited and the parent has closed
 * the event and the program, the program is freed (its ID is gone) soon.
 */
TEST_F_TIMEOUT(teardown, inherited_program_freed, 120)
{
	struct perf_event_attr attr = { .disabled = 0, .inherit = 1 };
	int fd, status;
	uint32_t id;
	pid_t pid;

	id = prog_id(self->prog);
	ASSERT_NE(0, id) TH_LOG("BPF_OBJ_GET_INFO_BY_FD: %s", strerror(errno));
	fd = open_target(self->pmu, &attr);
	ASSERT_LE(0, fd) TH_LOG("%s event: %s", self->pmu, strerror(-fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, self->prog));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		hit_target(self->pmu, 1);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	close(fd);
	close(self->prog);
	self->prog = -1;
	EXPECT_LE(0, wait_prog_freed(id, GONE_TIMEOUT_MS))
		TH_LOG("BPF program %u still loaded %d s after its events were closed", id,
		       GONE_TIMEOUT_MS / 1000);
}

/*
 * A process exits with many probe events open: the kprobes are gone soon
 * after, the uprobes' file (on a tmpfs) is free when waitpid() returns (the
 * exit's closes are not counted here: a kprobe event on the exiting task is
 * detached from it before its files are closed).
 */
TEST_F_TIMEOUT(teardown, exit_waits_in_batches, 600)
{
	int listed = kprobes_armed(), ready[2], go[2], status;
	char dir[] = "/tmp/probe_teardown.XXXXXX", path[256];
	char c = 0;
	pid_t pid;

	if (strcmp(self->pmu, "kprobe")) {
		ASSERT_NE(NULL, mkdtemp(dir));
		ASSERT_EQ(0, copy_self_to_tmpfs(dir, path, sizeof(path)));
	}
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct perf_event_attr attr = { .disabled = 0 };
		int fds[MANY_KPROBES], n;

		if (!strcmp(self->pmu, "kprobe"))
			n = open_unused_kprobes(&attr, fds, MANY_KPROBES);
		else
			n = open_nop_uprobes(&attr, path, fds, MANY_UPROBES);
		c = n >= 64 ? 1 : 0;
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(1, c) TH_LOG("the child could not open 64 %s events", self->pmu);
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	if (!strcmp(self->pmu, "kprobe")) {
		EXPECT_LE(0, wait_kprobes_listed(listed, GONE_TIMEOUT_MS))
			TH_LOG("%d kprobes listed after the exit, %d before", kprobes_listed(),
			       listed);
	} else {
		status = umount_tmpfs(dir);
		EXPECT_EQ(0, status)
			TH_LOG("the uprobes' file keeps its mount busy after the exit: %s",
			       strerror(-status));
	}
}

/*
 * A task opens probe events, runs a BPF program on a hit and closes them, in
 * a tight loop on the same function (or file offset): the probes pending
 * release stay within twice the reapers' capacity, each new event runs the
 * program on its own hit only, and the probes are all gone soon after the
 * loop.
 */
TEST_F_TIMEOUT(teardown, open_close_loop_stays_bounded, 600)
{
	int listed = kprobes_armed(), i, fd, most = 0, loops = 2000;
	uint64_t runs = counter_value(self->map);

	for (i = 0; i < loops; i++) {
		struct perf_event_attr attr = { .disabled = 0 };

		fd = open_target(self->pmu, &attr);
		ASSERT_LE(0, fd) TH_LOG("%s event %d: %s", self->pmu, i, strerror(-fd));
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, self->prog));
		hit_target(self->pmu, 1);
		close(fd);
		ASSERT_EQ(runs + i + 1, counter_value(self->map)) TH_LOG("event %d", i);
		if (i % 100 == 0 && !strcmp(self->pmu, "kprobe")) {
			int now = kprobes_listed() - listed;

			most = now > most ? now : most;
			ASSERT_GE(2 * REAPER_CAPACITY + 1, now)
				TH_LOG("%d kprobes pending after %d closes", now, i);
		}
	}
	EXPECT_LE(0, wait_kprobes_listed(listed, GONE_TIMEOUT_MS))
		TH_LOG("%d kprobes listed after the loop, %d before", kprobes_listed(), listed);
	if (!strcmp(self->pmu, "kprobe"))
		ksft_print_msg("%d open+close of kprobe events: at most %d pending\n", loops,
			       most);
}

/* The kprobes listed on @sym (at any offset), and how many are disabled. */
static int kprobes_listed_on(const char *sym, int *disabled)
{
	char line[512], want[128];
	int n = 0;
	FILE *f = fopen(KPROBES_LIST, "r");

	*disabled = 0;
	if (!f)
		return -1;
	snprintf(want, sizeof(want), " %s+0x", sym);
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, want))
			continue;
		n++;
		*disabled += !!strstr(line, "[DISABLED]");
	}
	fclose(f);
	return n;
}

/*
 * A closed kprobe event's probe leaves the kernel's list when close()
 * returns, as with the C PMU, and a probe opened at once on the same
 * function is a probe of its own: not one that joins the closed one (an
 * aggregated kprobe, slower on every hit for the life of the new event).
 */
TEST(closed_kprobe_leaves_list)
{
	int fd, i, disabled;
	const char *func;
	uint64_t addr;

	if (pmu_type("kprobe") < 0)
		SKIP(return, "no kprobe PMU");
	func = getppid_symbol(&addr);
	ASSERT_NE(NULL, func);
	ASSERT_LE(0, kprobes_listed());
	ASSERT_EQ(0, kprobes_listed_on(func, &disabled))
		TH_LOG("a kprobe on %s before the test", func);
	fd = probe_open("kprobe", 0, func, 0);
	ASSERT_LE(0, fd) TH_LOG("kprobe on %s: %s", func, strerror(-fd));
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(1, kprobes_listed_on(func, &disabled));
		close(fd);
		EXPECT_EQ(0, kprobes_listed_on(func, &disabled))
			TH_LOG("round %d: the closed event's kprobe is still listed (%d disabled)",
			       i, disabled);
		fd = probe_open("kprobe", 0, func, 0);
		ASSERT_LE(0, fd) TH_LOG("kprobe on %s: %s", func, strerror(-fd));
		EXPECT_EQ(1, kprobes_listed_on(func, &disabled))
			TH_LOG("round %d: the reopened kprobe joined the closed one", i);
		EXPECT_EQ(0, disabled);
		trigger_getppid(10);
		EXPECT_EQ(10, read_count(fd));
	}
	close(fd);
}

static int load_module(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return ret && errno != EEXIST ? -errno : 0;
}

/* The address of a text symbol of the module @mod named like *@part*, or 0. */
static uint64_t module_function(const char *mod, const char *part)
{
	char line[512], sym[256], type, owner[64], want[80];
	unsigned long long a, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "[%s]", mod);
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s %63s", &a, &type, sym, owner) == 4 &&
		    (type == 't' || type == 'T') && !strcmp(owner, want) && strstr(sym, part))
			found = a;
	fclose(f);
	return found;
}

static int open_at(uint64_t addr, int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		fds[i] = probe_open("kprobe", i & 1 ? RETPROBE : 0, NULL, addr);
		if (fds[i] < 0) {
			int err = fds[i];

			close_all(fds, i);
			return err;
		}
	}
	return 0;
}

/*
 * The module of a kprobed function (the sample PMU module, ./rust_pmu.ko or
 * $RUST_PMU_KO) unloads right after its probes' events are closed, and while
 * they are open, whose close then releases probes of a module that is gone.
 * The first time, the probes are optimized when they are closed: the kprobe
 * optimizer has yet to remove their jump when the module goes, and a kprobe
 * registered at the same address of the module loaded again (where it
 * usually lands) must not find the old one (a WARNING in
 * reuse_unused_kprobe() before the fix of kill_optimized_kprobe()).
 */
TEST(kprobed_module_unloads)
{
	const char *ko = getenv("RUST_PMU_KO") ? : "./rust_pmu.ko";
	int fds[16], listed = kprobes_armed(), ret;
	uint64_t addr;

	ret = load_module(ko);
	if (ret == -ENOENT)
		SKIP(return, "no %s", ko);
	ASSERT_EQ(0, ret) TH_LOG("loading %s: %s", ko, strerror(-ret));

	addr = module_function("rust_pmu", "event_init");
	ASSERT_NE(0, addr) TH_LOG("no event_init function of rust_pmu in /proc/kallsyms");
	ASSERT_EQ(0, open_at(addr, fds, 16));
	if (!wait_kprobe_optimized("  rust_pmu ", 10000))
		ksft_print_msg("the kprobes on rust_pmu were not optimized\n");
	close_all(fds, 16);
	EXPECT_EQ(0, syscall(SYS_delete_module, "rust_pmu", O_NONBLOCK))
		TH_LOG("unloading right after the close: %s", strerror(errno));

	ASSERT_EQ(0, load_module(ko));
	addr = module_function("rust_pmu", "event_init");
	ASSERT_NE(0, addr);
	ASSERT_EQ(0, open_at(addr, fds, 16));
	EXPECT_EQ(0, syscall(SYS_delete_module, "rust_pmu", O_NONBLOCK))
		TH_LOG("unloading with kprobe events open: %s", strerror(errno));
	close_all(fds, 16);
	EXPECT_LE(0, wait_kprobes_listed(listed, GONE_TIMEOUT_MS))
		TH_LOG("%d kprobes listed, %d before", kprobes_listed(), listed);
}

TEST_HARNESS_MAIN
