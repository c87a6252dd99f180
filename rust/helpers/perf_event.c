// SPDX-License-Identifier: GPL-2.0

#include <linux/capability.h>
#include <linux/perf_event.h>

bool rust_helper_perfmon_capable(void)
{
	return perfmon_capable();
}

void rust_helper_local64_add(s64 i, local64_t *l)
{
	local64_add(i, l);
}
