/* SPDX-License-Identifier: MIT */
#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

static bool out_failed;

/* What the file is: the three kinds we write, or why it is refused. */
enum kind { NEW, REPLACE, IN_PLACE };

/*
 * Open the folder of path and point *base at a copy of its last
 * component; the folder's descriptor or -errno.
 */
static int open_dir(const char *path, char **base)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	*base = strdup(slash ? slash + 1 : path);
	if (!*base)
		return -ENOMEM;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, "..")) {
		free(*base);
		return -EISDIR;
	}
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path))
		    : strdup(".");
	fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	fd = fd < 0 ? (dir ? -errno : -ENOMEM) : fd;
	free(dir);
	if (fd < 0)
		free(*base);
	return fd;
}

/* What is at base in dirfd now, without following a link: kind or -errno. */
static int inspect(int dirfd, const char *base, struct stat *st)
{
	if (fstatat(dirfd, base, st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? NEW : -errno;
	if (S_ISLNK(st->st_mode))
		return -ELOOP;
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (S_ISREG(st->st_mode))
		return REPLACE;
	if (S_ISFIFO(st->st_mode) ||
	    (S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3)))
		return IN_PLACE;
	return -ENXIO; /* another device: never written */
}

/* Create a file of our own name in dirfd (O_EXCL); its fd or -errno. */
static int create_tmp(int dirfd, char *name, size_t len)
{
	unsigned i, r;
	int fd;

	for (i = 0; i < 100; i++) {
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (unsigned)getpid() * 2654435761u ^
			    (unsigned)clock() ^ i;
		snprintf(name, len, ".pl-%08x.tmp", r);
		fd = openat(dirfd, name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0666);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int pl_out_check(const char *path)
{
	struct stat st;
	char *base, tmp[32];
	int dirfd, kind, fd;

	if (!strcmp(path, "-"))
		return 0;
	dirfd = open_dir(path, &base);
	if (dirfd < 0)
		return dirfd;
	kind = inspect(dirfd, base, &st);
	if (kind == NEW || kind == REPLACE) {
		fd = create_tmp(dirfd, tmp, sizeof(tmp));
		if (fd >= 0) {
			close(fd);
			unlinkat(dirfd, tmp, 0);
		}
		kind = fd < 0 ? fd : kind;
	}
	close(dirfd);
	free(base);
	return kind < 0 ? kind : 0;
}

int pl_out_open(struct pl_out *o, const char *path)
{
	int kind, fd;

	*o = (struct pl_out){ .path = path, .fd = -1, .dirfd = -1 };
	/* A file size limit: a failed write to report, not a core dump. */
	signal(SIGXFSZ, SIG_IGN);
	if (!strcmp(path, "-")) {
		fd = STDOUT_FILENO;
	} else {
		o->dirfd = open_dir(path, &o->base);
		if (o->dirfd < 0)
			return o->dirfd;
		kind = inspect(o->dirfd, o->base, &o->old);
		o->replaces = kind == REPLACE;
		if (kind == IN_PLACE)
			fd = openat(o->dirfd, o->base,
				    O_WRONLY | O_NOFOLLOW | O_NOCTTY |
					    O_CLOEXEC);
		else if (kind >= 0)
			fd = create_tmp(o->dirfd, o->tmp, sizeof(o->tmp));
		else
			fd = kind;
		if (fd < 0) {
			fd = fd == -1 ? -errno : fd;
			pl_out_discard(o);
			return fd;
		}
	}
	o->fd = fd;
	o->f = open_memstream(&o->buf, &o->len);
	if (!o->f) {
		pl_out_discard(o);
		return -ENOMEM;
	}
	return 0;
}

/* Write len bytes of buf to fd, all of them; 0 or -errno. */
static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int pl_out_close(struct pl_out *o)
{
	int err;

	if (!o->f)
		return 0;
	err = fclose(o->f) ? -ENOMEM : 0;
	o->f = NULL;
	if (!err)
		err = write_all(o->fd, o->buf, o->len);
	if (!err && o->replaces &&
	    (fchown(o->fd, o->old.st_uid, o->old.st_gid) ||
	     fchmod(o->fd, o->old.st_mode & 0777)))
		err = geteuid() ? 0
				: -errno; /* the new file is the old one's */
	if (o->fd != STDOUT_FILENO && close(o->fd) && !err)
		err = -errno;
	o->fd = -1;
	if (!err && o->tmp[0] && renameat(o->dirfd, o->tmp, o->dirfd, o->base))
		err = -errno;
	if (!err)
		o->tmp[0] = '\0';
	pl_out_discard(o);
	return err;
}

void pl_out_discard(struct pl_out *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	free(o->buf);
	o->buf = NULL;
	if (o->fd >= 0 && o->fd != STDOUT_FILENO)
		close(o->fd);
	o->fd = -1;
	if (o->dirfd >= 0) {
		if (o->tmp[0])
			unlinkat(o->dirfd, o->tmp, 0);
		close(o->dirfd);
	}
	o->dirfd = -1;
	o->tmp[0] = '\0';
	free(o->base);
	o->base = NULL;
}

const char *pl_out_strerror(int err)
{
	switch (-err) {
	case ELOOP:
		return "a symbolic link, not followed (name the file itself)";
	case EISDIR:
		return "a folder, not a file";
	case ENXIO:
		return "a device: only /dev/null is written";
	default:
		return strerror(-err);
	}
}

void pl_out_error(const char *prog, const char *opt, const char *path, int err)
{
	fprintf(stderr, "%s: %s%s%s: %s\n", prog, opt ? opt : "",
		opt ? " " : "", strcmp(path, "-") ? path : "standard output",
		pl_out_strerror(err));
	out_failed = true;
}

bool pl_out_failed(void)
{
	return out_failed;
}
