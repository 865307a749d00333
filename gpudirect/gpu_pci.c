/* SPDX-License-Identifier: MIT */
/*
 * Which GPU a --gpu cuda run opens: the one --gpu-pci names, else the
 * NVIDIA GPU nearest the receiving NIC by PCIe topology. sysfs says where
 * each device hangs (/sys/bus/pci/devices/ADDR is a link into
 * /sys/devices/pci0000:00/0000:00:01.0/.../ADDR), and the relation of two
 * devices follows from their paths, as labs/doctor/lib/topo.sh derives it
 * and nvidia-smi topo -m names it:
 *
 *   PIX/PXB  they share a bridge below the root complex (a PCIe switch or
 *            root port): peer-to-peer DMA stays off the CPU
 *   PHB      they share only the host bridge: through the root complex
 *   NODE     different host bridges of one NUMA node
 *   SYS      different NUMA nodes: across the link between the sockets
 *
 * The deeper the shared bridge, the nearer; ties go to the lower address.
 * Every path here starts at a root directory ("" for the machine's own
 * /sys), so that the unit test can build a machine of its own.
 */
#include "gpu.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NVIDIA_VENDOR "0x10de"

/* A PCI device as sysfs places it. */
struct pci_place {
	char addr[16];
	char path[PATH_MAX]; /* the resolved /sys/devices/... path */
	int numa;
};

int pl_gpu_sys_line(const char *root, const char *path, char *buf, size_t len)
{
	char full[PATH_MAX];
	FILE *f;
	int err = 0;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		err = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return err;
}

int pl_gpu_pci_norm(const char *in, char *out, size_t len)
{
	unsigned dom = 0, bus, dev, fn;
	int n = 0;

	/* CUDA writes 0000:3B:00.0, nvidia-smi 00000000:3B:00.0. */
	if (in[strspn(in, "0123456789abcdefABCDEF:.")])
		return -EINVAL;
	if (sscanf(in, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &n) != 4 ||
	    in[n]) {
		n = 0;
		dom = 0;
		if (sscanf(in, "%x:%x.%x%n", &bus, &dev, &fn, &n) != 3 || in[n])
			return -EINVAL;
	}
	if (!isxdigit((unsigned char)in[0]) || dom > 0xffff || bus > 0xff ||
	    dev > 0x1f || fn > 7)
		return -EINVAL;
	snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

/* Where device addr sits: its resolved sysfs path and NUMA node. */
static int place_of(const char *root, const char *addr, struct pci_place *p)
{
	char link[PATH_MAX], num[16];

	snprintf(p->addr, sizeof(p->addr), "%s", addr);
	snprintf(link, sizeof(link), "%s/sys/bus/pci/devices/%s", root, addr);
	if (!realpath(link, p->path))
		return -errno;
	snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/numa_node", addr);
	p->numa =
		pl_gpu_sys_line(root, link, num, sizeof(num)) ? -1 : atoi(num);
	return 0;
}

/* True when PCI device addr is an NVIDIA display or 3D controller. */
static bool is_nvidia_gpu(const char *root, const char *addr)
{
	char path[PATH_MAX], v[32], c[32];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", addr);
	if (pl_gpu_sys_line(root, path, v, sizeof(v)) ||
	    strcmp(v, NVIDIA_VENDOR))
		return false;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/class", addr);
	if (pl_gpu_sys_line(root, path, c, sizeof(c)))
		return false;
	return !strncmp(c, "0x0300", 6) || !strncmp(c, "0x0302", 6);
}

/* The component after path's root complex ("pci0000:00"), or NULL. */
static const char *below_root(const char *path, char *rootc, size_t len)
{
	const char *s = path, *e;

	while ((s = strstr(s, "/pci")) != NULL) {
		e = strchr(s + 1, '/');
		if (e && e - s == 11 && s[8] == ':') {
			snprintf(rootc, len, "%.*s", (int)(e - s - 1), s + 1);
			return e + 1;
		}
		s++;
	}
	return NULL;
}

/*
 * How near GPU g is to NIC n: a score (higher is nearer) and the
 * relation's name.
 */
static int nearness(const struct pci_place *g, const struct pci_place *n,
		    const char **rel)
{
	char rg[32], rn[32];
	const char *a = below_root(g->path, rg, sizeof(rg));
	const char *b = below_root(n->path, rn, sizeof(rn));
	int shared = 0;
	size_t k;

	if (a && b && !strcmp(rg, rn)) {
		/* Count the bridges both paths pass, the devices excluded. */
		while ((k = strcspn(a, "/")) == strcspn(b, "/") &&
		       a[k] == '/' && b[k] == '/' && !strncmp(a, b, k)) {
			shared++;
			a += k + 1;
			b += k + 1;
		}
		*rel = shared ? "PIX/PXB" : "PHB";
		return 1000 + shared;
	}
	if (g->numa >= 0 && g->numa == n->numa) {
		*rel = "NODE";
		return 500;
	}
	if (g->numa < 0 || n->numa < 0) {
		*rel = "unknown (no NUMA node in sysfs)";
		return 250;
	}
	*rel = "SYS";
	return 0;
}

/* The PCI address behind a NIC named by address, interface or RDMA device. */
static int nic_addr(const char *root, const char *nic, char *out, size_t len)
{
	static const char *const where[] = {
		"/sys/class/net/%s/device", "/sys/class/infiniband/%s/device"
	};
	char path[PATH_MAX], real[PATH_MAX], *base;
	unsigned i;

	if (!pl_gpu_pci_norm(nic, out, len)) {
		snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s", root,
			 out);
		return access(path, F_OK) ? -ENODEV : 0;
	}
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		snprintf(real, sizeof(real), where[i], nic);
		snprintf(path, sizeof(path), "%s%s", root, real);
		if (!realpath(path, real))
			continue;
		base = strrchr(real, '/');
		/* virtio_net: the netdev hangs below a virtioN child. */
		if (!strncmp(base + 1, "virtio", 6)) {
			*base = '\0';
			base = strrchr(real, '/');
		}
		if (!pl_gpu_pci_norm(base + 1, out, len))
			return 0;
	}
	return -ENODEV;
}

unsigned pl_gpu_sysfs_gpus(const char *root, char *first, size_t len)
{
	char dir[PATH_MAX];
	struct dirent **names;
	unsigned found = 0;
	int i, n;

	snprintf(dir, sizeof(dir), "%s/sys/bus/pci/devices", root);
	n = scandir(dir, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' &&
		    is_nvidia_gpu(root, names[i]->d_name) && !found++ && first)
			snprintf(first, len, "%s", names[i]->d_name);
		free(names[i]);
	}
	if (n > 0)
		free(names);
	return found;
}

/* The GPU nearest NIC n among those in sysfs; its score, or -1. */
static int nearest(const char *root, const struct pci_place *n, char *pci,
		   size_t len, const char **rel)
{
	char dir[PATH_MAX];
	struct dirent **names;
	struct pci_place g;
	const char *r;
	int i, cnt, s, best = -1;

	snprintf(dir, sizeof(dir), "%s/sys/bus/pci/devices", root);
	cnt = scandir(dir, &names, NULL, alphasort);
	for (i = 0; i < cnt; i++) {
		if (names[i]->d_name[0] != '.' &&
		    is_nvidia_gpu(root, names[i]->d_name) &&
		    !place_of(root, names[i]->d_name, &g) &&
		    (s = nearness(&g, n, &r)) > best) {
			best = s;
			*rel = r;
			snprintf(pci, len, "%s", g.addr);
		}
		free(names[i]);
	}
	if (cnt > 0)
		free(names);
	return best;
}

int pl_gpu_pick(const char *root, const struct pl_gpu_where *at, char *pci,
		size_t len, char *how, size_t how_len)
{
	struct pci_place n;
	char nic[16];
	const char *rel = "";
	unsigned gpus;

	pci[0] = '\0';
	if (at && at->pci) {
		if (pl_gpu_pci_norm(at->pci, pci, len))
			return -EINVAL;
		if (!is_nvidia_gpu(root, pci)) {
			snprintf(how, how_len,
				 "--gpu-pci %s: no NVIDIA GPU at that address "
				 "(lspci -D -d 10de: lists them)",
				 at->pci);
			return -ENODEV;
		}
		snprintf(how, how_len, "--gpu-pci %s", pci);
		return 0;
	}
	gpus = pl_gpu_sysfs_gpus(root, pci, len);
	if (!gpus) {
		snprintf(how, how_len, "no NVIDIA GPU in sysfs: CUDA device 0");
		return 0;
	}
	if (!at || !at->nic || nic_addr(root, at->nic, nic, sizeof(nic)) ||
	    place_of(root, nic, &n)) {
		snprintf(how, how_len,
			 "the first of %u GPU(s) in PCI order: the receiving "
			 "NIC (%s) is not a PCI device",
			 gpus, at && at->nic ? at->nic : "none given");
		return 0;
	}
	nearest(root, &n, pci, len, &rel);
	if (!strcmp(at->nic, nic))
		snprintf(how, how_len, "nearest of %u GPU(s) to the NIC %s: %s",
			 gpus, nic, rel);
	else
		snprintf(how, how_len,
			 "nearest of %u GPU(s) to the NIC %s (%s): %s", gpus,
			 at->nic, nic, rel);
	return 0;
}

bool pl_gpu_opts_ok(const char *prog, int gpu, const char *gpu_pci)
{
	char pci[16];

	if (!gpu_pci)
		return true;
	if (gpu != PL_GPU_CUDA) {
		fprintf(stderr,
			"%s: --gpu-pci picks a real GPU: it needs "
			"--gpu cuda\n",
			prog);
		return false;
	}
	if (pl_gpu_pci_norm(gpu_pci, pci, sizeof(pci))) {
		fprintf(stderr,
			"%s: --gpu-pci %s: not a PCI address (DDDD:BB:DD.F, "
			"as lspci -D prints it)\n",
			prog, gpu_pci);
		return false;
	}
	return true;
}
