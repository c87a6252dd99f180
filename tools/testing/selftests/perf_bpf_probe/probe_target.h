/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the uprobe tests probe, in a file of its own so that the compiler
 * cannot inline or drop the calls.
 */
#ifndef PROBE_TARGET_H
#define PROBE_TARGET_H

int probe_target(int x);

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
