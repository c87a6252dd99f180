/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Many probe events at once, for the teardown tests and benchmarks: kprobes
 * on distinct syscall entries or on functions nothing calls, uprobes on
 * distinct instructions of probe_nops(), and what the kernel lists of them.
 */
#ifndef TEARDOWN_LIB_H
#define TEARDOWN_LIB_H

#include <stdbool.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>

#include "probe_lib.h"
#include "probe_target.h"

#define KPROBES_LIST "/sys/kernel/debug/kprobes/list"

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The number of kprobes the kernel lists, or -1 without debugfs; with
 * @armed, only those that are not disabled (a closed event's probe is
 * disabled until it is released).
 */
static inline int kprobes_listed_as(int armed)
{
	char line[512];
	int n = 0;
	FILE *f;

	f = fopen(KPROBES_LIST, "r");
	if (!f) {
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
		f = fopen(KPROBES_LIST, "r");
		if (!f)
			return -1;
	}
	while (fgets(line, sizeof(line), f))
		n += !armed || !strstr(line, "[DISABLED]");
	fclose(f);
	return n;
}

static inline int kprobes_listed(void)
{
	return kprobes_listed_as(0);
}

/* What the kernel will list once the probes of closed events are released. */
static inline int kprobes_armed(void)
{
	return kprobes_listed_as(1);
}

/*
 * Wait until the kernel lists at most @n kprobes, for at most @timeout_ms;
 * return the ns it took, or -1.
 */
static inline int64_t wait_kprobes_listed(int n, int timeout_ms)
{
	uint64_t t0 = now_ns(), limit = t0 + timeout_ms * 1000000ULL;

	while (kprobes_listed() > n) {
		if (now_ns() > limit)
			return -1;
		usleep(1000);
	}
	return now_ns() - t0;
}

/*
 * Wait until a kprobe whose line in the kernel's list has @part is
 * [OPTIMIZED], for at most @timeout_ms; whether it is.
 */
static inline bool wait_kprobe_optimized(const char *part, int timeout_ms)
{
	uint64_t limit = now_ns() + timeout_ms * 1000000ULL;
	char line[512];
	bool found = false;

	while (!found && now_ns() < limit) {
		FILE *f = fopen(KPROBES_LIST, "r");

		while (f && fgets(line, sizeof(line), f))
			found |= strstr(line, part) && strstr(line, "[OPTIMIZED]");
		if (f)
			fclose(f);
		if (!found)
			usleep(10000);
	}
	return found;
}

#define SYSCALL_NAME_MAX 64

/*
 * Open kprobe events on up to @n distinct functions of /proc/kallsyms whose
 * names start with one of @prefixes (those that take a kprobe), with @attr
 * as the template; the fds in @fds, the functions in @names unless NULL,
 * their number returned.
 */
static inline int open_prefixed_kprobes(struct perf_event_attr *attr,
					const char *const *prefixes, int *fds, int n,
					char (*names)[SYSCALL_NAME_MAX])
{
	char line[512], sym[256], type;
	unsigned long long a;
	int got = 0, i;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return 0;
	while (got < n && fgets(line, sizeof(line), f)) {
		struct perf_event_attr a2 = *attr;
		int fd;

		if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3 ||
		    (type != 'T' && type != 't') || strchr(line, '['))
			continue;
		for (i = 0; prefixes[i]; i++)
			if (!strncmp(sym, prefixes[i], strlen(prefixes[i])))
				break;
		if (!prefixes[i] || strlen(sym) >= SYSCALL_NAME_MAX)
			continue;
		fd = probe_open_attr(&a2, "kprobe", attr->config, (uintptr_t)sym, 0);
		if (fd < 0)
			continue;
		if (names)
			snprintf(names[got], SYSCALL_NAME_MAX, "%s", sym);
		fds[got++] = fd;
	}
	fclose(f);
	return got;
}

/* Kprobe events on up to @n distinct syscall entry points, as above. */
static inline int open_syscall_kprobes(struct perf_event_attr *attr, int *fds, int n,
				       char (*names)[SYSCALL_NAME_MAX])
{
	static const char *const prefixes[] = { "__x64_sys_", "__arm64_sys_", NULL };

	return open_prefixed_kprobes(attr, prefixes, fds, n, names);
}

/*
 * Kprobe events on up to @n distinct functions that nothing calls once the
 * kernel has booted: the KUnit cases of the Rust doctests, which ran at
 * boot.  A teardown test disarms them while other tasks run on, which can
 * then not be entering a function whose probe is being disarmed (under
 * QEMU's multi-threaded TCG, a vCPU that did has died on the int3 of a
 * probe another vCPU had just removed).
 */
static inline int open_unused_kprobes(struct perf_event_attr *attr, int *fds, int n)
{
	static const char *const prefixes[] = { "rust_doctest_", NULL };

	return open_prefixed_kprobes(attr, prefixes, fds, n, NULL);
}

/* Open @n uprobe events on the first @n instructions of probe_nops() in @path. */
static inline int open_nop_uprobes(struct perf_event_attr *attr, const char *path, int *fds,
				   int n)
{
	long off = self_file_offset((void *)probe_nops);
	int i;

	if (off < 0 || n > PROBE_NOPS)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		struct perf_event_attr a2 = *attr;

		fds[i] = probe_open_attr(&a2, "uprobe", attr->config, (uintptr_t)path,
					 off + i * probe_nop_size());
		if (fds[i] < 0) {
			int err = fds[i];

			while (i--)
				close(fds[i]);
			return err;
		}
	}
	return n;
}

static inline void close_all(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

/* Copy this program to @dir/exe, on a tmpfs mounted there; 0 or -1. */
static inline int copy_self_to_tmpfs(const char *dir, char *path, size_t size)
{
	char buf[65536];
	ssize_t r;
	int in, out;

	if (mount("tmpfs", dir, "tmpfs", 0, NULL))
		return -1;
	snprintf(path, size, "%s/exe", dir);
	in = open("/proc/self/exe", O_RDONLY);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in < 0 || out < 0)
		return -1;
	while ((r = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, r) != r)
			return -1;
	close(in);
	close(out);
	return r < 0 ? -1 : 0;
}

/* The ID of the BPF program @fd, or 0. */
static inline uint32_t prog_id(int fd)
{
	struct bpf_prog_info info = {};
	union bpf_attr attr = {
		.info.bpf_fd = fd,
		.info.info_len = sizeof(info),
		.info.info = (uintptr_t)&info,
	};

	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) ? 0 : info.id;
}

/*
 * Wait until no BPF program has the ID @id, for at most @timeout_ms; return
 * the ns it took, or -1.
 */
static inline int64_t wait_prog_freed(uint32_t id, int timeout_ms)
{
	uint64_t t0 = now_ns(), limit = t0 + timeout_ms * 1000000ULL;
	union bpf_attr attr = { .prog_id = id };
	int fd;

	while ((fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr)) >= 0 || errno != ENOENT) {
		if (fd >= 0)
			close(fd);
		if (now_ns() > limit)
			return -1;
		usleep(1000);
	}
	return now_ns() - t0;
}

/*
 * Unmount the tmpfs at @dir and remove @dir; return 0, or umount()'s
 * -errno (the tmpfs is then detached).
 */
static inline int umount_tmpfs(const char *dir)
{
	int err = umount(dir) ? -errno : 0;

	if (err)
		umount2(dir, MNT_DETACH);
	rmdir(dir);
	return err;
}

/*
 * The text of the kernel function @name: from its address in /proc/kallsyms
 * to the next symbol's, in [@start, @end); 0, or -1 if it is not listed.
 */
static inline int kernel_function_range(const char *name, uint64_t *start, uint64_t *end)
{
	char line[512], sym[256], type;
	unsigned long long a;
	FILE *f;

	if (!kernel_symbol((const char *const[]){ name, NULL }, start))
		return -1;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -1;
	*end = UINT64_MAX;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && a > *start && a < *end)
			*end = a;
	fclose(f);
	return 0;
}

/*
 * The samples in the ring buffer @rb of a PERF_SAMPLE_CALLCHAIN event whose
 * kernel callchain goes through [@start, @end); all the samples in @samples,
 * the records lost in @lost.
 */
static inline int samples_through(void *rb, uint64_t start, uint64_t end, int *samples,
				  int *lost)
{
	struct perf_event_mmap_page *meta = rb;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail, rec[512], i;
	uint8_t *data = (uint8_t *)rb + meta->data_offset;
	uint64_t size = meta->data_size;
	int n = 0;

	*samples = 0;
	*lost = 0;
	while (tail < head) {
		struct perf_event_header h;
		uint8_t *out = (uint8_t *)rec;

		for (i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof(h) || h.size > sizeof(rec))
			break;
		for (i = 0; i < h.size; i++)
			out[i] = data[(tail + i) % size];
		tail += h.size;
		if (h.type == PERF_RECORD_LOST) {
			(*lost)++;
			continue;
		}
		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		(*samples)++;
		/* The header, then u64 nr and nr addresses. */
		for (i = 0; i < rec[1] && 2 + i < h.size / 8; i++) {
			if (rec[2 + i] >= start && rec[2 + i] < end) {
				n++;
				break;
			}
		}
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

#endif /* TEARDOWN_LIB_H */
