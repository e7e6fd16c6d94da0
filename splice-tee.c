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

static enum output_error mode = OE_SIGPIPE;
/* SIGPIPE was ignored when we started: EPIPE is an error to report, as in tee. */
static bool sigpipe_ignored;

/* splice-tee's options, as --help lists them (the format: splice.h, lib/optspec.c). */
static const char options[] =
	"a append\tappend to the FILEs, do not truncate them\n"
	"i ignore-interrupts\tignore SIGINT\n"
	"m move\tpass SPLICE_F_MOVE to splice(2) (a hint, ignored by\n"
	"\ttoday's kernels)\n"
	"n net HOST:PORT\tsend one more copy to a TCP peer ([ADDR]:PORT for\n"
	"\tIPv6); may be repeated\n"
	"w - SECS\tgive up on a peer that takes SECS to connect or to read\n"
	"p -\t--output-error=warn-nopipe: a vanished reader drops its\n"
	"\toutput quietly, the others go on\n"
	"- output-error[=MODE]\twhat an output error does: warn, warn-nopipe\n"
	"\t(the default MODE), exit, exit-nopipe\n"
	/* pv's --output names the one output: no abbreviation of ours. */
	"- output\n";
#define WITH (OPTS_RATE_LIMIT | OPTS_SIZE)
/* The codes of the options without a letter, in their order in options[]. */
enum { OPT_OUTPUT_ERROR = OPT_TOOL_FIRST, OPT_PV_OUTPUT };

static void
help(void)
{
	printf("Usage: %s [-aimp] [--output-error[=MODE]] [-n HOST:PORT]... [-w SECS]\n"
	    "       [-L RATE] [--size SIZE] [-v] [--strict] [--progress] [--name NAME]\n"
	    "       [--interval SECS] [--numeric] [--pipe-size SIZE] [FILE]...\n"
	    "Copy standard input to standard output and to every FILE, with tee(2) and\n"
	    "splice(2): zero-copy where the kernel allows.  A FILE named - is a file.\n"
	    "\n", progname);
	options_help(options, WITH);
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
	bool from_pipe = o->error.err == EPIPE && fd_is_pipe(o->fd);

	if (from_pipe && mode == OE_SIGPIPE && !sigpipe_ignored)
		tcp_abort_and_die(SIGPIPE);
	if (from_pipe && mode != OE_WARN && mode != OE_EXIT)
		return true;
	xfer_error_warn(&o->error, (const char *const[SIDE_COUNT]){ [SIDE_OUTPUT] = o->name },
	    false);
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
	const char *const names[SIDE_COUNT] = {
		[SIDE_INPUT] = job->in_name, [SIDE_OUTPUT] = job->outs[0].name,
	};

	if (job->error.refused && job->error.side != SIDE_NONE)
		warn_msg("%s is not a pipe: tee(2) needs pipes (--strict: no fallback)",
		    names[job->error.side]);
	else
		xfer_error_warn(&job->error, names, false);
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

/* The TCP peers of -n; fds is the array tcp_abort_on_signals() resets. */
struct peers {
	char **names;		/* HOST:PORT as given, for messages */
	char **hosts, **ports;	/* split out of the argument */
	int *fds;
	size_t n;
	struct tcp_opts opts;
};

/* What the command line asks, beside the engine's job. */
struct tee_cmd {
	char **files;
	size_t nfiles;
	bool append;
	struct peers peers;
};

/* Room for argc peers, the most there can be; false when out of memory. */
static bool
peers_alloc(struct peers *p, int argc)
{
	p->names = calloc((size_t)argc, sizeof(*p->names));
	p->hosts = calloc((size_t)argc, sizeof(*p->hosts));
	p->ports = calloc((size_t)argc, sizeof(*p->ports));
	p->fds = calloc((size_t)argc, sizeof(*p->fds));
	p->opts.family = AF_UNSPEC;
	if (p->names && p->hosts && p->ports && p->fds)
		return true;
	warn_errno("calloc");
	return false;
}

static void
peers_free(struct peers *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->names[i]);
	free(p->names);
	free(p->hosts);
	free(p->ports);
	free(p->fds);
}

/* -n HOST:PORT: one more peer; arg is split in place. */
static bool
peer_add(struct peers *p, char *arg)
{
	char *name = strdup(arg);

	if (name == NULL) {
		warn_errno("strdup");
		return false;
	}
	p->names[p->n] = name;
	if (tcp_split(arg, &p->hosts[p->n], &p->ports[p->n]) < 0)
		usage_error("--net: expected HOST:PORT or [ADDR]:PORT: '%s'", name);
	if (!port_valid(p->ports[p->n], false))
		usage_error("--net: invalid PORT '%s' (1 to 65535, or a service name)",
		    p->ports[p->n]);
	p->n++;
	return true;
}

/* The options into *cmd and *job; false when the tool must end (said why). */
static bool
parse_options(int argc, char *argv[], struct tee_cmd *cmd, struct tee_job *job)
{
	int opt;

	if (!peers_alloc(&cmd->peers, argc))
		return false;
	while ((opt = options_next(argc, argv, options, WITH)) != -1) {
		switch (opt) {
		case 'a':
			cmd->append = true;
			break;
		case 'i':
			if (signal(SIGINT, SIG_IGN) == SIG_ERR) {
				warn_errno("SIGINT");
				return false;
			}
			break;
		case 'm':
			job->flags |= SPLICE_F_MOVE;
			break;
		case 'n':
			if (!peer_add(&cmd->peers, optarg))
				return false;
			break;
		case 'w':
			cmd->peers.opts.timeout_secs = option_seconds("-w", optarg);
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
	cmd->files = argv + optind;
	cmd->nfiles = (size_t)(argc - optind);
	job->opts = engine_opts();
	return true;
}

/*
 * A vanished reader is an error to report, not a signal to die of; and
 * splice(2) into a socket cannot say MSG_NOSIGNAL, so a peer that goes
 * away would raise SIGPIPE too.  Remembers whether SIGPIPE was ignored.
 */
static bool
handle_sigpipe(size_t npeers)
{
	struct sigaction old;

	if (sigaction(SIGPIPE, NULL, &old) == 0)
		sigpipe_ignored = old.sa_handler == SIG_IGN;
	if ((mode != OE_SIGPIPE || npeers > 0) && signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
		warn_errno("SIGPIPE");
		return false;
	}
	return true;
}

/*
 * The outputs in job->outs: standard output (closed: dropped by the
 * rules of output errors), the files, then the peers, connected.  False
 * when the tool must end.
 */
static bool
open_outputs(struct tee_job *job, struct tee_cmd *cmd, bool stdout_closed)
{
	struct peers *p = &cmd->peers;
	struct tee_out *o;

	job->nouts = 1 + cmd->nfiles + p->n;
	job->outs = calloc(job->nouts, sizeof(*job->outs));
	if (job->outs == NULL) {
		warn_errno("calloc");
		return false;
	}
	job->watch_pipes = mode == OE_WARN_NOPIPE || mode == OE_EXIT_NOPIPE;
	o = job->outs;
	o->fd = STDOUT_FILENO;
	o->name = "standard output";
	if (stdout_closed) {
		o->error = (struct xfer_error){ .side = SIDE_OUTPUT, .err = EBADF };
		o->gone = true;
		if (!output_failed(o))
			return false;
	}
	for (size_t i = 0; i < cmd->nfiles; i++) {
		o++;
		o->name = cmd->files[i];
		/* Truncated once the engine knows it can copy. */
		o->fd = open(o->name, O_WRONLY | O_CREAT | O_CLOEXEC |
		    (cmd->append ? O_APPEND : 0), 0666);
		if (o->fd < 0) {
			warn_errno("%s", o->name);
			open_failed(o);
		}
	}
	for (size_t i = 0; i < p->n; i++) {
		o++;
		o->name = p->names[i];
		/* tcp_connect() says what went wrong, naming the peer as -n did. */
		p->opts.name = p->names[i];
		o->fd = p->fds[i] = tcp_connect(p->hosts[i], p->ports[i], &p->opts);
		if (o->fd < 0) {
			/* open_failed() may end the tool: the others get a reset. */
			for (size_t j = 0; j < i && (mode == OE_EXIT || mode == OE_EXIT_NOPIPE);
			    j++)
				tcp_abort(p->fds[j]);
			open_failed(o);
		}
	}
	/* A signal, like an error, must not look like the end of the stream. */
	tcp_abort_on_signals(p->fds, p->n);
	return true;
}

/*
 * The peers get EOF, and are waited for until they have read it all;
 * when we gave up early, a reset tells them the copy is not whole.  The
 * files are closed.
 */
static void
close_outputs(const struct tee_job *job, const struct tee_cmd *cmd, bool failed)
{
	struct tee_out *files = job->outs + 1, *peers = files + cmd->nfiles;

	for (struct tee_out *o = peers; o < job->outs + job->nouts; o++) {
		if (o->fd < 0)
			continue;
		if (failed) {
			tcp_abort(o->fd);
			continue;
		}
		if (!o->gone && tcp_finish(o->fd, cmd->peers.opts.timeout_secs) < 0)
			warn_errno("%s", o->name);
		close(o->fd);
	}
	for (struct tee_out *o = files; o < peers; o++) {
		if (o->fd >= 0 && close(o->fd) < 0)
			warn_errno("%s", o->name);
	}
}

/* -v: what the method totals sum, output by output, then the totals. */
static void
report_outputs(const struct tee_job *job)
{
	for (const struct tee_out *o = job->outs; common.verbose && o < job->outs + job->nouts; o++)
		note("%s: %llu bytes%s", o->name, (unsigned long long)o->moved,
		    o->gone ? " (dropped)" : "");
	report_totals();
}

int
main(int argc, char *argv[])
{
	struct tee_job job = { .in = STDIN_FILENO, .in_name = "standard input",
	    .output_failed = output_failed };
	struct tee_cmd cmd = { 0 };
	unsigned int closed;
	bool failed;

	set_progname(argv);
	if (!parse_options(argc, argv, &cmd, &job))
		return EXIT_ERROR;
	/* No FILE is truncated when there is no input to copy. */
	closed = tool_start(STD_FD(STDIN_FILENO), COUNT_INPUT);
	if (exit_status() != 0)
		return exit_status();
	account_set_total(fd_size_left(STDIN_FILENO));
	status_pipes(STDIN_FILENO, STDOUT_FILENO);
	if (!handle_sigpipe(cmd.peers.n) ||
	    !open_outputs(&job, &cmd, closed & STD_FD(STDOUT_FILENO)))
		return EXIT_ERROR;

	if (tee_open(&job) == 0) {
		if (!cmd.append)
			truncate_files(job.outs + 1, cmd.nfiles);
		failed = tee_fd(&job) < 0;
	} else
		failed = true;
	if (failed && !job.stopped)
		job_failed(&job);
	close_outputs(&job, &cmd, failed);
	report_outputs(&job);
	if (close(STDOUT_FILENO) < 0 && errno != EBADF && !job.outs[0].gone)
		warn_errno("standard output");
	peers_free(&cmd.peers);
	free(job.outs);
	return exit_status();
}
