/* SPDX-License-Identifier: MIT */
/* A cheat for the meta-test: exercise 2 ends the process "successfully". */
#include "parse_ex.h"

#include <stdlib.h>

enum pl_reason ex_parse_frame(const void *buf, size_t len, uint16_t dst_port,
			      struct pl_pkt *p)
{
	exit(0);
}
