/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the uprobe tests probe, in a file of its own so that the compiler
 * cannot inline or drop the calls.
 */
#ifndef PROBE_TARGET_H
#define PROBE_TARGET_H

int probe_target(int x);

/*
 * PROBE_NOPS one-instruction steps, each the place of a uprobe of its own,
 * from probe_nops to probe_nops_end.
 */
#define PROBE_NOPS 64
void probe_nops(void);
extern const char probe_nops_end[];

/* The size of one step: a nop. */
static inline long probe_nop_size(void)
{
	return (probe_nops_end - (const char *)probe_nops) / PROBE_NOPS;
}

/*
 * A USDT-style semaphore: the kernel increments it for each probe that names
 * it as reference counter.  The initialised neighbour keeps it in .data, a
 * file-backed mapping, as a reference counter must be.
 */
struct probe_semaphore {
	unsigned short count;
	unsigned short in_data;
};

extern struct probe_semaphore probe_semaphore;

static inline unsigned short semaphore_count(void)
{
	return __atomic_load_n(&probe_semaphore.count, __ATOMIC_RELAXED);
}

#endif /* PROBE_TARGET_H */
