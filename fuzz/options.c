/*
 * Fuzz target for a tool's option parsing: the input, split at NUL bytes,
 * is the tool's argv.  The tool is compiled with main renamed to tool_main
 * and exit() turned into a jump back here, and runs with stdin and stdout
 * closed, so whatever it accepts fails at its first transfer instead of
 * moving data.  A crash, a sanitizer report, or an exit status other than
 * 0, 1 or 2 is a bug.
 */
#include <fcntl.h>
#include <getopt.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "splice.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int tool_main(int argc, char *argv[]);
noreturn void fuzz_exit(int status);

static sigjmp_buf back;
static volatile sig_atomic_t jumped_status;

noreturn void
fuzz_exit(int status)
{
	jumped_status = status;
	siglongjmp(back, 1);
}

/* A listener waiting for a peer, or a tool waiting on a FIFO: give up. */
static void
on_alarm(int sig)
{
	(void)sig;
	fuzz_exit(1);
}

static void
check_status(int status)
{
	if (status < 0 || status > 2)
		abort();
}

/* Runs the tool; on its own frame, so nothing live here changes after setjmp. */
static void
run_tool(int argc, char *argv[])
{
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	if (sigsetjmp(back, 1) == 0) {
		alarm(1);
		check_status(tool_main(argc, argv));
	} else
		check_status(jumped_status);
	alarm(0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum { MAX_ARGS = 16 };
	char *copy, *argv[MAX_ARGS + 2];
	int argc = 0;
	size_t at = 0;

	if (size > 4096)
		return 0;
	copy = malloc(size + 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[argc++] = (char *)"tool";
	while (at <= size && argc <= MAX_ARGS) {
		argv[argc++] = copy + at;
		at += strlen(copy + at) + 1;
	}
	argv[argc] = NULL;

	/* Closed stdio: nothing the tool accepts can move data or block. */
	close(STDIN_FILENO);
	close(STDOUT_FILENO);
	memset(&common, 0, sizeof(common));
	optind = 0;
	run_tool(argc, argv);
	free(copy);
	return 0;
}
