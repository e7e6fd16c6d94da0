/*
 * splice-top: every pipe between the stages of a running pipeline, of any
 * programs, as top shows processes: how full each pipe is, what each stage
 * does, and which stage holds the others back.  It reads /proc alone: it
 * never reads a byte of a pipe, never opens one for writing, and holds a
 * reader's end only for FIONREAD and F_GETPIPE_SZ (top/scan.c).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "splice.h"
#include "top/top.h"

struct config {
	struct top_opts o;
	double delay;		/* -d: seconds between refreshes */
	unsigned long count;	/* -n: refreshes, 0 = until q or the pipeline ends */
	enum top_view view;
};

static volatile sig_atomic_t stop_signal, resized;

static void
help(void)
{
	printf("Usage: %s [-d SECS] [-n COUNT] [-b] [--numeric] [PID... | -g PGID | -a]\n"
	    "Show every pipe between the stages of running pipelines, how full it is,\n"
	    "what each stage does, and the stage that holds the others back.  PIDs:\n"
	    "the pipelines these processes are in; -g: those of a process group (a\n"
	    "shell job); neither: every pipeline of this session.  Nothing watched is\n"
	    "read from or written to.\n"
	    "\n"
	    "  -d, --delay SECS      refresh every SECS seconds (default 1; 0.01 and up)\n"
	    "  -n, --iterations COUNT  stop after COUNT refreshes\n"
	    "  -b, --batch           print each refresh as lines, one after another,\n"
	    "                          instead of redrawing a terminal's screen\n"
	    "      --numeric         print key=value records, numbers exact: frame,\n"
	    "                          stage, file, pipe, verdict, end (see the page)\n"
	    "  -g, --pgid PGID       the pipelines of process group PGID\n"
	    "  -a, --all             every pipeline it may see (root: the machine's)\n"
	    "  -h, --help            print this help and exit\n"
	    "  -V, --version         print the version and exit\n"
	    "\n"
	    "On a terminal, q quits.  Exit status: 0 when the watched pipeline ended or\n"
	    "COUNT refreshes were shown, 1 for a pid that does not exist or may not be\n"
	    "watched, 2 for a usage error.\n", progname);
	exit_flushing_stdout();
}

/* A pid or process group for option OPT (NULL: an operand); a bad one is a usage error. */
static pid_t
parse_pid(const char *opt, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || errno || *end || v <= 0 || v > 0x3fffffff)
		usage_error("%s%snot a process id: '%s'", opt ? opt : "", opt ? ": " : "", arg);
	return (pid_t)v;
}

static void
parse_options(int argc, char *argv[], struct config *c)
{
	enum { OPT_NUMERIC = 0x100 };
	static const struct option longs[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "batch", no_argument, NULL, 'b' },
		{ "numeric", no_argument, NULL, OPT_NUMERIC },
		{ "pgid", required_argument, NULL, 'g' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int opt, i;

	while ((opt = getopt_long(argc, argv, "d:n:bg:ahV", longs, NULL)) != -1) {
		switch (opt) {
		case 'd':
			c->delay = option_seconds("-d", optarg);
			if (c->delay < 0.01)
				usage_error("-d: at least 0.01 seconds: '%s'", optarg);
			break;
		case 'n':
			errno = 0;
			c->count = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || errno || *end || c->count == 0)
				usage_error("-n: a count of 1 or more: '%s'", optarg);
			break;
		case 'b':
			c->view = c->view == VIEW_RECORDS ? VIEW_RECORDS : VIEW_BATCH;
			break;
		case OPT_NUMERIC:
			c->view = VIEW_RECORDS;
			break;
		case 'g':
			if (c->o.mode == WATCH_ALL)
				usage_error("-g and -a: one or the other");
			c->o.mode = WATCH_PGID;
			c->o.pgid = parse_pid("-g", optarg);
			break;
		case 'a':
			if (c->o.mode == WATCH_PGID)
				usage_error("-g and -a: one or the other");
			c->o.mode = WATCH_ALL;
			break;
		case 'h':
			help();
			break;
		case 'V':
			printf("%s (splice-tools) %s\n", progname, SPLICE_TOOLS_VERSION);
			exit_flushing_stdout();
		default:
			fprintf(stderr, "Try '%s --help'.\n", progname);
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc) {
		if (c->o.mode != WATCH_SESSION)
			usage_error("PIDs, -g and -a: one of them");
		c->o.mode = WATCH_PIDS;
		c->o.npids = (size_t)(argc - optind);
		c->o.pids = calloc(c->o.npids, sizeof(pid_t));
		if (!c->o.pids)
			usage_error("%s", strerror(errno));
		for (i = optind; i < argc; i++)
			c->o.pids[i - optind] = parse_pid(NULL, argv[i]);
	}
}

/* Every named pid may be watched, and the group exists: else say why, exit 1. */
static void
check_targets(const struct top_opts *o)
{
	size_t i;

	for (i = 0; i < o->npids; i++) {
		if (top_check_pid(o->pids[i]) == 0)
			continue;
		if (errno == ESRCH)
			warn_msg("%d: no such process", (int)o->pids[i]);
		else if (errno == ECHILD)
			warn_msg("%d: a thread, not a process: give its process's id (ps -L)",
			    (int)o->pids[i]);
		else if (errno == EACCES || errno == EPERM)
			warn_msg("%d: operation not permitted: run as the pid's user or root",
			    (int)o->pids[i]);
		else
			warn_errno("%d", (int)o->pids[i]);
	}
	if (o->mode == WATCH_PGID && kill(-o->pgid, 0) < 0) {
		if (errno == ESRCH)
			warn_msg("process group %d: no such process group", (int)o->pgid);
		else
			warn_msg("process group %d: operation not permitted: run as its"
			    " user or root", (int)o->pgid);
	}
	if (exit_status() != 0)
		exit(exit_status());
}

/* The terminal's stdin without line editing or echo, for q; restored by screen_end(). */
static struct termios saved_tty, raw_tty;
static volatile sig_atomic_t tty_changed;

/* Flags alone: the loop does what a stop or a continue asks (wait_refresh()). */
static volatile sig_atomic_t stop_asked, continued;

static void
on_signal(int sig)
{
	switch (sig) {
	case SIGWINCH:
		resized = 1;
		break;
	case SIGTSTP:
		stop_asked = 1;
		break;
	case SIGCONT:
		continued = 1;
		resized = 1;
		break;
	default:
		stop_signal = sig;
	}
}

/* ^Z: the shell gets its terminal back as it was, then we stop; taken again on fg. */
static void
stop_here(void)
{
	struct sigaction dfl, ours;

	stop_asked = 0;
	if (tty_changed)
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	(void)sigaction(SIGTSTP, &dfl, &ours);
	(void)kill(getpid(), SIGTSTP);
	(void)sigaction(SIGTSTP, &ours, NULL);
	if (tty_changed)
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &raw_tty);
	continued = 0;
}

static void
screen_begin(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	(void)sigaction(SIGWINCH, &sa, NULL);
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGHUP, &sa, NULL);
	(void)sigaction(SIGQUIT, &sa, NULL);
	(void)sigaction(SIGTSTP, &sa, NULL);
	(void)sigaction(SIGCONT, &sa, NULL);
	if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_tty) == 0) {
		raw_tty = saved_tty;
		raw_tty.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw_tty.c_cc[VMIN] = 0;
		raw_tty.c_cc[VTIME] = 0;
		tty_changed = tcsetattr(STDIN_FILENO, TCSANOW, &raw_tty) == 0;
	}
}

static void
screen_end(void)
{
	if (tty_changed)
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	tty_changed = false;
}

/*
 * Waits delay seconds, or less: a resize (true: redraw) or q (stop).
 * Reads the terminal's keys only on a screen.
 */
static bool
wait_refresh(double delay, bool screen)
{
	double end = now_seconds() + delay, left;
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	static bool keys = true;
	ssize_t n;
	char key;

	while (!stop_signal && (left = end - now_seconds()) > 0) {
		if (stop_asked)
			stop_here();
		/* Continued after a stop of another's (SIGSTOP): the terminal taken again. */
		if (continued) {
			continued = 0;
			if (tty_changed)
				(void)tcsetattr(STDIN_FILENO, TCSANOW, &raw_tty);
		}
		if (poll(&p, screen && keys ? 1 : 0, (int)(left * 1000) + 1) > 0) {
			n = read(STDIN_FILENO, &key, 1);
			if (n == 1 && (key == 'q' || key == 'Q'))
				stop_signal = -1;
			/* A terminal gone: no more keys, refreshes go on. */
			keys = n == 1 || (n < 0 && errno == EINTR);
		}
		if (resized)
			return true;
	}
	return false;
}

/* The terminal's size, or 80x24 where it will not say. */
static void
screen_size(int *cols, int *rows)
{
	struct winsize ws;

	*cols = 80;
	*rows = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
		*cols = ws.ws_col;
		*rows = ws.ws_row > 1 ? ws.ws_row : 24;
	}
}

/* A frame to standard output: redrawn over the screen, or after the one before. */
static void
show(struct top_sample *s, const struct config *c, bool screen, bool first)
{
	int cols = 0, rows = 0;
	char *text = NULL, *line, *next;
	size_t len = 0;
	FILE *mem;

	if (screen || (c->view == VIEW_BATCH && isatty(STDOUT_FILENO)))
		screen_size(&cols, &rows);
	mem = open_memstream(&text, &len);
	if (!mem)
		return;
	top_render(mem, s, c->view, cols, screen ? rows - 1 : 0, c->delay);
	if (fclose(mem) != 0)
		return;
	if (!screen) {
		out_printf("%s%s", first || c->view == VIEW_RECORDS ? "" : "\n", text);
		free(text);
		return;
	}
	out_printf("\033[H");
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		out_printf("%.*s\033[K%s", (int)(next - line - (next[-1] == '\n')), line,
		    next[-1] == '\n' && *next ? "\n" : "");
	}
	out_printf("\033[J");
	free(text);
}

/* Refreshes until COUNT, q, a signal, or the end of the watched pipeline. */
static void
watch(const struct config *c)
{
	bool screen = c->view == VIEW_SCREEN && isatty(STDOUT_FILENO), ended = false;
	struct top_sample prev, cur;
	unsigned long shown = 0;

	if (top_sample_take(&prev, &c->o, NULL) < 0) {
		warn_errno("/proc");
		return;
	}
	/* A group of another user's: none of its descriptors may be read. */
	if (c->o.mode == WATCH_PGID && !prev.group_readable) {
		warn_msg("process group %d: operation not permitted: run as its user or root",
		    (int)c->o.pgid);
		top_sample_free(&prev);
		return;
	}
	if (screen)
		screen_begin();
	while (!stop_signal) {
		if (wait_refresh(c->delay, screen)) {
			resized = 0;
			show(&prev, c, screen, false);
			continue;
		}
		if (stop_signal)
			break;
		if (top_sample_take(&cur, &c->o, &prev) < 0) {
			warn_errno("/proc");
			break;
		}
		top_sample_free(&prev);
		prev = cur;
		ended = (c->o.mode == WATCH_PIDS || c->o.mode == WATCH_PGID) && !cur.watched;
		if (ended)
			break;
		show(&cur, c, screen, shown == 0);
		/* Standard output gone or full (said once): nothing more to show. */
		if (exit_status() != 0 || (c->count && ++shown >= c->count))
			break;
		shown += !c->count;
	}
	top_sample_free(&prev);
	screen_end();
	if (screen)
		out_printf("\n");
	if (ended)
		note("the watched pipeline has ended");
}

int
main(int argc, char *argv[])
{
	struct config c = { .o = { .mode = WATCH_SESSION }, .delay = 1, .view = VIEW_SCREEN };

	set_progname(argv);
	parse_options(argc, argv, &c);
	check_targets(&c.o);
	watch(&c);
	free(c.o.pids);
	if (stop_signal > 0)
		return 128 + stop_signal;
	exit_flushing_stdout();
}
