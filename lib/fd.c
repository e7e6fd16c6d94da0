/*
 * fd.c: descriptors and pipes: kinds, capacity, growth, waiting, writing, fds 0-2.
 * See splice.h, internal.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static bool
fd_mode_is(int fd, mode_t type)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

bool
fd_is_pipe(int fd)
{
	return fd_mode_is(fd, S_IFIFO);
}

bool
fd_is_regular(int fd)
{
	return fd_mode_is(fd, S_IFREG);
}

bool
fd_may_wait(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode) &&
	    !S_ISFIFO(st.st_mode);
}

uint64_t
fd_size_left(int fd)
{
	struct stat st;
	off_t at, end;

	if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) ||
	    (at = lseek(fd, 0, SEEK_CUR)) < 0)
		return TO_EOF;
	if (S_ISREG(st.st_mode))
		end = st.st_size;
	/* A block device's size: its end, then back to where it was. */
	else if ((end = lseek(fd, 0, SEEK_END)) < 0 || lseek(fd, at, SEEK_SET) < 0)
		return TO_EOF;
	return end > at ? (uint64_t)(end - at) : 0;
}

/* fd_size_left() of a file by name, from its start. */
static uint64_t
path_size(const char *name)
{
	struct stat st;
	uint64_t size;
	int fd;

	/* Never open a FIFO here: its writer would take us for the reader. */
	if (stat(name, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)))
		return TO_EOF;
	if (S_ISREG(st.st_mode))
		return (uint64_t)st.st_size;
	if ((fd = open(name, O_RDONLY | O_CLOEXEC)) < 0)
		return TO_EOF;
	size = fd_size_left(fd);
	close(fd);
	return size;
}

uint64_t
inputs_size(char *const *names)
{
	bool stdin_counted = false;
	uint64_t sum = 0;

	for (; *names; names++) {
		bool is_stdin = strcmp(*names, "-") == 0;
		uint64_t size = !is_stdin ? path_size(*names) :
		    stdin_counted ? 0 : fd_size_left(STDIN_FILENO);

		if (size == TO_EOF || sum + size < sum)
			return TO_EOF;
		sum += size;
		stdin_counted |= is_stdin;
	}
	return sum;
}

long
pipe_capacity(int fd)
{
	return fcntl(fd, F_GETPIPE_SZ);
}

long
pipe_max_bytes(void)
{
	char text[32];
	long max = 0;
	FILE *f = fopen("/proc/sys/fs/pipe-max-size", "re");

	if (f) {
		if (fgets(text, sizeof(text), f))
			max = strtol(text, NULL, 10);
		(void)fclose(f);
	}
	return max > 0 ? max : DEFAULT_PIPE_BYTES;
}

/*
 * splice(2), tee(2) and vmsplice(2) reading a pipe wake its writer only
 * once they have drained what they were asked for (or emptied the pipe): a
 * reader that asks for the whole pipe leaves the writer asleep until the
 * pipe is empty, and the two ends take turns.  Half the pipe per call lets
 * them overlap; a quarter overlaps too but pays for twice the calls, which
 * a busy-looping writer shows most (splice-bench --sweep; bench/README.md,
 * "How much each call asks of a pipe").  Below 64 KiB the calls cost more than the overlap gains.
 * A writer needs no such rule: its call stops at the room there is.
 */
size_t
pipe_request_bytes(long capacity)
{
	const size_t least = 64 << 10;
	size_t cap = capacity > 0 ? (size_t)capacity : least;

	if (cap <= least)
		return cap;
	return cap / 2 > least ? cap / 2 : least;
}

/*
 * --pipe-size asked for more than the kernel granted: say so, once a run,
 * with the reason, else a pipe of a sixteenth of the size asked for would
 * go unnoticed but with -v.
 */
static void
note_granted(long asked, long got, int err)
{
	static bool said;
	long max = pipe_max_bytes();

	if (said)
		return;
	said = true;
	if (asked > max)
		note("--pipe-size: asked for %ld bytes, got %ld: /proc/sys/fs/pipe-max-size"
		    " is %ld", asked, got, max);
	else if (err == EPERM)
		note("--pipe-size: asked for %ld bytes, got %ld: this user's pipes hold"
		    " /proc/sys/fs/pipe-user-pages-soft", asked, got);
	else
		note("--pipe-size: asked for %ld bytes, got %ld: %s", asked, got, strerror(err));
}

long
pipe_grow(int fd, const struct engine_opts *o)
{
	long have = pipe_capacity(fd), want, got = -1;
	int refusal = 0;

	if (have < 0)
		return -1;
	want = (long)o->pipe_bytes;
	if (want == 0) {
		/* Only grow by default: a bigger pipe someone gave us stays. */
		want = pipe_max_bytes();
		if (want > DEFAULT_PIPE_BYTES)
			want = DEFAULT_PIPE_BYTES;
		if (want <= have) {
			if (o->verbose)
				note("pipe capacity: %ld bytes (%ld page%s)", have,
				    have / sysconf(_SC_PAGESIZE),
				    plural_s((uint64_t)(have / sysconf(_SC_PAGESIZE))));
			return have;
		}
	}
	/*
	 * EPERM past pipe-max-size or pipe-user-pages-soft, EBUSY when
	 * shrinking below what is queued: ask for less until the kernel
	 * agrees, and keep what it grants.
	 */
	/* The kernel rounds up to a page anyway; less would skip the loop. */
	if (want < 4096)
		want = 4096;
	while (want >= 4096 && (got = fcntl(fd, F_SETPIPE_SZ, (int)want)) < 0 &&
	    (errno == EPERM || errno == ENOMEM) && want > have) {
		if (refusal == 0)
			refusal = errno;
		want /= 2;
	}
	if (got < 0)
		got = pipe_capacity(fd);
	if (o->pipe_bytes && got < (long)o->pipe_bytes && got >= 0)
		note_granted((long)o->pipe_bytes, got, refusal ? refusal : errno);
	if (o->verbose)
		note("pipe capacity: %ld bytes (%ld page%s)", got,
		    got / sysconf(_SC_PAGESIZE),
		    plural_s((uint64_t)(got / sysconf(_SC_PAGESIZE))));
	return got;
}

int
pipe_open(int fds[2], const struct engine_opts *o)
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pipe_grow(fds[0], o);
	return 0;
}

int
wait_fd(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	while (poll(&pfd, 1, -1) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

int
poll_timeout_ms(double deadline)
{
	double left_secs = deadline - now_seconds();

	if (deadline < 0)
		return -1;
	/* poll(2) takes an int of milliseconds: a long wait goes in pieces. */
	return left_secs <= 0 ? 0 : left_secs >= 1e6 ? 1000000000 : (int)(left_secs * 1000.0) + 1;
}

int
wait_fd_timeout(int fd, short events, double timeout_secs)
{
	double deadline = timeout_secs < 0 ? -1 : now_seconds() + timeout_secs;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = events };
		int r = poll(&pfd, 1, poll_timeout_ms(deadline));

		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (r == 0 && now_seconds() >= deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
	}
}

bool
direct_io_dropped(int fd, int err)
{
	int flags;

	if (err != EINVAL || (flags = fcntl(fd, F_GETFL)) < 0 || !(flags & O_DIRECT) ||
	    fcntl(fd, F_SETFL, flags & ~O_DIRECT) < 0) {
		errno = err;
		return false;
	}
	return true;
}

/*
 * A read(2) or write(2) on fd failed: true when the same call may be made
 * again (EINTR; O_DIRECT's EINVAL, O_DIRECT now cleared; EAGAIN of an
 * inherited O_NONBLOCK, once poll(2) says fd is ready for events), else
 * false with errno.
 */
static bool
io_again(int fd, short events)
{
	if (errno == EINTR || direct_io_dropped(fd, errno))
		return true;
	return errno == EAGAIN && wait_fd(fd, events) == 0;
}

int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && io_again(fd, POLLOUT))
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void
out_printf(const char *fmt, ...)
{
	static bool failed;
	char small[512], *text = small;
	va_list ap;
	int n;

	if (failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= sizeof(small)) {
		text = malloc((size_t)n + 1);
		if (text == NULL)
			n = -1;
		else {
			va_start(ap, fmt);
			n = vsnprintf(text, (size_t)n + 1, fmt, ap);
			va_end(ap);
		}
	}
	if (n < 0 || write_all(STDOUT_FILENO, text, (size_t)n) < 0) {
		warn_errno("standard output");
		failed = true;
	}
	if (text != small)
		free(text);
}

ssize_t
read_retry(int fd, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(fd, buf, len);

		if (n >= 0 || !io_again(fd, POLLIN))
			return n;
	}
}

/* The one buffer every read/write path copies through. */
static char copy_buf[128 * 1024] __attribute__((aligned(4096)));

void *
copy_buffer(size_t *bytes)
{
	*bytes = sizeof(copy_buf);
	return copy_buf;
}

ssize_t
copy_once(int in, int out, size_t max, enum xfer_side *side)
{
	ssize_t n = read_retry(in, copy_buf, max < sizeof(copy_buf) ? max : sizeof(copy_buf));

	if (n < 0) {
		*side = SIDE_INPUT;
		return -1;
	}
	if (n > 0 && write_all(out, copy_buf, (size_t)n) < 0) {
		*side = SIDE_OUTPUT;
		return -1;
	}
	return n;
}

/* "standard input", "standard output" or "standard error". */
static const char *
std_fd_name(int fd)
{
	static const char *const names[] = {
		"standard input", "standard output", "standard error",
	};

	return fd >= 0 && fd <= 2 ? names[fd] : "descriptor";
}

unsigned int
std_fds_fill(unsigned int needed)
{
	unsigned int closed = 0;

	for (int fd = 0; fd <= 2; fd++) {
		int null_fd;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		closed |= STD_FD(fd);
		/* The lowest free descriptor: fd itself. */
		null_fd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (null_fd != fd) {
			if (null_fd >= 0)
				close(null_fd);
			warn_errno("/dev/null");
			return closed;
		}
	}
	for (int fd = 0; fd <= 2; fd++) {
		if (closed & needed & STD_FD(fd)) {
			errno = EBADF;
			warn_errno("%s", std_fd_name(fd));
		}
	}
	return closed;
}
