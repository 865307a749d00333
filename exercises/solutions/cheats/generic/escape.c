/* SPDX-License-Identifier: MIT */
/*
 * Red team, generic: get out of the worker. Run the lab's own programs
 * (the budget calculator computes exercise 1's answers), start a process
 * that outlives the case, write where the grader's results go, read the
 * lab's sources and build, open a socket to the outside.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Keep going when the sandbox refuses a call. */
static void ignore(int sig)
{
	(void)sig;
}

__attribute__((constructor)) static void escape(void)
{
	static const char *const files[] = {
		"/tmp/pathlab-grade-forged",
		"build/grade/student/01-budget.res", "/etc/passwd",
		"common/wire.c", "build/common/pathlab-budget"
	};
	char *const argv[] = { "pathlab-budget", "--rate", "10G", NULL };
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(53),
				 .sin_addr.s_addr = htonl(0x08080808) };
	unsigned i;
	int fd;
	pid_t pid;

	signal(SIGSYS, ignore);
	execv("build/common/pathlab-budget", argv);
	execv("/bin/sh", argv);
	pid = fork();
	if (pid == 0)
		for (;;)
			pause();
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		fd = open(files[i], O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0)
			printf("opened %s for writing\n", files[i]);
		fd = open(files[i], O_RDONLY);
		if (fd >= 0)
			printf("read %s\n", files[i]);
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
		printf("a socket to the outside\n");
	signal(SIGSYS, SIG_DFL);
}
