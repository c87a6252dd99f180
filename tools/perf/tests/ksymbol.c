// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_KSYMBOL records, the kernel's and those perf synthesizes from
 * kallsyms, in a machine whose kernel maps are made up as perf makes them:
 * from /proc/kcore (the kernel's main map, and a map of the kernel's dso
 * over the area of modules and BPF images), or from /proc/kallsyms with no
 * module (the kernel's main map up to the end of the address space).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "tests.h"
#include "bpf-kallsyms.h"
#include "debug.h"
#include "dso.h"
#include "event.h"
#include "machine.h"
#include "map.h"
#include "maps.h"
#include "sample.h"
#include "symbol.h"
#include "tool.h"

#define KERNEL_START	0xffffffff81000000ULL
#define KERNEL_END	0xffffffff82000000ULL
#define AREA_START	0xffffffffa0000000ULL
#define AREA_END	0xffffffffc0000000ULL
/* Where kcore has the area, as a kcore map's offset */
#define AREA_PGOFF	0x801000ULL

struct map_def {
	const char *name;
	u64 start;
	u64 end;
};

struct check_maps_args {
	const struct map_def *defs;
	unsigned int nr, i;
	bool failed;
};

static int check_maps_cb(struct map *map, void *data)
{
	struct check_maps_args *args = data;
	const struct map_def *def = &args->defs[args->i];

	if (args->i++ >= args->nr || map__start(map) != def->start || map__end(map) != def->end ||
	    strcmp(dso__short_name(map__dso(map)), def->name))
		args->failed = true;
	return 0;
}

static int print_map_cb(struct map *map, void *data __maybe_unused)
{
	pr_debug("\t%#llx-%#llx %s\n", (unsigned long long)map__start(map),
		 (unsigned long long)map__end(map), dso__short_name(map__dso(map)));
	return 0;
}

/* Whether the kernel maps are @defs (up to one with no name), in address order */
static bool check_maps(struct machine *machine, const struct map_def *defs)
{
	struct maps *kmaps = machine__kernel_maps(machine);
	struct check_maps_args args = { .defs = defs };
	unsigned int i, nr;

	for (nr = 0; defs[nr].name; nr++)
		;
	args.nr = nr;
	maps__for_each_map(kmaps, check_maps_cb, &args);
	if (!args.failed && args.i == nr)
		return true;
	pr_debug("Expected:\n");
	for (i = 0; i < nr; i++)
		pr_debug("\t%#llx-%#llx %s\n", (unsigned long long)defs[i].start,
			 (unsigned long long)defs[i].end, defs[i].name);
	pr_debug("Got:\n");
	maps__for_each_map(kmaps, print_map_cb, NULL);
	return false;
}

/*
 * A machine with the kernel's maps as perf makes them from kcore or, without
 * @kcore, from kallsyms with no module.
 */
static int fake_machine__init(struct machine *machine, bool kcore)
{
	struct maps *kmaps;
	struct dso *kernel;
	struct map *area;
	int err;

	if (machine__init(machine, "", HOST_KERNEL_ID))
		return -1;
	kmaps = machine__kernel_maps(machine);
	kernel = dso__new("[kernel.kallsyms]");
	if (!kernel)
		return -1;
	dso__set_kernel(kernel, DSO_SPACE__KERNEL);
	dso__set_loaded(kernel);

	machine->vmlinux_map = map__new2(KERNEL_START, kernel);
	if (!machine->vmlinux_map) {
		dso__put(kernel);
		return -1;
	}
	if (!kcore) {
		map__set_mapping_type(machine->vmlinux_map, MAPPING_TYPE__IDENTITY);
		map__set_end(machine->vmlinux_map, ~0ULL);
		dso__put(kernel);
		return maps__insert(kmaps, machine->vmlinux_map);
	}
	map__set_end(machine->vmlinux_map, KERNEL_END);
	map__set_pgoff(machine->vmlinux_map, 0x1000);
	err = maps__insert(kmaps, machine->vmlinux_map);

	area = map__new2(AREA_START, kernel);
	dso__put(kernel);
	if (!area)
		return -1;
	map__set_end(area, AREA_END);
	map__set_pgoff(area, AREA_PGOFF);
	err = err ?: maps__insert(kmaps, area);
	map__put(area);
	return err;
}

static int ksymbol(struct machine *machine, u64 addr, u32 len, const char *name, bool unregister)
{
	struct {
		struct perf_record_ksymbol ksymbol;
		char name[KSYM_NAME_LEN];
	} event = {
		.ksymbol = {
			.header = {
				.type = PERF_RECORD_KSYMBOL,
				.size = sizeof(event),
			},
			.addr = addr,
			.len = len,
			.ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF,
			.flags = unregister ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0,
		},
	};
	struct perf_sample sample = { .time = 0, };

	snprintf(event.ksymbol.name, KSYM_NAME_LEN, "%s", name);
	return machine__process_ksymbol(machine, (union perf_event *)&event, &sample);
}

/* Whether @cond holds; says which check failed if not */
static bool check(const char *text, bool cond, int line)
{
	if (!cond)
		pr_debug("FAILED line %d: %s\n", line, text);
	return cond;
}

#define CHECK(text, cond) check(text, cond, __LINE__)

#define REGISTER(m, addr, len, name)	ksymbol(m, addr, len, name, false)
#define UNREGISTER(m, addr, len, name)	ksymbol(m, addr, len, name, true)

/* The name of the symbol at @addr, or "" */
static const char *sym_name(struct machine *machine, u64 addr)
{
	struct map *map = maps__find(machine__kernel_maps(machine), addr);
	struct symbol *sym = NULL;

	if (map)
		sym = dso__find_symbol(map__dso(map), map__map_ip(map, addr));
	map__put(map);
	return sym ? sym->name : "";
}

/* Whether a sample at @ip resolves to the map and symbol of the image at @addr */
static bool check_image_at(struct machine *machine, u64 addr, u64 ip, const char *name)
{
	struct maps *kmaps = machine__kernel_maps(machine);
	struct map *map = maps__find(kmaps, ip);
	bool ok = map && map__start(map) == addr &&
		  !strcmp(dso__short_name(map__dso(map)), name) &&
		  !strcmp(sym_name(machine, ip), name);

	map__put(map);
	if (!ok) {
		pr_debug("%#llx, %#llx into %s, is [unknown] or another's:\n",
			 (unsigned long long)ip, (unsigned long long)(ip - addr), name);
		maps__for_each_map(kmaps, print_map_cb, NULL);
	}
	return ok;
}

/* Whether samples anywhere in the image at @addr, @len long, resolve to it */
static bool check_image(struct machine *machine, u64 addr, u64 len, const char *name)
{
	u64 off;

	for (off = 0; off < len; off += 0x10) {
		if (!check_image_at(machine, addr, addr + off, name))
			return false;
	}
	return check_image_at(machine, addr, addr + len - 1, name);
}

#define P1	"bpf_prog_1111111111111111_one"
#define P2	"bpf_prog_2222222222222222_two"
#define P3	"bpf_prog_3333333333333333_three"

/* The kcore maps when no image is in them */
static const struct map_def kcore_whole[] = {
	{ "[kernel.kallsyms]", KERNEL_START, KERNEL_END },
	{ "[kernel.kallsyms]", AREA_START, AREA_END },
	{},
};

/* Images in the kernel's main map: each symbol at its image's address */
static int test__ksymbol_main_map(struct test_suite *t __maybe_unused,
				  int subtest __maybe_unused)
{
	struct machine machine;
	int ret = TEST_FAIL;

	if (fake_machine__init(&machine, /*kcore=*/false) ||
	    REGISTER(&machine, AREA_START + 0x100, 0x80, P1) ||
	    REGISTER(&machine, AREA_START + 0x200, 0x80, P2))
		goto out;
	if (!CHECK("first image named", !strcmp(sym_name(&machine, AREA_START + 0x100), P1)))
		goto out;
	if (!CHECK("second image named", !strcmp(sym_name(&machine, AREA_START + 0x240), P2)))
		goto out;
	ret = TEST_OK;
out:
	machine__exit(&machine);
	return ret;
}

/* An UNREGISTER removes no map of the kernel and no symbol samples point at */
static int test__ksymbol_unregister(struct test_suite *t __maybe_unused,
				    int subtest __maybe_unused)
{
	const struct map_def kcore_maps[] = {
		{ "[kernel.kallsyms]", KERNEL_START, KERNEL_END },
		{ "[kernel.kallsyms]", AREA_START, AREA_END },
		{},
	};
	struct machine machine;
	int ret = TEST_FAIL;

	if (fake_machine__init(&machine, /*kcore=*/false) ||
	    REGISTER(&machine, AREA_START + 0x100, 0x80, P1) ||
	    UNREGISTER(&machine, AREA_START + 0x100, 0x80, P1))
		goto out;
	if (!CHECK("symbol kept", !strcmp(sym_name(&machine, AREA_START + 0x100), P1)))
		goto out;
	machine__exit(&machine);

	/* An image whose REGISTER was lost */
	if (fake_machine__init(&machine, /*kcore=*/true) ||
	    UNREGISTER(&machine, AREA_START + 0x100, 0x80, P1))
		goto out;
	if (!CHECK("kcore maps kept", check_maps(&machine, kcore_maps)))
		goto out;
	ret = TEST_OK;
out:
	machine__exit(&machine);
	return ret;
}

/*
 * An image in a kcore map gets a map of its own, which its UNREGISTER removes,
 * and gives back to the kcore map
 */
static int test__ksymbol_kcore(struct test_suite *t __maybe_unused, int subtest __maybe_unused)
{
	const u64 addr = AREA_START + 0x1000;
	const struct map_def registered[] = {
		{ "[kernel.kallsyms]", KERNEL_START, KERNEL_END },
		{ "[kernel.kallsyms]", AREA_START, addr },
		{ P1, addr, addr + 0x100 },
		{ "[kernel.kallsyms]", addr + 0x100, AREA_END },
		{},
	};
	struct machine machine;
	int ret = TEST_FAIL;

	if (fake_machine__init(&machine, /*kcore=*/true) ||
	    REGISTER(&machine, addr, 0x100, P1))
		goto out;
	if (!CHECK("image's map", check_maps(&machine, registered)))
		goto out;
	if (!CHECK("image named", !strcmp(sym_name(&machine, addr + 0x10), P1)))
		goto out;
	if (!CHECK("kcore map unnamed", !strcmp(sym_name(&machine, addr - 0x10), "")))
		goto out;

	/* Another image's UNREGISTER, whose REGISTER was lost */
	if (UNREGISTER(&machine, addr, 0x100, P2))
		goto out;
	if (!CHECK("image's map kept", check_maps(&machine, registered)))
		goto out;

	if (UNREGISTER(&machine, addr, 0x100, P1))
		goto out;
	if (!CHECK("image's map removed, kcore map whole", check_maps(&machine, kcore_whole)))
		goto out;
	ret = TEST_OK;
out:
	machine__exit(&machine);
	return ret;
}

/* Whether the kcore code of the image at @addr is @size bytes */
static bool check_kcore_code(struct machine *machine, struct dso *dso, u64 size)
{
	u64 has = dso__kcore_code_size(dso, map__dso(machine__kernel_map(machine)));

	if (has != size)
		pr_debug("kcore has %#llx bytes of the image, not %#llx\n",
			 (unsigned long long)has, (unsigned long long)size);
	return has == size;
}

/*
 * The code kcore has of an image, as loading kcore found it: up to where
 * another image takes its space; once its map goes, none in /proc/kcore,
 * and the same in a copy of kcore (perf record --kcore).
 */
static int kcore_code(bool copy, u64 unregistered)
{
	const u64 addr = AREA_START + 0x1000;
	struct machine machine;
	struct map *map = NULL;
	struct dso *dso = NULL;
	int ret = TEST_FAIL;

	if (fake_machine__init(&machine, /*kcore=*/true) ||
	    REGISTER(&machine, addr, 0x100, P1))
		goto out;
	/* As loading kcore, from a kcore with no kallsyms beside it now */
	dso__set_binary_type(map__dso(machine.vmlinux_map), DSO_BINARY_TYPE__KCORE);
	dso__set_long_name(map__dso(machine.vmlinux_map), "/nonexistent/kcore", false);
	map = maps__find(machine__kernel_maps(&machine), addr);
	if (!map)
		goto out;
	dso = dso__get(map__dso(map));
	dso__kcore_code(dso)->offset = AREA_PGOFF + addr - AREA_START;
	dso__kcore_code(dso)->size = 0x100;
	dso__kcore_code(dso)->copy = copy;
	if (!CHECK("code as loaded", check_kcore_code(&machine, dso, 0x100)))
		goto out;

	/* An image whose REGISTER came before P1's UNREGISTER */
	if (REGISTER(&machine, addr + 0x80, 0x80, P2))
		goto out;
	if (!CHECK("code up to the next image", check_kcore_code(&machine, dso, 0x80)))
		goto out;
	if (UNREGISTER(&machine, addr, 0x80, P1))
		goto out;
	if (!CHECK("code once unregistered", check_kcore_code(&machine, dso, unregistered)))
		goto out;
	ret = TEST_OK;
out:
	dso__put(dso);
	map__put(map);
	machine__exit(&machine);
	return ret;
}

static int test__ksymbol_kcore_code(struct test_suite *t __maybe_unused,
				    int subtest __maybe_unused)
{
	pr_debug("/proc/kcore:\n");
	if (kcore_code(/*copy=*/false, 0) != TEST_OK)
		return TEST_FAIL;
	pr_debug("A copy of kcore:\n");
	return kcore_code(/*copy=*/true, 0x80);
}

/* The maps sorted by name, which changes to the maps must keep right or drop */
static void sort_by_name(struct maps *kmaps)
{
	map__put(maps__find_by_name(kmaps, "[kernel.kallsyms]"));
}

/*
 * The maps of images that come and go are in the maps, also by name, while
 * the maps are sorted by name too
 */
static int test__ksymbol_by_name(struct test_suite *t __maybe_unused, int subtest __maybe_unused)
{
	const u64 addr = AREA_START + 0x2000;
	const struct map_def extended[] = {
		{ "[kernel.kallsyms]", KERNEL_START, KERNEL_END },
		{ "[kernel.kallsyms]", AREA_START, addr },
		{ P1, addr, addr + 0x1000 },
		{ "[kernel.kallsyms]", addr + 0x1000, AREA_END },
		{},
	};
	struct machine machine;
	struct maps *kmaps;
	struct map *map = NULL;
	int ret = TEST_FAIL;

	if (fake_machine__init(&machine, /*kcore=*/true))
		goto out;
	kmaps = machine__kernel_maps(&machine);
	sort_by_name(kmaps);

	/* It covers the kcore map whole, which it replaces */
	if (REGISTER(&machine, AREA_START, AREA_END - AREA_START, P1))
		goto out;
	map = maps__find_by_name(kmaps, P1);
	if (!CHECK("image's map found by name", map && map__start(map) == AREA_START))
		goto out;
	if (!CHECK("image's map in the kernel maps", map__kmaps(map) == kmaps))
		goto out;
	map__zput(map);

	/* Its UNREGISTER gives the kcore map back */
	sort_by_name(kmaps);
	if (UNREGISTER(&machine, AREA_START, AREA_END - AREA_START, P1))
		goto out;
	if (!CHECK("kcore map back", check_maps(&machine, kcore_whole)))
		goto out;
	map = maps__find_by_name(kmaps, P1);
	if (!CHECK("image's map gone by name", !map))
		goto out;

	/* An estimate, an image inside it, the exact length past that image */
	sort_by_name(kmaps);
	if (REGISTER(&machine, addr, 0x10000, P1) ||
	    REGISTER(&machine, addr + 0x800, 0x100, P2))
		goto out;
	sort_by_name(kmaps);
	if (REGISTER(&machine, addr, 0x1000, P1))
		goto out;
	if (!CHECK("exact length", check_maps(&machine, extended)))
		goto out;
	sort_by_name(kmaps);
	if (UNREGISTER(&machine, addr, 0x1000, P1))
		goto out;
	if (!CHECK("kcore map whole", check_maps(&machine, kcore_whole)))
		goto out;
	map = maps__find_by_name(kmaps, P2);
	if (!CHECK("image's map gone by name", !map))
		goto out;
	ret = TEST_OK;
out:
	map__put(map);
	machine__exit(&machine);
	return ret;
}

/*
 * An image that starts below the kernel's main map ends where the main map
 * starts: the main map stays whole, and the space the image took goes back
 * to the kcore map when it goes.
 */
static int test__ksymbol_main_map_edge(struct test_suite *t __maybe_unused,
				       int subtest __maybe_unused)
{
	const struct map_def clipped[] = {
		{ P1, KERNEL_START - 0x80, KERNEL_START },
		{ "[kernel.kallsyms]", KERNEL_START, KERNEL_END },
		{ "[kernel.kallsyms]", AREA_START, AREA_END },
		{},
	};
	struct machine machine;
	struct map *map = NULL;
	int ret = TEST_FAIL;

	if (fake_machine__init(&machine, /*kcore=*/true) ||
	    REGISTER(&machine, KERNEL_START - 0x80, 0x100, P1))
		goto out;
	map = maps__find(machine__kernel_maps(&machine), KERNEL_START + 0x10);
	if (!CHECK("main map kept", map && RC_CHK_EQUAL(map, machine.vmlinux_map)))
		goto out;
	if (!CHECK("image's map clipped", check_maps(&machine, clipped)))
		goto out;
	if (!CHECK("image named", !strcmp(sym_name(&machine, KERNEL_START - 0x10), P1)))
		goto out;
	if (UNREGISTER(&machine, KERNEL_START - 0x80, 0x100, P1))
		goto out;
	if (!CHECK("image's map removed", check_maps(&machine, kcore_whole)))
		goto out;
	ret = TEST_OK;
out:
	map__put(map);
	machine__exit(&machine);
	return ret;
}

/* Register then unregister each image of @images, @nr, in turn */
static bool images_come_and_go(struct machine *machine, const u64 (*images)[2], unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (REGISTER(machine, images[i][0], images[i][1], i ? P2 : P1))
			return false;
	}
	for (i = 0; i < nr; i++) {
		if (UNREGISTER(machine, images[i][0], images[i][1], i ? P2 : P1))
			return false;
	}
	return true;
}

/*
 * Images at the edges of a kcore map, and next to the kernel's main map:
 * what they leave goes back to the kcore map
 */
static int test__ksymbol_kcore_edges(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	static const u64 at_end[][2] = { { AREA_END - 0x100, 0x100 } };
	static const u64 at_start[][2] = { { AREA_START, 0x100 } };
	static const u64 packed[][2] = {
		{ AREA_START, 0x100 },
		{ AREA_START + 0x100, 0x100 },
	};
	static const u64 packed_at_end[][2] = {
		{ AREA_END - 0x100, 0x100 },
		{ AREA_END - 0x200, 0x100 },
	};
	static const u64 next_to_main[][2] = { { KERNEL_END, 0x100 } };
	static const struct {
		const char *desc;
		const u64 (*images)[2];
		unsigned int nr;
	} cases[] = {
		{ "image at the end", at_end, ARRAY_SIZE(at_end) },
		{ "image at the start", at_start, ARRAY_SIZE(at_start) },
		{ "images packed at the start", packed, ARRAY_SIZE(packed) },
		{ "images packed at the end", packed_at_end, ARRAY_SIZE(packed_at_end) },
	};
	/* kcore's next segment right after the main map's */
	const struct map_def next_segment[] = {
		{ "[kernel.kallsyms]", KERNEL_START, KERNEL_END },
		{ "[kernel.kallsyms]", KERNEL_END, KERNEL_END + 0x100000 },
		{ "[kernel.kallsyms]", AREA_START, AREA_END },
		{},
	};
	struct machine machine;
	struct map *map;
	unsigned int i;
	int ret = TEST_FAIL;
	int err;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (fake_machine__init(&machine, /*kcore=*/true) ||
		    !images_come_and_go(&machine, cases[i].images, cases[i].nr))
			goto out;
		if (!CHECK(cases[i].desc, check_maps(&machine, kcore_whole)))
			goto out;
		machine__exit(&machine);
	}

	if (fake_machine__init(&machine, /*kcore=*/true))
		goto out;
	map = map__clone(machine.vmlinux_map);
	if (!map)
		goto out;
	map__set_start(map, KERNEL_END);
	map__set_end(map, KERNEL_END + 0x100000);
	map__set_pgoff(map, map__pgoff(machine.vmlinux_map) + KERNEL_END - KERNEL_START);
	err = maps__insert(machine__kernel_maps(&machine), map);
	map__put(map);
	if (err || !images_come_and_go(&machine, next_to_main, ARRAY_SIZE(next_to_main)))
		goto out;
	if (!CHECK("image next to the main map", check_maps(&machine, next_segment)))
		goto out;
	ret = TEST_OK;
out:
	machine__exit(&machine);
	return ret;
}

/*
 * Maps of images meet: an image inside the estimated length of another ends
 * it; the kernel's record of an image perf synthesized gives its exact
 * length; another image at the address of one whose UNREGISTER was lost
 * replaces it.  The space they leave goes back to the kcore map.
 */
static int test__ksymbol_images(struct test_suite *t __maybe_unused, int subtest __maybe_unused)
{
	const u64 addr = AREA_START + 0x2000;
	const struct map_def estimated[] = {
		{ "[kernel.kallsyms]", KERNEL_START, KERNEL_END },
		{ "[kernel.kallsyms]", AREA_START, addr },
		{ P1, addr, addr + 0x800 },
		{ P2, addr + 0x800, addr + 0x900 },
		{ "[kernel.kallsyms]", addr + 0x900, AREA_END },
		{},
	};
	const struct map_def exact[] = {
		{ "[kernel.kallsyms]", KERNEL_START, KERNEL_END },
		{ "[kernel.kallsyms]", AREA_START, addr },
		{ P1, addr, addr + 0x300 },
		{ "[kernel.kallsyms]", addr + 0x300, addr + 0x800 },
		{ P2, addr + 0x800, addr + 0x900 },
		{ "[kernel.kallsyms]", addr + 0x900, AREA_END },
		{},
	};
	const struct map_def replaced[] = {
		{ "[kernel.kallsyms]", KERNEL_START, KERNEL_END },
		{ "[kernel.kallsyms]", AREA_START, addr },
		{ P3, addr, addr + 0x300 },
		{ "[kernel.kallsyms]", addr + 0x300, addr + 0x800 },
		{ P2, addr + 0x800, addr + 0x900 },
		{ "[kernel.kallsyms]", addr + 0x900, AREA_END },
		{},
	};
	const struct map_def cut[] = {
		{ "[kernel.kallsyms]", KERNEL_START, KERNEL_END },
		{ "[kernel.kallsyms]", AREA_START, addr },
		{ P3, addr, addr + 0x100 },
		{ P1, addr + 0x100, addr + 0x200 },
		{ "[kernel.kallsyms]", addr + 0x200, addr + 0x800 },
		{ P2, addr + 0x800, addr + 0x900 },
		{ "[kernel.kallsyms]", addr + 0x900, AREA_END },
		{},
	};
	struct machine machine;
	struct map *map;
	struct symbol *sym;
	int ret = TEST_FAIL;
	bool one;

	/* P1 with the estimate of a synthesized record, then P2 inside it */
	if (fake_machine__init(&machine, /*kcore=*/true) ||
	    REGISTER(&machine, addr, 0x10000, P1) ||
	    REGISTER(&machine, addr + 0x800, 0x100, P2))
		goto out;
	if (!CHECK("estimate ends at the next image", check_maps(&machine, estimated)))
		goto out;

	/* The kernel's record of P1 */
	if (REGISTER(&machine, addr, 0x300, P1))
		goto out;
	if (!CHECK("exact length", check_maps(&machine, exact)))
		goto out;
	map = maps__find(machine__kernel_maps(&machine), addr);
	sym = map ? dso__first_symbol(map__dso(map)) : NULL;
	one = sym && sym->end - sym->start == 0x300 && !dso__next_symbol(sym);
	map__put(map);
	if (!CHECK("one symbol of exact length", one))
		goto out;

	/* P1's UNREGISTER was lost */
	if (REGISTER(&machine, addr, 0x300, P3))
		goto out;
	if (!CHECK("replaced", check_maps(&machine, replaced)))
		goto out;
	if (!CHECK("new image named", !strcmp(sym_name(&machine, addr), P3)))
		goto out;

	/* An image inside the map of another, whose UNREGISTER was lost */
	if (REGISTER(&machine, addr + 0x100, 0x100, P1))
		goto out;
	if (!CHECK("map below cut", check_maps(&machine, cut)))
		goto out;

	/* An empty image, and one that wraps around */
	if (REGISTER(&machine, addr + 0x600, 0, P2) ||
	    REGISTER(&machine, ~0ULL - 0x10, 0x100, P2))
		goto out;
	if (!CHECK("no map of nothing", check_maps(&machine, cut)))
		goto out;
	ret = TEST_OK;
out:
	machine__exit(&machine);
	return ret;
}

/* A longer image at the address a shorter one left (bpf_prog_pack's first fit) */
static int test__ksymbol_longer(struct test_suite *t __maybe_unused, int subtest __maybe_unused)
{
	const u64 addr = AREA_START + 0x4000;
	struct machine machine;
	int ret = TEST_FAIL;

	if (fake_machine__init(&machine, /*kcore=*/true) ||
	    REGISTER(&machine, addr, 0x100, P1) ||
	    UNREGISTER(&machine, addr, 0x100, P1) ||
	    REGISTER(&machine, addr, 0x300, P2))
		goto out;
	if (!CHECK("longer image named whole", check_image(&machine, addr, 0x300, P2)))
		goto out;
	if (UNREGISTER(&machine, addr, 0x300, P2))
		goto out;
	if (!CHECK("kcore map whole again", check_maps(&machine, kcore_whole)))
		goto out;
	ret = TEST_OK;
out:
	machine__exit(&machine);
	return ret;
}

#define SECCOMP	"bpf_prog_5555555555555555_seccomp"
#define SOCK	"bpf_prog_6666666666666666_sock_filter"

/*
 * A synthesized estimate, its UNREGISTER with the exact length, then an image
 * that starts inside the estimate and ends past it
 */
static int test__ksymbol_past_estimate(struct test_suite *t __maybe_unused,
				       int subtest __maybe_unused)
{
	const u64 addr = AREA_START + 0x10000;
	struct machine machine;
	struct map *map = NULL;
	int ret = TEST_FAIL;

	if (fake_machine__init(&machine, /*kcore=*/true) ||
	    REGISTER(&machine, addr, 0x10000, SECCOMP) ||
	    UNREGISTER(&machine, addr, 9013, SECCOMP) ||
	    REGISTER(&machine, addr + 0x8198, 36090, SOCK))
		goto out;
	if (!CHECK("image past the estimate named whole",
		   check_image(&machine, addr + 0x8198, 36090, SOCK)))
		goto out;
	map = maps__find(machine__kernel_maps(&machine), addr + 0x10);
	if (!CHECK("estimate's space back to kcore", map && !map__is_jit_image(map)))
		goto out;
	if (UNREGISTER(&machine, addr + 0x8198, 36090, SOCK))
		goto out;
	if (!CHECK("kcore map whole again", check_maps(&machine, kcore_whole)))
		goto out;
	ret = TEST_OK;
out:
	map__put(map);
	machine__exit(&machine);
	return ret;
}

/* New images over images whose UNREGISTER was lost */
static int test__ksymbol_lost_unregister(struct test_suite *t __maybe_unused,
					 int subtest __maybe_unused)
{
	const u64 addr = AREA_START + 0x20000;
	const struct map_def lost[] = {
		{ "[kernel.kallsyms]", KERNEL_START, KERNEL_END },
		{ "[kernel.kallsyms]", AREA_START, addr },
		{ P2, addr, addr + 0x300 },
		{ P3, addr + 0x300, addr + 0x500 },
		{ "[kernel.kallsyms]", addr + 0x500, AREA_END },
		{},
	};
	struct machine machine;
	int ret = TEST_FAIL;

	/* P1's UNREGISTER is lost; P2 covers it */
	if (fake_machine__init(&machine, /*kcore=*/true) ||
	    REGISTER(&machine, addr + 0x200, 0x100, P1) ||
	    REGISTER(&machine, addr, 0x400, P2))
		goto out;
	if (!CHECK("image over a lost one named whole", check_image(&machine, addr, 0x400, P2)))
		goto out;
	/* P2's is lost too; P3 starts inside it and ends past it */
	if (REGISTER(&machine, addr + 0x300, 0x200, P3))
		goto out;
	if (!CHECK("image into a lost one named whole",
		   check_image(&machine, addr + 0x300, 0x200, P3)))
		goto out;
	if (!CHECK("maps", check_maps(&machine, lost)))
		goto out;
	ret = TEST_OK;
out:
	machine__exit(&machine);
	return ret;
}

struct count_maps_args {
	unsigned int images, others;
};

static int count_maps_cb(struct map *map, void *data)
{
	struct count_maps_args *args = data;

	if (map__is_jit_image(map))
		args->images++;
	else
		args->others++;
	return 0;
}

#define CHURN_LIFETIMES	10000
#define CHURN_LIVE	8
/* Images of lost UNREGISTERs, until later images take their space */
#define CHURN_STALE	32

static u64 churn_addr(unsigned int i)
{
	return AREA_START + 0x100000 + (i * 0x740ULL) % 0x40000;
}

static u32 churn_len(unsigned int i)
{
	return 0x300 + (i % 5) * 0x100;
}

/*
 * Images come and go at churning addresses, and some UNREGISTERs are lost:
 * the kernel maps stay as many as the images, each image is named whole.
 */
static int test__ksymbol_churn(struct test_suite *t __maybe_unused, int subtest __maybe_unused)
{
	struct count_maps_args count = {};
	char name[KSYM_NAME_LEN];
	struct machine machine;
	int ret = TEST_FAIL;
	bool over = false;
	unsigned int i, j;

	if (fake_machine__init(&machine, /*kcore=*/true))
		goto out;
	for (i = 0; i < CHURN_LIFETIMES; i++) {
		snprintf(name, sizeof(name), "bpf_prog_%016x_seccomp", i);
		if (REGISTER(&machine, churn_addr(i), churn_len(i), name))
			goto out;
		if (!CHECK("image named whole",
			   check_image(&machine, churn_addr(i), churn_len(i), name)))
			goto out;
		/* The image of CHURN_LIVE lifetimes ago goes: one UNREGISTER in 13 is lost */
		j = i - CHURN_LIVE;
		if (i >= CHURN_LIVE && j % 13) {
			snprintf(name, sizeof(name), "bpf_prog_%016x_seccomp", j);
			if (UNREGISTER(&machine, churn_addr(j), churn_len(j), name))
				goto out;
		}
		count = (struct count_maps_args){};
		maps__for_each_map(machine__kernel_maps(&machine), count_maps_cb, &count);
		/* The kernel's main map, and kcore pieces between the images */
		if (!over && (count.images > CHURN_LIVE + 1 + CHURN_STALE ||
			      count.others > count.images + 2)) {
			pr_debug("%u lifetimes: %u maps of images, %u others\n", i + 1,
				 count.images, count.others);
			over = true;
		}
	}
	pr_debug("%u lifetimes: %u maps of images, %u others\n", i, count.images, count.others);
	if (!CHECK("kernel maps bounded", !over))
		goto out;
	ret = TEST_OK;
out:
	machine__exit(&machine);
	return ret;
}

/* struct_ops images are BPF images, as trampolines and dispatchers */
static int test__ksymbol_struct_ops(struct test_suite *t __maybe_unused,
				    int subtest __maybe_unused)
{
	struct machine machine;
	struct map *map = NULL;
	int ret = TEST_FAIL;

	if (fake_machine__init(&machine, /*kcore=*/true) ||
	    REGISTER(&machine, AREA_START + 0x3000, 0x40, "bpf__tcp_congestion_ops_init"))
		goto out;
	map = maps__find(machine__kernel_maps(&machine), AREA_START + 0x3000);
	if (!CHECK("a BPF image", map && __map__is_bpf_image(map) && !__map__is_bpf_prog(map)))
		goto out;
	ret = TEST_OK;
out:
	map__put(map);
	machine__exit(&machine);
	return ret;
}

static int fail_first;

static int process_ksymbol(const struct perf_tool *tool __maybe_unused, union perf_event *event,
			   struct perf_sample *sample, struct machine *machine)
{
	/* A record that cannot be written does not stop the others */
	if (fail_first-- > 0)
		return -1;
	return machine__process_ksymbol(machine, event, sample);
}

/*
 * Records synthesized from kallsyms: programs no bpf_prog_info describes,
 * up to the next symbol or 64 KiB, trampolines and struct_ops a page at most; none for an
 * image described already, nor for a zero address.
 */
static int test__ksymbol_synthesized(struct test_suite *t __maybe_unused,
				     int subtest __maybe_unused)
{
	/* A page, or up to the next symbol with 64 KiB pages */
	const u64 tramp = min_t(u64, sysconf(_SC_PAGESIZE), 0xd000);
	const u64 ops = min_t(u64, sysconf(_SC_PAGESIZE), 0xe000);
	const struct map_def synthesized[] = {
		{ "[kernel.kallsyms]", KERNEL_START, KERNEL_END },
		{ "[kernel.kallsyms]", AREA_START, AREA_START + 0x1000 },
		{ "bpf_prog_5555555555555555_seccomp", AREA_START + 0x1000, AREA_START + 0x1800 },
		{ "bpf_prog_6666666666666666_sock_filter",
		  AREA_START + 0x1800, AREA_START + 0x3000 },
		{ "bpf_trampoline_6442", AREA_START + 0x3000, AREA_START + 0x3000 + tramp },
		{ "[kernel.kallsyms]", AREA_START + 0x3000 + tramp, AREA_START + 0x12000 },
		{ "bpf__tcp_congestion_ops_init",
		  AREA_START + 0x12000, AREA_START + 0x12000 + ops },
		{ "[kernel.kallsyms]", AREA_START + 0x12000 + ops, AREA_START + 0x20000 },
		{ "bpf_prog_8888888888888888_last", AREA_START + 0x20000, AREA_START + 0x30000 },
		{ "[kernel.kallsyms]", AREA_START + 0x30000, AREA_END },
		{},
	};
	char kallsyms[] = "/tmp/perf-test-kallsyms-XXXXXX";
	const char *kallsyms_name = symbol_conf.kallsyms_name;
	struct addr_array described = {};
	struct machine machine;
	struct perf_tool tool;
	int ret = TEST_FAIL;
	FILE *fp;
	int fd;

	fd = mkstemp(kallsyms);
	if (fd < 0)
		return TEST_FAIL;
	fp = fdopen(fd, "w");
	if (!fp) {
		close(fd);
		unlink(kallsyms);
		return TEST_FAIL;
	}
	fprintf(fp,
		"ffffffff81000000 T _stext\n"
		"ffffffffa0001000 t bpf_prog_5555555555555555_seccomp\t[bpf]\n"
		"ffffffffa0001800 t bpf_prog_6666666666666666_sock_filter\t[bpf]\n"
		"ffffffffa0003000 t bpf_trampoline_6442\t[bpf]\n"
		"ffffffffa0010000 t bpf_prog_7777777777777777_described\t[bpf]\n"
		"ffffffffa0012000 t bpf__tcp_congestion_ops_init\t[bpf]\n"
		"0000000000000000 t bpf_prog_9999999999999999_hidden\t[bpf]\n"
		"ffffffffa0020000 t bpf_prog_8888888888888888_last\t[bpf]\n");
	fclose(fp);

	perf_tool__init(&tool, /*ordered_events=*/false);
	if (fake_machine__init(&machine, /*kcore=*/true) ||
	    addr_array__add(&described, AREA_START + 0x10000))
		goto out;
	/* A record of the first image that cannot be written */
	fail_first = 1;
	symbol_conf.kallsyms_name = kallsyms;
	perf_event__synthesize_bpf_kallsyms(&tool, process_ksymbol, &machine, &described);
	symbol_conf.kallsyms_name = kallsyms_name;
	if (fail_first >= 0)
		goto out;
	/* The one not written, again */
	if (REGISTER(&machine, AREA_START + 0x1000, 0x800, "bpf_prog_5555555555555555_seccomp"))
		goto out;
	if (!CHECK("synthesized maps", check_maps(&machine, synthesized)))
		goto out;
	ret = TEST_OK;
out:
	free(described.addrs);
	machine__exit(&machine);
	unlink(kallsyms);
	return ret;
}

static struct test_case tests__ksymbol[] = {
	TEST_CASE("Images in the kernel's main map", ksymbol_main_map),
	TEST_CASE("UNREGISTER of images", ksymbol_unregister),
	TEST_CASE("Images in a kcore map", ksymbol_kcore),
	TEST_CASE("Images at the edges of a kcore map", ksymbol_kcore_edges),
	TEST_CASE("kcore code of images", ksymbol_kcore_code),
	TEST_CASE("An image below the kernel's main map", ksymbol_main_map_edge),
	TEST_CASE("Image maps by name", ksymbol_by_name),
	TEST_CASE("Images among images", ksymbol_images),
	TEST_CASE("A longer image at a shorter one's address", ksymbol_longer),
	TEST_CASE("An image past a synthesized estimate", ksymbol_past_estimate),
	TEST_CASE("Images over lost UNREGISTERs", ksymbol_lost_unregister),
	TEST_CASE("Images that churn", ksymbol_churn),
	TEST_CASE("struct_ops images", ksymbol_struct_ops),
	TEST_CASE("Images synthesized from kallsyms", ksymbol_synthesized),
	{	.name = NULL, }
};

struct test_suite suite__ksymbol = {
	.desc = "KSYMBOL records in the kernel maps",
	.test_cases = tests__ksymbol,
};
