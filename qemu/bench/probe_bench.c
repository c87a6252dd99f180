// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmarks of the kprobe and uprobe PMUs, run inside the guest:
 *   open_close    perf_event_open() + close() of one kprobe PMU event
 *   kprobe_hits   1e6 calls of getppid() with a counting kprobe on it
 *   uprobe_hits   1e6 calls of a function with a counting uprobe on it
 * Each is run REPEAT times; prints "bench NAME ns/op ..." with every run.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perf_bpf_probe/probe_lib.h"
#include "perf_bpf_probe/probe_target.h"

#define REPEAT 5

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static double open_close(const char *func, int n)
{
	uint64_t t = now_ns();
	int i;

	for (i = 0; i < n; i++) {
		int fd = probe_open("kprobe", 0, func, 0);

		if (fd < 0) {
			fprintf(stderr, "kprobe on %s: %s\n", func, strerror(-fd));
			exit(1);
		}
		close(fd);
	}
	return (double)(now_ns() - t) / n;
}

static double hits(int fd, void (*fn)(int), int n)
{
	uint64_t t = now_ns(), count;

	fn(n);
	t = now_ns() - t;
	count = read_count(fd);
	if (count < (uint64_t)n) {
		fprintf(stderr, "the event counted %llu of %d hits\n", (unsigned long long)count, n);
		exit(1);
	}
	return (double)t / n;
}

static void call_target(int n)
{
	while (n--)
		probe_target(n);
}

static void report(const char *name, double *v)
{
	int i;

	printf("bench %s", name);
	for (i = 0; i < REPEAT; i++)
		printf(" %.1f", v[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	int n_open = 100, n_hits = 1000000, i, fd;
	double v[REPEAT];
	const char *func;
	uint64_t addr;

	if (argc > 1)
		n_hits = atoi(argv[1]);
	func = getppid_symbol(&addr);
	if (!func)
		return 1;

	for (i = 0; i < REPEAT; i++)
		v[i] = open_close(func, n_open);
	report("open_close", v);

	fd = probe_open("kprobe", 0, func, 0);
	for (i = 0; i < REPEAT; i++)
		v[i] = hits(fd, trigger_getppid, n_hits);
	report("kprobe_hits", v);
	close(fd);

	fd = probe_open("uprobe", 0, self_exe(), self_file_offset((void *)probe_target));
	for (i = 0; i < REPEAT; i++)
		v[i] = hits(fd, call_target, n_hits);
	report("uprobe_hits", v);
	close(fd);
	return 0;
}
