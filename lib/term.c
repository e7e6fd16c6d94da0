/*
 * term.c: standard error, where messages and status lines go: writes that
 * never wait past a deadline, and on a terminal a row of its own for each
 * tool's status line.  See internal.h.
 *
 * Why a descriptor of our own: a tool must end on SIGINT, SIGTERM or SIGHUP
 * within a second even when its stderr is a full pipe nobody reads, and
 * the thread that takes those signals (lib/progress.c) is also the one that
 * prints status lines.  write(2) into a full pipe sleeps until a reader
 * comes, and O_NONBLOCK cannot be set on fd 2: it belongs to an open file
 * the shell shares with every process of the pipeline.  So the watcher
 * writes through an open file of its own, stderr opened again through
 * /proc/self/fd/2 with O_NONBLOCK (a FIFO, a pipe, a terminal), made the
 * first time it writes (a tool under a low ulimit -n keeps its descriptors
 * otherwise); a socket takes MSG_DONTWAIT and a regular file never waits.
 * It waits for room in poll(2) up to a deadline.  The tool's thread writes
 * to fd 2 and may wait for ever, as cat does: the watcher still takes the
 * signals.  One write(2) per message keeps the lines of tools that share a
 * stderr whole.
 *
 * Rows: several tools with --progress on one terminal each keep a row, as
 * pv -c does, with no daemon.  Under a lock on the terminal (fcntl(2) on
 * its device), a tool draws its first line where the cursor is and moves
 * the cursor down; later it redraws that row relative to the cursor (save
 * it, up N lines, draw, restore it), which scrolling does not disturb.  N
 * is the number of lines between the row and the cursor, which grows with
 * every row or message printed below it; the count is kept where each
 * process on that terminal finds it, a System V shared memory segment
 * keyed on the terminal's device, and the last process to detach removes
 * it.  A tool killed outright leaves it behind, detached: the next one to
 * attach finds itself alone and starts the count over.  Anything else
 * that prints on the terminal meanwhile shifts the rows, as it does pv's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* What the tools on one terminal share: see the top of this file. */
struct term_block {
	_Atomic uint32_t lines;	/* from the first status row down to the cursor's line */
};

/* The key of a terminal's block: "SP" and the device's number. */
#define BLOCK_KEY(dev) ((key_t)(0x53500000u | ((unsigned)(dev) & 0xfffffu)))

enum draw_mode {
	DRAW_LINES,		/* not a terminal: each status is a line of its own */
	DRAW_CR,		/* a terminal without cursor motion: one line, redrawn after \r */
	DRAW_ROWS,		/* a terminal: a row for each tool, see above */
};

static struct {
	bool started;
	int fd;			/* stderr: the tool's thread writes here */
	enum {
		NB_UNKNOWN,	/* not needed yet */
		NB_FD,		/* nb_fd is stderr opened again, O_NONBLOCK */
		NB_REGULAR,	/* a regular file: fd never waits */
		NB_SOCKET,	/* send(2) with MSG_DONTWAIT */
		NB_NONE,	/* poll(2), then write(2) to fd */
	} nb;
	int nb_fd;
	dev_t tty_dev;		/* the terminal's device, for its block's key */
	enum draw_mode mode;
	size_t open_cols;	/* DRAW_CR: a \r line of that many columns is open */
	struct term_block *block;	/* DRAW_ROWS: attached once a row is ours */
	int block_id;
	uint32_t row;		/* DRAW_ROWS: our row's line in the block */
} term = { .fd = STDERR_FILENO, .nb_fd = -1, .block_id = -1 };

static pthread_mutex_t term_mutex = PTHREAD_MUTEX_INITIALIZER;
/* How long the calling thread's writes may wait; < 0: for ever. */
static __thread double write_deadline = -1;

void
term_deadline(double deadline)
{
	write_deadline = deadline;
}

/* Until deadline, for room to write; true when there is (or an error to hear of). */
static bool
wait_room(int fd, double deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		double left = deadline < 0 ? -1 : deadline - now_seconds();
		int ms = left < 0 ? (deadline < 0 ? -1 : 0) : (int)(left * 1000) + 1;
		int r = poll(&p, 1, ms);

		if (r > 0)
			return true;
		if (r == 0)
			return false;
		if (errno != EINTR)
			return true;
	}
}

/* How a thread with a deadline writes to stderr without waiting in write(2). */
static void
nonblocking_open(void)
{
	struct stat st;

	term.nb = NB_NONE;
	if (fstat(term.fd, &st) < 0)
		return;
	if (S_ISREG(st.st_mode))
		term.nb = NB_REGULAR;
	else if (S_ISSOCK(st.st_mode))
		term.nb = NB_SOCKET;
	else if ((S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) && (term.nb_fd =
	    open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) >= 0)
		term.nb = NB_FD;
	/* Otherwise (no /proc, a pipe's reader gone, no descriptor left): NB_NONE. */
}

/*
 * All of buf to stderr: on a thread without a deadline by write(2) to fd 2,
 * which may wait; on one with a deadline waiting for room in poll(2) until
 * then, and dropping what is left.
 */
static bool
write_until(const char *buf, size_t len)
{
	int fd = term.fd;

	if (write_deadline >= 0 && term.nb == NB_UNKNOWN && term.started)
		nonblocking_open();
	if (write_deadline >= 0 && term.nb == NB_FD)
		fd = term.nb_fd;
	while (len > 0) {
		ssize_t n;

		if (write_deadline >= 0 && term.nb == NB_NONE && !wait_room(fd, write_deadline))
			return false;
		n = write_deadline >= 0 && term.nb == NB_SOCKET ?
		    send(fd, buf, len, MSG_DONTWAIT) : write(fd, buf, len);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		} else if (n < 0 && errno == EAGAIN) {
			/* O_NONBLOCK: ours, or one the tool was given on fd 2. */
			if (!wait_room(fd, write_deadline))
				return false;
		} else if (n == 0 || errno != EINTR)
			return false;
	}
	return true;
}

/* The calling thread's lock on term, waiting no longer than its deadline. */
static bool
term_lock(void)
{
	return lock_until(&term_mutex, write_deadline);
}

/*
 * The terminal's lock, shared with every process on it: a POSIX lock on its
 * first byte, held only while a row or a message is drawn.  Where the
 * device takes no locks, the drawing goes on without.  Never waited for
 * past the thread's deadline, nor past TTY_LOCK_WAIT_SECS: a tool stopped
 * while it holds it (SIGTTOU in its write, Ctrl-Z) would hold every other
 * tool on the terminal for as long.  False when it could not be had.
 */
#define TTY_LOCK_WAIT_SECS 1.0

static bool
tty_lock(void)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1 };
	double deadline = now_seconds() + TTY_LOCK_WAIT_SECS;

	if (write_deadline >= 0 && write_deadline < deadline)
		deadline = write_deadline;
	for (;;) {
		if (fcntl(term.fd, F_SETLK, &fl) == 0)
			return true;
		if (errno != EAGAIN && errno != EACCES && errno != EINTR)
			return true;
		if (now_seconds() >= deadline)
			return false;
		if (errno != EINTR)
			sleep_seconds(0.001);
	}
}

static void
tty_unlock(void)
{
	struct flock fl = { .l_type = F_UNLCK, .l_whence = SEEK_SET, .l_len = 1 };

	(void)fcntl(term.fd, F_SETLK, &fl);
}

/* The terminal's size: TIOCGWINSZ, else $COLUMNS (and 24 rows), else 80. */
static void
tty_size(unsigned int *cols, unsigned int *rows)
{
	struct winsize ws;
	const char *env;
	unsigned long n;

	*cols = 80;
	*rows = 24;
	if (ioctl(term.fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
		*cols = ws.ws_col;
		if (ws.ws_row > 0)
			*rows = ws.ws_row;
	} else if ((env = getenv("COLUMNS")) != NULL && (n = strtoul(env, NULL, 10)) > 0 &&
	    n < 10000)
		*cols = (unsigned int)n;
}

/* The screen lines that len bytes of text take on a terminal cols wide. */
static uint32_t
screen_lines(const char *text, size_t len, unsigned int cols)
{
	uint32_t lines = 0;
	size_t at = 0;

	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t part = nl ? (size_t)(nl - (text + at)) : len - at;
		uint32_t rows = (uint32_t)((part + cols - 1) / cols);

		lines += rows ? rows : 1;	/* an empty line is a line */
		at += part + 1;
	}
	return lines;
}

/* The block of this terminal, attached, or NULL; create: make one if there is none. */
static struct term_block *
block_attach(bool create, int *id)
{
	struct term_block *b;

	*id = shmget(BLOCK_KEY(term.tty_dev), sizeof(*b), create ? 0600 | IPC_CREAT : 0);
	if (*id < 0)
		return NULL;
	b = shmat(*id, NULL, 0);
	return b == (void *)-1 ? NULL : b;
}

/*
 * Detaches b; the last process to leave removes the block.  Detached first,
 * then counted: two tools that counted themselves both attached, then left,
 * left the block behind.
 */
static void
block_detach(struct term_block *b, int id)
{
	struct shmid_ds ds;

	(void)shmdt(b);
	if (shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 0)
		(void)shmctl(id, IPC_RMID, NULL);
}

void
term_dying(void)
{
	const struct timespec a_moment = { .tv_nsec = 1000000 };
	int saved_errno = errno;
	struct shmid_ds ds;

	/*
	 * The lock, kept to the end, so that the watcher draws nothing after
	 * this newline; a moment's wait at most, since the thread this
	 * interrupted may hold it.  (A trylock: it never blocks.)
	 */
	for (int i = 0; i < 100 && pthread_mutex_trylock(&term_mutex) != 0; i++)
		nanosleep(&a_moment, NULL);
	if (term.open_cols > 0 && write(term.nb == NB_FD ? term.nb_fd : term.fd, "\n", 1) < 0) {
		/* Nowhere left to say anything. */
	}
	if (term.block) {
		(void)shmdt(term.block);
		term.block = NULL;
		if (shmctl(term.block_id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 0)
			(void)shmctl(term.block_id, IPC_RMID, NULL);
	}
	errno = saved_errno;
}

/* A reader that went away ends the tool, as it ends cat: the terminal first. */
static void
die_of_sigpipe(int sig)
{
	term_dying();
	signal(sig, SIG_DFL);
	raise(sig);
}

void
term_start(void)
{
	struct stat st;
	struct sigaction sa;
	const char *name = getenv("TERM");

	if (term.started)
		return;
	term.started = true;
	if (!isatty(STDERR_FILENO) || fstat(STDERR_FILENO, &st) < 0)
		return;
	term.tty_dev = st.st_rdev;
	/* A terminal that cannot move its cursor still takes \r. */
	term.mode = name == NULL || *name == '\0' || strcmp(name, "dumb") == 0 ?
	    DRAW_CR : DRAW_ROWS;
	atexit(term_end);
	if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) {
		sa = (struct sigaction){ .sa_handler = die_of_sigpipe };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGPIPE, &sa, NULL);
	}
}

size_t
term_columns(void)
{
	unsigned int cols, rows;

	if (term.mode == DRAW_LINES)
		return 0;
	tty_size(&cols, &rows);
	return cols;
}

/*
 * A message, under both locks: a \r line left open is ended first, so the
 * message starts a line of its own, as dd does; in a block of rows, its
 * lines count.
 */
static void
message_locked(const char *buf, size_t len)
{
	unsigned int cols, rows;
	struct term_block *b = term.block;
	int id = term.block_id;

	if (term.open_cols > 0 && write_until("\n", 1))
		term.open_cols = 0;
	if (term.mode != DRAW_ROWS) {
		(void)write_until(buf, len);
		return;
	}
	/* A tool without a row of its own still shifts the others' rows. */
	if (b == NULL)
		b = block_attach(false, &id);
	if (write_until(buf, len) && b) {
		tty_size(&cols, &rows);
		atomic_fetch_add(&b->lines, screen_lines(buf, len, cols));
	}
	if (b && b != term.block)
		block_detach(b, id);
}

void
term_print(const char *buf, size_t len)
{
	if (!term.started) {
		/* Before tool_start(): no other thread, nothing drawn. */
		(void)write_until(buf, len);
		return;
	}
	if (!term_lock())
		return;
	if (term.mode != DRAW_ROWS)
		message_locked(buf, len);
	else {
		bool locked = tty_lock();

		/* A message is never lost to a lock another tool does not let go. */
		if (locked || write_deadline < 0)
			message_locked(buf, len);
		if (locked)
			tty_unlock();
	}
	pthread_mutex_unlock(&term_mutex);
}

/* DRAW_CR: \r, the line, blanks over what a longer one left; a newline to keep it. */
static void
draw_cr(const char *line, size_t len, bool keep)
{
	char out[1024];
	size_t n;

	n = (size_t)snprintf(out, sizeof(out), "\r%.*s%*s%s", (int)len, line,
	    term.open_cols > len ? (int)(term.open_cols - len) : 0, "", keep ? "\n" : "");
	if (n >= sizeof(out))
		n = sizeof(out) - 1;
	if (write_until(out, n))
		term.open_cols = keep ? 0 : len;
}

/*
 * DRAW_ROWS, under the terminal's lock: the first line takes the cursor's
 * line and moves below it; each later one redraws that row in place.
 * False when the block cannot be had: \r from then on.
 */
static bool
draw_row(const char *line, size_t len)
{
	unsigned int cols, rows;
	struct shmid_ds ds;
	char out[1024];
	uint32_t up;
	size_t n;

	if (term.block == NULL) {
		term.block = block_attach(true, &term.block_id);
		if (term.block == NULL)
			return false;
		/* Alone: the first here, or the block of a tool that was killed. */
		if (shmctl(term.block_id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 1)
			atomic_store(&term.block->lines, 0);
		n = (size_t)snprintf(out, sizeof(out), "\r%.*s\033[K\n", (int)len, line);
		if (n < sizeof(out) && write_until(out, n))
			term.row = atomic_fetch_add(&term.block->lines, 1);
		else {
			/* Never drawn: let the next line try again. */
			block_detach(term.block, term.block_id);
			term.block = NULL;
		}
		return true;
	}
	up = atomic_load(&term.block->lines) - term.row;
	tty_size(&cols, &rows);
	/* Scrolled out of sight, or a count gone wrong: draw nothing. */
	if (up == 0 || up >= rows)
		return true;
	n = (size_t)snprintf(out, sizeof(out), "\0337\033[%uA\r%.*s\033[K\0338", up,
	    (int)len, line);
	if (n < sizeof(out))
		(void)write_until(out, n);
	return true;
}

/* DRAW_LINES: the whole line, then a newline. */
static void
draw_line(const char *line, size_t len)
{
	char out[1024];
	int n = snprintf(out, sizeof(out), "%.*s\n", (int)len, line);

	if (n > 0 && (size_t)n < sizeof(out))
		(void)write_until(out, (size_t)n);
}

void
term_status(const char *line, size_t len, bool keep)
{
	if (!term_lock())
		return;
	if (term.mode == DRAW_ROWS && tty_lock()) {
		if (!draw_row(line, len))
			term.mode = DRAW_CR;
		tty_unlock();
	}
	if (term.mode == DRAW_CR)
		draw_cr(line, len, keep);
	else if (term.mode == DRAW_LINES)
		draw_line(line, len);
	pthread_mutex_unlock(&term_mutex);
}

void
term_end(void)
{
	if (!term_lock())
		return;
	if (term.open_cols > 0 && write_until("\n", 1))
		term.open_cols = 0;
	if (term.block && tty_lock()) {
		block_detach(term.block, term.block_id);
		term.block = NULL;
		tty_unlock();
	}
	pthread_mutex_unlock(&term_mutex);
}
