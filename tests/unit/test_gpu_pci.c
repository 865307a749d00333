/* SPDX-License-Identifier: MIT */
/*
 * Which GPU a --gpu cuda run opens (gpudirect/gpu_pci.c), on a machine
 * built in a temporary directory: sysfs links and files for two sockets,
 * a PCIe switch with a GPU and a NIC under it, a GPU behind another root
 * port, GPUs on another host bridge and on the other socket, NICs by
 * interface, RDMA device and address, a virtio NIC, a veth.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "gpu.h"

static char root[64];

/* mkdir -p root/path. */
static void mkdirs(const char *path)
{
	char p[512], *s;

	snprintf(p, sizeof(p), "%s/%s", root, path);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

/* root/path holds one line, v. */
static void put(const char *path, const char *v)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, path);
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "%s\n", v);
		fclose(f);
	}
}

/* A link root/from -> root/to. */
static void link_to(const char *from, const char *to)
{
	char a[512], b[512];

	snprintf(a, sizeof(a), "%s/%s", root, from);
	snprintf(b, sizeof(b), "%s/%s", root, to);
	CHECK(symlink(b, a) == 0);
}

/*
 * A PCI function at sys/devices/PATH (its last component the address):
 * vendor, class, NUMA node, and its link in sys/bus/pci/devices.
 */
static void dev(const char *path, const char *vendor, const char *cls, int numa)
{
	const char *addr = strrchr(path, '/') + 1;
	char d[256], f[320], n[16];

	snprintf(d, sizeof(d), "sys/devices/%s", path);
	mkdirs(d);
	snprintf(f, sizeof(f), "%s/vendor", d);
	put(f, vendor);
	snprintf(f, sizeof(f), "%s/class", d);
	put(f, cls);
	snprintf(f, sizeof(f), "%s/numa_node", d);
	snprintf(n, sizeof(n), "%d", numa);
	put(f, n);
	snprintf(f, sizeof(f), "sys/bus/pci/devices/%s", addr);
	link_to(f, d);
}

#define NV  "0x10de"
#define GPU "0x030200"
#define NIC "0x020000"
#define BR  "0x060400"

/* The machine: see the head comment. */
static void build(void)
{
	snprintf(root, sizeof(root), "/tmp/pathlab-gpu-pci-XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	mkdirs("sys/bus/pci/devices");
	mkdirs("sys/class/net");
	mkdirs("sys/class/infiniband");
	dev("pci0000:00/0000:00:01.0", "0x8086", BR, 0);
	dev("pci0000:00/0000:00:01.0/0000:01:00.0", "0x10b5", BR, 0);
	dev("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0", "0x10b5", BR,
	    0);
	dev("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:03:00.0",
	    NV, GPU, 0);
	dev("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0/0000:04:00.0",
	    "0x15b3", NIC, 0);
	dev("pci0000:00/0000:00:02.0/0000:05:00.0", NV, "0x030000", 0);
	dev("pci0000:00/0000:00:03.0", "0x1af4", NIC, 0); /* virtio */
	dev("pci0000:40/0000:40:01.0/0000:41:00.0", "0x15b3", NIC, 0);
	dev("pci0000:40/0000:40:02.0/0000:42:00.0", NV, GPU, 0);
	dev("pci0000:80/0000:80:01.0/0000:81:00.0", NV, GPU, 1);
	dev("pci0000:c0/0000:c0:01.0/0000:c1:00.0", "0x15b3", NIC, 1);
	dev("pci0000:c0/0000:c0:02.0/0000:c2:00.0", "0x8086", "0x010802", 1);
	mkdirs("sys/devices/pci0000:00/0000:00:03.0/virtio0/net/ens3");
	link_to("sys/class/net/ens3",
		"sys/devices/pci0000:00/0000:00:03.0/virtio0/net/ens3");
	link_to("sys/class/net/ens3/device",
		"sys/devices/pci0000:00/0000:00:03.0/virtio0");
	mkdirs("sys/class/net/eth9");
	link_to("sys/class/net/eth9/device",
		"sys/bus/pci/devices/0000:04:00.0");
	mkdirs("sys/class/infiniband/mlx5_1");
	link_to("sys/class/infiniband/mlx5_1/device",
		"sys/bus/pci/devices/0000:c1:00.0");
	mkdirs("sys/class/net/veth0"); /* no device: a virtual link */
}

/* pick(pci, nic) gives want (err 0), its sentence has has. */
static void pick(const char *pci, const char *nic, const char *want,
		 const char *has)
{
	const struct pl_gpu_where at = { .pci = pci, .nic = nic };
	char got[32] = "x", how[256] = "";
	int err = pl_gpu_pick(root, &at, got, sizeof(got), how, sizeof(how));

	printf("pick(%s, %s): %s: %s\n", pci ? pci : "-", nic ? nic : "-", got,
	       how);
	CHECK_EQ_U(err, 0);
	CHECK(!strcmp(got, want));
	CHECK(strstr(how, has) != NULL);
}

/* Addresses as lspci, CUDA and nvidia-smi write them, and not-addresses. */
static void test_norm(void)
{
	static const char *const bad[] = {
		"gpu0",		"0000:3b:00",	 "3b:00", "0000:3b:20.0",
		"0000:3b:00.8", "0000:3b:00.0x", "",	  NULL
	};
	char out[16];
	unsigned i;

	CHECK_EQ_U(pl_gpu_pci_norm("3b:00.0", out, sizeof(out)), 0);
	CHECK(!strcmp(out, "0000:3b:00.0"));
	CHECK_EQ_U(pl_gpu_pci_norm("0000:3B:00.0", out, sizeof(out)), 0);
	CHECK(!strcmp(out, "0000:3b:00.0"));
	CHECK_EQ_U(pl_gpu_pci_norm("00000000:3B:00.0", out, sizeof(out)), 0);
	CHECK(!strcmp(out, "0000:3b:00.0"));
	for (i = 0; bad[i]; i++)
		CHECK_EQ_U(pl_gpu_pci_norm(bad[i], out, sizeof(out)), -EINVAL);
}

int main(void)
{
	const struct pl_gpu_where nic_not_gpu = { .pci = "0000:04:00.0" };
	char got[32], how[256], first[32] = "";

	test_norm();
	build();
	CHECK_EQ_U(pl_gpu_sysfs_gpus(root, first, sizeof(first)), 4);
	CHECK(!strcmp(first, "0000:03:00.0"));
	/* Under one switch, by interface, address and RDMA device. */
	pick(NULL, "eth9", "0000:03:00.0", "PIX/PXB");
	pick(NULL, "0000:04:00.0", "0000:03:00.0", "PIX/PXB");
	pick(NULL, "4:00.0", "0000:03:00.0", "PIX/PXB");
	/* Only the host bridge in common beats another bridge, a socket. */
	pick(NULL, "0000:41:00.0", "0000:42:00.0", "PHB");
	pick(NULL, "mlx5_1", "0000:81:00.0", "NODE");
	/* A virtio NIC: one level down; the GPUs on its host bridge win. */
	pick(NULL, "ens3", "0000:03:00.0", "PHB");
	/* No PCI NIC: the first GPU, and why. */
	pick(NULL, "veth0", "0000:03:00.0", "not a PCI device");
	pick(NULL, NULL, "0000:03:00.0", "not a PCI device");
	/* --gpu-pci wins, and must be a GPU. */
	pick("5:00.0", "eth9", "0000:05:00.0", "--gpu-pci");
	CHECK_EQ_U(pl_gpu_pick(root, &nic_not_gpu, got, sizeof(got), how,
			       sizeof(how)),
		   -ENODEV);
	CHECK(strstr(how, "no NVIDIA GPU") != NULL);
	/* A machine without GPUs: none picked, CUDA's first then. */
	snprintf(how, sizeof(how), "rm -rf %s/sys/bus/pci/devices/*", root);
	CHECK(system(how) == 0);
	pick(NULL, "eth9", "", "no NVIDIA GPU");
	snprintf(how, sizeof(how), "rm -rf %s", root);
	CHECK(system(how) == 0);
	return CHECK_DONE();
}
