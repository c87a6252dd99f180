/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_BPF_KALLSYMS_H
#define __PERF_BPF_KALLSYMS_H

#include <stddef.h>
#include <linux/types.h>
#include "synthetic-events.h"

/* Addresses of JIT images or of kallsyms symbols */
struct addr_array {
	u64	*addrs;
	size_t	 nr;
	size_t	 alloc;
};

int addr_array__add(struct addr_array *a, u64 addr);

int perf_event__synthesize_bpf_kallsyms(const struct perf_tool *tool,
					perf_event__handler_t process,
					struct machine *machine,
					struct addr_array *prog_images);

#endif /* __PERF_BPF_KALLSYMS_H */
