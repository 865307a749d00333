/* SPDX-License-Identifier: MIT */
/*
 * pathlab-gpu-check: what this machine's GPU can do for the GPUDirect
 * variants, in one program that needs only the CUDA toolkit and driver
 * (no DPDK, libbpf or verbs). Built by meson, or from the top of the tree:
 *
 *   nvcc -O2 -Icommon -gencode=arch=compute_80,code=sm_80 \
 *        -gencode=arch=compute_90,code=[sm_90,compute_90] \
 *        -o pathlab-gpu-check gpudirect/gpu_check.cu
 *
 *   pathlab-gpu-check [--pci ADDR]     the GPU at ADDR (default: CUDA's 0)
 *
 * Checks, each one line "check NAME: ok|FAILED|skipped  key=value ...":
 *   device    which GPU, where (PCI, NUMA node), driver and runtime
 *   memops    device memory with CU_POINTER_ATTRIBUTE_SYNC_MEMOPS set
 *   ordering  how the GPU orders a NIC's writes for its kernels, and
 *             cudaDeviceFlushGPUDirectRDMAWrites where it does not
 *   mapped    host memory registered mapped, read in place by a kernel
 *   copy      host-to-device bandwidth from pinned and pageable memory
 *   consumer  the consumer kernel (consumer.h) on a good batch, then on
 *             the same batch with bytes corrupted in device memory, and
 *             on frames read in place from mapped host memory
 *   dmabuf    device memory exported as a dma-buf (for ibv_reg_dmabuf_mr)
 * Exit: 0 when every check that ran passed, 1 when one failed (a GPU that
 * is there and cannot be used, a driver older than this runtime, is a
 * failure), 77 when there is no GPU. It takes a few seconds.
 */
#define _Static_assert static_assert /* wire.h is C11 */
#include "consumer.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MiB	   (1024u * 1024u)
#define NPKT	   1024 /* a batch: half payloads, half frames */
#define SLOT	   2048 /* bytes per packet in the buffers */
#define DRIVER_API 12000

static int failed;

/* Print one check's verdict line and count failures. */
static void verdict(const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	printf("check %-9s %s  ", name,
	       ok > 0 ? "ok"
	       : ok   ? "skipped"
		      : "FAILED");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failed++;
}

/* A driver call through the runtime: no link against libcuda needed. */
static void *driver_call(const char *name)
{
	cudaDriverEntryPointQueryResult q;
	void *fn = NULL;

	if (cudaGetDriverEntryPointByVersion(name, &fn, DRIVER_API,
					     cudaEnableDefault, &q) ||
	    q != cudaDriverEntryPointSuccess)
		return NULL;
	return fn;
}

/* Seconds between two events recorded on the default stream. */
static double elapsed_s(cudaEvent_t a, cudaEvent_t b)
{
	float ms = 0;

	cudaEventElapsedTime(&ms, a, b);
	return ms / 1e3;
}

/* The NVIDIA GPUs on PCI (vendor 0x10de, class 0x03xxxx), from sysfs. */
static int pci_gpus(void)
{
	char path[300], v[16], c[16];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir("/sys/bus/pci/devices");
	FILE *f;

	while (d && (de = readdir(d))) {
		v[0] = c[0] = '\0';
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor",
			 de->d_name);
		if ((f = fopen(path, "r"))) {
			if (!fgets(v, sizeof(v), f))
				v[0] = '\0';
			fclose(f);
		}
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/class",
			 de->d_name);
		if ((f = fopen(path, "r"))) {
			if (!fgets(c, sizeof(c), f))
				c[0] = '\0';
			fclose(f);
		}
		n += !strncmp(v, "0x10de", 6) && !strncmp(c, "0x03", 4);
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * The GPU (at pci_want, or CUDA's first), its place and its software.
 * Exits 77 where there is no GPU, 1 where one is there and unusable.
 */
static int check_device(const char *pci_want, struct cudaDeviceProp *prop,
			char *pci, size_t len)
{
	int n = 0, drv = 0, rt = 0, node = -1, dev = 0, on_pci = pci_gpus();
	char path[128];
	cudaError_t e = cudaGetDeviceCount(&n);
	FILE *f;

	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	if ((e || !n) && !on_pci) {
		printf("check device    skipped  no GPU: %s (driver %d, "
		       "runtime %d)\n",
		       !drv ? "no CUDA driver"
		       : e  ? cudaGetErrorString(e)
			    : "no device",
		       drv, rt);
		exit(77);
	}
	if (e || !n) {
		verdict("device", 0,
			"gpus_on_pci=%d but CUDA: %s (driver %d.%d, runtime "
			"%d.%d%s)",
			on_pci,
			!drv ? "no CUDA driver loads" : cudaGetErrorString(e),
			drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10,
			drv && drv < rt ? ": the driver is older than this "
					  "runtime; rebuild with this "
					  "machine's toolkit"
					: "");
		exit(1);
	}
	if (pci_want && (e = cudaDeviceGetByPCIBusId(&dev, pci_want))) {
		verdict("device", 0, "no CUDA device at %s: %s", pci_want,
			cudaGetErrorString(e));
		exit(1);
	}
	cudaSetDevice(dev);
	cudaGetDeviceProperties(prop, dev);
	snprintf(pci, len, "%04x:%02x:%02x.0", prop->pciDomainID,
		 prop->pciBusID, prop->pciDeviceID);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", pci);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &node) != 1)
			node = -1;
		fclose(f);
	}
	verdict("device", 1,
		"name=\"%s\" sm=%d%d memory_mib=%zu pci=%s numa_node=%d "
		"devices=%d driver=%d runtime=%d",
		prop->name, prop->major, prop->minor,
		(size_t)(prop->totalGlobalMem / MiB), pci, node, n, drv, rt);
	return dev;
}

/*
 * How the GPU orders a NIC's writes for its own kernels. A kernel
 * launched after the CPU saw the NIC's completion sees the data; one
 * already running needs a flush, unless the GPU orders them (owner or
 * all_devices): then the flush is a no-op.
 */
static void check_ordering(int dev)
{
	int rdma = 0, order = 0, opts = 0;
	cudaError_t e = cudaSuccess;

	cudaDeviceGetAttribute(&rdma, cudaDevAttrGPUDirectRDMASupported, dev);
	cudaDeviceGetAttribute(&order, cudaDevAttrGPUDirectRDMAWritesOrdering,
			       dev);
	cudaDeviceGetAttribute(&opts,
			       cudaDevAttrGPUDirectRDMAFlushWritesOptions, dev);
	if (opts & cudaFlushGPUDirectRDMAWritesOptionHost)
		e = cudaDeviceFlushGPUDirectRDMAWrites(
			cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
			cudaFlushGPUDirectRDMAWritesToOwner);
	verdict("ordering", rdma && !e,
		"gpudirect_rdma=%d writes_ordering=%s flush_host=%d "
		"flush_memops=%d flush=%s",
		rdma,
		order >= 200   ? "all_devices"
		: order >= 100 ? "owner"
			       : "none",
		!!(opts & cudaFlushGPUDirectRDMAWritesOptionHost),
		!!(opts & cudaFlushGPUDirectRDMAWritesOptionMemOps),
		opts & cudaFlushGPUDirectRDMAWritesOptionHost
			? cudaGetErrorString(e)
			: "not offered");
}

/* Device memory a NIC may DMA into: the SYNC_MEMOPS attribute. */
static void check_memops(void)
{
	typedef CUresult (*set_fn)(const void *, CUpointer_attribute,
				   CUdeviceptr);
	typedef CUresult (*get_fn)(void *, CUpointer_attribute, CUdeviceptr);
	set_fn set = (set_fn)driver_call("cuPointerSetAttribute");
	get_fn get = (get_fn)driver_call("cuPointerGetAttribute");
	unsigned one = 1, back = 0;
	void *d = NULL;
	CUresult rs = CUDA_ERROR_NOT_FOUND, rg = CUDA_ERROR_NOT_FOUND;

	if (cudaMalloc(&d, 64 * MiB)) {
		verdict("memops", 0, "cudaMalloc of 64 MiB failed");
		return;
	}
	if (set)
		rs = set(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
			 (CUdeviceptr)(uintptr_t)d);
	if (get)
		rg = get(&back, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
			 (CUdeviceptr)(uintptr_t)d);
	verdict("memops", rs == CUDA_SUCCESS && rg == CUDA_SUCCESS && back == 1,
		"bytes=%u set=%d get=%d sync_memops=%u", 64 * MiB, (int)rs,
		(int)rg, back);
	cudaFree(d);
}

/* Sum n words, as a kernel reading wherever p points. */
__global__ void sum_kernel(const uint32_t *p, size_t n, unsigned long long *out)
{
	unsigned long long s = 0;
	size_t i;

	for (i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		s += p[i];
	atomicAdd(out, s);
}

/* Host memory registered mapped: a kernel reads it in place over PCIe. */
static void check_mapped(void)
{
	const size_t len = 64 * MiB, n = len / 4;
	unsigned long long want = 0, got = 0, *dsum = NULL;
	uint32_t *h = (uint32_t *)aligned_alloc(4096, len), *dv = NULL;
	cudaEvent_t a, b;
	cudaError_t e;
	size_t i;

	if (!h || cudaMalloc(&dsum, sizeof(*dsum))) {
		verdict("mapped", 0, "allocation failed");
		free(h);
		return;
	}
	for (i = 0; i < n; i++) {
		h[i] = (uint32_t)(i * 2654435761u);
		want += h[i];
	}
	e = cudaHostRegister(h, len, cudaHostRegisterMapped);
	if (!e)
		e = cudaHostGetDevicePointer((void **)&dv, h, 0);
	if (e) {
		verdict("mapped", 0, "cudaHostRegister(Mapped): %s",
			cudaGetErrorString(e));
		goto out;
	}
	cudaEventCreate(&a);
	cudaEventCreate(&b);
	cudaMemset(dsum, 0, sizeof(*dsum));
	cudaEventRecord(a);
	sum_kernel<<<256, 256>>>(dv, n, dsum);
	cudaEventRecord(b);
	e = cudaEventSynchronize(b);
	cudaMemcpy(&got, dsum, sizeof(got), cudaMemcpyDeviceToHost);
	verdict("mapped", !e && got == want,
		"bytes=%zu sum_matches=%d read_gbps=%.1f", len, got == want,
		len / elapsed_s(a, b) / 1e9);
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	cudaHostUnregister(h);
out:
	cudaFree(dsum);
	free(h);
}

/* Host-to-device bandwidth of reps copies of len bytes from src. */
static double h2d_gbps(void *dst, const void *src, size_t len, int reps)
{
	cudaEvent_t a, b;
	double s;
	int i;

	cudaEventCreate(&a);
	cudaEventCreate(&b);
	cudaMemcpy(dst, src, len, cudaMemcpyHostToDevice); /* warm up */
	cudaEventRecord(a);
	for (i = 0; i < reps; i++)
		cudaMemcpyAsync(dst, src, len, cudaMemcpyHostToDevice, 0);
	cudaEventRecord(b);
	cudaEventSynchronize(b);
	s = elapsed_s(a, b);
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	return s > 0 ? (double)len * reps / s / 1e9 : 0;
}

/* Why the NIC's buffers are pinned: pinned against pageable copies. */
static void check_copy(void)
{
	const size_t len = 256 * MiB;
	void *d = NULL, *pinned = NULL, *pageable = malloc(len);
	double gp = 0, gq = 0;

	if (!pageable || cudaMalloc(&d, len) ||
	    cudaHostAlloc(&pinned, len, cudaHostAllocDefault)) {
		verdict("copy", 0, "allocation of 3 x 256 MiB failed");
		goto out;
	}
	memset(pageable, 1, len);
	memset(pinned, 1, len);
	gp = h2d_gbps(d, pinned, len, 8);
	gq = h2d_gbps(d, pageable, len, 8);
	verdict("copy", gp > 0 && gq > 0 && !cudaGetLastError(),
		"bytes=%zu pinned_gbps=%.1f pageable_gbps=%.1f ratio=%.2f", len,
		gp, gq, gq > 0 ? gp / gq : 0);
out:
	cudaFreeHost(pinned);
	cudaFree(d);
	free(pageable);
}

/* Store a big-endian 16-bit value. */
static void put16(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* A pathlab payload of len bytes (wire.h): header, pattern, check. */
static void build_payload(uint8_t *b, uint32_t len, uint32_t seq)
{
	uint32_t i, c;

	put16(b, PL_MAGIC);
	b[2] = PL_VERSION;
	b[3] = 1; /* flow */
	put16(b + 4, seq >> 16);
	put16(b + 6, seq);
	memset(b + 8, 0, 8); /* tx_ns: 0, latency plays no part here */
	put16(b + 16, 0);
	for (i = PL_HDR_LEN; i < len; i++)
		b[i] = (uint8_t)(seq + i);
	c = ~plc_sum(b, len) & 0xffff;
	put16(b + 16, c ? c : 0xffff);
}

/* An Ethernet/IPv4/UDP frame to port 9000 around a payload; its length. */
static uint32_t build_frame(uint8_t *f, uint32_t payload, uint32_t seq)
{
	uint8_t *ip = f + PL_ETH_LEN, *udp = ip + PL_IP4_LEN;

	memset(f, 0, PL_ETH_LEN + PL_IP4_LEN + PL_UDP_LEN);
	memset(f, 0x02, 12); /* locally administered MACs */
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, PL_IP4_LEN + PL_UDP_LEN + payload);
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = 17;
	put16(ip + 12, 0xc612); /* 198.18.0.1 -> 198.18.0.2 */
	put16(ip + 14, 0x0001);
	put16(ip + 16, 0xc612);
	put16(ip + 18, 0x0002);
	put16(ip + 10, ~plc_sum(ip, PL_IP4_LEN) & 0xffff);
	put16(udp, 40000);
	put16(udp + 2, PL_UDP_PORT);
	put16(udp + 4, PL_UDP_LEN + payload);
	build_payload(udp + PL_UDP_LEN, payload, seq);
	return PL_ETH_LEN + PL_IP4_LEN + PL_UDP_LEN + payload;
}

/* Fill the batch: even slots payloads, odd slots frames; descs at base. */
static void build_batch(uint8_t *h, struct pl_gpu_desc *d, uint64_t base)
{
	uint32_t i, len;

	for (i = 0; i < NPKT; i++) {
		len = PL_HDR_LEN + (i * 37) % (1472 - PL_HDR_LEN);
		if (i & 1)
			len = build_frame(h + (size_t)i * SLOT, len, i);
		else
			build_payload(h + (size_t)i * SLOT, len, i);
		d[i] = (struct pl_gpu_desc){
			.addr = base + (uint64_t)i * SLOT,
			.len = len,
			.port = (uint16_t)((i & 1) ? PL_UDP_PORT : 0),
			.frame = (uint8_t)(i & 1),
			.pad = 0
		};
	}
}

/* Run the consumer kernel (as consumer.cu does); count the verdicts. */
__global__ void consumer_kernel(const struct pl_gpu_desc *d,
				struct pl_gpu_res *r, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		plc_check((const uint8_t *)(uintptr_t)d[i].addr, &d[i], &r[i]);
}

/* Launch over the batch, wait; the good count, -1 on a CUDA error. */
static int consume(const struct pl_gpu_desc *d, struct pl_gpu_res *r,
		   double *us)
{
	cudaEvent_t a, b;
	int i, good = 0;

	/* A launch first, untimed: module loading and first-launch costs. */
	consumer_kernel<<<(NPKT + 127) / 128, 128>>>(d, r, NPKT);
	cudaDeviceSynchronize();
	cudaEventCreate(&a);
	cudaEventCreate(&b);
	cudaEventRecord(a);
	consumer_kernel<<<(NPKT + 127) / 128, 128>>>(d, r, NPKT);
	cudaEventRecord(b);
	if (cudaEventSynchronize(b) || cudaGetLastError())
		good = -1;
	*us = elapsed_s(a, b) * 1e6;
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	for (i = 0; good >= 0 && i < NPKT; i++)
		good += r[i].reason == PL_OK && r[i].seq == (uint32_t)i;
	return good;
}

/* The consumer on a good batch, a corrupted one, and in mapped memory. */
static void check_consumer(void)
{
	const size_t len = (size_t)NPKT * SLOT;
	struct pl_gpu_desc *d = NULL, *dd;
	struct pl_gpu_res *r = NULL, *rd;
	uint8_t *h = NULL, *dev = NULL, *hv, flip;
	size_t at_pay = 100 * SLOT + PL_HDR_LEN - 1; /* payload 100's check */
	size_t at_ip = 301 * SLOT + PL_ETH_LEN + 8;  /* frame 301's TTL */
	int good, bad_pay, bad_ip, mapped;
	double t1 = 0, t2 = 0, t3 = 0;

	if (cudaHostAlloc(&h, len, cudaHostAllocMapped) ||
	    cudaHostAlloc(&d, NPKT * sizeof(*d), cudaHostAllocMapped) ||
	    cudaHostAlloc(&r, NPKT * sizeof(*r), cudaHostAllocMapped) ||
	    cudaMalloc(&dev, len) ||
	    cudaHostGetDevicePointer((void **)&dd, d, 0) ||
	    cudaHostGetDevicePointer((void **)&rd, r, 0) ||
	    cudaHostGetDevicePointer((void **)&hv, h, 0)) {
		verdict("consumer", 0, "allocation failed");
		goto out;
	}
	/* 1. Copied to device memory: every packet checks good. */
	build_batch(h, d, (uintptr_t)dev);
	cudaMemcpy(dev, h, len, cudaMemcpyHostToDevice);
	good = consume(dd, rd, &t1);
	/* 2. One byte flipped in device memory: payload 100, frame 301's IP. */
	flip = h[at_pay] ^ 0xff;
	cudaMemcpy(dev + at_pay, &flip, 1, cudaMemcpyHostToDevice);
	flip = h[at_ip] ^ 0xff;
	cudaMemcpy(dev + at_ip, &flip, 1, cudaMemcpyHostToDevice);
	consume(dd, rd, &t2);
	bad_pay = r[100].reason == PL_BAD_CHECK;
	bad_ip = r[301].reason == PL_BAD_IP_CSUM;
	/* 3. Read in place from mapped host memory: all good again. */
	build_batch(h, d, (uintptr_t)hv);
	mapped = consume(dd, rd, &t3);
	verdict("consumer", good == NPKT && bad_pay && bad_ip && mapped == NPKT,
		"packets=%d good=%d corrupted_payload_caught=%d "
		"corrupted_ip_caught=%d mapped_good=%d kernel_us=%.1f "
		"mapped_kernel_us=%.1f",
		NPKT, good, bad_pay, bad_ip, mapped, t1, t3);
out:
	cudaFree(dev);
	cudaFreeHost(r);
	cudaFreeHost(d);
	cudaFreeHost(h);
}

/* Device memory as a dma-buf: the RDMA path's way to register it. */
static void check_dmabuf(int dev)
{
	typedef CUresult (*attr_fn)(int *, CUdevice_attribute, CUdevice);
	typedef CUresult (*dev_fn)(CUdevice *, int);
	typedef CUresult (*handle_fn)(void *, CUdeviceptr, size_t,
				      CUmemRangeHandleType, unsigned long long);
	attr_fn attr = (attr_fn)driver_call("cuDeviceGetAttribute");
	dev_fn get = (dev_fn)driver_call("cuDeviceGet");
	handle_fn handle =
		(handle_fn)driver_call("cuMemGetHandleForAddressRange");
	const size_t len = 2 * MiB; /* host-page aligned, as required */
	CUdevice cd;
	CUresult res;
	void *d = NULL;
	int ok = 0, fd = -1;

	if (!attr || !get || !handle || get(&cd, dev) ||
	    attr(&ok, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, cd) || !ok) {
		verdict("dmabuf", -1,
			"supported=0 (driver or kernel without "
			"dma-buf for GPU memory; nvidia-peermem "
			"is the other way)");
		return;
	}
	if (cudaMalloc(&d, len)) {
		verdict("dmabuf", 0, "cudaMalloc failed");
		return;
	}
	res = handle(&fd, (CUdeviceptr)(uintptr_t)d, len,
		     CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	verdict("dmabuf", res == CUDA_SUCCESS && fd >= 0,
		"supported=1 bytes=%zu result=%d fd=%d", len, (int)res, fd);
	if (fd >= 0)
		close(fd);
	cudaFree(d);
}

int main(int argc, char **argv)
{
	const char *want = NULL;
	struct cudaDeviceProp prop;
	char pci[32];
	int dev;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--pci")) {
		want = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "usage: pathlab-gpu-check [--pci ADDR]\n");
		return 2;
	}
	dev = check_device(want, &prop, pci, sizeof(pci));
	check_memops();
	check_ordering(dev);
	check_mapped();
	check_copy();
	check_consumer();
	check_dmabuf(dev);
	printf("gpu-check: %s\n",
	       failed ? "FAILED" : "all checks that ran passed");
	return failed ? 1 : 0;
}
