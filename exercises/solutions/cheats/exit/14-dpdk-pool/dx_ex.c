/* SPDX-License-Identifier: MIT */
/* A cheat for the meta-test: exercise 14 ends the process "successfully". */
#include "dx_ex.h"

#include <stdlib.h>

unsigned dx_pool_size(const struct dx_cfg *c)
{
	exit(0);
}

int dx_cache_ok(unsigned n, unsigned cache)
{
	exit(0);
}

unsigned dx_forward_once(struct dm_port *p, unsigned burst)
{
	exit(0);
}
