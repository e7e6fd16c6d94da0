/*
 * msg.c: messages: progname, warnings, usage errors, --version; lib/term.c
 * writes them.  See splice.h, internal.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

const char *progname = "splice-tools";

/* EXIT_ERROR once a warning was printed; see exit_status(). */
static int status;

void
set_progname(char *argv[])
{
	char *slash = argv[0] ? strrchr(argv[0], '/') : NULL;

	if (slash)
		argv[0] = slash + 1;
	if (argv[0])
		progname = argv[0];
}

/*
 * One write(2) per message: tools sharing a stderr do not interleave lines.
 * errno is kept; an error (EXIT_ERROR) is recorded for exit_status(), even
 * when stderr could not take the message.
 */
static void
vmessage(int errnum, int implies, const char *fmt, va_list ap)
{
	int saved_errno = errno, more;
	char line[1024];
	size_t n = (size_t)snprintf(line, sizeof(line), "%s: ", progname);

	if (n < sizeof(line)) {
		more = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
		n += more > 0 ? (size_t)more : 0;
	}
	if (errnum && n < sizeof(line)) {
		more = snprintf(line + n, sizeof(line) - n, ": %s", strerror(errnum));
		n += more > 0 ? (size_t)more : 0;
	}
	if (n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	(void)fflush(stderr);
	term_print(line, n);
	if (implies > status)
		status = implies;
	errno = saved_errno;
}

void
warn_errno(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(errno, EXIT_ERROR, fmt, ap);
	va_end(ap);
}

void
warn_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(0, EXIT_ERROR, fmt, ap);
	va_end(ap);
}

void
note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(0, 0, fmt, ap);
	va_end(ap);
}

const char *
plural_s(uint64_t n)
{
	return n == 1 ? "" : "s";
}

int
exit_status(void)
{
	return status;
}

noreturn void
usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(0, EXIT_USAGE, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", progname);
	exit(EXIT_USAGE);
}

noreturn void
print_version(void)
{
	printf("%s (splice-tools) %s\n", progname, SPLICE_TOOLS_VERSION);
	exit_flushing_stdout();
}

noreturn void
exit_flushing_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		/* EBADF for a closed stdout, ENOSPC for /dev/full. */
		warn_errno("standard output");
		exit(EXIT_ERROR);
	}
	exit(exit_status());
}
