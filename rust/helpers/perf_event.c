// SPDX-License-Identifier: GPL-2.0

#include <linux/capability.h>

bool rust_helper_perfmon_capable(void)
{
	return perfmon_capable();
}
