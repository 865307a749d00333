/* SPDX-License-Identifier: MIT */
/*
 * The GPU figures of a run: the consumer's verdicts, copies and PCIe
 * crossings per packet in the run object, and the nested "gpu_detail"
 * object. The emulated GPU's figures are its account ("modelled"); a real
 * GPU's are the same counts of what the variant did ("by_design": nothing
 * here measures traffic on the bus).
 */
#include "gpu_backend.h"

#include <stdio.h>
#include <string.h>

/* Per packet the consumer checked, or 0. */
static double per_pkt(uint64_t v, uint64_t n)
{
	return n ? (double)v / (double)n : 0;
}

/* What happens on the GPU side of the path, in words. */
static const char *gpu_side(const struct pl_gpu *g)
{
	const struct pl_gpu_acct *a = &g->acct;

	if (a->nic_dma_pkts && g->dma_by)
		return g->dma_by;
	if (a->nic_dma_pkts)
		return "the NIC's DMA lands it in device memory (no CPU copy)";
	if (a->h2d_pkts)
		return "then the copy engine moves it host -> device";
	if (a->mapped_pkts)
		return "the GPU reads it in host memory across PCIe "
		       "(no copy)";
	return "nothing reached the GPU";
}

/* Bytes and packets by the way they reached the GPU. */
static void moved_json(struct pl_json *j, const struct pl_gpu_acct *a)
{
	pl_json_obj(j, "bytes");
	pl_json_u64(j, "h2d_copy", a->h2d_bytes);
	pl_json_u64(j, "nic_dma", a->nic_dma_bytes);
	pl_json_u64(j, "mapped_read", a->mapped_bytes);
	pl_json_u64(j, "metadata", a->meta_bytes);
	pl_json_end(j);
	pl_json_obj(j, "packets");
	pl_json_u64(j, "h2d_copy", a->h2d_pkts);
	pl_json_u64(j, "nic_dma", a->nic_dma_pkts);
	pl_json_u64(j, "mapped_read", a->mapped_pkts);
	pl_json_end(j);
	pl_json_u64(j, "h2d_transfers", a->h2d_transfers);
}

/* The GPU's own ordering of NIC writes (CUDA's names, lower case). */
static const char *ordering(const struct pl_gpu *g)
{
	switch (g->writes_ordering) {
	case -1:
		return "emulated";
	case 0:
		return "none";
	case 100:
		return "owner";
	case 200:
		return "all_devices";
	default:
		return "unknown";
	}
}

/* What a consumer already running on the GPU needs after a completion. */
static const char *flush_need(const struct pl_gpu *g)
{
	if (g->writes_ordering < 0)
		return "none (emulated: the writer is the CPU)";
	if (g->writes_ordering >= 100)
		return "none (the GPU orders NIC writes for its own kernels)";
	return g->can_flush ? "cuFlushGPUDirectRDMAWrites"
			    : "cuFlushGPUDirectRDMAWrites, which this driver "
			      "lacks: no persistent consumer here";
}

/* Where the GPU came from and how it orders a NIC's writes. */
static void device_json(struct pl_json *j, const struct pl_gpu *g)
{
	pl_json_str(j, "selected", g->picked);
	pl_json_str(j, "software", g->software);
	pl_json_str(j, "rdma_writes_ordering", ordering(g));
	pl_json_str(j, "flush_for_running_kernel", flush_need(g));
}

/* The nested "gpu_detail" object of the run. */
static void gpu_detail_json(struct pl_json *j, void *arg)
{
	const struct pl_gpu *g = arg;
	const struct pl_gpu_acct *a = &g->acct;
	bool sim = g->kind == PL_GPU_SIM;
	unsigned i;

	pl_json_obj(j, "gpu_detail");
	pl_json_str(j, "backend", g->ops->name);
	pl_json_str(j, "device", g->device);
	pl_json_str(j, "pci", g->pci);
	pl_json_i64(j, "numa_node", g->numa_node);
	device_json(j, g);
	pl_json_str(j, "variant", g->variant);
	pl_json_str(j, "registration", sim ? "emulated" : g->registration);
	if (sim)
		pl_json_str(j, "registration_emulated", g->registration);
	pl_json_str(j, "figures_source", sim ? "modelled" : "by_design");
	pl_json_u64(j, "packets_checked", a->checked);
	pl_json_u64(j, "verified", a->verified);
	pl_json_u64(j, "bad", a->bad);
	pl_json_u64(j, "other", a->other);
	pl_json_u64(j, "end_markers", a->end_markers);
	pl_json_obj(j, "bad_by_reason");
	for (i = PL_BAD_ETH_TRUNC; i < PL_REASON_MAX; i++)
		pl_json_u64(j, pl_reason_name(i), a->bad_by_reason[i]);
	pl_json_end(j);
	pl_json_u64(j, "consumer_launches", a->launches);
	pl_json_dbl(j, "packets_per_launch", per_pkt(a->checked, a->launches));
	moved_json(j, a);
	pl_json_dbl(j, "gpu_copies_per_packet",
		    per_pkt(a->h2d_pkts, a->checked));
	pl_json_str(j, "note", g->note);
	if (g->path_json)
		g->path_json(j, g->path_arg);
	pl_json_end(j);
}

/* 8< gpu-report */
void pl_gpu_report(struct pl_gpu *g, struct pl_report *r)
{
	const struct pl_gpu_acct *a = &g->acct;
	const char *source = g->kind == PL_GPU_SIM ? "modelled" : "by_design";
	uint64_t crossings = a->h2d_pkts + a->nic_dma_pkts + a->mapped_pkts;

	r->gpu = pl_gpu_kinds[g->kind];
	/* The path's own copies (by design), then the GPU side's. */
	r->copies_per_packet += per_pkt(a->h2d_pkts, a->checked);
	r->copies_source = source;
	snprintf(g->copies_note, sizeof(g->copies_note), "%s; %s",
		 r->copies_note ? r->copies_note : "", gpu_side(g));
	r->copies_note = g->copies_note;
	r->gpu_verified = a->verified;
	r->gpu_bad = a->bad;
	r->pcie_crossings_per_packet = per_pkt(crossings, a->checked);
	r->pcie_source = source;
	r->gpu_json = gpu_detail_json;
	r->gpu_arg = g;
}
/* >8 gpu-report */
