/*
 * splice-fromnet: a TCP listener that splices what its peer sends into
 * standard output.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "splice.h"

enum { OPT_TIMEOUT = OPT_TOOL_FIRST };

static void
help(void)
{
	printf("Usage: %s [-4|-6] [-b ADDR] [-k] [-s SIZE] [-w] [-n]\n"
	    "       [--timeout SECS] [-v] [--strict] [--progress] [--name NAME]\n"
	    "       [--interval SECS] [--numeric] [--pipe-size SIZE] PORT\n"
	    "Listen on TCP PORT (0: any free port), accept a connection and splice(2)\n"
	    "what the peer sends to standard output.  The address and port listened\n"
	    "on are printed to standard error.\n"
	    "\n"
	    "  -4                  listen on IPv4 only\n"
	    "  -6                  listen on IPv6 only\n"
	    "  -b, --bind ADDR     listen on ADDR only (default: every address)\n"
	    "  -k, --keep-open     accept one connection after another, concatenating them\n"
	    "  -s, --chunk SIZE    move at most SIZE bytes per call\n"
	    "  -w, --wait          poll(2) the socket before each splice\n"
	    "  -n, --nonblock      pass SPLICE_F_NONBLOCK to splice(2)\n"
	    "      --timeout SECS  give up when no connection comes within SECS seconds;\n"
	    "                      with -k, end when none follows within SECS\n"
	    COMMON_HELP, progname);
}

/*
 * -w: one poll(2) per call, as the 2006 tool did; move_fd() waits by
 * itself otherwise.
 */
static int
receive_polling(struct xfer *x, size_t call_bytes)
{
	uint64_t total = 0;

	for (;;) {
		if (wait_fd(x->in, POLLIN) < 0) {
			x->side = SIDE_INPUT;
			x->err = errno;
			x->call = "poll";
			x->moved = total;
			return -1;
		}
		x->len = call_bytes;
		if (move_fd(x) < 0) {
			x->moved += total;
			return -1;
		}
		total += x->moved;
		if (x->moved == 0)
			break;
	}
	x->moved = total;
	return 0;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "bind", required_argument, NULL, 'b' },
		{ "keep-open", no_argument, NULL, 'k' },
		{ "chunk", required_argument, NULL, 's' },
		{ "wait", no_argument, NULL, 'w' },
		{ "nonblock", no_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		COMMON_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	int family = AF_UNSPEC, opt, listener, accepted = 0;
	const char *bind_addr = NULL, *timeout_arg = NULL;
	bool keep_open = false, poll_first = false;
	unsigned int flags = 0;
	double timeout_secs = -1;
	uint64_t chunk = 0;
	struct engine_opts eo;
	struct tcp_name here;
	long cap;

	set_progname(argv);
	while ((opt = getopt_long(argc, argv, "46b:ks:wn" COMMON_SHORT_OPTIONS, longopts,
	    NULL)) != -1) {
		switch (opt) {
		case '4':
			family = AF_INET;
			break;
		case '6':
			family = AF_INET6;
			break;
		case 'b':
			bind_addr = optarg;
			break;
		case 'k':
			keep_open = true;
			break;
		case 's':
			chunk = option_size("--chunk", optarg);
			if (chunk == 0 || chunk > 1UL << 30)
				usage_error("--chunk: must be 1 to 1G bytes: '%s'", optarg);
			break;
		case 'w':
			poll_first = true;
			break;
		case 'n':
			flags |= SPLICE_F_NONBLOCK;
			break;
		case OPT_TIMEOUT:
			timeout_secs = option_seconds("--timeout", optarg);
			timeout_arg = optarg;
			break;
		default:
			if (!common_option(opt, optarg, help))
				usage_error("unknown option");
		}
	}
	if (argc == optind)
		usage_error("missing PORT");
	if (argc - optind > 1)
		usage_error("extra operand '%s'", argv[optind + 1]);
	if (!port_valid(argv[optind], true))
		usage_error("invalid PORT '%s' (0 to 65535, or a service name)", argv[optind]);
	eo = engine_opts();
	account_start(&common, COUNT_MOVED);

	(void)std_fds_fill(STD_FD(STDOUT_FILENO));
	if (exit_status() != 0)
		return exit_status();
	cap = fd_is_pipe(STDOUT_FILENO) ? pipe_grow(STDOUT_FILENO, &eo) : -1;
	listener = tcp_listen(bind_addr, argv[optind], family, &here);
	if (listener < 0)
		return EXIT_ERROR;
	/* Always, and in one write: scripts wait for this line to learn the port. */
	note("listening on %s port %u", here.host, here.port);

	do {
		struct tcp_name peer;
		char peer_name[80];
		struct xfer x = {
			.out = STDOUT_FILENO, .len = TO_EOF, .chunk = (size_t)chunk,
			.flags = flags, .opts = eo,
		};
		int r;

		x.in = tcp_accept(listener, timeout_secs, &peer);
		if (x.in < 0) {
			/* -k ends when the senders stop coming. */
			if (errno == ETIMEDOUT && accepted > 0)
				break;
			if (errno == ETIMEDOUT)
				warn_msg("no connection within %s seconds", timeout_arg);
			else
				warn_errno("accept");
			break;
		}
		/* -v rates count from the first peer, not from the wait for it. */
		if (accepted++ == 0)
			restart_rate_clock();
		if (!keep_open)
			close(listener);
		snprintf(peer_name, sizeof(peer_name), "%s port %u", peer.host, peer.port);
		if (common.verbose)
			note("connection from %s", peer_name);
		if (poll_first)
			r = receive_polling(&x, chunk ? (size_t)chunk :
			    cap > 0 ? (size_t)cap : 65536);
		else
			r = move_fd(&x);
		if (r < 0)
			xfer_warn(&x, peer_name, "standard output");
		if (common.verbose)
			note("%s: %llu bytes received", peer_name,
			    (unsigned long long)x.moved);
		close(x.in);
		/* Output gone or full: the next sender cannot fare better. */
		if (r < 0 && x.side != SIDE_INPUT)
			break;
	} while (keep_open);

	if (keep_open)
		close(listener);
	report_totals();
	if (close(STDOUT_FILENO) < 0 && errno != EBADF)
		warn_errno("standard output");
	return exit_status();
}
