/* SPDX-License-Identifier: MIT */
/*
 * The consumer and the device-memory interface.
 *
 *   test-gpu-consumer sim    the consumer's verdicts against the frame
 *                            parser's, then the emulated GPU end to end
 *   test-gpu-consumer cuda   the same on a real GPU (77 without one)
 *
 * End to end: payloads copied to device memory all check good; one byte
 * corrupted in device memory is caught; frames a "NIC" wrote and frames
 * read in registered host memory check good; addresses the GPU cannot
 * reach are refused; the figures for the report add up. On a real GPU,
 * the kernel's verdicts on a mixed batch (good, corrupted, cut short)
 * must be the emulated GPU's, field for field.
 *
 * The emulated GPU is as strict as a real one where a path could get it
 * wrong: a copy's source read only when the stream is synchronised (a
 * buffer reused before that arrives changed), and memory registered for a
 * NIC closed to the CPU (a read faults).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "gpu_test.h"

#define NPKT 256
#define SLOT 2048

const struct pl_frame_spec gpu_test_spec = {
	.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
	.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
	.src_ip = 0xc6120001,
	.dst_ip = 0xc6120002,
	.src_port = 40000,
	.dst_port = PL_UDP_PORT,
	.vlan_tci = 0x2064,
	.ttl = 64,
};

/* The consumer and the parser agree on frame f of len bytes. */
static void agree_frame(const uint8_t *f, size_t len, uint16_t port)
{
	struct pl_gpu_desc d = { .len = (uint32_t)len,
				 .port = port,
				 .frame = 1 };
	struct pl_gpu_res r;
	struct pl_pkt p;
	enum pl_reason want = pl_parse_frame(f, len, port, &p);

	plc_check(f, &d, &r);
	CHECK_EQ_U(r.reason, want);
	if (want == PL_OK && r.reason == PL_OK) {
		CHECK_EQ_U(r.seq, p.seq);
		CHECK_EQ_U(r.tx_ns, p.tx_ns);
		CHECK_EQ_U(r.flow, p.flow);
		CHECK_EQ_U(r.flags, p.flags);
		CHECK_EQ_U(r.payload_len, p.payload_len);
	}
}

/* The consumer and the parser agree on payload b of len bytes. */
static void agree_payload(const uint8_t *b, size_t len)
{
	struct pl_gpu_desc d = { .len = (uint32_t)len };
	struct pl_gpu_res r;
	struct pl_pkt p;

	plc_check(b, &d, &r);
	CHECK_EQ_U(r.reason, pl_parse_payload(b, len, &p));
	if (r.reason == PL_OK)
		CHECK_EQ_U(r.seq, p.seq);
}

/* Every size, every malformation, and random bit flips. */
static void test_agreement(void)
{
	struct pl_frame_spec s = gpu_test_spec;
	uint8_t f[2048];
	size_t len, i;
	unsigned n, why;

	for (n = 0; n <= 1500; n += 7) {
		s.vlan = n & 1;
		len = pl_build_frame(f, sizeof(f), &s, n < 18 ? 18 : n, 3, n,
				     1000 + n);
		agree_frame(f, len, PL_UDP_PORT);
		agree_frame(f, len, 0);
		agree_frame(f, len, 9001); /* other port */
		agree_payload(f + len - (n < 18 ? 18 : n), n < 18 ? 18 : n);
		agree_payload(f, n < 18 ? n : 17); /* too short */
	}
	for (why = PL_BAD_ETH_TRUNC; why < PL_REASON_FRAME_MAX; why++) {
		len = pl_build_bad_frame(f, sizeof(f), &gpu_test_spec, why, why,
					 5);
		CHECK(len > 0);
		agree_frame(f, len, PL_UDP_PORT);
	}
	srand(1);
	for (n = 0; n < 20000; n++) {
		len = pl_build_frame(f, sizeof(f), &gpu_test_spec,
				     18 + rand() % 300, 1, n, n);
		for (i = 0; i < 1 + (unsigned)rand() % 3; i++)
			f[rand() % len] ^= (uint8_t)(1 << (rand() % 8));
		agree_frame(f, len - (unsigned)rand() % 3, PL_UDP_PORT);
	}
}

/* A child that touches the device address dies of SIGSEGV (sim). */
static void test_no_cpu_access(void *dev)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);	 /* not a sanitizer's handler */
		_exit(*(volatile uint8_t *)dev); /* must fault */
	}
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
}

/* Build payloads into host slots and point descriptors at base. */
static void fill(uint8_t *host, struct pl_gpu_batch *b, uint64_t base)
{
	unsigned i, len;

	for (i = 0; i < NPKT; i++) {
		len = PL_HDR_LEN + i * 5;
		pl_build_payload(host + (size_t)i * SLOT, len, 2, i, 77);
		b->desc[i] =
			(struct pl_gpu_desc){ .addr = base + (uint64_t)i * SLOT,
					      .len = len };
	}
}

/* Count the results that checked good with their own sequence number. */
static unsigned good(const struct pl_gpu_batch *b)
{
	unsigned i, n = 0;

	for (i = 0; i < NPKT; i++)
		n += b->res[i].reason == PL_OK && b->res[i].seq == i;
	return n;
}

/* Copied to device memory, all good; one byte flipped there, caught. */
static void test_copy_and_corrupt(struct pl_gpu *g, struct pl_gpu_batch *b,
				  uint8_t *host, size_t len)
{
	uint8_t *dev = pl_gpu_dev_alloc(g, len, 0);
	uint64_t at = 37 * SLOT + 20; /* inside payload 37's pattern */

	CHECK(dev != NULL);
	if (!dev)
		return;
	if (g->kind == PL_GPU_SIM)
		test_no_cpu_access(dev);
	fill(host, b, (uintptr_t)dev);
	CHECK_EQ_U(pl_gpu_copy_h2d(g, (uintptr_t)dev, host, len, NPKT), 0);
	CHECK_EQ_U(pl_gpu_consume(g, b, NPKT), 0);
	CHECK_EQ_U(good(b), NPKT);
	/* The corruption happens in device memory, after the copy. */
	host[len - 1] = host[at] ^ 0x10;
	CHECK_EQ_U(
		pl_gpu_copy_h2d(g, (uintptr_t)dev + at, host + len - 1, 1, 0),
		0);
	CHECK_EQ_U(pl_gpu_consume(g, b, NPKT), 0);
	CHECK_EQ_U(good(b), NPKT - 1);
	CHECK_EQ_U(b->res[37].reason, PL_BAD_CHECK);
	CHECK_EQ_U(g->acct.bad, 1);
	CHECK_EQ_U(g->acct.bad_by_reason[PL_BAD_CHECK], 1);
	/* Not from unpinned memory, not beyond the allocation. */
	CHECK_EQ_U(pl_gpu_copy_h2d(g, (uintptr_t)dev, &at, 1, 0), -EFAULT);
	CHECK_EQ_U(pl_gpu_copy_h2d(g, (uintptr_t)dev + len, host, 1, 0),
		   -EFAULT);
	pl_gpu_dev_free(g, dev);
}

/* Read in place: registered host memory; refused once unregistered. */
static void test_mapped_and_reach(struct pl_gpu *g, struct pl_gpu_batch *b)
{
	size_t len = (size_t)NPKT * SLOT;
	uint8_t *h = aligned_alloc(4096, len);
	uint64_t dev = 0;

	CHECK(h != NULL);
	if (!h)
		return;
	/* Unified addressing: any registered range is mapped for kernels. */
	CHECK_EQ_U(pl_gpu_host_register(g, h, len, 0, &dev), 0);
	fill(h, b, dev);
	CHECK_EQ_U(pl_gpu_consume(g, b, NPKT), 0);
	CHECK_EQ_U(good(b), NPKT);
	CHECK_EQ_U(g->acct.mapped_pkts, NPKT);
	pl_gpu_host_unregister(g, h);
	CHECK_EQ_U(pl_gpu_consume(g, b, NPKT), -EFAULT); /* unregistered */
	free(h);
}

/*
 * A missing stream sync: the source of a queued copy rewritten before
 * the consumer ran. The emulated GPU copies only at the sync, so the new
 * bytes arrive and the packet fails its check, every time; a real GPU
 * races (the copy engine may or may not have read it yet).
 */
static void test_missing_sync(struct pl_gpu *g, struct pl_gpu_batch *b,
			      uint8_t *host, size_t len)
{
	uint8_t *dev = pl_gpu_dev_alloc(g, len, 0);

	CHECK(dev != NULL);
	if (!dev || g->kind != PL_GPU_SIM)
		goto out;
	fill(host, b, (uintptr_t)dev);
	CHECK_EQ_U(pl_gpu_copy_h2d(g, (uintptr_t)dev, host, len, NPKT), 0);
	host[5 * SLOT + 20] ^= 0x01; /* the buffer reused too early */
	CHECK_EQ_U(pl_gpu_consume(g, b, NPKT), 0);
	CHECK_EQ_U(good(b), NPKT - 1);
	CHECK_EQ_U(b->res[5].reason, PL_BAD_CHECK);
	host[5 * SLOT + 20] ^= 0x01; /* and right: after the consumer */
	CHECK_EQ_U(pl_gpu_copy_h2d(g, (uintptr_t)dev, host, len, NPKT), 0);
	CHECK_EQ_U(pl_gpu_consume(g, b, NPKT), 0);
	CHECK_EQ_U(good(b), NPKT);
out:
	pl_gpu_dev_free(g, dev);
}

/*
 * A "NIC" writes frames into device memory (sim only: the test writes
 * them before the registration, as the NIC would after it); once the
 * memory is registered for the NIC, the CPU cannot read it, the consumer
 * can.
 */
static void test_nic_writes(struct pl_gpu *g, struct pl_gpu_batch *b)
{
	uint8_t *dev =
		pl_gpu_dev_alloc(g, (size_t)NPKT * SLOT, PL_GPU_NIC_WRITES);
	unsigned i;
	size_t len;

	CHECK(dev != NULL);
	CHECK((uintptr_t)dev % 4096 == 0);
	if (!dev || g->kind != PL_GPU_SIM)
		goto out; /* a real NIC is not at hand */
	for (i = 0; i < NPKT; i++) {
		len = pl_build_frame(dev + (size_t)i * SLOT, SLOT,
				     &gpu_test_spec, PL_HDR_LEN + i, 4, i, 0);
		b->desc[i] = (struct pl_gpu_desc){
			.addr = (uintptr_t)dev + (uint64_t)i * SLOT,
			.len = (uint32_t)len,
			.port = PL_UDP_PORT,
			.frame = 1,
		};
		pl_gpu_nic_wrote(g, 1, len);
	}
	CHECK(pl_gpu_in_device(g, b->desc[9].addr, b->desc[9].len));
	CHECK(!pl_gpu_in_device(g, (uintptr_t)b, 1));
	pl_gpu_nic_registered(g, dev);
	test_no_cpu_access(dev + 9 * SLOT); /* a stray read of a frame */
	CHECK_EQ_U(pl_gpu_consume(g, b, NPKT), 0);
	CHECK_EQ_U(good(b), NPKT);
	CHECK_EQ_U(pl_gpu_flush_nic_writes(g), 0);
out:
	pl_gpu_dev_free(g, dev);
}

/* The run's figures: copies and crossings per packet, their source. */
static void test_report(struct pl_gpu *g)
{
	struct pl_report r = { .copies_per_packet = 1,
			       .copies_note = "kernel to user" };
	double n = (double)g->acct.checked;

	pl_gpu_report(g, &r);
	CHECK(!strcmp(r.gpu, g->kind == PL_GPU_SIM ? "sim" : "cuda"));
	CHECK(!strcmp(r.copies_source,
		      g->kind == PL_GPU_SIM ? "modelled" : "by_design"));
	CHECK(!strcmp(r.pcie_source, r.copies_source));
	CHECK(r.copies_per_packet == 1 + (double)g->acct.h2d_pkts / n);
	CHECK(r.pcie_crossings_per_packet ==
	      (double)(g->acct.h2d_pkts + g->acct.nic_dma_pkts +
		       g->acct.mapped_pkts) /
		      n);
	CHECK_EQ_U(r.gpu_verified, g->acct.verified);
	/* One corrupted in device memory; in sim one more, the early reuse. */
	CHECK_EQ_U(r.gpu_bad, g->kind == PL_GPU_SIM ? 2 : 1);
	CHECK(r.gpu_json != NULL && strstr(r.copies_note, "kernel to user"));
}

/*
 * Device memory as a dma-buf: a real GPU may, the emulated one cannot.
 * An odd length (the verbs ring at an odd --depth) is rounded up to whole
 * pages, inside the allocation: not refused as out of bounds.
 */
static void test_dmabuf(struct pl_gpu *g)
{
	size_t len = 2047 * 2048 + 100; /* no page multiple */
	void *dev = pl_gpu_dev_alloc(g, len, PL_GPU_NIC_WRITES);
	int fd = -1, err;

	CHECK(dev != NULL);
	CHECK(pl_gpu_in_device(g, (uintptr_t)dev,
			       (len + PL_GPU_PAGE - 1) / PL_GPU_PAGE *
				       PL_GPU_PAGE));
	err = pl_gpu_export_dmabuf(g, dev, len, &fd);
	/* A real GPU may lack it (driver, kernel): the GPU check says why. */
	if (g->kind == PL_GPU_SIM)
		CHECK_EQ_U(err, -EOPNOTSUPP);
	else
		CHECK(err || fd >= 0);
	printf("dma-buf export: %s\n", err ? strerror(-err) : "ok");
	if (fd >= 0)
		close(fd);
	pl_gpu_dev_free(g, dev);
}

int main(int argc, char **argv)
{
	enum pl_gpu_kind kind =
		argc > 1 && !strcmp(argv[1], "cuda") ? PL_GPU_CUDA : PL_GPU_SIM;
	size_t len = (size_t)NPKT * SLOT;
	struct pl_gpu_batch b;
	struct pl_gpu *g;
	char why[256] = "";
	uint8_t *host;
	int err, fd;

	err = pl_gpu_open(&g, kind, NULL, why, sizeof(why));
	if (err == -ENODEV || err == -ENOENT) {
		printf("SKIP: --gpu %s: %s\n", pl_gpu_kinds[kind], why);
		return 77;
	}
	if (err)
		printf("--gpu %s: %s\n", pl_gpu_kinds[kind], why);
	CHECK_EQ_U(err, 0);
	if (err)
		return CHECK_DONE();
	printf("backend %s: %s %s (%s; %s)\n", pl_gpu_kinds[kind], g->device,
	       g->pci, g->picked, g->software);
	test_agreement();
	host = aligned_alloc(4096, len);
	CHECK(host != NULL);
	CHECK_EQ_U(pl_gpu_host_register(g, host, len, 0, NULL), 0);
	CHECK_EQ_U(pl_gpu_batch_init(g, &b, NPKT), 0);
	test_copy_and_corrupt(g, &b, host, len);
	test_mapped_and_reach(g, &b);
	test_missing_sync(g, &b, host, len);
	test_nic_writes(g, &b);
	test_report(g);
	test_dmabuf(g);
	err = pl_gpu_export_dmabuf(g, &b, 4096, &fd); /* not device memory */
	CHECK_EQ_U(err, -EFAULT);
	if (kind == PL_GPU_CUDA)
		gpu_test_against_sim(g);
	pl_gpu_batch_free(g, &b);
	pl_gpu_host_unregister(g, host);
	pl_gpu_close(g);
	free(host);
	return CHECK_DONE();
}
