/* SPDX-License-Identifier: MIT */
/*
 * Red team, generic: before any case runs, write a pass on every
 * descriptor the code under test might share with the grader: the old
 * verdict record ("grad", PASS) the case process used to inherit, GRADE
 * lines, and an empty answer where the worker's answers go.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Every descriptor that is open gets the forgeries. */
__attribute__((constructor)) static void forge_verdicts(void)
{
	static const struct {
		unsigned magic;
		int verdict;
		char msg[240];
	} pass = { 0x67726164u, 0, "" };
	static const char line[] = "GRADE PASS 18 02-parse/ipv4\n";
	int fd;

	for (fd = 0; fd < 1024; fd++) {
		(void)!write(fd, &pass, sizeof(pass));
		(void)!write(fd, line, strlen(line));
	}
}
