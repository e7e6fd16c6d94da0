/*
 * splice-fromnet: a TCP listener that splices what its peer sends into
 * standard output and, as nc -l does, its standard input to the peer.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "splice.h"

/* What the options chose, for each connection. */
struct listen_opts {
	bool keep_open, poll_first;
	bool no_send;		/* -d, --no-send: standard input is not read */
	bool send;		/* standard input goes to the peer */
	unsigned int flags;
	double timeout_secs, idle_secs;
	double quit_secs;	/* -q: after standard input ended, < 0: never */
	const char *timeout_arg, *unix_path;
	uint64_t chunk;
	struct tcp_net *allow;
	size_t nallow;
	long cap;
};

/* splice-fromnet's options, as --help lists them (the format: splice.h, lib/optspec.c). */
static const char options[] =
	"4 -\tlisten on IPv4 only\n"
	"6 -\tlisten on IPv6 only\n"
	"bs bind ADDR\tlisten on ADDR only (default: every address), as HOST\n"
	"d no-send\tdo not read standard input: receive only\n"
	"k keep-open\taccept one connection after another, concatenating\n"
	"\tthem (standard input is not sent: -d or /dev/null)\n"
	"lN -\taccepted and ignored, as nc's\n"
	"n -\tnumeric ADDR and PORT only, no DNS or service names\n"
	"p - PORT\tlisten on PORT, as the PORT operand\n"
	"q - SECS\tonce standard input ended, wait SECS at most for the\n"
	"\tpeer to close, then quit, as nc -q (0: at once)\n"
	"U - PATH\tlisten on a Unix-domain stream socket (no PORT)\n"
	"w - SECS\tend a connection that stays idle for SECS seconds\n"
	"- allow ADDR[/PREFIX]\taccept peers from there only (repeatable);\n"
	"\tclose any other connection at once\n"
	"- timeout SECS\tgive up when no connection comes within SECS\n"
	"\tseconds; with -k, end when none follows within SECS\n"
	"- chunk SIZE\tmove at most SIZE bytes per call\n"
	"- poll\tpoll(2) the socket before each splice (splice.git -w)\n"
	"- nonblock\tpass SPLICE_F_NONBLOCK to splice(2) (splice.git -n)\n";
#define WITH (OPTS_SIZE)
/* The codes of the options without a letter, in their order in options[]. */
enum { OPT_ALLOW = OPT_TOOL_FIRST, OPT_TIMEOUT, OPT_CHUNK, OPT_POLL, OPT_NONBLOCK };

static void
help(void)
{
	printf("Usage: %s [-4|-6] [-dklNn] [-b|-s ADDR] [-p PORT] [-q SECS]\n"
	    "       [-U PATH] [-w SECS] [--allow ADDR[/PREFIX]]... [--timeout SECS]\n"
	    "       [--chunk SIZE] [--poll] [--nonblock] [--size SIZE] [-v] [--strict]\n"
	    "       [--progress] [--name NAME] [--interval SECS] [--numeric]\n"
	    "       [--pipe-size SIZE] [HOST] PORT | HOST:PORT | -p PORT [HOST]\n"
	    "Listen on TCP PORT (0: any free port), accept a connection and splice(2)\n"
	    "what the peer sends to standard output; as nc -l, send standard input to\n"
	    "the peer meanwhile, unless it is a terminal or /dev/null.  The address and\n"
	    "port listened on are printed to standard error.\n"
	    "\n", progname);
	options_help(options, WITH);
}

/*
 * --poll: one poll(2) per splice, as the 2006 tool did: each call asks
 * for no more than has arrived.
 */
static int
receive_polling(struct xfer *x, size_t call_bytes)
{
	uint64_t total = 0;

	for (;;) {
		int queued = 0;

		if (wait_fd_timeout(x->in, POLLIN, x->idle_secs > 0 ? x->idle_secs : -1) < 0) {
			x->error = (struct xfer_error){
				.side = SIDE_INPUT, .err = errno, .call = "poll",
			};
			x->moved = total;
			return -1;
		}
		/* Nothing queued: the end, or an error, which one splice tells. */
		if (ioctl(x->in, FIONREAD, &queued) < 0 || queued <= 0)
			queued = 1;
		x->len = (size_t)queued < call_bytes ? (size_t)queued : call_bytes;
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

/*
 * [HOST] PORT, HOST:PORT or [V6ADDR]:PORT; with -p (*port set), [HOST].  A
 * bad one is a usage error.
 */
static void
parse_operands(int argc, char *argv[], const char **host, char **port)
{
	char *split_host;

	if (*port) {
		if (argc > 1)
			usage_error("extra operand '%s'", argv[1]);
		if (argc == 1 && *host)
			usage_error("both -b and HOST: '%s'", argv[0]);
		/* Digits alone are a port, not an address (inet_aton's "0"). */
		if (argc == 1 && (strspn(argv[0], "0123456789") == strlen(argv[0]) ||
		    (strchr(argv[0], ':') && tcp_split(argv[0], &split_host, port) == 0)))
			usage_error("both -p and PORT: '%s'", argv[0]);
		if (argc == 1)
			*host = argv[0];
	} else {
		if (argc == 0)
			usage_error("missing PORT");
		if (argc > 2)
			usage_error("extra operand '%s'", argv[2]);
		if (argc == 2 && *host)
			usage_error("both -b and HOST: '%s'", argv[0]);
		*port = argv[argc - 1];
		if (argc == 2)
			*host = argv[0];
		else if (strchr(argv[0], ':')) {
			if (*host)
				usage_error("both -b and HOST: '%s'", argv[0]);
			if (tcp_split(argv[0], &split_host, port) < 0)
				usage_error("expected PORT, HOST:PORT or [ADDR]:PORT: '%s'",
				    argv[0]);
			*host = split_host;
		}
	}
	if (!port_valid(*port, true))
		usage_error("invalid PORT '%s' (0 to 65535, or a service name)", *port);
}

/*
 * As nc -l: standard input goes to the peer, unless there is nothing to
 * send, a terminal (someone typing to the listener rarely means it), or
 * /dev/null (a background job's, or a closed one filled in).
 */
static bool
stdin_sends(void)
{
	struct stat in_st, null_st;

	if (fstat(STDIN_FILENO, &in_st) < 0 || isatty(STDIN_FILENO))
		return false;
	return !(S_ISCHR(in_st.st_mode) && stat("/dev/null", &null_st) == 0 &&
	    in_st.st_rdev == null_st.st_rdev);
}

/* The socket file is ours: it goes with the tool, however it ends. */
static const char *socket_file;

static void
remove_socket_file(void)
{
	unlink(socket_file);
}

/* An ending signal while the input is sent: the peer is reset, the file goes. */
static void
reset_and_remove_socket_file(void)
{
	tcp_reset_registered();
	if (socket_file)
		remove_socket_file();
}

/* Both ways at once: standard input to the peer, the peer to standard output. */
static int
exchange(int sock, const struct listen_opts *lo, const struct engine_opts *eo,
    const char *peer_name)
{
	static int sock_fd;	/* for the signal handlers, which outlive this call */
	struct duplex d = {
		.in = STDIN_FILENO, .sock = sock, .out = STDOUT_FILENO,
		.idle_secs = lo->idle_secs, .opts = *eo, .count_received = true,
		.quit_secs = lo->quit_secs,
	};
	int r;

	if (lo->chunk && (d.opts.call_bytes_max == 0 || lo->chunk < d.opts.call_bytes_max))
		d.opts.call_bytes_max = (size_t)lo->chunk;
	/* A signal, like an error, must not look like the end of what we send. */
	sock_fd = sock;
	tcp_abort_on_signals(&sock_fd, 1);
	on_ending_signal(reset_and_remove_socket_file);
	r = duplex_run(&d);
	if (r < 0) {
		duplex_warn(&d, peer_name);
		tcp_abort(sock);
	} else
		close(sock);
	tcp_abort_on_signals(NULL, 0);
	on_ending_signal(reset_and_remove_socket_file);
	if (common.verbose)
		note("%s: %llu bytes received, %llu sent", peer_name,
		    (unsigned long long)d.received, (unsigned long long)d.sent);
	return r;
}

/*
 * One connection, from accept to close.  Returns 1 to accept the next
 * one (-k), 0 to stop, with the status recorded by the warnings.
 */
static int
serve_one(int *listener, const struct listen_opts *lo, const struct engine_opts *eo,
    int *accepted)
{
	struct tcp_name peer;
	char peer_name[80];
	struct xfer x = {
		.out = STDOUT_FILENO, .len = TO_EOF, .chunk = (size_t)lo->chunk,
		.flags = lo->flags, .idle_secs = lo->idle_secs, .opts = *eo,
	};
	int r;

	x.in = tcp_accept(*listener, lo->timeout_secs, &peer);
	if (x.in < 0) {
		/* -k ends when the senders stop coming. */
		if (errno == ETIMEDOUT && *accepted == 0)
			warn_msg("no connection within %s second%s", lo->timeout_arg,
			    lo->timeout_secs == 1 ? "" : "s");
		else if (errno != ETIMEDOUT)
			warn_errno("accept");
		return 0;
	}
	if (lo->unix_path)
		snprintf(peer_name, sizeof(peer_name), "%s", lo->unix_path);
	else
		snprintf(peer_name, sizeof(peer_name), "%s port %u", peer.host, peer.port);
	if (lo->nallow > 0 && !tcp_net_match(lo->allow, lo->nallow, &peer)) {
		if (common.verbose)
			note("refused connection from %s (not in --allow)", peer_name);
		tcp_abort(x.in);
		return 1;
	}
	/* -v rates count from the first peer, not from the wait for it. */
	if ((*accepted)++ == 0)
		restart_rate_clock();
	/* One peer: the next one is refused at once, not left waiting. */
	if (!lo->keep_open) {
		close(*listener);
		*listener = -1;
	}
	if (common.verbose)
		note("connection from %s", peer_name);
	if (lo->send)
		return exchange(x.in, lo, eo, peer_name) == 0 && lo->keep_open;
	if (lo->poll_first)
		r = receive_polling(&x, lo->chunk ? (size_t)lo->chunk :
		    lo->cap > 0 ? (size_t)lo->cap : 65536);
	else
		r = move_fd(&x);
	if (r < 0)
		xfer_warn(&x, peer_name, "standard output");
	if (common.verbose)
		note("%s: %llu bytes received", peer_name, (unsigned long long)x.moved);
	close(x.in);
	/* Output gone or full: the next sender cannot fare better. */
	return r == 0 || x.error.side == SIDE_INPUT;
}

/* A reader that goes away ends us by SIGPIPE, as cat: the file goes first. */
static void
remove_socket_file_and_die(int sig)
{
	unlink(socket_file);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* From now on the socket file at path goes with the tool, however it ends. */
static void
remove_socket_file_at_end(const char *path)
{
	struct sigaction sa = { .sa_handler = remove_socket_file_and_die }, old;

	socket_file = path;
	on_ending_signal(remove_socket_file);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGPIPE, &sa, NULL);
}

/* Listens, serves one connection or (-k) many; the exit status. */
static int
listen_and_serve(struct listen_opts *lo, const struct tcp_opts *to, const char *bind_addr,
    const char *port)
{
	struct engine_opts eo = engine_opts();
	struct tcp_name here;
	int listener, accepted = 0;

	/* What the peer sends is the transfer: what we send it is not counted (-v names both). */
	(void)tool_start(STD_FD(STDOUT_FILENO), lo->send ? COUNT_INPUT : COUNT_MOVED);
	if (exit_status() != 0)
		return exit_status();
	lo->cap = fd_is_pipe(STDOUT_FILENO) ? pipe_grow(STDOUT_FILENO, &eo) : -1;
	status_pipes(-1, STDOUT_FILENO);
	if (lo->send) {
		/* A peer that goes away is reported as EPIPE, not a silent death. */
		signal(SIGPIPE, SIG_IGN);
		if (fd_is_pipe(STDIN_FILENO))
			pipe_grow(STDIN_FILENO, &eo);
	}
	listener = lo->unix_path ? unix_listen(lo->unix_path) :
	    tcp_listen(bind_addr, port, to, &here);
	if (listener < 0)
		return EXIT_ERROR;
	if (lo->unix_path)
		remove_socket_file_at_end(lo->unix_path);
	/* Always, and in one write: scripts wait for this line to learn the port. */
	if (lo->unix_path)
		note("listening on %s", lo->unix_path);
	else
		note("listening on %s port %u", here.host, here.port);

	while (serve_one(&listener, lo, &eo, &accepted) && listener >= 0)
		;
	if (listener >= 0)
		close(listener);
	if (socket_file)
		remove_socket_file();
	report_totals();
	if (close(STDOUT_FILENO) < 0 && errno != EBADF)
		warn_errno("standard output");
	return exit_status();
}

/*
 * The options into *lo and *to, the address and port to listen on into
 * *bind_addr and *port; false when the tool must end (said why).
 */
static bool
parse_options(int argc, char *argv[], struct listen_opts *lo, struct tcp_opts *to,
    const char **bind_addr, char **port)
{
	int opt;

	/* At most argc --allow options. */
	lo->allow = calloc((size_t)argc, sizeof(*lo->allow));
	if (lo->allow == NULL) {
		warn_errno("calloc");
		return false;
	}
	while ((opt = options_next(argc, argv, options, WITH)) != -1) {
		switch (opt) {
		case 'b':
		case 's':
			*bind_addr = optarg;
			break;
		case 'd':
			lo->no_send = true;
			break;
		case 'q':
			lo->quit_secs = option_seconds("-q", optarg);
			break;
		case 'k':
			lo->keep_open = true;
			break;
		case 'l':
			break;
		case 'p':
			*port = optarg;
			break;
		case OPT_CHUNK:
			lo->chunk = option_size("--chunk", optarg);
			if (lo->chunk == 0 || lo->chunk > 1UL << 30)
				usage_error("--chunk: must be 1 to 1G bytes: '%s'", optarg);
			break;
		case 'U':
			lo->unix_path = optarg;
			break;
		case 'w':
			lo->idle_secs = option_seconds("-w", optarg);
			break;
		case OPT_ALLOW:
			if (tcp_net_parse(optarg, &lo->allow[lo->nallow++]) < 0)
				usage_error("--allow: expected a numeric ADDR or ADDR/PREFIX: '%s'",
				    optarg);
			break;
		case OPT_TIMEOUT:
			lo->timeout_secs = option_seconds("--timeout", optarg);
			lo->timeout_arg = optarg;
			break;
		case OPT_POLL:
			lo->poll_first = true;
			break;
		case OPT_NONBLOCK:
			lo->flags |= SPLICE_F_NONBLOCK;
			break;
		default:
			if (!net_option(opt, to))
				common_option(opt, optarg, help);
		}
	}
	if (lo->unix_path) {
		if (argc > optind)
			usage_error("-U PATH takes no HOST or PORT: '%s'", argv[optind]);
		if (*bind_addr || *port || lo->nallow || to->family != AF_UNSPEC)
			usage_error("-U: -b, -s, -p, --allow, -4 and -6 are for TCP");
	} else
		parse_operands(argc - optind, argv + optind, bind_addr, port);
	return true;
}

int
main(int argc, char *argv[])
{
	struct listen_opts lo = { .timeout_secs = -1, .quit_secs = -1 };
	struct tcp_opts to = { .family = AF_UNSPEC };
	const char *bind_addr = NULL;
	char *port = NULL;
	int status;

	set_progname(argv);
	if (!parse_options(argc, argv, &lo, &to, &bind_addr, &port))
		return EXIT_ERROR;
	lo.send = !lo.no_send && stdin_sends();
	if (lo.send && lo.keep_open)
		usage_error("-k: one standard input cannot go to many peers;"
		    " add -d, or read /dev/null");
	/* Unlike nc -l, a terminal is not sent: said, and what is typed dropped at the end. */
	if (!lo.no_send && isatty(STDIN_FILENO))
		note("standard input is a terminal: nothing typed is sent");
	status = listen_and_serve(&lo, &to, bind_addr, port);
	free(lo.allow);
	if (!lo.send && isatty(STDIN_FILENO))
		(void)tcflush(STDIN_FILENO, TCIFLUSH);
	return status;
}
