// SPDX-License-Identifier: GPL-2.0
#include "probe_target.h"

struct probe_semaphore probe_semaphore = { .in_data = 1 };

int probe_target(int x)
{
	return x + 1;
}
