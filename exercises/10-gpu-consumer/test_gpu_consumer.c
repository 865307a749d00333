/* SPDX-License-Identifier: MIT */
/*
 * Graded tests of exercise 10: the consumer on an emulated GPU. As in
 * gpudirect/gpu_sim.c, "device memory" is one memfd mapped twice: the
 * backend's view, through which the test writes packets and the consumer
 * reads them, and the device address the descriptors carry, which is
 * PROT_NONE: a consumer that reads it directly dies. The memfds are the
 * grader's, shared with the worker (wk_gpu.c), where the student's
 * consumer runs. The references are common/wire.c and the consumer of
 * gpudirect/consumer.h itself, here.
 */
#include "consumer.h"
#include "gpu_rpc.h"
#include "grade.h"
#include "wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define REGION GX_REGION
#define MAXN   GX_MAXN

/* A region as the grader sees it: the device address, its own view. */
struct gx_region {
	uint64_t dev;
	uint8_t *view;
};

static const struct pl_frame_spec spec = {
	.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
	.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
	.src_ip = 0x0a000001,
	.dst_ip = 0x0a000002,
	.src_port = 12345,
	.dst_port = PL_UDP_PORT,
};

static struct gx_region reg[2];
static struct pl_gpu_desc desc[MAXN];
static struct pl_gpu_res res[MAXN];
static size_t used[2];
static unsigned nd;

/* Two regions shared with the worker, no descriptors. */
static void setup(void)
{
	struct gx_regions r;
	int k;

	for (k = 0; k < 2; k++)
		reg[k].view = gr_share(REGION);
	for (k = 0; k < 2; k++) {
		r.fd[k] = (uint32_t)gr_wfd(reg[k].view);
		r.view[k] = gr_waddr(reg[k].view);
	}
	gr_call_exact(GX_REGIONS, &r, sizeof(r), &r, sizeof(r));
	for (k = 0; k < 2; k++)
		reg[k].dev = r.dev[k];
	used[0] = used[1] = 0;
	nd = 0;
	memset(res, 0xa5, sizeof(res));
}

/* Copy len bytes into region k ("the copy engine"); a descriptor to it. */
static void add(unsigned k, const void *bytes, uint32_t len, bool frame)
{
	memcpy(reg[k].view + used[k], bytes, len);
	desc[nd++] = (struct pl_gpu_desc){ .addr = reg[k].dev + used[k],
					   .len = len,
					   .port = frame ? PL_UDP_PORT : 0,
					   .frame = frame };
	used[k] += (len + 7) & ~7u;
}

/* Run the student's consumer over the batch; 0 or its error. */
static int consume(void)
{
	static struct gx_consume_in q;
	static struct gx_consume_out a;

	q.n = nd;
	memcpy(q.d, desc, nd * sizeof(desc[0]));
	gr_context("gx_consume() over %u descriptors", nd);
	gr_call_exact(GX_CONSUME, &q, sizeof(q), &a, sizeof(a));
	gr_context("%s", "");
	memcpy(res, a.res, nd * sizeof(res[0]));
	return a.ret;
}

/* Compare result i with what common/ says about the same bytes. */
static void check_result(unsigned i, const uint8_t *bytes)
{
	struct pl_pkt p;
	enum pl_reason want =
		desc[i].frame
			? pl_parse_frame(bytes, desc[i].len, PL_UDP_PORT, &p)
			: pl_parse_payload(bytes, desc[i].len, &p);

	if (res[i].reason != want) {
		gr_fail_at(__FILE__, __LINE__,
			   "packet %u (%u bytes, %s): %s, expected %s", i,
			   desc[i].len, desc[i].frame ? "frame" : "payload",
			   pl_reason_name(res[i].reason), pl_reason_name(want));
		return;
	}
	if (want == PL_OK &&
	    (res[i].seq != p.seq || res[i].tx_ns != p.tx_ns ||
	     res[i].flow != p.flow || res[i].flags != p.flags ||
	     res[i].payload_len != p.payload_len))
		gr_fail_at(__FILE__, __LINE__,
			   "packet %u: seq %u flow %u flags %#x tx_ns %llu "
			   "len %u, expected %u %u %#x %llu %u",
			   i, res[i].seq, res[i].flow, res[i].flags,
			   (unsigned long long)res[i].tx_ns, res[i].payload_len,
			   p.seq, p.flow, p.flags, (unsigned long long)p.tx_ns,
			   p.payload_len);
}

/* Check every result of the batch. */
static void check_all(void)
{
	unsigned i, k;

	for (i = 0; i < nd && gr_failures < 5; i++) {
		k = desc[i].addr >= reg[1].dev &&
		    desc[i].addr < reg[1].dev + REGION;
		check_result(i, reg[k].view + (desc[i].addr - reg[k].dev));
	}
}

/* Good payloads of many sizes: every field read back. */
static int payload_good(void)
{
	uint8_t b[1500];
	unsigned i;
	size_t len;

	setup();
	for (i = 0; i < 50; i++) {
		len = 18 + i * 29;
		pl_build_payload(b, len, (uint8_t)i, 1000 + i * 7,
				 0x0102030405060708ull + i);
		if (i % 5 == 0) { /* an end marker: flags carry through */
			b[2] |= PL_FLAG_END;
			pl_payload_reseal(b, len);
		}
		add(i % 2, b, (uint32_t)len, false);
	}
	for (i = 0; i < 200; i++) { /* drawn sizes, fields, flags */
		len = 18 + gr_below(1400);
		pl_build_payload(b, len, (uint8_t)gr_rand(),
				 (uint32_t)gr_rand(), gr_rand());
		if (gr_below(4) == 0) {
			b[2] |= PL_FLAG_END;
			pl_payload_reseal(b, len);
		}
		add((unsigned)gr_below(2), b, (uint32_t)len, false);
	}
	GR_EQ_U(consume(), 0);
	check_all();
	return gr_verdict();
}

/* Short, wrong magic, wrong version, corrupted: the first fault wins. */
static int payload_bad(void)
{
	uint8_t b[300];
	unsigned i;

	setup();
	pl_build_payload(b, 100, 1, 1, 1);
	add(0, b, 10, false); /* hdr_trunc */
	b[0] ^= 0xff;
	pl_payload_reseal(b, 100);
	add(0, b, 100, false); /* magic */
	pl_build_payload(b, 100, 1, 2, 2);
	b[2] = PL_VERSION + 1;
	pl_payload_reseal(b, 100);
	add(0, b, 100, false); /* version */
	pl_build_payload(b, 100, 1, 3, 3);
	b[60] ^= 0x10;
	add(0, b, 100, false); /* check: a pattern byte */
	pl_build_payload(b, 101, 1, 4, 4);
	b[100] ^= 0x01;
	add(0, b, 101, false); /* check: the odd last byte */
	pl_build_payload(b, 101, 1, 5, 5);
	add(0, b, 101, false); /* good, odd length */
	b[0] ^= 0xff;
	add(0, b, 101, false);	    /* magic before check */
	for (i = 0; i < 200; i++) { /* drawn: a fault, two, or none */
		size_t len = 18 + gr_below(280);

		pl_build_payload(b, len, 1, (uint32_t)gr_rand(), gr_rand());
		switch (gr_below(5)) {
		case 4: /* none: good among the bad */
			break;
		case 0:
			len = gr_below(18);
			break;
		case 1:
			b[gr_below(2)] ^= (uint8_t)(1 + gr_below(255));
			if (gr_below(2))
				pl_payload_reseal(b, len);
			break;
		case 2:
			b[2] = (uint8_t)gr_rand();
			if (gr_below(2))
				pl_payload_reseal(b, len);
			break;
		default:
			b[4 + gr_below(len - 4)] ^=
				(uint8_t)(1 + gr_below(255));
		}
		add((unsigned)gr_below(2), b, (uint32_t)(len ? len : 1), false);
	}
	GR_EQ_U(consume(), 0);
	check_all();
	return gr_verdict();
}

/* Odd and even lengths, single-bit damage anywhere: the checksum tells. */
static int checksum(void)
{
	uint8_t b[1500];
	unsigned i;
	size_t len;

	setup();
	for (i = 0; i < 400; i++) {
		len = 18 + (size_t)gr_below(1400);
		pl_build_payload(b, len, 2, (uint32_t)gr_rand(), gr_rand());
		if (i % 2)
			b[4 + gr_below(len - 4)] ^=
				(uint8_t)(1u << gr_below(8));
		add(i % 2, b, (uint32_t)len, false);
	}
	GR_EQ_U(consume(), 0);
	check_all();
	return gr_verdict();
}

/* Whole frames: the given header checks, then the payload's. */
static int frames(void)
{
	static const enum pl_reason bad[] = { PL_BAD_IP_CSUM, PL_BAD_UDP_LEN,
					      PL_BAD_MAGIC, PL_BAD_CHECK,
					      PL_BAD_HDR_TRUNC };
	uint8_t f[2048];
	size_t len;
	unsigned i;

	setup();
	for (i = 0; i < 20; i++) {
		len = pl_build_frame(f, sizeof(f), &spec, 18 + i * 50, 4, i,
				     777);
		add(i % 2, f, (uint32_t)len, true);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		len = pl_build_bad_frame(f, sizeof(f), &spec, bad[i], 50 + i,
					 1);
		add(0, f, (uint32_t)len, true);
	}
	for (i = 0; i < 200; i++) { /* drawn frames, some damaged */
		struct pl_frame_spec sp = spec;

		sp.vlan = gr_below(3) == 0;
		sp.vlan_tci = (uint16_t)gr_rand();
		sp.src_ip = (uint32_t)gr_rand();
		sp.dst_port = gr_below(4) ? PL_UDP_PORT : (uint16_t)gr_rand();
		if (gr_below(3))
			len = pl_build_frame(f, sizeof(f), &sp,
					     18 + gr_below(1400),
					     (uint8_t)gr_rand(),
					     (uint32_t)gr_rand(), gr_rand());
		else
			len = pl_build_bad_frame(
				f, sizeof(f), &sp,
				bad[gr_below(sizeof(bad) / sizeof(bad[0]))],
				18 + gr_below(400), (uint32_t)gr_rand());
		add((unsigned)gr_below(2), f, (uint32_t)len, true);
	}
	GR_EQ_U(consume(), 0);
	check_all();
	return gr_verdict();
}

/* Each descriptor read where its region's view has it; else -EFAULT. */
static int addresses(void)
{
	uint8_t b[64];
	unsigned k;
	int err;

	setup();
	pl_build_payload(b, 64, 1, 42, 0);
	used[0] = REGION - 64; /* the very end of region 0 */
	add(0, b, 64, false);
	used[1] = 4096;
	add(1, b, 64, false);
	GR_EQ_U(consume(), 0);
	GR_CHECK(res[0].reason != 0xa5 && res[1].reason != 0xa5,
		 "no result written");
	GR_EQ_U(res[0].payload_len, 64);
	GR_EQ_U(res[1].payload_len, 64);
	/* One byte past the end of region 0: no region holds it all. */
	desc[0].len = 65;
	err = consume();
	GR_CHECK(err == -EFAULT,
		 "a descriptor past its region's end: %d, "
		 "expected -EFAULT (%d)",
		 err, -EFAULT);
	/* Host memory the GPU was never given (the worker's own view). */
	desc[0] = (struct pl_gpu_desc){ .addr = gr_waddr(reg[0].view),
					.len = 64 };
	err = consume();
	GR_CHECK(err == -EFAULT,
		 "a descriptor outside every region: %d, "
		 "expected -EFAULT (%d)",
		 err, -EFAULT);
	/* Drawn: a packet at a drawn place, then one that runs off the end. */
	for (k = 0; k < 20 && !gr_failures; k++) {
		unsigned r = (unsigned)gr_below(2);
		size_t at = gr_below(REGION - 64);

		nd = 0;
		used[r] = at;
		pl_build_payload(b, 64, 1, (uint32_t)gr_rand(), gr_rand());
		add(r, b, 64, false);
		err = consume();
		GR_CHECK(err == 0 && res[0].payload_len == 64 &&
				 res[0].reason == PL_OK,
			 "64 good bytes at offset %zu of region %u: %d, "
			 "length %u, %s",
			 at, r, err, res[0].payload_len,
			 pl_reason_name(res[0].reason));
		desc[0].addr = reg[r].dev + REGION - 1 - gr_below(63);
		desc[0].len = (uint32_t)(REGION - (desc[0].addr - reg[r].dev) +
					 1 + gr_below(100));
		err = consume();
		GR_CHECK(err == -EFAULT,
			 "%u bytes from offset %llu of a %u-byte region: %d, "
			 "expected -EFAULT",
			 desc[0].len,
			 (unsigned long long)(desc[0].addr - reg[r].dev),
			 REGION, err);
	}
	return gr_verdict();
}

/* A random mix, result for result the same as gpudirect's consumer. */
static int matches_consumer(void)
{
	struct pl_gpu_res want;
	uint8_t b[2048];
	unsigned i, k;
	size_t len;

	setup();
	for (i = 0; i < MAXN; i++) {
		if (gr_below(2)) {
			len = pl_build_frame(b, sizeof(b), &spec,
					     18 + gr_below(900), 5,
					     (uint32_t)gr_rand(), gr_rand());
		} else {
			len = 1 + gr_below(900);
			pl_build_payload(b, len < 18 ? 18 : len, 5,
					 (uint32_t)gr_rand(), 1);
		}
		if (gr_below(3) == 0)
			b[gr_below(len)] ^= (uint8_t)(1u << gr_below(8));
		add(i % 2, b, (uint32_t)len, gr_below(2));
	}
	GR_EQ_U(consume(), 0);
	for (i = 0; i < nd && gr_failures < 5; i++) {
		k = desc[i].addr >= reg[1].dev &&
		    desc[i].addr < reg[1].dev + REGION;
		plc_check(reg[k].view + (desc[i].addr - reg[k].dev), &desc[i],
			  &want);
		GR_CHECK(!memcmp(&want, &res[i],
				 offsetof(struct pl_gpu_res, pad)),
			 "packet %u: reason %s seq %u len %u, consumer.h says "
			 "%s %u %u",
			 i, pl_reason_name(res[i].reason), res[i].seq,
			 res[i].payload_len, pl_reason_name(want.reason),
			 want.seq, want.payload_len);
	}
	return gr_verdict();
}

static const struct gr_case cases[] = {
	{ "payload_good", 3, "good payloads: every field read back",
	  payload_good },
	{ "payload_bad", 3, "short, magic, version, corrupted: in order",
	  payload_bad },
	{ "checksum", 2, "the checksum over odd and even lengths", checksum },
	{ "frames", 2, "whole frames through the given header checks", frames },
	{ "addresses", 3, "bytes read through the region's view, or -EFAULT",
	  addresses },
	{ "matches_consumer", 2, "same results as gpudirect/consumer.h",
	  matches_consumer },
	{ 0 }
};

int main(int argc, char **argv)
{
	gr_sandbox(&(struct gr_sandbox){ 0 });
	return gr_main(argc, argv, "10-gpu-consumer", cases);
}
