// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_KSYMBOL for the BPF images /proc/kallsyms lists: trampolines,
 * dispatchers, and the programs no bpf_prog_info describes (classic BPF:
 * seccomp and socket filters; eBPF programs perf could not enumerate).
 * Only kallsyms is needed, not libbpf.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <internal/lib.h>
#include <symbol/kallsyms.h>
#include "bpf-kallsyms.h"
#include "debug.h"
#include "machine.h"
#include "record.h"
#include "session.h"
#include "symbol.h"
#include "synthetic-events.h"

int addr_array__add(struct addr_array *a, u64 addr)
{
	if (a->nr == a->alloc) {
		size_t alloc = a->alloc ? 2 * a->alloc : 64;
		u64 *addrs = realloc(a->addrs, alloc * sizeof(*addrs));

		if (!addrs)
			return -ENOMEM;
		a->addrs = addrs;
		a->alloc = alloc;
	}
	a->addrs[a->nr++] = addr;
	return 0;
}

static int addr__cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void addr_array__sort(struct addr_array *a)
{
	if (a->nr)
		qsort(a->addrs, a->nr, sizeof(*a->addrs), addr__cmp);
}

/* The first address in sorted @a above @addr, or 0. */
static u64 addr_array__next(const struct addr_array *a, u64 addr)
{
	size_t lo = 0, hi = a->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->addrs[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->nr ? a->addrs[lo] : 0;
}

static bool addr_array__has(const struct addr_array *a, u64 addr)
{
	return a->nr && bsearch(&addr, a->addrs, a->nr, sizeof(*a->addrs), addr__cmp);
}

/* A "[bpf]" symbol of kallsyms */
struct bpf_kallsym {
	u64	 addr;
	char	*name;
};

struct kallsyms_parse {
	union perf_event	*event;
	perf_event__handler_t	 process;
	struct machine		*machine;
	const struct perf_tool	*tool;
	/* JIT images synthesized from bpf_prog_info, sorted */
	struct addr_array	*prog_images;
	/* the address of every symbol, where an image ends at the latest */
	struct addr_array	 bounds;
	struct bpf_kallsym	*bpf_syms;
	size_t			 nr_bpf_syms;
	size_t			 alloc_bpf_syms;
};

/*
 * How far a program listed in kallsyms can extend: kallsyms has no sizes,
 * and free space may follow an image before the next symbol.  A KSYMBOL
 * record of an image allocated there later ends the estimate.
 */
#define BPF_KALLSYMS_PROG_MAX	(64 * 1024)

static int
process_bpf_image(char *name, u64 addr, u32 size, struct kallsyms_parse *data)
{
	struct machine *machine = data->machine;
	union perf_event *event = data->event;
	struct perf_record_ksymbol *ksymbol;
	int len;

	ksymbol = &event->ksymbol;

	*ksymbol = (struct perf_record_ksymbol) {
		.header = {
			.type = PERF_RECORD_KSYMBOL,
			.size = offsetof(struct perf_record_ksymbol, name),
		},
		.addr      = addr,
		.len       = size,
		.ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF,
		.flags     = 0,
	};

	len = scnprintf(ksymbol->name, KSYM_NAME_LEN, "%s", name);
	ksymbol->header.size += PERF_ALIGN(len + 1, sizeof(u64));
	memset((void *)event + event->header.size, 0, machine->id_hdr_size);
	event->header.size += machine->id_hdr_size;

	return perf_tool__process_synth_event(data->tool, event, machine,
					      data->process);
}

static int
kallsyms_process_symbol(void *data, const char *_name,
			char type __maybe_unused, u64 start)
{
	struct kallsyms_parse *parse = data;
	struct bpf_kallsym *syms;
	char *module;

	/* No address for who may not see them */
	if (!start)
		return 0;
	if (addr_array__add(&parse->bounds, start))
		return -ENOMEM;

	/* We are going after [bpf] module ... */
	module = strchr(_name, '\t');
	if (!module || strcmp(module + 1, "[bpf]"))
		return 0;

	if (parse->nr_bpf_syms == parse->alloc_bpf_syms) {
		size_t alloc = parse->alloc_bpf_syms ? 2 * parse->alloc_bpf_syms : 64;

		syms = realloc(parse->bpf_syms, alloc * sizeof(*syms));
		if (!syms)
			return -ENOMEM;
		parse->bpf_syms = syms;
		parse->alloc_bpf_syms = alloc;
	}
	syms = &parse->bpf_syms[parse->nr_bpf_syms];
	syms->addr = start;
	syms->name = strndup(_name, module - _name);
	if (!syms->name)
		return -ENOMEM;
	parse->nr_bpf_syms++;
	return 0;
}

/*
 * Trampolines, dispatchers and struct_ops images ("bpf__<type>_<member>"),
 * a page at most, and the programs no bpf_prog_info describes (classic BPF:
 * seccomp and socket filters; eBPF programs perf could not enumerate), up
 * to the next symbol.
 */
static int kallsyms_process_bpf_sym(struct kallsyms_parse *parse, struct bpf_kallsym *sym)
{
	u64 next = addr_array__next(&parse->bounds, sym->addr);
	u64 size = next ? next - sym->addr : ~0ULL;
	char disp[KSYM_NAME_LEN];
	unsigned long id;

	if ((sscanf(sym->name, "bpf_trampoline_%lu", &id) == 1) ||
	    (sscanf(sym->name, "bpf_dispatcher_%s", disp) == 1) ||
	    strstarts(sym->name, "bpf__"))
		return process_bpf_image(sym->name, sym->addr, min_t(u64, size, page_size),
					 parse);
	if (strstarts(sym->name, "bpf_prog_") &&
	    !addr_array__has(parse->prog_images, sym->addr))
		return process_bpf_image(sym->name, sym->addr,
					 min_t(u64, size, BPF_KALLSYMS_PROG_MAX), parse);
	return 0;
}

int perf_event__synthesize_bpf_kallsyms(const struct perf_tool *tool,
					perf_event__handler_t process,
					struct machine *machine,
					struct addr_array *prog_images)
{
	const char *kallsyms_filename = "/proc/kallsyms";
	struct kallsyms_parse arg = {
		.process     = process,
		.machine     = machine,
		.tool        = tool,
		.prog_images = prog_images,
	};
	size_t i;
	int err = 0;

	if (symbol_conf.kallsyms_name)
		kallsyms_filename = symbol_conf.kallsyms_name;

	arg.event = malloc(sizeof(arg.event->ksymbol) + KSYM_NAME_LEN + machine->id_hdr_size);
	if (!arg.event)
		return -1;

	addr_array__sort(prog_images);
	if (kallsyms__parse(kallsyms_filename, &arg, kallsyms_process_symbol)) {
		pr_err("%s: failed to synthesize bpf images: %s\n",
		       __func__, strerror(errno));
		err = -1;
	} else {
		addr_array__sort(&arg.bounds);
		/* One image's failure does not keep the others out. */
		for (i = 0; i < arg.nr_bpf_syms; i++) {
			if (kallsyms_process_bpf_sym(&arg, &arg.bpf_syms[i]))
				err = -1;
		}
	}

	for (i = 0; i < arg.nr_bpf_syms; i++)
		free(arg.bpf_syms[i].name);
	free(arg.bpf_syms);
	free(arg.bounds.addrs);
	free(arg.event);
	return err;
}

#ifndef HAVE_LIBBPF_SUPPORT
/* Without libbpf, no program is described: kallsyms names them all. */
int perf_event__synthesize_bpf_events(struct perf_session *session,
				      perf_event__handler_t process,
				      struct machine *machine,
				      struct record_opts *opts)
{
	struct addr_array prog_images = {};

	if (opts->no_bpf_event)
		return 0;
	return perf_event__synthesize_bpf_kallsyms(session->tool, process, machine,
						   &prog_images);
}
#endif
