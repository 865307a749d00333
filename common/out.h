/* SPDX-License-Identifier: MIT */
/*
 * The files the tools write (--json, --trace-file, --ready), written the
 * way a program running as root must write into folders other users may
 * own. The name given is never followed when it is a symbolic link (a link
 * planted there would make root overwrite its target, or create a file
 * where it points): it is refused. A new file is created under a name of
 * our own with O_EXCL in the same folder, written, checked and renamed
 * over the name at the end, so a failed write (a full disk, a file size
 * limit) leaves the old file as it was, never a truncated one, and the run
 * fails naming the file. Replacing a file keeps its owner and mode. "-" is
 * standard output; a FIFO and /dev/null are written in place.
 */
#ifndef PATHLAB_OUT_H
#define PATHLAB_OUT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

struct pl_out {
	FILE *f; /* the text, kept in memory until pl_out_close() */
	const char *path;
	char *buf; /* f's memory */
	size_t len;
	int fd;	       /* where it goes: the new file, in place, stdout */
	int dirfd;     /* the folder of path, or -1 */
	char tmp[32];  /* the new file's name in dirfd, until renamed */
	char *base;    /* path's last component, in dirfd */
	bool replaces; /* a regular file was there: keep its owner, mode */
	struct stat old;
};

/*
 * Check at once, before a run, that path can be written as
 * pl_out_open() would: its folder exists and takes a new file, and the
 * name is no link, no folder, no device but /dev/null. "-" passes.
 * 0 or -errno (ELOOP: a symbolic link).
 */
int pl_out_check(const char *path);

/*
 * Start writing path ("-": stdout); o->f takes the text. A file size
 * limit becomes a write error (SIGXFSZ is ignored from here on).
 * 0 or -errno.
 */
int pl_out_open(struct pl_out *o, const char *path);

/*
 * Finish: write the text out, check every write and the close, then put
 * the file in place. On any error the new file is removed and the old one
 * stays. 0 or -errno (EFBIG, ENOSPC, EIO: what the write said).
 */
int pl_out_close(struct pl_out *o);

/* Give up a file being written (an error elsewhere): remove it. */
void pl_out_discard(struct pl_out *o);

/*
 * Say on stderr that writing path failed ("prog: --opt path: why") and
 * remember it: pl_out_failed() is true from then on.
 */
void pl_out_error(const char *prog, const char *opt, const char *path, int err);

/* The reason for err in words, for an error about an output file. */
const char *pl_out_strerror(int err);

/* True once any output file of this process failed (pl_out_error()). */
bool pl_out_failed(void);

#endif
