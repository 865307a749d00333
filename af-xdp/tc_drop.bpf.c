// SPDX-License-Identifier: MIT
/*
 * tc_drop.bpf.c: a tc (clsact ingress) program that drops UDP datagrams to
 * the lab port and lets everything else through. labs/bench/afxdp.sh
 * compares it with XDP_DROP: the same decision, taken after the kernel
 * has built an skb. Loaded with `tc filter add dev IF ingress bpf da obj`.
 *
 * Simplification: no VLAN tag, no IPv4 options check beyond ihl.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "wire.h"

/* Drop IPv4/UDP to PL_UDP_PORT; pass the rest. */
SEC("tc")
int pathlab_tc_drop(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	struct udphdr *udp;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->protocol != IPPROTO_UDP)
		return TC_ACT_OK;
	udp = (void *)ip + ip->ihl * 4;
	if ((void *)(udp + 1) > end || udp->dest != bpf_htons(PL_UDP_PORT))
		return TC_ACT_OK;
	return TC_ACT_SHOT;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
