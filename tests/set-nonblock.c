/*
 * set-nonblock FD... -- COMMAND [ARG]...: sets O_NONBLOCK on each FD, then
 * runs COMMAND, so a test can hand a tool non-blocking stdin and stdout as
 * a shell or another program might.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		int fd = atoi(argv[i]);
		int flags = fcntl(fd, F_GETFL);

		if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
			perror("set-nonblock: fcntl");
			return 1;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: set-nonblock FD... -- COMMAND [ARG]...\n");
		return 2;
	}
	execvp(argv[i + 1], argv + i + 1);
	perror("set-nonblock: exec");
	return 1;
}
