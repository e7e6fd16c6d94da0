/*
 * splice-buffer: a big buffer between two stages of a pipeline, as
 * mbuffer -m, that copies nothing: a ring of pipes that splice(2) moves
 * page references through, and a memfd past what pipes can hold.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "splice.h"

/*
 * Half of /proc/sys/fs/pipe-user-pages-soft's default 64 MiB: an
 * unprivileged user's ring is all pipes, with room left for the user's
 * other pipes.
 */
#define DEFAULT_BUFFER_BYTES ((uint64_t)32 << 20)

/* splice-buffer's options, as --help lists them (the format: splice.h, lib/optspec.c). */
static const char options[] =
	"m memory SIZE\tbuffer at least SIZE bytes (default 32M)\n"
	"P start PERCENT\twrite only once the buffer is PERCENT full, the\n"
	"\tinput ended or the buffer can take no more; again\n"
	"\teach time it ran empty (default 0: at once)\n"
	"p resume PERCENT\tonce the buffer was full, read again only when it\n"
	"\thas drained to PERCENT (default 100: at once)\n"
	"L rate-limit RATE\twrite at most RATE bytes a second (4M, 500KB);\n"
	"\tinput is still taken as fast as it comes\n"
	"q quiet\tno summary line at the end (nor with --numeric)\n"
	"- pipe-size SIZE\tthe buffer's pipes (default: pipe-max-size) and\n"
	"\tthe pipes in and out (default 1M) grown to SIZE\n";
#define WITH (OPTS_PV_RATE | OPTS_SIZE)

static void
help(void)
{
	printf("Usage: %s [-q] [-m SIZE] [-P PERCENT] [-p PERCENT] [-L RATE] [-v]\n"
	    "       [--size SIZE] [--strict] [--progress] [--name NAME] [--interval SECS]\n"
	    "       [--numeric] [--pipe-size SIZE]\n"
	    "Copy standard input to standard output through a buffer of SIZE bytes that\n"
	    "copies nothing: a ring of pipes that splice(2) moves pages between, and a\n"
	    "memfd for what the pipes cannot hold.  Input is taken as fast as it comes\n"
	    "and output as fast as the reader takes it.  At the end, a line on standard\n"
	    "error sums it up, as mbuffer's does.\n"
	    "\n", progname);
	options_help(options, WITH);
}

/* A percentage for option OPT: 0 to 100, a '%' after it allowed. */
static unsigned int
option_percent(const char *opt, const char *arg)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || errno || end == arg || (*end && strcmp(end, "%") != 0) ||
	    v > 100)
		usage_error("%s: must be 0 to 100 percent: '%s'", opt, arg);
	return (unsigned int)v;
}

/* -q: no summary at the end. */
static bool quiet;

/* Parses the options into *job. */
static void
parse_options(int argc, char *argv[], struct ring_job *job)
{
	int opt;

	while ((opt = options_next(argc, argv, options, WITH)) != -1) {
		switch (opt) {
		case 'm':
			job->size = option_size("-m", optarg);
			if (job->size == 0)
				usage_error("-m: must be at least 1 byte: '%s'", optarg);
			break;
		case 'P':
			job->start_percent = option_percent("-P", optarg);
			break;
		case 'p':
			job->resume_percent = option_percent("-p", optarg);
			break;
		case 'q':
			quiet = true;
			break;
		case OPT_TOOL_FIRST:	/* --pipe-size, worded here */
			common_option(OPT_PIPE_SIZE, optarg, help);
			break;
		default:
			common_option(opt, optarg, help);
		}
	}
	no_operands(argc, argv);
	job->x.opts = engine_opts();
	/*
	 * -L paces the output inside the ring's loop, so that input goes on
	 * while output waits: account() must not sleep for it.
	 */
	job->rate = common.rate_limit;
	common.rate_limit = 0;
}

/* Why the pipes hold less than asked: " (pipe2: Too many open files)". */
static void
shortfall_text(char *buf, size_t size, const struct ring_job *job)
{
	if (job->short_granted)
		snprintf(buf, size, " (F_SETPIPE_SZ granted the last one %zu bytes)",
		    job->short_granted);
	else
		snprintf(buf, size, " (%s: %s)", job->short_call, strerror(job->short_err));
}

/* With -v: the ring that was built, and why it holds less in pipes than asked. */
static void
note_ring(const struct ring_job *job)
{
	char why[96] = "", memfd[96] = "";

	if (job->memfd_bytes) {
		shortfall_text(why, sizeof(why), job);
		snprintf(memfd, sizeof(memfd), ", %llu bytes in a memfd (copied into it once,"
		    " in the kernel)", (unsigned long long)job->memfd_bytes);
	}
	note("buffer: %llu bytes in %zu pipe%s%s%s", (unsigned long long)job->pipe_bytes,
	    job->pipes, job->pipes == 1 ? "" : "s", why, memfd);
}

/* Why ring_open() failed, said once: "buffer: memfd_create: ...". */
static void
open_warn(const struct ring_job *job)
{
	char why[96] = "";

	if (job->short_call)
		shortfall_text(why, sizeof(why), job);
	if (job->memfd_refused)
		warn_msg("buffer: %llu of %llu bytes in pipes%s; --strict refuses a memfd for"
		    " the rest, which copies", (unsigned long long)job->pipe_bytes,
		    (unsigned long long)job->size, why);
	else if (job->short_call && job->x.error.call != job->short_call)
		warn_msg("buffer: %s: %s; %llu of %llu bytes in pipes%s", job->x.error.call,
		    strerror(job->x.error.err), (unsigned long long)job->pipe_bytes,
		    (unsigned long long)job->size, why);
	else
		warn_msg("buffer: %s: %s", job->x.error.call, strerror(job->x.error.err));
}

int
main(int argc, char *argv[])
{
	struct ring_job job = {
		.x = { .in = STDIN_FILENO, .out = STDOUT_FILENO, .len = TO_EOF },
		.size = DEFAULT_BUFFER_BYTES,
		.resume_percent = 100,
	};

	set_progname(argv);
	parse_options(argc, argv, &job);
	(void)tool_start(STD_FD(STDIN_FILENO) | STD_FD(STDOUT_FILENO), COUNT_MOVED);
	if (exit_status() != 0)
		return exit_status();
	account_set_total(fd_size_left(STDIN_FILENO));
	if (fd_is_pipe(STDIN_FILENO))
		pipe_grow(STDIN_FILENO, &job.x.opts);
	if (fd_is_pipe(STDOUT_FILENO))
		pipe_grow(STDOUT_FILENO, &job.x.opts);

	if (ring_open(&job) < 0)
		open_warn(&job);
	else {
		/* First: once -v's note is out, every status line has the fill. */
		status_group_add(&(struct status_group){ ring_flow_text, NULL, KEEP_FLOW });
		/*
		 * Kept past everything but the count, the percent and the ETA:
		 * what the buffer is for.
		 */
		status_group_add(&(struct status_group){ ring_fill_text, NULL, KEEP_TOOL });
		/* --numeric's reader takes numbers only, as pv -n's does. */
		if (!quiet && !common.numeric)
			on_totals(ring_summary);
		if (common.verbose)
			note_ring(&job);
		if (ring_run(&job) < 0)
			xfer_warn(&job.x, "standard input", "standard output");
	}
	ring_close(&job);
	report_totals();
	if (close(STDOUT_FILENO) < 0)
		warn_errno("standard output");
	return exit_status();
}
