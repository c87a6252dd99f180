// SPDX-License-Identifier: GPL-2.0
/*
 * The demo of `make run`, run inside the guest:
 *  1. the event sources in /sys/bus/event_source/devices;
 *  2. a kprobe PMU event on a kernel function, triggered a known number of
 *     times, and its count;
 *  3. a tiny BPF program loaded and unloaded while a listener on every CPU
 *     prints the PERF_RECORD_KSYMBOL records.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

#define PAGES 8
#define MAX_CPUS 64

static long perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			    int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int read_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void list_event_sources(void)
{
	const char *dir = "/sys/bus/event_source/devices";
	struct dirent **names;
	char path[512];
	int i, n;

	printf("== event sources in %s\n", dir);
	n = scandir(dir, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s/type", dir, names[i]->d_name);
			printf("   %-12s type %d\n", names[i]->d_name, read_int(path));
		}
		free(names[i]);
	}
	free(n > 0 ? names : NULL);
}

static int count_kprobe(const char *func, int hits)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	uint64_t count = 0;
	int fd, i;

	attr.type = read_int("/sys/bus/event_source/devices/kprobe/type");
	attr.config1 = (uint64_t)(uintptr_t)func;	/* function name */
	attr.config2 = 0;				/* offset */
	attr.disabled = 1;
	printf("\n== kprobe PMU (type %u) event on %s\n", attr.type, func);
	fd = perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		printf("   perf_event_open: %s\n", strerror(errno));
		return 1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < hits; i++)
		syscall(SYS_getppid);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		return 1;
	close(fd);
	printf("   called getppid() %d times, the event counted %llu\n", hits,
	       (unsigned long long)count);
	return count == (uint64_t)hits ? 0 : 1;
}

struct listener {
	int fd;
	struct perf_event_mmap_page *page;
	uint64_t tail;
};

static int open_listeners(struct listener *l, int ncpus)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int cpu;

	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.ksymbol = 1;
	attr.bpf_event = 1;
	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
	attr.watermark = 1;
	attr.wakeup_watermark = 1;
	for (cpu = 0; cpu < ncpus; cpu++) {
		l[cpu].fd = perf_event_open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (l[cpu].fd < 0) {
			printf("   perf_event_open(cpu %d): %s\n", cpu, strerror(errno));
			return -1;
		}
		l[cpu].page = mmap(NULL, (PAGES + 1) * getpagesize(), PROT_READ | PROT_WRITE,
				   MAP_SHARED, l[cpu].fd, 0);
		if (l[cpu].page == MAP_FAILED)
			return -1;
		l[cpu].tail = 0;
	}
	return 0;
}

/* Print the KSYMBOL records in every ring; return how many UNREGISTERs. */
static int drain(struct listener *l, int ncpus)
{
	size_t size = PAGES * getpagesize();
	int cpu, unregs = 0;

	for (cpu = 0; cpu < ncpus; cpu++) {
		struct perf_event_mmap_page *pg = l[cpu].page;
		char *data = (char *)pg + getpagesize();
		uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);

		while (l[cpu].tail < head) {
			struct perf_event_header hdr;
			char rec[1024];
			size_t i;

			for (i = 0; i < sizeof(hdr); i++)
				((char *)&hdr)[i] = data[(l[cpu].tail + i) % size];
			for (i = 0; i < hdr.size && i < sizeof(rec); i++)
				rec[i] = data[(l[cpu].tail + i) % size];
			if (hdr.type == PERF_RECORD_KSYMBOL) {
				uint64_t addr = *(uint64_t *)(rec + 8);
				uint32_t len = *(uint32_t *)(rec + 16);
				uint16_t type = *(uint16_t *)(rec + 20);
				uint16_t flags = *(uint16_t *)(rec + 22);

				printf("   cpu %d KSYMBOL %-10s addr 0x%llx len %u type %u name %s\n",
				       cpu, flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER ?
				       "UNREGISTER" : "REGISTER",
				       (unsigned long long)addr, len, type, rec + 24);
				unregs += !!(flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER);
			} else if (hdr.type == PERF_RECORD_BPF_EVENT) {
				printf("   cpu %d BPF_EVENT  %s prog id %u\n", cpu,
				       *(uint16_t *)(rec + 8) == PERF_BPF_EVENT_PROG_LOAD ?
				       "LOAD" : "UNLOAD", *(uint32_t *)(rec + 12));
			}
			l[cpu].tail += hdr.size;
		}
		__atomic_store_n(&pg->data_tail, l[cpu].tail, __ATOMIC_RELEASE);
	}
	return unregs;
}

static int bpf_load_and_close(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uint64_t)(uintptr_t)insns;
	attr.insn_cnt = 2;
	attr.license = (uint64_t)(uintptr_t)"GPL";
	strcpy(attr.prog_name, "demo_prog");
	fd = syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0) {
		printf("   BPF_PROG_LOAD: %s\n", strerror(errno));
		return -1;
	}
	printf("   loaded BPF program \"demo_prog\", now closing it\n");
	close(fd);
	return 0;
}

static int ksymbol_demo(void)
{
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN), i;
	struct listener l[MAX_CPUS];

	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	printf("\n== PERF_RECORD_KSYMBOL listener on %d CPUs\n", ncpus);
	if (open_listeners(l, ncpus) || bpf_load_and_close())
		return 1;
	/* The JIT image is freed after an RCU grace period. */
	for (i = 0; i < 50; i++) {
		if (drain(l, ncpus))
			return 0;
		usleep(100000);
	}
	printf("   no UNREGISTER record within 5 s\n");
	return 1;
}

int main(void)
{
	int err = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	list_event_sources();
	err |= count_kprobe("__x64_sys_getppid", 1000);
	err |= ksymbol_demo();
	printf("\n== demo %s\n", err ? "FAILED" : "done");
	return err;
}
