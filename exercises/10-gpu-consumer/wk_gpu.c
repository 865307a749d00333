/* SPDX-License-Identifier: MIT */
/* Exercise 10's worker: the student's consumer over emulated device memory. */
#include "gpu_consumer_ex.h"
#include "gpu_rpc.h"
#include "worker.h"

#include <string.h>
#include <sys/mman.h>

static struct gx_region reg[2];

/* Map each shared region a second time, unreadable: its device address. */
static long regions(const void *in, size_t len, void *out, size_t cap)
{
	const struct gx_regions *q = WK_IN(struct gx_regions, in, len);
	struct gx_regions *a = out;
	void *dev;
	int k;

	if (!q || cap < sizeof(*a))
		return -1;
	*a = *q;
	for (k = 0; k < 2; k++) {
		dev = mmap(NULL, GX_REGION, PROT_NONE, MAP_SHARED,
			   (int)q->fd[k], 0);
		if (dev == MAP_FAILED)
			return -1;
		reg[k] = (struct gx_region){
			.dev = (uintptr_t)dev,
			.view = (const uint8_t *)(uintptr_t)q->view[k],
			.len = GX_REGION,
		};
		a->dev[k] = (uintptr_t)dev;
	}
	return sizeof(*a);
}

/* gx_consume() over the descriptors of the request. */
static long consume(const void *in, size_t len, void *out, size_t cap)
{
	const struct gx_consume_in *q = WK_IN(struct gx_consume_in, in, len);
	struct gx_consume_out *a = out;

	if (!q || q->n > GX_MAXN || cap < sizeof(*a))
		return -1;
	memset(a->res, 0xa5, sizeof(a->res));
	a->ret = gx_consume(reg, 2, q->d, a->res, q->n);
	return sizeof(*a);
}

const struct wk_op wk_ops[] = {
	{ "regions", regions },
	{ "consume", consume },
	{ 0 },
};
