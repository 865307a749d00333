/* SPDX-License-Identifier: MIT */
/*
 * The worker's seccomp allow-list: what the code under test may ask the
 * kernel for. Everything else traps (SIGSYS: the worker says which call,
 * then dies, and the case fails). The grader builds the filter in the
 * worker's process just before it executes the worker; from then on it
 * holds for the worker and anything it could start.
 *
 * No file is opened for writing, nothing is executed (the one execveat()
 * allowed names a descriptor the worker cannot have once it runs), no
 * process is started (threads only, where allowed), no signal goes to
 * another process, nothing is traced, no memory becomes executable (a
 * static worker), no resource limit is raised.
 */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SB_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SB_ARCH AUDIT_ARCH_AARCH64
#else
#error "the grader's sandbox knows x86_64 and aarch64"
#endif

#define SB_MAX 1024
#define NR_OFF offsetof(struct seccomp_data, nr)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define ARG_HI(i) (ARG_LO(i) + 4)
#else
#define ARG_HI(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define ARG_LO(i) (ARG_HI(i) + 4)
#endif

#define DENY	 SECCOMP_RET_TRAP
#define ALLOW	 SECCOMP_RET_ALLOW
#define ERRNO(e) (SECCOMP_RET_ERRNO | ((e)&SECCOMP_RET_DATA))

struct prog {
	struct sock_filter f[SB_MAX];
	unsigned n;
};

/* Append one instruction. */
static void op(struct prog *p, uint16_t code, uint32_t k, uint8_t jt,
	       uint8_t jf)
{
	if (p->n < SB_MAX)
		p->f[p->n++] = (struct sock_filter){ code, jt, jf, k };
}

/* nr returns action (A holds nr before and after). */
static void rule(struct prog *p, int nr, uint32_t action)
{
	op(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1);
	op(p, BPF_RET | BPF_K, action, 0, 0);
}

/* nr is allowed when the low half of argument i has none of mask's bits. */
static void rule_clear(struct prog *p, int nr, unsigned i, uint32_t mask)
{
	op(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 4);
	op(p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(i), 0, 0);
	op(p, BPF_JMP | BPF_JSET | BPF_K, mask, 0, 1);
	op(p, BPF_RET | BPF_K, DENY, 0, 0);
	op(p, BPF_RET | BPF_K, ALLOW, 0, 0);
}

/* nr is allowed when the low half of argument i has all of mask's bits. */
static void rule_set(struct prog *p, int nr, unsigned i, uint32_t mask)
{
	op(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 5);
	op(p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(i), 0, 0);
	op(p, BPF_ALU | BPF_AND | BPF_K, mask, 0, 0);
	op(p, BPF_JMP | BPF_JEQ | BPF_K, mask, 0, 1);
	op(p, BPF_RET | BPF_K, ALLOW, 0, 0);
	op(p, BPF_RET | BPF_K, DENY, 0, 0);
}

/*
 * nr returns action when argument i is v (both halves; v_hi for the high
 * one), else deny.
 */
static void rule_eq(struct prog *p, int nr, unsigned i, uint32_t v,
		    uint32_t v_hi, uint32_t action, uint32_t deny)
{
	op(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 6);
	op(p, BPF_LD | BPF_W | BPF_ABS, ARG_HI(i), 0, 0);
	op(p, BPF_JMP | BPF_JEQ | BPF_K, v_hi, 0, 3);
	op(p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(i), 0, 0);
	op(p, BPF_JMP | BPF_JEQ | BPF_K, v, 0, 1);
	op(p, BPF_RET | BPF_K, action, 0, 0);
	op(p, BPF_RET | BPF_K, deny, 0, 0);
}

/* nr returns action when the low half of argument i is v; A is reloaded. */
static void rule_eq32(struct prog *p, int nr, unsigned i, uint32_t v,
		      uint32_t action)
{
	op(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 4);
	op(p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(i), 0, 0);
	op(p, BPF_JMP | BPF_JEQ | BPF_K, v, 0, 1);
	op(p, BPF_RET | BPF_K, action, 0, 0);
	op(p, BPF_LD | BPF_W | BPF_ABS, NR_OFF, 0, 0);
}

/* What every worker may do: compute, talk on its descriptors, end. */
static const int base[] = {
	SYS_read,
	SYS_write,
	SYS_readv,
	SYS_writev,
	SYS_pread64,
	SYS_pwrite64,
	SYS_close,
	SYS_fstat,
	SYS_newfstatat,
	SYS_lseek,
	SYS_brk,
	SYS_munmap,
	SYS_mremap,
	SYS_madvise,
	SYS_rt_sigaction,
	SYS_rt_sigprocmask,
	SYS_rt_sigreturn,
	SYS_sigaltstack,
	SYS_exit,
	SYS_exit_group,
	SYS_getpid,
	SYS_gettid,
	SYS_getuid,
	SYS_geteuid,
	SYS_getgid,
	SYS_getegid,
	SYS_clock_gettime,
	SYS_clock_getres,
	SYS_gettimeofday,
	SYS_clock_nanosleep,
	SYS_nanosleep,
	SYS_getrandom,
	SYS_futex,
	SYS_sched_yield,
	SYS_set_tid_address,
	SYS_set_robust_list,
	SYS_rseq,
	SYS_uname,
	SYS_dup,
	SYS_dup3,
	SYS_fcntl,
	SYS_ppoll,
	SYS_sched_getaffinity,
	SYS_getcpu,
	SYS_restart_syscall,
#ifdef SYS_arch_prctl
	SYS_arch_prctl,
#endif
#ifdef SYS_poll
	SYS_poll,
	SYS_dup2,
#endif
};

/* The sockets a case hands over: receive, send, ask. */
static const int sockets[] = {
	SYS_recvmmsg,	   SYS_recvfrom,    SYS_recvmsg,     SYS_sendto,
	SYS_sendmsg,	   SYS_sendmmsg,    SYS_getsockopt,  SYS_setsockopt,
	SYS_getsockname,   SYS_getpeername, SYS_epoll_pwait, SYS_epoll_ctl,
	SYS_epoll_create1,
};

/* Threads and what runtimes such as DPDK's EAL do with them. */
static const int threads[] = {
	SYS_sched_setaffinity,
	SYS_get_mempolicy,
	SYS_set_mempolicy,
	SYS_mbind,
	SYS_eventfd2,
	SYS_epoll_create1,
	SYS_epoll_ctl,
	SYS_epoll_pwait,
	SYS_timerfd_create,
	SYS_timerfd_settime,
	SYS_pipe2,
	SYS_membarrier,
	SYS_sysinfo,
	SYS_prctl,
	SYS_sched_getparam,
	SYS_sched_setscheduler,
	SYS_sched_getscheduler,
#ifdef SYS_epoll_wait
	SYS_epoll_wait,
	SYS_epoll_create,
#endif
};

/* A device's runtime (DPDK, verbs): files, devices, their controls. */
static const int devices[] = {
	SYS_ioctl,	SYS_getdents64, SYS_statfs,	  SYS_fstatfs,
	SYS_readlinkat, SYS_faccessat,	SYS_faccessat2,	  SYS_flock,
	SYS_ftruncate,	SYS_fallocate,	SYS_memfd_create, SYS_mlock,
	SYS_munlock,	SYS_getcwd,	SYS_mkdirat,	  SYS_unlinkat,
	SYS_socket,	SYS_bind,	SYS_connect,	  SYS_getrlimit,
#ifdef SYS_readlink
	SYS_readlink,	SYS_access,	SYS_mkdir,	  SYS_unlink,
#endif
};

/* Append every entry of a list as allowed. */
static void allow(struct prog *p, const int *nr, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		rule(p, nr[i], ALLOW);
}

/* The rules that look at arguments; flags as in gr_sandbox. */
static void guarded(struct prog *p, unsigned flags, pid_t self, int exec_fd)
{
	uint32_t write_flags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;

	/* The one exec: the worker itself, by a descriptor it then loses. */
	rule_eq(p, SYS_execveat, 0, (uint32_t)exec_fd, 0, ALLOW, DENY);
	/* Signals to itself only (raise(), abort()). */
	rule_eq(p, SYS_kill, 0, (uint32_t)self, 0, ALLOW, DENY);
	rule_eq(p, SYS_tgkill, 0, (uint32_t)self, 0, ALLOW, DENY);
	/* No port I/O (DPDK's EAL asks, and does without). */
#ifdef SYS_iopl
	rule(p, SYS_iopl, ERRNO(EPERM));
	rule(p, SYS_ioperm, ERRNO(EPERM));
#endif
	/* Its own limits only: read them, lower them, or raise a soft one up
	 * to the hard one the grader set (a user can do no more). */
	rule_eq(p, SYS_prlimit64, 0, 0, 0, ALLOW, DENY);
	/* No process of its own: threads where allowed; clone3 falls back. */
	rule(p, SYS_clone3, ERRNO(ENOSYS));
	if (flags & GR_SB_THREADS)
		rule_set(p, SYS_clone, 0, CLONE_THREAD | CLONE_VM);
	if (flags & GR_SB_DYNAMIC) {
		/* The loader maps libraries: executable, read-only. */
		rule(p, SYS_mmap, ALLOW);
		rule(p, SYS_mprotect, ALLOW);
	} else {
		rule_clear(p, SYS_mmap, 2, PROT_EXEC);
		rule_clear(p, SYS_mprotect, 2, PROT_EXEC);
	}
	if (flags & GR_SB_DEVICES)
		rule(p, SYS_openat, ALLOW);
	else if (flags & GR_SB_DYNAMIC)
		rule_clear(p, SYS_openat, 2, write_flags);
	else
		rule(p, SYS_openat, ERRNO(EACCES));
#ifdef SYS_open
	rule(p, SYS_open, ERRNO(EACCES)); /* glibc uses openat */
#endif
	if (!(flags & GR_SB_DEVICES)) {
		rule(p, SYS_ioctl, ERRNO(ENOTTY));
		/* A static glibc asks where it runs from: nowhere to say. */
		rule(p, SYS_readlinkat, ERRNO(ENOENT));
#ifdef SYS_readlink
		rule(p, SYS_readlink, ERRNO(ENOENT));
#endif
		/* The loader's probes, read-only. */
		if (flags & GR_SB_DYNAMIC) {
#ifdef SYS_access
			rule(p, SYS_access, ALLOW);
#endif
			rule(p, SYS_faccessat, ALLOW);
		}
	}
}

int sb_seccomp(unsigned flags, const struct gr_count *count, unsigned ncount,
	       pid_t self, int exec_fd, int *listener)
{
	struct prog p = { .n = 0 };
	struct sock_fprog fp;
	unsigned i;
	long fd;

	op(&p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0,
	   0);
	op(&p, BPF_JMP | BPF_JEQ | BPF_K, SB_ARCH, 1, 0);
	op(&p, BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, 0, 0);
	op(&p, BPF_LD | BPF_W | BPF_ABS, NR_OFF, 0, 0);
#if defined(__x86_64__)
	/* The x32 system calls share the architecture: none of them. */
	op(&p, BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
	op(&p, BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, 0, 0);
#endif
	/* Counted calls go to the grader first (then they run). */
	for (i = 0; i < ncount; i++) {
		if (count[i].fd < 0)
			rule(&p, count[i].nr, SECCOMP_RET_USER_NOTIF);
		else
			rule_eq32(&p, count[i].nr, 0, (uint32_t)count[i].fd,
				  SECCOMP_RET_USER_NOTIF);
	}
	guarded(&p, flags, self, exec_fd);
	allow(&p, base, sizeof(base) / sizeof(base[0]));
	if (flags & (GR_SB_SOCKETS | GR_SB_DEVICES))
		allow(&p, sockets, sizeof(sockets) / sizeof(sockets[0]));
	if (flags & GR_SB_THREADS)
		allow(&p, threads, sizeof(threads) / sizeof(threads[0]));
	if (flags & GR_SB_DEVICES)
		allow(&p, devices, sizeof(devices) / sizeof(devices[0]));
	op(&p, BPF_RET | BPF_K, DENY, 0, 0);
	if (p.n >= SB_MAX) {
		errno = E2BIG;
		return -1;
	}
	fp = (struct sock_fprog){ .len = (unsigned short)p.n, .filter = p.f };
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		     ncount ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &fp);
	if (fd < 0)
		return -1;
	*listener = ncount ? (int)fd : -1;
	return 0;
}
