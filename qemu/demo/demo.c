// SPDX-License-Identifier: GPL-2.0
/*
 * The demo of `make run`, run inside the guest:
 *  1. the event sources in /sys/bus/event_source/devices;
 *  2. a kprobe PMU event on a kernel function, triggered a known number of
 *     times, and its count;
 *  3. a tiny BPF program loaded and unloaded while a listener on every CPU
 *     prints the PERF_RECORD_KSYMBOL and BPF_EVENT records.
 * Built with the selftests' helpers (perf_bpf_probe/probe_lib.h, ksym_lib.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/ioctl.h>

#include "perf_bpf_probe/probe_lib.h"
#include "perf_bpf_probe/ksym_lib.h"

static void list_event_sources(void)
{
	struct dirent **names;
	int i, n;

	printf("== event sources in %s\n", PMU_DIR);
	n = scandir(PMU_DIR, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.')
			printf("   %-12s type %d\n", names[i]->d_name, pmu_type(names[i]->d_name));
		free(names[i]);
	}
	free(n > 0 ? names : NULL);
}

static int count_kprobe(int hits)
{
	struct perf_event_attr attr = { .disabled = 1 };
	const char *func = getppid_symbol(NULL);
	uint64_t count;
	int fd;

	printf("\n== kprobe PMU (type %d) event on %s\n", pmu_type("kprobe"), func);
	fd = probe_open_attr(&attr, "kprobe", 0, (uintptr_t)func, 0);
	if (fd < 0) {
		printf("   perf_event_open: %s\n", strerror(-fd));
		return 1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	trigger_getppid(hits);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	count = read_count(fd);
	close(fd);
	printf("   called getppid() %d times, the event counted %llu\n", hits,
	       (unsigned long long)count);
	return count == (uint64_t)hits ? 0 : 1;
}

static int ksymbol_demo(void)
{
	struct bpf_insn insns[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	struct ksym_listener *l = calloc(1, sizeof(*l));
	int fd, i;

	if (!l || ksym_listen(l, 1))
		return 1;
	printf("\n== PERF_RECORD_KSYMBOL listener on %d CPUs\n", l->ncpus);
	fd = load_prog(BPF_PROG_TYPE_SOCKET_FILTER, insns, ARRAY_SIZE(insns), "demo_prog",
		       NULL, 0);
	if (fd < 0) {
		printf("   BPF_PROG_LOAD: %s\n", strerror(errno));
		return 1;
	}
	printf("   loaded BPF program \"demo_prog\", now closing it\n");
	close(fd);
	/* The JIT image is freed after an RCU grace period. */
	if (ksym_wait(l, 0, 1, "_demo_prog") < 0) {
		printf("   no UNREGISTER record within 5 s\n");
		return 1;
	}
	for (i = 0; i < l->nrec; i++) {
		struct ksym_record *r = &l->rec[i];

		if (r->type == PERF_RECORD_KSYMBOL)
			printf("   cpu %u KSYMBOL %-10s addr 0x%llx len %u type %u name %s\n",
			       r->cpu, r->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER ?
			       "UNREGISTER" : "REGISTER",
			       (unsigned long long)r->addr, r->len, r->ksym_type, r->name);
		else
			printf("   cpu %u BPF_EVENT  %s prog id %u\n", r->cpu,
			       r->bpf_type == PERF_BPF_EVENT_PROG_LOAD ? "LOAD" : "UNLOAD",
			       r->prog_id);
	}
	ksym_close(l);
	free(l);
	return 0;
}

int main(void)
{
	int err = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	list_event_sources();
	err |= count_kprobe(1000);
	err |= ksymbol_demo();
	printf("\n== demo %s\n", err ? "FAILED" : "done");
	return err;
}
