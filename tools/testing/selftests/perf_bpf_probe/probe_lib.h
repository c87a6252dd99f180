/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the probe PMU selftests: the PMUs' type numbers,
 * perf_event_open() of probe events, kernel symbols, file offsets of this
 * program's own functions and variables, and a counting BPF program.
 */
#ifndef PROBE_LIB_H
#define PROBE_LIB_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>

#include "../kselftest.h"

#define PMU_DIR "/sys/bus/event_source/devices"
#define RETPROBE 1ULL

static inline int pmu_type(const char *pmu)
{
	char path[256];
	int type = -1;
	FILE *f;

	snprintf(path, sizeof(path), PMU_DIR "/%s/type", pmu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

static inline int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
				      int cpu, int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/*
 * Open a probe event on the current task; return the fd or -errno.
 * config1 is the name (or path) pointer, config2 the address or offset.
 */
static inline int probe_open_attr(struct perf_event_attr *attr, const char *pmu,
				  uint64_t config, uint64_t config1,
				  uint64_t config2)
{
	int fd;

	attr->size = sizeof(*attr);
	attr->type = pmu_type(pmu);
	attr->config = config;
	attr->config1 = config1;
	attr->config2 = config2;
	fd = sys_perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static inline int probe_open(const char *pmu, uint64_t config, const char *name,
			     uint64_t config2)
{
	struct perf_event_attr attr = { .disabled = 0 };

	return probe_open_attr(&attr, pmu, config, (uintptr_t)name, config2);
}

static inline uint64_t read_count(int fd)
{
	uint64_t count = 0;

	if (read(fd, &count, sizeof(count)) != sizeof(count))
		return UINT64_MAX;
	return count;
}

/* The first of @names that /proc/kallsyms lists; its address in @addr. */
static inline const char *kernel_symbol(const char *const *names, uint64_t *addr)
{
	char line[512], sym[256], type;
	unsigned long long a;
	FILE *f;
	int i;

	for (i = 0; names[i]; i++) {
		f = fopen("/proc/kallsyms", "r");
		if (!f)
			return NULL;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 &&
			    !strcmp(sym, names[i])) {
				fclose(f);
				if (addr)
					*addr = a;
				return names[i];
			}
		}
		fclose(f);
	}
	return NULL;
}

/* The getppid() syscall's entry, under the name this architecture gives it. */
static inline const char *getppid_symbol(uint64_t *addr)
{
	static const char *const names[] = {
		"__x64_sys_getppid", "__arm64_sys_getppid", "__riscv_sys_getppid",
		"__s390x_sys_getppid", "sys_getppid", NULL,
	};

	return kernel_symbol(names, addr);
}

static inline void trigger_getppid(int n)
{
	while (n--)
		syscall(SYS_getppid);
}

/*
 * The offset in this program's file of the object at @addr, from the
 * file-backed mapping of /proc/self/exe that contains it.
 */
static inline long self_file_offset(const void *addr)
{
	unsigned long start, end, off, a = (unsigned long)addr;
	char line[1024], exe[512], path[512];
	ssize_t n;
	FILE *f;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -1;
	exe[n] = '\0';
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %511s", &start, &end, &off, path) == 4 &&
		    a >= start && a < end && !strcmp(path, exe)) {
			fclose(f);
			return a - start + off;
		}
	}
	fclose(f);
	return -1;
}

static inline const char *self_exe(void)
{
	static char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n < 0 ? 0 : n] = '\0';
	return exe;
}

static inline long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* An array map of one u64: the hit counter. */
static inline int counter_map(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 8;
	attr.max_entries = 1;
	return sys_bpf(BPF_MAP_CREATE, &attr);
}

static inline uint64_t counter_value(int map_fd)
{
	union bpf_attr attr;
	uint32_t key = 0;
	uint64_t value = UINT64_MAX;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map_fd;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)&value;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
		return UINT64_MAX;
	return value;
}

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), \
	.src_reg = (s), .off = (o), .imm = (i) })

/* Load a GPL program of @type, named @name; the verifier's log in @log. */
static inline int load_prog(enum bpf_prog_type type, const struct bpf_insn *insns, int n,
			    const char *name, char *log, size_t log_size)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = type;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = n;
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = log ? log_size : 0;
	attr.log_level = log ? 1 : 0;
	if (name)
		snprintf(attr.prog_name, sizeof(attr.prog_name), "%s", name);
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

/* A kprobe-type BPF program that adds one to the counter in @map_fd. */
static inline int counting_prog(int map_fd, char *log, size_t log_size)
{
	struct bpf_insn insns[] = {
		/* *(u32 *)(fp - 4) = 0: the key */
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		/* r1 = map (ld_imm64 with BPF_PSEUDO_MAP_FD) */
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		/* if (!r0) skip the two instructions that count */
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		/* lock *(u64 *)(r0 + 0) += r1 */
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	return load_prog(BPF_PROG_TYPE_KPROBE, insns, ARRAY_SIZE(insns), NULL, log, log_size);
}

/* Attach @prog_fd to the perf event @fd through a BPF link; the link's fd. */
static inline int bpf_link_perf_event(int prog_fd, int fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = prog_fd;
	attr.link_create.target_fd = fd;
	attr.link_create.attach_type = BPF_PERF_EVENT;
	return sys_bpf(BPF_LINK_CREATE, &attr);
}

#endif /* PROBE_LIB_H */
