// SPDX-License-Identifier: GPL-2.0
#include "probe_target.h"

struct probe_semaphore probe_semaphore = { .in_data = 1 };

int probe_target(int x)
{
	return x + 1;
}

#define STR(x) #x
#define XSTR(x) STR(x)

asm(".pushsection .text\n"
	".globl probe_nops\n"
	".globl probe_nops_end\n"
	".type probe_nops, %function\n"
	"probe_nops:\n"
	".rept " XSTR(PROBE_NOPS) "\n"
	"nop\n"
	".endr\n"
	"probe_nops_end:\n"
	"ret\n"
	".size probe_nops, . - probe_nops\n"
	".popsection\n");
