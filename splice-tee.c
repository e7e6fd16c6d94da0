/*
 * splice-tee: tee(1) built on tee(2), to files and TCP peers.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "splice.h"

/* What an output error does, as GNU tee's --output-error. */
enum output_error {
	OE_SIGPIPE,		/* default: SIGPIPE ends the tool, other errors warn */
	OE_WARN,		/* warn about every error, go on with the others */
	OE_WARN_NOPIPE,		/* same, but EPIPE drops the output silently */
	OE_EXIT,		/* the first error ends the tool */
	OE_EXIT_NOPIPE,		/* same, but EPIPE drops the output silently */
};

static const char *const mode_names[] = {
	[OE_WARN] = "warn",
	[OE_WARN_NOPIPE] = "warn-nopipe",
	[OE_EXIT] = "exit",
	[OE_EXIT_NOPIPE] = "exit-nopipe",
};

enum { OPT_OUTPUT_ERROR = OPT_TOOL_FIRST, OPT_PV_OUTPUT };

static enum output_error mode = OE_SIGPIPE;
/* SIGPIPE was ignored when we started: EPIPE is an error to report, as in tee. */
static bool sigpipe_ignored;

static void
help(void)
{
	printf("Usage: %s [-aimp] [--output-error[=MODE]] [-n HOST:PORT]... [-w SECS]\n"
	    "       [-L RATE] [--size SIZE] [-v] [--strict] [--progress] [--name NAME]\n"
	    "       [--interval SECS] [--numeric] [--pipe-size SIZE] [FILE]...\n"
	    "Copy standard input to standard output and to every FILE, with tee(2) and\n"
	    "splice(2): zero-copy where the kernel allows.  A FILE named - is a file.\n"
	    "\n"
	    "  -a, --append        append to the FILEs, do not truncate them\n"
	    "  -i, --ignore-interrupts  ignore SIGINT\n"
	    "  -m, --move          pass SPLICE_F_MOVE to splice(2) (a hint, ignored by\n"
	    "                      today's kernels)\n"
	    "  -n, --net HOST:PORT  send one more copy to a TCP peer ([ADDR]:PORT for\n"
	    "                      IPv6); may be repeated\n"
	    "  -w SECS             give up on a peer that takes SECS to connect or to read\n"
	    "  -p                  --output-error=warn-nopipe: a vanished reader drops its\n"
	    "                      output quietly, the others go on\n"
	    "      --output-error[=MODE]  what an output error does: warn, warn-nopipe\n"
	    "                      (the default MODE), exit, exit-nopipe\n"
	    RATE_LIMIT_HELP
	    SIZE_HELP
	    COMMON_HELP, progname);
}

static enum output_error
parse_mode(const char *arg)
{
	int found = -1;

	if (arg == NULL)
		return OE_WARN_NOPIPE;
	/* A unique prefix will do, as with GNU tee. */
	for (int m = OE_WARN; m <= OE_EXIT_NOPIPE; m++) {
		if (strcmp(arg, mode_names[m]) == 0)
			return (enum output_error)m;
		if (*arg && strncmp(arg, mode_names[m], strlen(arg)) == 0)
			found = found < 0 ? m : -2;
	}
	if (found < 0)
		usage_error("--output-error: %s argument '%s' (warn, warn-nopipe, exit,"
		    " exit-nopipe)", found == -2 ? "ambiguous" : "invalid", arg);
	return (enum output_error)found;
}

/*
 * An output failed and was dropped.  EPIPE from a pipe is silent in the
 * -nopipe modes, and ends the tool by SIGPIPE in the default one (the
 * kernel's signal, or ours when the peers made us ignore it); from a TCP
 * peer (-n, -w) it is a lost copy, never a signal to die of.
 */
static bool
output_failed(struct tee_out *o)
{
	bool from_pipe = o->err == EPIPE && fd_is_pipe(o->fd);

	if (from_pipe && mode == OE_SIGPIPE && !sigpipe_ignored)
		tcp_abort_and_die(SIGPIPE);
	if (from_pipe && mode != OE_WARN && mode != OE_EXIT)
		return true;
	if (o->refused)
		warn_msg("%s: %s: %s (--strict: no fallback to read/write)", o->name,
		    o->call, strerror(o->err));
	else
		warn_msg("%s: %s", o->name, strerror(o->err));
	return mode != OE_EXIT && mode != OE_EXIT_NOPIPE;
}

/* An output that could not be opened or connected: same rules. */
static void
open_failed(struct tee_out *o)
{
	o->gone = true;
	if (mode == OE_EXIT || mode == OE_EXIT_NOPIPE)
		exit(EXIT_ERROR);
}

/* The engine failed as a whole (not one output): say why. */
static void
job_failed(const struct tee_job *job)
{
	if (job->refused && job->side != SIDE_NONE)
		warn_msg("%s is not a pipe: tee(2) needs pipes (--strict: no fallback)",
		    job->side == SIDE_INPUT ? job->in_name : job->outs[0].name);
	else if (job->refused)
		warn_msg("%s: %s (--strict: no fallback to read/write)", job->call,
		    strerror(job->err));
	else if (job->side == SIDE_INPUT)
		warn_msg("%s: %s", job->in_name, strerror(job->err));
	else
		warn_msg("%s: %s", job->call, strerror(job->err));
}

/* What O_TRUNC would have done, once nothing can stop the copy. */
static void
truncate_files(struct tee_out *files, size_t nfiles)
{
	for (struct tee_out *o = files; o < files + nfiles; o++) {
		struct stat st;

		if (o->fd < 0 || fstat(o->fd, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (ftruncate(o->fd, 0) < 0) {
			warn_errno("%s", o->name);
			open_failed(o);
		}
	}
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "append", no_argument, NULL, 'a' },
		{ "ignore-interrupts", no_argument, NULL, 'i' },
		{ "move", no_argument, NULL, 'm' },
		{ "net", required_argument, NULL, 'n' },
		{ "output-error", optional_argument, NULL, OPT_OUTPUT_ERROR },
		/* pv's --output names the one output: no abbreviation of ours. */
		{ "output", no_argument, NULL, OPT_PV_OUTPUT },
		RATE_LIMIT_LONG_OPTION,
		SIZE_LONG_OPTION,
		COMMON_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	struct tee_job job = { .in = STDIN_FILENO, .in_name = "standard input",
	    .output_failed = output_failed };
	struct tee_out *outs, *o;
	char **hosts, **ports, **net_names;
	struct tcp_opts net_opts = { .family = AF_UNSPEC };
	struct sigaction old_sigpipe;
	int *net_fds;
	size_t nfiles, nnets = 0;
	bool append = false, failed;
	unsigned int closed;
	int opt;

	set_progname(argv);
	/* At most argc --net options. */
	hosts = calloc((size_t)argc, sizeof(*hosts));
	ports = calloc((size_t)argc, sizeof(*ports));
	net_names = calloc((size_t)argc, sizeof(*net_names));
	net_fds = calloc((size_t)argc, sizeof(*net_fds));
	if (!hosts || !ports || !net_names || !net_fds) {
		warn_errno("calloc");
		return EXIT_ERROR;
	}
	while ((opt = getopt_long(argc, argv, "aimn:pw:L:" COMMON_SHORT_OPTIONS, longopts,
	    NULL)) != -1) {
		switch (opt) {
		case 'a':
			append = true;
			break;
		case 'i':
			if (signal(SIGINT, SIG_IGN) == SIG_ERR) {
				warn_errno("SIGINT");
				return EXIT_ERROR;
			}
			break;
		case 'm':
			job.flags |= SPLICE_F_MOVE;
			break;
		case 'n':
			net_names[nnets] = strdup(optarg);
			if (net_names[nnets] == NULL) {
				warn_errno("strdup");
				return EXIT_ERROR;
			}
			if (tcp_split(optarg, &hosts[nnets], &ports[nnets]) < 0)
				usage_error("--net: expected HOST:PORT or [ADDR]:PORT: '%s'",
				    net_names[nnets]);
			if (!port_valid(ports[nnets], false))
				usage_error("--net: invalid PORT '%s' (1 to 65535, or a service"
				    " name)", ports[nnets]);
			nnets++;
			break;
		case 'w':
			net_opts.timeout_secs = option_seconds("-w", optarg);
			break;
		case 'p':
			mode = OE_WARN_NOPIPE;
			break;
		case OPT_OUTPUT_ERROR:
			mode = parse_mode(optarg);
			break;
		case OPT_PV_OUTPUT:
			usage_error("--output: no such option (each FILE is an output);"
			    " --output-error is spelled out");
		default:
			common_option(opt, optarg, help);
		}
	}
	nfiles = (size_t)(argc - optind);
	job.opts = engine_opts();
	/* No FILE is truncated when there is no input to copy. */
	closed = tool_start(STD_FD(STDIN_FILENO), COUNT_INPUT);
	if (exit_status() != 0)
		return exit_status();
	account_set_total(fd_size_left(STDIN_FILENO));
	status_pipes(STDIN_FILENO, STDOUT_FILENO);
	if (sigaction(SIGPIPE, NULL, &old_sigpipe) == 0)
		sigpipe_ignored = old_sigpipe.sa_handler == SIG_IGN;
	/*
	 * A vanished reader is an error to report, not a signal to die of;
	 * and splice(2) into a socket cannot say MSG_NOSIGNAL, so a peer that
	 * goes away would raise SIGPIPE too.
	 */
	if ((mode != OE_SIGPIPE || nnets > 0) && signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
		warn_errno("SIGPIPE");
		return EXIT_ERROR;
	}

	job.nouts = 1 + nfiles + nnets;
	outs = calloc(job.nouts, sizeof(*outs));
	if (outs == NULL) {
		warn_errno("calloc");
		return EXIT_ERROR;
	}
	job.outs = outs;
	job.watch_pipes = mode == OE_WARN_NOPIPE || mode == OE_EXIT_NOPIPE;
	outs[0].fd = STDOUT_FILENO;
	outs[0].name = "standard output";
	if (closed & STD_FD(STDOUT_FILENO)) {
		outs[0].err = EBADF;
		outs[0].gone = true;
		if (!output_failed(&outs[0]))
			return EXIT_ERROR;
	}
	o = outs + 1;
	for (int i = optind; i < argc; i++, o++) {
		o->name = argv[i];
		/* Truncated once the engine knows it can copy. */
		o->fd = open(argv[i], O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : 0),
		    0666);
		if (o->fd < 0) {
			warn_errno("%s", argv[i]);
			open_failed(o);
		}
	}
	for (size_t i = 0; i < nnets; i++, o++) {
		o->name = net_names[i];
		/* tcp_connect() says what went wrong. */
		o->fd = net_fds[i] = tcp_connect(hosts[i], ports[i], &net_opts);
		if (o->fd < 0) {
			/* open_failed() may end the tool: the others get a reset. */
			for (size_t j = 0; j < i && (mode == OE_EXIT || mode == OE_EXIT_NOPIPE);
			    j++)
				tcp_abort(net_fds[j]);
			open_failed(o);
		}
	}
	/* A signal, like an error, must not look like the end of the stream. */
	tcp_abort_on_signals(net_fds, nnets);

	if (tee_open(&job) == 0) {
		if (!append)
			truncate_files(outs + 1, nfiles);
		failed = tee_fd(&job) < 0;
	} else
		failed = true;
	if (failed && !job.stopped)
		job_failed(&job);

	/*
	 * The peers get EOF, and are waited for until they have read it all;
	 * when we gave up early, a reset tells them the copy is not whole.
	 */
	for (o = outs + 1 + nfiles; o < outs + job.nouts; o++) {
		if (o->fd < 0)
			continue;
		if (failed) {
			tcp_abort(o->fd);
			continue;
		}
		if (!o->gone && tcp_finish(o->fd, net_opts.timeout_secs) < 0)
			warn_errno("%s", o->name);
		close(o->fd);
	}
	for (o = outs + 1; o < outs + 1 + nfiles; o++) {
		if (o->fd >= 0 && close(o->fd) < 0)
			warn_errno("%s", o->name);
	}
	/* What the method totals sum, output by output. */
	for (o = outs; common.verbose && o < outs + job.nouts; o++)
		note("%s: %llu bytes%s", o->name, (unsigned long long)o->moved,
		    o->gone ? " (dropped)" : "");
	report_totals();
	if (close(STDOUT_FILENO) < 0 && errno != EBADF && !outs[0].gone)
		warn_errno("standard output");
	for (size_t i = 0; i < nnets; i++)
		free(net_names[i]);
	free(net_names);
	free(net_fds);
	free(hosts);
	free(ports);
	free(outs);
	return exit_status();
}
