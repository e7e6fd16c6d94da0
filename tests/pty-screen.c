/*
 * pty-screen [-s COLSxROWS] [-o RAW] [-l LOG] [-i TEXT] -- COMMAND [ARG]...: runs
 * COMMAND on a new pseudo-terminal of that size (0x0: one that will not
 * say; default 80x24) as its controlling terminal and descriptors 0-2, and
 * prints on stdout the screen it leaves: each row, trailing blanks cut, as
 * a small terminal would show it.  RAW gets every byte COMMAND wrote; LOG
 * a line "ROW TEXT" for every text written from a row's first column, as
 * it was drawn (ROW counts from 1).  TEXT is typed on the terminal once
 * COMMAND has written something (as a person types after a prompt).  Exits
 * with COMMAND's status (128+N if a signal ended it).
 *
 * The screen understands what the tools write: text, \r, \n, \b, \t, ESC 7
 * and ESC 8 (save and restore the cursor), CSI A B C D (cursor motion), H
 * (position), K and J (erase); a line that reaches the last column wraps,
 * and the screen scrolls at the bottom.  Anything else is dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

enum { MAX_COLS = 512, MAX_ROWS = 200 };

static char screen[MAX_ROWS][MAX_COLS];
static int cols = 80, rows = 24, row, col, saved_row, saved_col;
/* -l: the text being written from a row's first column, and where. */
static FILE *draw_log;
static char drawing[MAX_COLS + 1];
static int drawing_len, drawing_row = -1;

/* The text drawn from the first column has ended: it goes to the log. */
static void
drawn(void)
{
	if (draw_log && drawing_row >= 0)
		fprintf(draw_log, "%d %.*s\n", drawing_row + 1, drawing_len, drawing);
	drawing_row = -1;
	drawing_len = 0;
}

static void
scroll_up(void)
{
	memmove(screen[0], screen[1], sizeof(screen[0]) * (size_t)(rows - 1));
	memset(screen[rows - 1], ' ', sizeof(screen[0]));
}

static void
line_feed(void)
{
	if (row == rows - 1)
		scroll_up();
	else
		row++;
}

static int
clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A CSI sequence: its parameters and final byte. */
static void
csi(const int *p, int np, char final)
{
	int n = np > 0 && p[0] > 0 ? p[0] : 1;

	switch (final) {
	case 'A':
		row = clamp(row - n, 0, rows - 1);
		break;
	case 'B':
		row = clamp(row + n, 0, rows - 1);
		break;
	case 'C':
		col = clamp(col + n, 0, cols - 1);
		break;
	case 'D':
		col = clamp(col - n, 0, cols - 1);
		break;
	case 'H':
	case 'f':
		row = clamp(n - 1, 0, rows - 1);
		col = clamp(np > 1 && p[1] > 0 ? p[1] - 1 : 0, 0, cols - 1);
		break;
	case 'K':
		if (np == 0 || p[0] == 0)
			memset(&screen[row][col], ' ', (size_t)(cols - col));
		else if (p[0] == 1)
			memset(screen[row], ' ', (size_t)col + 1);
		else
			memset(screen[row], ' ', (size_t)cols);
		break;
	case 'J':
		if (np > 0 && p[0] == 2) {
			memset(screen, ' ', sizeof(screen));
			break;
		}
		memset(&screen[row][col], ' ', (size_t)(cols - col));
		for (int r = row + 1; r < rows; r++)
			memset(screen[r], ' ', (size_t)cols);
		break;
	default:
		break;
	}
}

/* Feeds one byte of output to the screen. */
static void
feed(unsigned char c)
{
	static enum { TEXT, ESC, CSI } state;
	static int params[8], np;
	static bool wrap_next;

	if (c < 0x20 || c == 0x7f)
		drawn();
	if (state == ESC) {
		state = TEXT;
		if (c == '[') {
			state = CSI;
			np = 0;
			memset(params, 0, sizeof(params));
		} else if (c == '7') {
			saved_row = row;
			saved_col = col;
		} else if (c == '8') {
			row = saved_row;
			col = saved_col;
		}
		return;
	}
	if (state == CSI) {
		if (c >= '0' && c <= '9') {
			if (np == 0)
				np = 1;
			params[np - 1] = params[np - 1] * 10 + (c - '0');
		} else if (c == ';') {
			if (np == 0)
				np = 1;
			if (np < 8)
				np++;
		} else if (c >= 0x40 && c <= 0x7e) {
			state = TEXT;
			wrap_next = false;
			csi(params, np, (char)c);
		}
		return;
	}
	switch (c) {
	case 033:
		state = ESC;
		return;
	case '\r':
		col = 0;
		wrap_next = false;
		return;
	case '\n':
		line_feed();
		wrap_next = false;
		return;
	case '\b':
		if (col > 0)
			col--;
		wrap_next = false;
		return;
	case '\t':
		col = clamp((col / 8 + 1) * 8, 0, cols - 1);
		return;
	default:
		break;
	}
	if (c < 0x20 || c == 0x7f)
		return;
	if (wrap_next) {
		col = 0;
		line_feed();
		wrap_next = false;
	}
	if (col == 0) {
		drawn();
		drawing_row = row;
	}
	if (drawing_row == row && drawing_len < MAX_COLS)
		drawing[drawing_len++] = (char)c;
	screen[row][col] = (char)c;
	if (col == cols - 1)
		wrap_next = true;	/* as xterm: the wrap waits for the next character */
	else
		col++;
}

/* The columns of row r up to its last one that is not blank. */
static int
row_length(int r)
{
	int len = cols;

	while (len > 0 && screen[r][len - 1] == ' ')
		len--;
	return len;
}

static void
print_screen(void)
{
	int last = rows - 1;

	while (last >= 0 && row_length(last) == 0)
		last--;
	for (int r = 0; r <= last; r++)
		printf("%.*s\n", row_length(r), screen[r]);
}

static int
usage(void)
{
	fprintf(stderr,
	    "usage: pty-screen [-s COLSxROWS] [-o RAW] [-l LOG] [-i TEXT] -- COMMAND [ARG]...\n");
	return 2;
}

int
main(int argc, char *argv[])
{
	struct winsize ws = { .ws_col = 80, .ws_row = 24 };
	const char *raw_name = NULL, *log_name = NULL, *typed = NULL;
	FILE *raw = NULL;
	int opt, master, status;
	pid_t pid;

	while ((opt = getopt(argc, argv, "s:o:l:i:")) != -1) {
		unsigned int c, r;

		if (opt == 's' && sscanf(optarg, "%ux%u", &c, &r) == 2 && c <= MAX_COLS &&
		    r <= MAX_ROWS) {
			ws.ws_col = (unsigned short)c;
			ws.ws_row = (unsigned short)r;
		} else if (opt == 'o')
			raw_name = optarg;
		else if (opt == 'l')
			log_name = optarg;
		else if (opt == 'i')
			typed = optarg;
		else
			return usage();
	}
	if (optind >= argc)
		return usage();
	/* A terminal that will not say its size is drawn 80 wide here. */
	cols = ws.ws_col ? ws.ws_col : 80;
	rows = ws.ws_row ? ws.ws_row : 24;
	memset(screen, ' ', sizeof(screen));
	if (raw_name && (raw = fopen(raw_name, "w")) == NULL) {
		perror(raw_name);
		return 1;
	}
	if (log_name && (draw_log = fopen(log_name, "w")) == NULL) {
		perror(log_name);
		return 1;
	}
	if ((master = posix_openpt(O_RDWR | O_NOCTTY)) < 0 || grantpt(master) < 0 ||
	    unlockpt(master) < 0 || ioctl(master, TIOCSWINSZ, &ws) < 0) {
		perror("pty-screen: pseudo-terminal");
		return 1;
	}
	if ((pid = fork()) < 0) {
		perror("pty-screen: fork");
		return 1;
	}
	if (pid == 0) {
		int slave;

		setsid();
		if ((slave = open(ptsname(master), O_RDWR)) < 0) {
			perror("pty-screen: open the terminal");
			_exit(1);
		}
		(void)ioctl(slave, TIOCSCTTY, 0);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		if (slave > 2)
			close(slave);
		close(master);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	/* Until every holder of the terminal closed it: EIO. */
	for (;;) {
		unsigned char buf[4096];
		ssize_t n = read(master, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (raw)
			fwrite(buf, 1, (size_t)n, raw);
		if (typed) {
			/* Short of room, a terminal's input drops it: so can this. */
			(void)write(master, typed, strlen(typed));
			typed = NULL;
		}
		for (ssize_t i = 0; i < n; i++)
			feed(buf[i]);
	}
	drawn();
	if (raw && fclose(raw) != 0) {
		perror(raw_name);
		return 1;
	}
	if (draw_log && fclose(draw_log) != 0) {
		perror(log_name);
		return 1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("pty-screen: waitpid");
			return 1;
		}
	print_screen();
	if (fflush(stdout) != 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
