/*
 * splice-tonet: a TCP client that sends its standard input to HOST PORT,
 * zero-copy: splice(2) from a pipe, sendfile(2) from a regular file.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "splice.h"

enum { OPT_RETRY = OPT_TOOL_FIRST };

static void
help(void)
{
	printf("Usage: %s [-4|-6] [--retry SECS] [-L RATE] [-v] [--strict]\n"
	    "       [--progress] [--name NAME] [--interval SECS] [--numeric]\n"
	    "       [--pipe-size SIZE] HOST PORT\n"
	    "Send standard input to a TCP peer with splice(2) or sendfile(2), then\n"
	    "shut the connection down for writing and wait until the peer closes it.\n"
	    "\n"
	    "  -4                  use IPv4 addresses only\n"
	    "  -6                  use IPv6 addresses only\n"
	    "      --retry SECS    keep trying to connect for SECS seconds\n"
	    RATE_LIMIT_HELP
	    COMMON_HELP, progname);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "retry", required_argument, NULL, OPT_RETRY },
		RATE_LIMIT_LONG_OPTION,
		COMMON_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	int family = AF_UNSPEC, opt, sock;
	double retry_secs = 0;
	const char *host, *port;
	struct xfer x = { .in = STDIN_FILENO, .len = TO_EOF };
	struct engine_opts eo;
	char peer[128];

	set_progname(argv);
	while ((opt = getopt_long(argc, argv, "46L:" COMMON_SHORT_OPTIONS, longopts,
	    NULL)) != -1) {
		switch (opt) {
		case '4':
			family = AF_INET;
			break;
		case '6':
			family = AF_INET6;
			break;
		case OPT_RETRY:
			retry_secs = option_seconds("--retry", optarg);
			break;
		default:
			if (!common_option(opt, optarg, help))
				usage_error("unknown option");
		}
	}
	if (argc - optind < 2)
		usage_error(argc == optind ? "missing HOST and PORT" : "missing PORT");
	if (argc - optind > 2)
		usage_error("extra operand '%s'", argv[optind + 2]);
	host = argv[optind];
	port = argv[optind + 1];
	if (!port_valid(port, false))
		usage_error("invalid PORT '%s' (1 to 65535, or a service name)", port);
	snprintf(peer, sizeof(peer), "%s %s", host, port);
	eo = engine_opts();
	x.opts = eo;
	account_start(&common, COUNT_MOVED);

	(void)std_fds_fill(STD_FD(STDIN_FILENO));
	if (exit_status() != 0)
		return exit_status();
	account_set_total(fd_size_left(STDIN_FILENO));
	/* A peer that goes away is reported as EPIPE, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	if (fd_is_pipe(STDIN_FILENO))
		pipe_grow(STDIN_FILENO, &eo);

	sock = tcp_connect(host, port, family, retry_secs);
	if (sock < 0)
		return EXIT_ERROR;
	if (common.verbose)
		note("connected to %s", peer);
	x.out = sock;
	if (move_to_socket(&x) < 0)
		xfer_warn(&x, "standard input", peer);
	else if (tcp_finish(sock) < 0)
		/* The peer closed before it read everything we sent. */
		warn_errno("%s", peer);
	close(sock);
	report_totals();
	return exit_status();
}
