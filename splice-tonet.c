/*
 * splice-tonet: a TCP client that sends its standard input to HOST PORT,
 * zero-copy (splice(2) from a pipe, sendfile(2) from a regular file), while
 * what the peer sends back goes to standard output, as with nc -N.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "splice.h"

/* splice-tonet's options, as --help lists them (the format: splice.h, lib/optspec.c). */
static const char options[] =
	"4 -\tuse IPv4 addresses only\n"
	"6 -\tuse IPv6 addresses only\n"
	"d -\tdo not read standard input: receive only, as nc -d\n"
	"N -\taccepted, as nc's: the end of input always shuts down\n"
	"n -\tnumeric HOST and PORT only, no DNS or service names\n"
	"s - ADDR\tconnect from the local address ADDR\n"
	"U - PATH\tconnect to a Unix-domain stream socket (no HOST PORT)\n"
	"q - SECS\tonce standard input ended, wait SECS at most for the\n"
	"\tpeer to close, then quit, as nc -q (0: at once)\n"
	"w - SECS\tgive up when connecting, or nothing moving, takes SECS\n"
	"- retry SECS\tkeep trying to connect for SECS seconds\n"
	"- no-reply\tdrop what the peer sends instead of writing it out\n";
#define WITH (OPTS_RATE_LIMIT | OPTS_SIZE)
/* The codes of the options without a letter, in their order in options[]. */
enum { OPT_RETRY = OPT_TOOL_FIRST, OPT_NO_REPLY };

static void
help(void)
{
	printf("Usage: %s [-4|-6] [-dNn] [-q SECS] [-s ADDR] [-U PATH] [-w SECS]\n"
	    "       [--retry SECS] [--no-reply] [-L RATE] [--size SIZE] [-v] [--strict]\n"
	    "       [--progress] [--name NAME] [--interval SECS] [--numeric]\n"
	    "       [--pipe-size SIZE] HOST PORT | HOST:PORT\n"
	    "Send standard input to a TCP peer with splice(2) or sendfile(2) while what\n"
	    "the peer sends goes to standard output; at the end of the input, shut the\n"
	    "connection down for writing and wait until the peer closes it.\n"
	    "\n", progname);
	options_help(options, WITH);
}

/* -v: the peer as given, and the address that took the connection. */
static void
note_connected(int sock, const char *peer, bool is_unix)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct tcp_name name;

	if (is_unix || getpeername(sock, (struct sockaddr *)&ss, &len) < 0) {
		note("connected to %s", peer);
		return;
	}
	tcp_name_of((struct sockaddr *)&ss, &name);
	note("connected to %s (%s port %u)", peer, name.host, name.port);
}

/* HOST PORT or HOST:PORT from the operands; a bad one is a usage error. */
static void
parse_peer(int argc, char *argv[], char **host, char **port)
{
	if (argc == 0)
		usage_error("missing HOST and PORT");
	if (argc > 2)
		usage_error("extra operand '%s'", argv[2]);
	if (argc == 1 && tcp_split(argv[0], host, port) < 0)
		usage_error(strchr(argv[0], ':') ? "expected HOST:PORT or [ADDR]:PORT: '%s'" :
		    "missing PORT after '%s'", argv[0]);
	if (argc == 2) {
		*host = argv[0];
		*port = argv[1];
	}
	if (!port_valid(*port, false))
		usage_error("invalid PORT '%s' (1 to 65535, or a service name)", *port);
}

/* Standard input (and output, for the replies) open, pipes grown: 0 or -1. */
static int
prepare_fds(const struct duplex *d)
{
	/* What is sent: the peer's replies are not the transfer (duplex.count_received). */
	(void)tool_start((d->no_send ? 0 : STD_FD(STDIN_FILENO)) |
	    (d->no_reply ? 0 : STD_FD(STDOUT_FILENO)), COUNT_INPUT);
	if (exit_status() != 0)
		return -1;
	account_set_total(fd_size_left(STDIN_FILENO));
	status_pipes(STDIN_FILENO, d->no_reply ? -1 : STDOUT_FILENO);
	/* A peer that goes away is reported as EPIPE, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	if (!d->no_send && fd_is_pipe(STDIN_FILENO))
		pipe_grow(STDIN_FILENO, &d->opts);
	if (!d->no_reply && fd_is_pipe(STDOUT_FILENO))
		pipe_grow(STDOUT_FILENO, &d->opts);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct tcp_opts to = { .family = AF_UNSPEC };
	struct duplex d = { .in = STDIN_FILENO, .out = STDOUT_FILENO, .quit_secs = -1 };
	const char *unix_path = NULL;
	char *host = NULL, *port = NULL;
	char peer[300];
	int opt;

	set_progname(argv);
	while ((opt = options_next(argc, argv, options, WITH)) != -1) {
		switch (opt) {
		case 's':
			to.source = optarg;
			break;
		case 'U':
			unix_path = optarg;
			break;
		case 'd':
			d.no_send = true;
			break;
		case 'q':
			d.quit_secs = option_seconds("-q", optarg);
			break;
		case 'w':
			to.timeout_secs = option_seconds("-w", optarg);
			d.idle_secs = to.timeout_secs;
			break;
		case OPT_RETRY:
			to.retry_secs = option_seconds("--retry", optarg);
			break;
		case OPT_NO_REPLY:
			d.no_reply = true;
			break;
		default:
			if (!net_option(opt, &to))
				common_option(opt, optarg, help);
		}
	}
	if (unix_path) {
		if (argc > optind)
			usage_error("-U PATH takes no HOST or PORT: '%s'", argv[optind]);
		if (to.source || to.family != AF_UNSPEC)
			usage_error("-U: -s, -4 and -6 are for TCP");
		snprintf(peer, sizeof(peer), "%s", unix_path);
	} else {
		parse_peer(argc - optind, argv + optind, &host, &port);
		snprintf(peer, sizeof(peer), "%s %s", host, port);
	}
	d.opts = engine_opts();

	if (prepare_fds(&d) < 0)
		return EXIT_ERROR;

	d.sock = unix_path ? unix_connect(unix_path, &to) : tcp_connect(host, port, &to);
	if (d.sock < 0)
		return EXIT_ERROR;
	/* A signal, like an error, must not look like the end of the stream. */
	tcp_abort_on_signals(&d.sock, 1);
	if (common.verbose)
		note_connected(d.sock, peer, unix_path != NULL);
	if (duplex_run(&d) < 0) {
		duplex_warn(&d, peer);
		tcp_abort(d.sock);
	} else
		close(d.sock);
	d.sock = -1;
	if (common.verbose)
		note("%llu bytes sent, %llu bytes received", (unsigned long long)d.sent,
		    (unsigned long long)d.received);
	report_totals();
	if (!d.no_reply && close(STDOUT_FILENO) < 0)
		warn_errno("standard output");
	return exit_status();
}
