/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A PERF_RECORD_KSYMBOL listener on every CPU, as perf record -a has one:
 * a dummy software event per CPU with ksymbol, bpf_event and sample_id_all
 * (TID | TIME | CPU), and its ring buffer parsed with perf's layout.
 */
#ifndef KSYM_LIB_H
#define KSYM_LIB_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/perf_event.h>

#define KSYM_PAGES 64
#define MAX_CPUS 64
#define MAX_RECORDS 8192

struct ksym_record {
	uint32_t type;		/* PERF_RECORD_KSYMBOL or PERF_RECORD_BPF_EVENT */
	uint64_t addr;		/* ksymbol */
	uint32_t len;
	uint16_t ksym_type;
	uint16_t flags;
	char name[128];
	uint16_t bpf_type;	/* bpf_event */
	uint32_t prog_id;
	uint32_t pid, tid, cpu;	/* sample_id */
	uint64_t time;
	int malformed;		/* what did not parse with perf's layout, or 0 */
};

struct ksym_listener {
	int ncpus;
	int fd[MAX_CPUS];
	struct perf_event_mmap_page *page[MAX_CPUS];
	uint64_t tail[MAX_CPUS];
	struct ksym_record rec[MAX_RECORDS];
	int nrec;
	int lost;
};

static inline int ksym_open_one(struct perf_event_attr *attr, pid_t pid, int cpu,
				struct perf_event_mmap_page **page)
{
	int fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	*page = mmap(NULL, (KSYM_PAGES + 1) * sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		     MAP_SHARED, fd, 0);
	if (*page == MAP_FAILED) {
		close(fd);
		return -errno;
	}
	return fd;
}

static inline void ksym_attr(struct perf_event_attr *attr, int ksymbol)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->ksymbol = ksymbol;
	attr->bpf_event = ksymbol;
	attr->sample_id_all = 1;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
}

/* Events of @attr for @pid on every CPU; 0 or -errno. */
static inline int ksym_listen_attr(struct ksym_listener *l, struct perf_event_attr *attr,
				   pid_t pid)
{
	int cpu;

	memset(l, 0, sizeof(*l));
	l->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (l->ncpus > MAX_CPUS)
		l->ncpus = MAX_CPUS;
	for (cpu = 0; cpu < l->ncpus; cpu++) {
		l->fd[cpu] = ksym_open_one(attr, pid, cpu, &l->page[cpu]);
		if (l->fd[cpu] < 0)
			return l->fd[cpu];
	}
	return 0;
}

/* One listener per CPU (pid -1), as perf record -a has. */
static inline int ksym_listen(struct ksym_listener *l, int ksymbol)
{
	struct perf_event_attr attr;

	ksym_attr(&attr, ksymbol);
	return ksym_listen_attr(l, &attr, -1);
}

/*
 * A self-monitoring listener of the current task (pid 0), and with @inherit
 * of the children it forks after: one event per CPU, as perf record has
 * (an inherited event can be mmapped only if it is bound to a CPU).
 */
static inline int ksym_listen_self(struct ksym_listener *l, int exclude_kernel, int inherit)
{
	struct perf_event_attr attr;

	ksym_attr(&attr, 1);
	attr.exclude_kernel = exclude_kernel;
	attr.inherit = inherit;
	return ksym_listen_attr(l, &attr, 0);
}

static inline void ksym_close(struct ksym_listener *l)
{
	int cpu;

	for (cpu = 0; cpu < l->ncpus; cpu++) {
		munmap(l->page[cpu], (KSYM_PAGES + 1) * sysconf(_SC_PAGESIZE));
		close(l->fd[cpu]);
	}
}

static inline void ksym_copy(void *dst, const char *data, uint64_t off, size_t n, size_t size)
{
	size_t i;

	for (i = 0; i < n; i++)
		((char *)dst)[i] = data[(off + i) % size];
}

/*
 * Parse one record of @size bytes: the fields, then the sample_id trailer
 * (pid, tid, time, cpu, res), checking sizes and padding as perf does.
 */
static inline void ksym_parse(struct ksym_record *r, const char *buf, size_t size)
{
	const struct perf_event_header *hdr = (const void *)buf;
	size_t off = sizeof(*hdr), name_len, trailer = 4 + 4 + 8 + 4 + 4;

	memset(r, 0, sizeof(*r));
	r->type = hdr->type;
	if (size % 8)
		r->malformed = 1;
	if (hdr->type == PERF_RECORD_KSYMBOL) {
		memcpy(&r->addr, buf + off, 8);
		memcpy(&r->len, buf + off + 8, 4);
		memcpy(&r->ksym_type, buf + off + 12, 2);
		memcpy(&r->flags, buf + off + 14, 2);
		off += 16;
		name_len = strnlen(buf + off, size - off);
		if (off + name_len >= size - trailer || name_len >= sizeof(r->name))
			r->malformed = 2;
		else
			memcpy(r->name, buf + off, name_len + 1);
		/* The name is padded with NULs to 8 bytes. */
		off += (name_len + 1 + 7) & ~7UL;
	} else if (hdr->type == PERF_RECORD_BPF_EVENT) {
		memcpy(&r->bpf_type, buf + off, 2);
		memcpy(&r->prog_id, buf + off + 4, 4);
		off += 8 + 8;	/* type, flags, id; tag[8] */
	}
	if (off + trailer != size) {
		r->malformed = r->malformed ?: 3;
		return;
	}
	memcpy(&r->pid, buf + off, 4);
	memcpy(&r->tid, buf + off + 4, 4);
	memcpy(&r->time, buf + off + 8, 8);
	memcpy(&r->cpu, buf + off + 16, 4);
}

/*
 * Append the new KSYMBOL and BPF_EVENT records of every ring to l->rec.
 * Records stay where they were appended (an index stays valid); the rings
 * are per CPU, so l->rec is not in time order: search by time.
 */
static inline void ksym_drain(struct ksym_listener *l)
{
	size_t size = KSYM_PAGES * sysconf(_SC_PAGESIZE);
	int cpu;

	for (cpu = 0; cpu < l->ncpus; cpu++) {
		struct perf_event_mmap_page *pg = l->page[cpu];
		const char *data = (const char *)pg + sysconf(_SC_PAGESIZE);
		uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);

		while (l->tail[cpu] < head) {
			struct perf_event_header hdr;
			char buf[512];

			ksym_copy(&hdr, data, l->tail[cpu], sizeof(hdr), size);
			if (hdr.size < sizeof(hdr))
				break;
			if (hdr.type == PERF_RECORD_LOST)
				l->lost++;
			if ((hdr.type == PERF_RECORD_KSYMBOL ||
			     hdr.type == PERF_RECORD_BPF_EVENT) && l->nrec == MAX_RECORDS)
				l->lost++;	/* no room: counted as lost */
			else if (hdr.type == PERF_RECORD_KSYMBOL ||
				 hdr.type == PERF_RECORD_BPF_EVENT) {
				if (hdr.size <= sizeof(buf)) {
					ksym_copy(buf, data, l->tail[cpu], hdr.size, size);
					ksym_parse(&l->rec[l->nrec], buf, hdr.size);
				} else {
					l->rec[l->nrec].malformed = 4;
				}
				l->nrec++;
			}
			l->tail[cpu] += hdr.size;
		}
		__atomic_store_n(&pg->data_tail, l->tail[cpu], __ATOMIC_RELEASE);
	}
}

static inline int ksym_is(const struct ksym_record *r, int unregister, const char *suffix)
{
	size_t n = strlen(r->name), m = strlen(suffix);

	return r->type == PERF_RECORD_KSYMBOL &&
	       !!(r->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) == unregister &&
	       n >= m && !strcmp(r->name + n - m, suffix);
}

/*
 * The earliest record later than the record at index @after (any record if
 * @after is -1) that matches; -1 if none.
 */
static inline int ksym_find(struct ksym_listener *l, int after, int unregister,
			    const char *suffix)
{
	int i, found = -1;

	for (i = 0; i < l->nrec; i++)
		if (ksym_is(&l->rec[i], unregister, suffix) && i != after &&
		    (after < 0 || l->rec[i].time > l->rec[after].time) &&
		    (found < 0 || l->rec[i].time < l->rec[found].time))
			found = i;
	return found;
}

/*
 * Polls of KSYM_WAIT_MS: images are freed after an RCU grace period and a
 * work item, which can take seconds on a debug kernel under emulation.
 */
#define KSYM_WAIT_MS 15000
#define KSYM_POLLS (KSYM_WAIT_MS / 10)

/* Drain until a record matches or KSYM_WAIT_MS pass. */
static inline int ksym_wait(struct ksym_listener *l, int after, int unregister,
			    const char *suffix)
{
	int i, t;

	for (t = 0; t < KSYM_POLLS; t++) {
		ksym_drain(l);
		i = ksym_find(l, after, unregister, suffix);
		if (i >= 0)
			return i;
		usleep(10000);
	}
	return -1;
}

/*
 * @r is a classic image's record: named bpf_prog_<16 hex digits of the
 * tag>_<kind>, with a length and a kernel address.
 */
static inline int ksym_is_classic(const struct ksym_record *r, const char *kind)
{
	const char *p = r->name;
	int i;

	if (strncmp(p, "bpf_prog_", 9))
		return 0;
	for (p += 9, i = 0; i < 16; i++, p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return *p == '_' && !strcmp(p + 1, kind) && r->len > 0 && r->addr >> 63 &&
	       r->ksym_type == PERF_RECORD_KSYMBOL_TYPE_BPF;
}

/*
 * The UNREGISTER that pairs with the REGISTER at @i: the next record in time
 * for the same address (JIT memory is reused), with the same length and name.
 * -1 if there is none yet, -2 if the next one is another REGISTER.
 */
static inline int ksym_unregister_of(struct ksym_listener *l, int i)
{
	int j, next = -1;

	for (j = 0; j < l->nrec; j++) {
		struct ksym_record *r = &l->rec[j];

		if (r->type == PERF_RECORD_KSYMBOL && r->addr == l->rec[i].addr &&
		    r->time > l->rec[i].time && (next < 0 || r->time < l->rec[next].time))
			next = j;
	}
	if (next < 0)
		return -1;
	if (!(l->rec[next].flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) ||
	    l->rec[next].len != l->rec[i].len || strcmp(l->rec[next].name, l->rec[i].name))
		return -2;
	return next;
}

/* /proc/kallsyms lists @name at @addr as a BPF image ("[bpf]"). */
static inline int kallsyms_has(const char *name, uint64_t addr)
{
	char line[512], sym[256], mod[16], type;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%llx %c %255s %15s", &a, &type, sym, mod) == 4 &&
			a == addr && !strcmp(sym, name) && !strcmp(mod, "[bpf]");
	fclose(f);
	return found;
}

/* The address of the symbol named @name in /proc/kallsyms, 0 if none. */
static inline uint64_t kallsyms_addr(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");
	uint64_t found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name)) {
			found = a ? a : 1;	/* 1: listed, address hidden */
			break;
		}
	fclose(f);
	return found;
}

/* The exit status of the child @pid, or -1 if it did not exit. */
static inline int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The value of the sysctl file @path in @val ("" if it cannot be read). */
static inline void sysctl_read(const char *path, char *val, size_t size)
{
	FILE *f = fopen(path, "r");

	val[0] = '\0';
	if (f && !fgets(val, size, f))
		val[0] = '\0';
	if (f)
		fclose(f);
}

static inline void sysctl_write(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

/* Write @val to the sysctl file @path; its old value in @old. */
static inline int sysctl_swap(const char *path, const char *val, char *old, size_t size)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = old ? !!fgets(old, size, f) : 1;
	fclose(f);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = ok && fputs(val, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/*
 * A classic filter of @n (at most 64) instructions that returns @ret; the
 * length varies the tag.  Static: valid until the next call.
 */
static inline struct sock_fprog *classic_filter(int n, uint32_t ret)
{
	static struct sock_filter insns[64];
	static struct sock_fprog prog;
	int i;

	for (i = 0; i < n - 1; i++)
		insns[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0);
	insns[n - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ret);
	prog.len = n;
	prog.filter = insns;
	return &prog;
}

#endif /* KSYM_LIB_H */
