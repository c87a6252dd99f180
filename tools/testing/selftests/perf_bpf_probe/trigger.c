// SPDX-License-Identifier: GPL-2.0
/*
 * trigger getppid N: call getppid() N times.
 * trigger uprobe N: call probe_target() N times.
 * Waits for a line on stdin first, so that a tracer can attach.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe_target.h"

int main(int argc, char **argv)
{
	char line[16];
	int n;

	if (argc != 3)
		return 2;
	n = atoi(argv[2]);
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	while (n--) {
		if (!strcmp(argv[1], "getppid"))
			syscall(SYS_getppid);
		else
			probe_target(1);
	}
	return 0;
}
