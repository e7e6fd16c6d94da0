/*
 * splice.c: the one place where splice-tools move bytes.  See splice.h.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "splice.h"

const char *progname = "splice-tools";
struct common_opts common;

static struct timespec start_time;
static double rate_start;	/* seconds after start_time; see restart_rate_clock() */

/* ---- messages ---------------------------------------------------------- */

void
set_progname(char *argv[])
{
	char *slash = argv[0] ? strrchr(argv[0], '/') : NULL;

	if (slash)
		argv[0] = slash + 1;
	if (argv[0])
		progname = argv[0];
	clock_gettime(CLOCK_MONOTONIC, &start_time);
}

/* One write(2) per message: tools sharing a stderr do not interleave lines. */
static void
vmessage(int errnum, const char *fmt, va_list ap)
{
	char line[1024];
	size_t n = (size_t)snprintf(line, sizeof(line), "%s: ", progname);
	int more;

	if (n < sizeof(line)) {
		more = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
		n += more > 0 ? (size_t)more : 0;
	}
	if (errnum && n < sizeof(line)) {
		more = snprintf(line + n, sizeof(line) - n, ": %s", strerror(errnum));
		n += more > 0 ? (size_t)more : 0;
	}
	if (n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	(void)fflush(stderr);
	if (write(STDERR_FILENO, line, n) < 0) {
		/* stderr is gone: nowhere left to say so. */
	}
}

void
warn_errno(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	vmessage(errnum, fmt, ap);
	va_end(ap);
	errno = errnum;
}

void
warn_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(0, fmt, ap);
	va_end(ap);
}

noreturn void
usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(0, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", progname);
	exit(EXIT_USAGE);
}

noreturn void
print_version(void)
{
	printf("%s (splice-tools) %s\n", progname, SPLICE_TOOLS_VERSION);
	exit(fflush(stdout) == 0 ? 0 : EXIT_ERROR);
}

/* ---- sizes ------------------------------------------------------------- */

int
parse_size(const char *s, uint64_t *bytes)
{
	static const char units[] = "KMGTPE";
	uint64_t value = 0, base = 1024, scale = 1;
	const char *unit;

	if (*s < '0' || *s > '9') {	/* also rejects "", "-1", " 1" */
		errno = EINVAL;
		return -1;
	}
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned digit = (unsigned)(*s - '0');

		if (value > (UINT64_MAX - digit) / 10) {
			errno = ERANGE;
			return -1;
		}
		value = value * 10 + digit;
	}
	if (*s == '\0' || strcmp(s, "B") == 0 || strcmp(s, "c") == 0) {
		*bytes = value;
		return 0;
	}
	unit = strchr(units, *s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s);
	if (unit == NULL) {
		errno = EINVAL;
		return -1;
	}
	s++;
	if (strcmp(s, "B") == 0)
		base = 1000;
	else if (*s != '\0' && strcmp(s, "iB") != 0) {
		errno = EINVAL;
		return -1;
	}
	for (const char *u = units; u <= unit; u++) {
		if (scale > UINT64_MAX / base) {
			errno = ERANGE;
			return -1;
		}
		scale *= base;
	}
	if (value != 0 && value > UINT64_MAX / scale) {
		errno = ERANGE;
		return -1;
	}
	*bytes = value * scale;
	return 0;
}

uint64_t
option_size(const char *opt, const char *arg)
{
	uint64_t bytes;

	if (parse_size(arg, &bytes) == 0)
		return bytes;
	if (errno == ERANGE)
		usage_error("%s: size too large: '%s'", opt, arg);
	usage_error("%s: invalid size: '%s'", opt, arg);
}

/* ---- common options ---------------------------------------------------- */

bool
common_option(int opt, const char *arg, void (*help)(void))
{
	switch (opt) {
	case 'v':
		common.verbose++;
		return true;
	case OPT_STRICT:
		common.strict = true;
		return true;
	case OPT_PROGRESS:
		common.progress = true;
		return true;
	case OPT_PIPE_SIZE: {
		uint64_t bytes = option_size("--pipe-size", arg);

		/* F_SETPIPE_SZ takes an int. */
		if (bytes == 0 || bytes > INT_MAX / 2 + 1)
			usage_error("--pipe-size: out of range: '%s'", arg);
		common.pipe_bytes = (size_t)bytes;
		return true;
	}
	case 'h':
		help();
		exit(fflush(stdout) == 0 ? 0 : EXIT_ERROR);
	case 'V':
		print_version();
	case '?':
	case ':':
		/* getopt_long() has said what was wrong. */
		fprintf(stderr, "Try '%s --help'.\n", progname);
		exit(EXIT_USAGE);
	default:
		return false;
	}
}

/* ---- pipes ------------------------------------------------------------- */

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

long
pipe_capacity(int fd)
{
	return fcntl(fd, F_GETPIPE_SZ);
}

static long
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

long
pipe_grow(int fd)
{
	long have = pipe_capacity(fd), want, got = -1;

	if (have < 0)
		return -1;
	want = (long)common.pipe_bytes;
	if (want == 0) {
		/* Only grow by default: a bigger pipe someone gave us stays. */
		want = pipe_max_bytes();
		if (want > DEFAULT_PIPE_BYTES)
			want = DEFAULT_PIPE_BYTES;
		if (want <= have) {
			if (common.verbose)
				warn_msg("pipe capacity: %ld bytes (%ld pages)", have,
				    have / sysconf(_SC_PAGESIZE));
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
	    (errno == EPERM || errno == ENOMEM) && want > have)
		want /= 2;
	if (got < 0)
		got = pipe_capacity(fd);
	if (common.verbose)
		warn_msg("pipe capacity: %ld bytes (%ld pages)", got,
		    got / sysconf(_SC_PAGESIZE));
	return got;
}

int
pipe_open(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pipe_grow(fds[0]);
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

/* ---- accounting -------------------------------------------------------- */

static uint64_t method_bytes[M_COUNT];
static uint64_t total_bytes;
static double last_progress;
static bool progress_shown;

static const char *const method_names[M_COUNT] = {
	[M_SPLICE] = "splice",
	[M_SPLICE_PIPE] = "splice via pipe",
	[M_COPY_RANGE] = "copy_file_range",
	[M_SENDFILE] = "sendfile",
	[M_TEE] = "tee",
	[M_VMSPLICE] = "vmsplice",
	[M_READ_WRITE] = "read/write",
};

const char *
method_name(enum xfer_method m)
{
	return method_names[m];
}

double
elapsed_seconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start_time.tv_sec) +
	    (double)(now.tv_nsec - start_time.tv_nsec) / 1e9;
}

void
restart_rate_clock(void)
{
	rate_start = elapsed_seconds();
	last_progress = rate_start;
}

static void
print_progress(char end)
{
	double secs = elapsed_seconds() - rate_start;

	/* dd's status=progress line. */
	fprintf(stderr, "\r%llu bytes (%.1f MB, %.1f MiB) copied, %.0f s, %.1f MB/s%c",
	    (unsigned long long)total_bytes, (double)total_bytes / 1e6,
	    (double)total_bytes / 1048576.0, secs,
	    secs > 0 ? (double)total_bytes / 1e6 / secs : 0.0, end);
	progress_shown = true;
}

static bool input_counted;	/* see account_input() */

static void progress_tick(void);

void
account(enum xfer_method m, uint64_t n)
{
	method_bytes[m] += n;
	if (!input_counted)
		total_bytes += n;
	progress_tick();
}

void
account_input(uint64_t n)
{
	input_counted = true;
	total_bytes += n;
	progress_tick();
}

static void
progress_tick(void)
{
	if (common.progress) {
		double now = elapsed_seconds();

		if (now - last_progress >= 1.0) {
			last_progress = now;
			print_progress(' ');
		}
	}
}

void
report_totals(void)
{
	double secs = elapsed_seconds() - rate_start;

	if (common.progress)
		print_progress('\n');
	if (!common.verbose)
		return;
	for (int m = 0; m < M_COUNT; m++) {
		if (method_bytes[m] == 0)
			continue;
		warn_msg("%s: %llu bytes in %.3f s (%.1f MiB/s)", method_names[m],
		    (unsigned long long)method_bytes[m], secs,
		    secs > 0 ? (double)method_bytes[m] / 1048576.0 / secs : 0.0);
	}
	if (total_bytes == 0)
		warn_msg("0 bytes moved");
}

/* ---- moving bytes ------------------------------------------------------ */

/* A method returns DONE, FAILED (x->err set) or REFUSED (try the next). */
enum { DONE = 0, FAILED = -1, REFUSED = 1 };

static uint64_t
left(const struct xfer *x)
{
	return x->len == TO_EOF ? TO_EOF : x->len - x->moved;
}

static size_t
call_bytes(const struct xfer *x, size_t chunk)
{
	uint64_t n = left(x);

	if (x->chunk && x->chunk < chunk)
		chunk = x->chunk;
	return n < chunk ? (size_t)n : chunk;
}

static int
fail(struct xfer *x, enum xfer_side side, const char *call, int err)
{
	x->err = err;
	x->side = side;
	x->call = call;
	return FAILED;
}

/* The kernel's "this pair can't do that", as opposed to an I/O error. */
static bool
refusal(int err)
{
	return err == EINVAL || err == ENOSYS || err == EOPNOTSUPP ||
	    err == EXDEV;
}

/* Errors that only writing produces. */
static bool
output_error(int err)
{
	return err == EPIPE || err == ENOSPC || err == EDQUOT || err == EFBIG;
}

int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				if (wait_fd(fd, POLLOUT) < 0)
					return -1;
				continue;
			}
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int
by_read_write(struct xfer *x)
{
	static char buf[128 * 1024];

	while (left(x) > 0) {
		ssize_t n = read(x->in, buf, call_bytes(x, sizeof(buf)));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				if (wait_fd(x->in, POLLIN) < 0)
					return fail(x, SIDE_INPUT, "poll", errno);
				continue;
			}
			return fail(x, SIDE_INPUT, "read", errno);
		}
		if (n == 0)
			break;
		if (write_all(x->out, buf, (size_t)n) < 0)
			return fail(x, SIDE_OUTPUT, "write", errno);
		x->moved += (uint64_t)n;
		account(M_READ_WRITE, (uint64_t)n);
	}
	return DONE;
}

/*
 * One side is a pipe: splice(2) straight across.  With more_when_full (pipe
 * to socket): within one call the kernel already sends every buffer but the
 * last with MSG_MORE; SPLICE_F_MORE covers the last one too, but only when
 * the pipe is full: a writer that pauses must not leave its last bytes
 * corked in the socket.
 */
static int
by_splice(struct xfer *x, bool in_pipe, bool out_pipe, bool more_when_full)
{
	/*
	 * A call moves at most what the pipe holds or has room for, so ask
	 * for plenty: the capacity seen now may grow (a writer that starts
	 * after us, a reader with --pipe-size).
	 */
	const size_t chunk = 1 << 30;
	long cap = more_when_full ? pipe_capacity(x->in) : 0;

	while (left(x) > 0) {
		unsigned int flags = x->flags;
		int queued = 0;
		ssize_t n;

		if (more_when_full && ioctl(x->in, FIONREAD, &queued) == 0 && cap > 0 &&
		    queued >= cap && left(x) > (uint64_t)queued)
			flags |= SPLICE_F_MORE;
		n = splice(x->in, NULL, x->out, NULL, call_bytes(x, chunk), flags);

		if (n > 0) {
			x->moved += (uint64_t)n;
			account(M_SPLICE, (uint64_t)n);
			continue;
		}
		if (n == 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			/* An inherited O_NONBLOCK on either side. */
			if (wait_fd(x->in, POLLIN) < 0 || wait_fd(x->out, POLLOUT) < 0)
				return fail(x, SIDE_NONE, "poll", errno);
			continue;
		}
		if (x->moved == 0 && refusal(errno))
			return fail(x, SIDE_NONE, "splice", errno), REFUSED;
		/*
		 * splice(2) does not say which side failed.  A pipe fails
		 * only by losing its reader; otherwise blame the other side,
		 * and name both when both are pipes.
		 */
		if (output_error(errno) || (in_pipe && !out_pipe))
			return fail(x, SIDE_OUTPUT, "splice", errno);
		if (in_pipe && out_pipe)
			return fail(x, SIDE_NONE, "splice", errno);
		return fail(x, SIDE_INPUT, "splice", errno);
	}
	return DONE;
}

static int
by_copy_range(struct xfer *x)
{
	/* Big calls: the kernel loops inside; 64 MiB keeps --progress alive. */
	const size_t chunk = 64 << 20;

	while (left(x) > 0) {
		ssize_t n = copy_file_range(x->in, NULL, x->out, NULL,
		    call_bytes(x, chunk), 0);

		if (n > 0) {
			x->moved += (uint64_t)n;
			account(M_COPY_RANGE, (uint64_t)n);
			continue;
		}
		if (n == 0) {
			/*
			 * procfs and sysfs files claim size 0 and may
			 * report EOF here that read(2) would not.
			 */
			if (x->moved == 0)
				return REFUSED;
			break;
		}
		if (errno == EINTR)
			continue;
		/* EBADF: an O_APPEND output, which splice refuses too. */
		if (x->moved == 0 && (refusal(errno) || errno == EBADF))
			return fail(x, SIDE_NONE, "copy_file_range", errno), REFUSED;
		/* Two files: only a full or closed output says which side it was. */
		return fail(x, output_error(errno) ? SIDE_OUTPUT : SIDE_NONE,
		    "copy_file_range", errno);
	}
	return DONE;
}

/*
 * Splices exactly n bytes, which pipe `from` holds, into `to`: EINTR
 * retried, an inherited O_NONBLOCK waited out with poll(2), every byte
 * added to *moved and counted under m.  Returns 0, or -1 with errno (EIO
 * if the pipe came up short) after *moved says how far it got.
 */
static int
splice_held(int from, int to, size_t n, unsigned int flags, enum xfer_method m,
    uint64_t *moved)
{
	while (n > 0) {
		ssize_t r = splice(from, NULL, to, NULL, n, flags);

		if (r > 0) {
			n -= (size_t)r;
			*moved += (uint64_t)r;
			account(m, (uint64_t)r);
			continue;
		}
		if (r == 0)
			errno = EIO;
		else if (errno == EINTR)
			continue;
		else if (errno == EAGAIN) {
			if (wait_fd(to, POLLOUT) < 0)
				return -1;
			continue;
		}
		return -1;
	}
	return 0;
}

/* Neither side is a pipe: splice in, splice out, through a pipe of ours. */
static int internal_pipe[2] = { -1, -1 };
static size_t internal_cap;

static void
internal_pipe_drop(void)
{
	close(internal_pipe[0]);
	close(internal_pipe[1]);
	internal_pipe[0] = internal_pipe[1] = -1;
}

/* Moves what the internal pipe holds to out with read/write. */
static int
internal_pipe_drain(struct xfer *x, size_t queued)
{
	static char buf[64 * 1024];

	while (queued > 0) {
		ssize_t n = read(internal_pipe[0], buf,
		    queued < sizeof(buf) ? queued : sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(x, SIDE_INPUT, "read", n < 0 ? errno : EIO);
		if (write_all(x->out, buf, (size_t)n) < 0)
			return fail(x, SIDE_OUTPUT, "write", errno);
		queued -= (size_t)n;
		x->moved += (uint64_t)n;
		account(M_READ_WRITE, (uint64_t)n);
	}
	return DONE;
}

static int
by_internal_pipe(struct xfer *x)
{
	if (internal_pipe[0] < 0) {
		long cap;

		if (pipe_open(internal_pipe) < 0)
			return fail(x, SIDE_NONE, "pipe2", errno), REFUSED;
		cap = pipe_capacity(internal_pipe[0]);
		internal_cap = cap > 0 ? (size_t)cap : 65536;
	}
	while (left(x) > 0) {
		ssize_t n = splice(x->in, NULL, internal_pipe[1], NULL,
		    call_bytes(x, internal_cap), x->flags);

		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				if (wait_fd(x->in, POLLIN) < 0)
					return fail(x, SIDE_INPUT, "poll", errno);
				continue;
			}
			if (x->moved == 0 && refusal(errno))
				return fail(x, SIDE_INPUT, "splice", errno), REFUSED;
			return fail(x, SIDE_INPUT, "splice", errno);
		}
		if (splice_held(internal_pipe[0], x->out, (size_t)n, x->flags, M_SPLICE_PIPE,
		    &x->moved) < 0) {
			int err = errno;

			if (x->moved == 0 && refusal(err)) {
				/* Input already gave these bytes: deliver them. */
				if (internal_pipe_drain(x, (size_t)n) != DONE) {
					internal_pipe_drop();
					return FAILED;
				}
				return fail(x, SIDE_OUTPUT, "splice", err), REFUSED;
			}
			internal_pipe_drop();
			return fail(x, SIDE_OUTPUT, "splice", err);
		}
	}
	return DONE;
}

int
move_fd(struct xfer *x)
{
	bool in_pipe = fd_is_pipe(x->in), out_pipe = fd_is_pipe(x->out);
	int r;

	x->moved = 0;
	x->err = 0;
	x->side = SIDE_NONE;
	x->call = NULL;
	x->refused = false;
	if (in_pipe || out_pipe)
		r = by_splice(x, in_pipe, out_pipe, false);
	else {
		r = REFUSED;
		if (fd_is_regular(x->in) && fd_is_regular(x->out))
			r = by_copy_range(x);
		if (r == REFUSED)
			r = by_internal_pipe(x);
	}
	if (r != REFUSED)
		return r;
	if (common.strict) {
		if (x->call == NULL)
			x->call = "copy_file_range";
		x->refused = true;
		return FAILED;
	}
	if (common.verbose > 1)
		warn_msg("%s refused (%s), using read/write", x->call,
		    strerror(x->err));
	x->err = 0;
	x->call = NULL;
	x->side = SIDE_NONE;
	return by_read_write(x);
}

void
xfer_warn(const struct xfer *x, const char *in_name, const char *out_name)
{
	const char *name = x->side == SIDE_OUTPUT ? out_name : in_name;

	if (x->refused)
		warn_msg("%s -> %s: %s: %s (--strict: no fallback to read/write)",
		    in_name, out_name, x->call, strerror(x->err));
	else if (x->side == SIDE_NONE)
		warn_msg("%s -> %s: %s: %s", in_name, out_name, x->call,
		    strerror(x->err));
	else
		warn_msg("%s: %s", name, strerror(x->err));
}

/* ---- TCP: splice-fromnet, splice-tonet, splice-tee --net ---------------- */

static void
tcp_name_of(const struct sockaddr *sa, struct tcp_name *name)
{
	const void *addr;

	name->host[0] = '\0';
	name->port = 0;
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)sa;

		addr = &sin6->sin6_addr;
		name->port = ntohs(sin6->sin6_port);
		/* A dual-stack listener's IPv4 peer reads better as IPv4. */
		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			addr = &sin6->sin6_addr.s6_addr[12];
			if (inet_ntop(AF_INET, addr, name->host, sizeof(name->host)) == NULL)
				strcpy(name->host, "?");
			return;
		}
	} else if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)sa;

		addr = &sin->sin_addr;
		name->port = ntohs(sin->sin_port);
	} else
		return;
	if (inet_ntop(sa->sa_family, addr, name->host, sizeof(name->host)) == NULL)
		strcpy(name->host, "?");
}

/* connect(2), which EINTR does not restart: the rest happens in the kernel. */
static int
connect_one(int fd, const struct sockaddr *sa, socklen_t len)
{
	int err = 0;
	socklen_t errlen = sizeof(err);

	if (connect(fd, sa, len) == 0)
		return 0;
	if (errno != EINTR && errno != EINPROGRESS)
		return -1;
	if (wait_fd(fd, POLLOUT) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &errlen) < 0)
		return -1;
	errno = err;
	return err == 0 ? 0 : -1;
}

static void
sleep_seconds(double secs)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int
tcp_connect(const char *host, const char *port, int family, double retry_secs)
{
	const struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_STREAM };
	double deadline = elapsed_seconds() + retry_secs;

	for (;;) {
		struct addrinfo *list, *ai;
		int gai = getaddrinfo(host, port, &hints, &list), err = 0;

		if (gai == 0) {
			for (ai = list; ai; ai = ai->ai_next) {
				int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
				    ai->ai_protocol);

				if (fd >= 0 && connect_one(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
					freeaddrinfo(list);
					return fd;
				}
				err = errno;
				if (fd >= 0)
					close(fd);
			}
			freeaddrinfo(list);
		} else if (gai == EAI_SYSTEM)
			err = errno;
		/* A name that does not exist will not appear by waiting. */
		if ((gai != 0 && gai != EAI_AGAIN && gai != EAI_SYSTEM) ||
		    elapsed_seconds() >= deadline) {
			if (gai != 0 && gai != EAI_SYSTEM)
				warn_msg("%s %s: %s", host, port, gai_strerror(gai));
			else {
				errno = err ? err : ECONNREFUSED;
				warn_errno("%s %s", host, port);
			}
			return -1;
		}
		/* A receiver starting up: try again soon, not in a busy loop. */
		sleep_seconds(deadline - elapsed_seconds() < 0.1 ?
		    deadline - elapsed_seconds() : 0.1);
	}
}

static int
listen_on(const struct addrinfo *ai, bool dual_stack)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
	int on = 1, off = 0;

	if (fd < 0)
		return -1;
	/* A port left in TIME_WAIT by the last run is free to reuse. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	/*
	 * "::" takes IPv4 too unless -6 asked for IPv6 alone, whatever
	 * net.ipv6.bindv6only says.
	 */
	if (ai->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, dual_stack ? &off : &on, sizeof(on));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 16) == 0)
		return fd;
	int err = errno;

	close(fd);
	errno = err;
	return -1;
}

int
tcp_listen(const char *addr, const char *port, int family, struct tcp_name *bound)
{
	struct addrinfo hints = {
		.ai_family = family, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE,
	};
	struct addrinfo *list, *ai;
	int gai, fd = -1;

	/* Every address: "::" with IPv4 mapped in, else 0.0.0.0. */
	if (addr == NULL && family == AF_UNSPEC) {
		hints.ai_family = AF_INET6;
		if (getaddrinfo(NULL, port, &hints, &list) == 0) {
			for (ai = list; ai && fd < 0; ai = ai->ai_next)
				fd = listen_on(ai, true);
			freeaddrinfo(list);
		}
		hints.ai_family = AF_INET;
	}
	if (fd < 0) {
		gai = getaddrinfo(addr, port, &hints, &list);
		if (gai != 0) {
			if (gai == EAI_SYSTEM)
				warn_errno("%s %s", addr ? addr : "*", port);
			else
				warn_msg("%s %s: %s", addr ? addr : "*", port, gai_strerror(gai));
			return -1;
		}
		for (ai = list; ai && fd < 0; ai = ai->ai_next)
			fd = listen_on(ai, false);
		freeaddrinfo(list);
		if (fd < 0) {
			warn_errno("%s %s", addr ? addr : "*", port);
			return -1;
		}
	}
	if (bound) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);

		if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
			warn_errno("%s %s: getsockname", addr ? addr : "*", port);
			close(fd);
			return -1;
		}
		tcp_name_of((struct sockaddr *)&ss, bound);
	}
	return fd;
}

int
tcp_accept(int listen_fd, double timeout_secs, struct tcp_name *peer)
{
	double deadline = elapsed_seconds() + timeout_secs;

	for (;;) {
		struct pollfd pfd = { .fd = listen_fd, .events = POLLIN };
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		int ms = -1, fd, r;

		if (timeout_secs >= 0) {
			double left_secs = deadline - elapsed_seconds();

			ms = left_secs > 0 ? (int)(left_secs * 1000.0) + 1 : 0;
		}
		r = poll(&pfd, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		fd = accept4(listen_fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
		if (fd >= 0) {
			if (peer)
				tcp_name_of((struct sockaddr *)&ss, peer);
			return fd;
		}
		/* A peer that gave up before we took it is not our error. */
		if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN)
			return -1;
	}
}

int
tcp_split(char *spec, char **host, char **port)
{
	char *colon;

	if (spec[0] == '[') {
		char *close_bracket = strchr(spec, ']');

		if (close_bracket == NULL || close_bracket[1] != ':' || close_bracket[2] == '\0')
			return -1;
		*close_bracket = '\0';
		*host = spec + 1;
		*port = close_bracket + 2;
		return port_valid(*port, false) ? 0 : -1;
	}
	colon = strchr(spec, ':');
	/* "::1:9000" is ambiguous: IPv6 needs brackets. */
	if (colon == NULL || colon == spec || colon[1] == '\0' || strchr(colon + 1, ':'))
		return -1;
	*colon = '\0';
	*host = spec;
	*port = colon + 1;
	return port_valid(*port, false) ? 0 : -1;
}

bool
port_valid(const char *port, bool allow_zero)
{
	unsigned long value = 0;
	const char *p;

	if (*port == '\0')
		return false;
	for (p = port; *p >= '0' && *p <= '9'; p++)
		if ((value = value * 10 + (unsigned long)(*p - '0')) > 65535)
			return false;
	return *p != '\0' || value > 0 || allow_zero;
}

int
tcp_finish(int fd)
{
	static char drop[4096];

	if (shutdown(fd, SHUT_WR) < 0)
		return -1;
	for (;;) {
		ssize_t n = read(fd, drop, sizeof(drop));

		if (n == 0)
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			if (wait_fd(fd, POLLIN) < 0)
				return -1;
			continue;
		}
		if (n < 0)
			return -1;
	}
}

/* Errors a socket gives when its peer or the network fails. */
static bool
socket_error(int err)
{
	return err == EPIPE || err == ECONNRESET || err == ENOTCONN || err == ETIMEDOUT ||
	    err == ECONNABORTED || err == EHOSTUNREACH || err == ENETUNREACH ||
	    err == ENETDOWN || err == ENOBUFS;
}

static int
by_sendfile(struct xfer *x)
{
	/* The kernel loops inside; 16 MiB keeps --progress alive. */
	const size_t chunk = 16 << 20;

	while (left(x) > 0) {
		ssize_t n = sendfile(x->out, x->in, NULL, call_bytes(x, chunk));

		if (n > 0) {
			x->moved += (uint64_t)n;
			account(M_SENDFILE, (uint64_t)n);
			continue;
		}
		if (n == 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			if (wait_fd(x->out, POLLOUT) < 0)
				return fail(x, SIDE_OUTPUT, "poll", errno);
			continue;
		}
		if (x->moved == 0 && refusal(errno))
			return fail(x, SIDE_NONE, "sendfile", errno), REFUSED;
		return fail(x, socket_error(errno) ? SIDE_OUTPUT : SIDE_INPUT, "sendfile",
		    errno);
	}
	return DONE;
}

int
move_to_socket(struct xfer *x)
{
	int r;

	x->moved = 0;
	x->err = 0;
	x->side = SIDE_NONE;
	x->call = NULL;
	x->refused = false;
	if (fd_is_regular(x->in))
		r = by_sendfile(x);
	else if (fd_is_pipe(x->in))
		r = by_splice(x, true, false, true);
	else
		return move_fd(x);
	if (r != REFUSED)
		return r;
	if (common.verbose > 1)
		warn_msg("%s refused (%s), trying splice", x->call, strerror(x->err));
	/* Nothing moved yet: move_fd() starts over with the same offsets. */
	return move_fd(x);
}

/* ---- tee: one input, many outputs (splice-tee) --------------------------- */

/* What the read/write fallbacks copy through. */
static char tee_buf[64 * 1024];

enum { TEE_OK = 0, TEE_OUT_FAILED = -1, TEE_SRC_FAILED = -2 };

/* Reads and drops the n bytes a failed output left in pipe fd. */
static int
tee_discard(int fd, size_t n)
{
	while (n > 0) {
		ssize_t r = read(fd, tee_buf, n < sizeof(tee_buf) ? n : sizeof(tee_buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN) {
			if (wait_fd(fd, POLLIN) < 0)
				return -1;
			continue;
		}
		if (r <= 0) {
			if (r == 0)
				errno = EIO;
			return -1;
		}
		n -= (size_t)r;
	}
	return 0;
}

static int
tee_out_fail(struct tee_out *o, const char *call, int err)
{
	o->gone = true;
	o->err = err;
	o->call = call;
	return TEE_OUT_FAILED;
}

/*
 * Moves exactly n bytes, which pipe `from` holds, to o: splice(2), or
 * read/write once the kernel refused o before its first byte.  When o
 * fails, the rest of the n bytes is read and dropped, so that `from` is
 * where the other outputs expect it.
 */
static int
tee_deliver(int from, struct tee_out *o, size_t n, enum xfer_method m,
    unsigned int flags)
{
	while (n > 0) {
		uint64_t before;
		ssize_t r;
		int err;

		if (o->by_copy) {
			r = read(from, tee_buf, n < sizeof(tee_buf) ? n : sizeof(tee_buf));
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && errno == EAGAIN) {
				if (wait_fd(from, POLLIN) < 0)
					return TEE_SRC_FAILED;
				continue;
			}
			if (r <= 0) {
				if (r == 0)
					errno = EIO;
				return TEE_SRC_FAILED;
			}
			n -= (size_t)r;
			if (write_all(o->fd, tee_buf, (size_t)r) < 0) {
				err = errno;
				if (tee_discard(from, n) < 0)
					return TEE_SRC_FAILED;
				return tee_out_fail(o, "write", err);
			}
			o->moved += (uint64_t)r;
			account(M_READ_WRITE, (uint64_t)r);
			continue;
		}
		before = o->moved;
		if (splice_held(from, o->fd, n, flags, m, &o->moved) == 0)
			break;
		err = errno;
		n -= (size_t)(o->moved - before);
		if (o->moved == 0 && refusal(err)) {
			if (!common.strict) {
				if (common.verbose > 1)
					warn_msg("%s: splice refused (%s), using read/write",
					    o->name, strerror(err));
				o->by_copy = true;
				continue;
			}
			o->refused = true;
		}
		if (tee_discard(from, n) < 0)
			return TEE_SRC_FAILED;
		return tee_out_fail(o, "splice", err);
	}
	return TEE_OK;
}

/*
 * tee(2) of up to len bytes from pipe in to pipe out, waiting out EINTR
 * and an inherited O_NONBLOCK.  0 at end of input.
 */
static ssize_t
tee_some(int in, int out, size_t len)
{
	for (;;) {
		ssize_t n = tee(in, out, len, 0);

		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -1;
		if (wait_fd(in, POLLIN) < 0 || wait_fd(out, POLLOUT) < 0)
			return -1;
	}
}

/* The pipes of one tee_fd() call. */
struct tee_pipes {
	int src;		/* the input, or fill[0] */
	int fill[2];		/* an input that is not a pipe goes in here first */
	int q[2];		/* tee(2) into here, splice(2) out to an output */
	long q_cap;
	bool direct;		/* outs[0] is fed by tee(2) itself */
	bool fill_by_read;
	bool copy_all;		/* tee(2) refused: read once, write to each */
};

/* Records a failure of the input (or of an internal pipe) in t. */
static int
tee_job_fail(struct tee_job *t, enum xfer_side side, const char *call, int err)
{
	t->side = side;
	t->call = call;
	t->err = err;
	return -1;
}

/*
 * Fills the empty internal pipe from an input that is not a pipe: splice(2),
 * or read(2) and write(2) once that was refused before the first byte.
 * Returns the bytes queued, 0 at end of input, -1 recorded in t.
 */
static ssize_t
tee_fill(struct tee_job *t, struct tee_pipes *p, size_t cap)
{
	for (;;) {
		ssize_t n;

		if (!p->fill_by_read) {
			n = splice(t->in, NULL, p->fill[1], NULL, cap, t->flags);
			if (n >= 0) {
				account(M_SPLICE_PIPE, (uint64_t)n);
				return n;
			}
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				if (wait_fd(t->in, POLLIN) < 0)
					return tee_job_fail(t, SIDE_INPUT, "poll", errno);
				continue;
			}
			if (t->taken > 0 || !refusal(errno))
				return tee_job_fail(t, SIDE_INPUT, "splice", errno);
			if (common.verbose > 1)
				warn_msg("%s: splice refused (%s), using read/write",
				    t->in_name, strerror(errno));
			p->fill_by_read = true;
		}
		/* An empty pipe of cap bytes takes cap bytes without blocking. */
		n = read(t->in, tee_buf, cap < sizeof(tee_buf) ? cap : sizeof(tee_buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			if (wait_fd(t->in, POLLIN) < 0)
				return tee_job_fail(t, SIDE_INPUT, "poll", errno);
			continue;
		}
		if (n < 0)
			return tee_job_fail(t, SIDE_INPUT, "read", errno);
		if (n > 0) {
			if (write_all(p->fill[1], tee_buf, (size_t)n) < 0)
				return tee_job_fail(t, SIDE_NONE, "write", errno);
			account(M_READ_WRITE, (uint64_t)n);
		}
		return n;
	}
}

/* An output failed: tell the caller, who may stop everything. */
static bool
tee_dropped(struct tee_job *t, struct tee_out *o)
{
	if (t->output_failed && !t->output_failed(o)) {
		t->stopped = true;
		return false;
	}
	return true;
}

/* What a round returns besides a byte count. */
enum { ROUND_FAILED = -1, ROUND_AGAIN = -2 };

/*
 * The only output left: splice(2) (or read/write) up to len bytes straight
 * from the source, no tee(2) needed.  Returns the bytes taken, 0 at end of
 * input, ROUND_AGAIN when the output was dropped, ROUND_FAILED.
 */
static ssize_t
tee_single(struct tee_job *t, int src, struct tee_out *o, size_t len)
{
	for (;;) {
		ssize_t n;

		if (o->by_copy) {
			n = read(src, tee_buf, len < sizeof(tee_buf) ? len : sizeof(tee_buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN) {
				if (wait_fd(src, POLLIN) < 0)
					return tee_job_fail(t, SIDE_INPUT, "poll", errno);
				continue;
			}
			if (n < 0)
				return tee_job_fail(t, SIDE_INPUT, "read", errno);
			if (n > 0 && write_all(o->fd, tee_buf, (size_t)n) < 0) {
				tee_out_fail(o, "write", errno);
				return tee_dropped(t, o) ? ROUND_AGAIN : ROUND_FAILED;
			}
			o->moved += (uint64_t)n;
			account(M_READ_WRITE, (uint64_t)n);
			return n;
		}
		n = splice(src, NULL, o->fd, NULL, len, t->flags);
		if (n > 0) {
			o->moved += (uint64_t)n;
			account(M_SPLICE, (uint64_t)n);
			return n;
		}
		if (n == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			if (wait_fd(src, POLLIN) < 0 || wait_fd(o->fd, POLLOUT) < 0)
				return tee_job_fail(t, SIDE_NONE, "poll", errno);
			continue;
		}
		if (o->moved == 0 && refusal(errno)) {
			if (!common.strict) {
				if (common.verbose > 1)
					warn_msg("%s: splice refused (%s), using read/write",
					    o->name, strerror(errno));
				o->by_copy = true;
				continue;
			}
			o->refused = true;
		}
		/* splice(2) does not say which side failed; a pipe input only ends. */
		tee_out_fail(o, "splice", errno);
		return tee_dropped(t, o) ? ROUND_AGAIN : ROUND_FAILED;
	}
}

/*
 * The portable round, once tee(2) was refused: read(2) up to len bytes and
 * write(2) them to every output.  Same returns as tee_round().
 */
static ssize_t
tee_copy_round(struct tee_job *t, int src, size_t len)
{
	ssize_t n;

	for (;;) {
		n = read(src, tee_buf, len < sizeof(tee_buf) ? len : sizeof(tee_buf));
		if (n >= 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return tee_job_fail(t, SIDE_INPUT, "read", errno);
		if (wait_fd(src, POLLIN) < 0)
			return tee_job_fail(t, SIDE_INPUT, "poll", errno);
	}
	for (size_t i = 0; i < t->nouts && n > 0; i++) {
		struct tee_out *o = &t->outs[i];

		if (o->gone)
			continue;
		if (write_all(o->fd, tee_buf, (size_t)n) < 0) {
			tee_out_fail(o, "write", errno);
			if (!tee_dropped(t, o))
				return ROUND_FAILED;
			continue;
		}
		o->moved += (uint64_t)n;
		account(M_READ_WRITE, (uint64_t)n);
	}
	return n;
}

/* tee(2) failed: refused before the first byte means read/write from now on. */
static ssize_t
tee_refused(struct tee_job *t, struct tee_pipes *p, int err)
{
	if (t->taken > 0 || !refusal(err))
		return tee_job_fail(t, SIDE_NONE, "tee", err);
	if (common.strict) {
		t->refused = true;
		return tee_job_fail(t, SIDE_NONE, "tee", err);
	}
	if (common.verbose > 1)
		warn_msg("tee refused (%s), using read/write", strerror(err));
	p->copy_all = true;
	return ROUND_AGAIN;
}

/*
 * One round with two or more outputs: the first gets up to len bytes by
 * tee(2), which fixes n; the others get the same n bytes by tee(2) into the
 * internal pipe and splice(2) out of it; the last consumes them from the
 * source with splice(2).  Returns n, 0 at end of input, ROUND_AGAIN when
 * outs[0] was dropped before anything was taken, or ROUND_FAILED.
 */
static ssize_t
tee_round(struct tee_job *t, struct tee_pipes *p, size_t len)
{
	struct tee_out *first = NULL, *last = NULL;
	ssize_t n;
	int r;

	for (size_t i = 0; i < t->nouts; i++) {
		if (t->outs[i].gone)
			continue;
		if (!first)
			first = &t->outs[i];
		last = &t->outs[i];
	}
	/*
	 * Room in a pipe is counted in buffers, not bytes: the internal pipe
	 * must take every buffer tee(2) gave outs[0], so a reader that grew
	 * that pipe past ours sends outs[0] through ours too.
	 */
	if (p->direct && first == &t->outs[0] &&
	    pipe_capacity(t->outs[0].fd) > p->q_cap) {
		p->direct = false;
		if (common.verbose)
			warn_msg("%s grew past the internal pipe: fed through it",
			    t->outs[0].name);
	}
	if (p->direct && first == &t->outs[0]) {
		n = tee_some(p->src, first->fd, len);
		if (n < 0 && errno == EPIPE) {
			tee_out_fail(first, "tee", EPIPE);
			return tee_dropped(t, first) ? ROUND_AGAIN : ROUND_FAILED;
		}
		if (n < 0)
			return tee_refused(t, p, errno);
		first->moved += (uint64_t)n;
		account(M_TEE, (uint64_t)n);
	} else {
		n = tee_some(p->src, p->q[1], len);
		if (n < 0)
			return tee_refused(t, p, errno);
		if (n > 0) {
			r = tee_deliver(p->q[0], first, (size_t)n, M_TEE, t->flags);
			if (r == TEE_SRC_FAILED)
				return tee_job_fail(t, SIDE_NONE, "read", errno);
			if (r == TEE_OUT_FAILED && !tee_dropped(t, first))
				return ROUND_FAILED;
		}
	}
	if (n == 0)
		return 0;
	for (struct tee_out *o = first + 1; o < last; o++) {
		ssize_t m;

		if (o->gone)
			continue;
		/*
		 * tee(2) always starts at the front of the source: the same n
		 * bytes, linked again into an empty pipe at least as big as
		 * the first one's, cannot come up short.
		 */
		m = tee_some(p->src, p->q[1], (size_t)n);
		if (m != n)
			return tee_job_fail(t, SIDE_NONE, "tee", m < 0 ? errno : EIO);
		r = tee_deliver(p->q[0], o, (size_t)n, M_TEE, t->flags);
		if (r == TEE_SRC_FAILED)
			return tee_job_fail(t, SIDE_NONE, "read", errno);
		if (r == TEE_OUT_FAILED && !tee_dropped(t, o))
			return ROUND_FAILED;
	}
	r = tee_deliver(p->src, last, (size_t)n, M_SPLICE, t->flags);
	if (r == TEE_SRC_FAILED)
		return tee_job_fail(t, SIDE_INPUT, "read", errno);
	if (r == TEE_OUT_FAILED && !tee_dropped(t, last))
		return ROUND_FAILED;
	return n;
}

int
tee_fd(struct tee_job *t)
{
	struct tee_pipes p = {
		.src = t->in, .fill = { -1, -1 }, .q = { -1, -1 },
		.direct = t->nouts > 0 && fd_is_pipe(t->outs[0].fd),
	};
	bool in_pipe = fd_is_pipe(t->in);
	size_t queued = 0, len;
	int rval = 0;
	long cap;

	t->taken = 0;
	t->err = 0;
	account_input(0);
	t->call = NULL;
	t->side = SIDE_NONE;
	t->refused = false;
	t->stopped = false;
	if (common.strict && (!in_pipe || !p.direct)) {
		t->refused = true;
		return tee_job_fail(t, in_pipe ? SIDE_OUTPUT : SIDE_INPUT, "tee", EINVAL);
	}
	if (p.direct)
		pipe_grow(t->outs[0].fd);
	if (!in_pipe) {
		if (pipe_open(p.fill) < 0)
			return tee_job_fail(t, SIDE_NONE, "pipe2", errno);
		p.src = p.fill[0];
		if (common.verbose)
			warn_msg("%s is not a pipe: spliced into an internal pipe for tee(2)",
			    t->in_name);
	}
	if (t->nouts > 1) {
		long out_cap = p.direct ? pipe_capacity(t->outs[0].fd) : 0;

		if (pipe_open(p.q) < 0) {
			rval = tee_job_fail(t, SIDE_NONE, "pipe2", errno);
			goto out;
		}
		p.q_cap = pipe_capacity(p.q[0]);
		if (out_cap > p.q_cap && fcntl(p.q[1], F_SETPIPE_SZ, (int)out_cap) >= 0)
			p.q_cap = pipe_capacity(p.q[0]);
	}
	if (common.verbose && t->nouts > 0 && !p.direct)
		warn_msg("%s is not a pipe: fed by tee(2) through an internal pipe",
		    t->outs[0].name);
	/*
	 * A pipe input: tee(2) and splice(2) take what is there, at most its
	 * capacity, so ask for much more.  The internal pipe: what it holds.
	 */
	cap = pipe_capacity(p.src);
	len = in_pipe ? (size_t)1 << 30 : cap > 0 ? (size_t)cap : 65536;

	for (;;) {
		struct tee_out *only = NULL;
		size_t alive = 0;
		ssize_t n;

		for (size_t i = 0; i < t->nouts; i++) {
			if (!t->outs[i].gone) {
				alive++;
				only = &t->outs[i];
			}
		}
		if (alive == 0)
			break;
		if (!in_pipe && queued == 0) {
			n = tee_fill(t, &p, len);
			if (n <= 0) {
				rval = n < 0 ? -1 : 0;
				break;
			}
			queued = (size_t)n;
		}
		if (p.copy_all)
			n = tee_copy_round(t, p.src, in_pipe ? len : queued);
		else if (alive == 1)
			n = tee_single(t, p.src, only, in_pipe ? len : queued);
		else
			n = tee_round(t, &p, in_pipe ? len : queued);
		if (n == ROUND_AGAIN)
			continue;
		if (n < 0) {
			rval = -1;
			break;
		}
		if (n == 0)
			break;
		t->taken += (uint64_t)n;
		account_input((uint64_t)n);
		if (!in_pipe)
			queued -= (size_t)n;
	}
out:
	for (int i = 0; i < 2; i++) {
		if (p.fill[i] >= 0)
			close(p.fill[i]);
		if (p.q[i] >= 0)
			close(p.q[i]);
	}
	return rval;
}

/* ---- seconds: --retry, --timeout ----------------------------------------- */

double
option_seconds(const char *opt, const char *arg)
{
	char *end;
	double secs;

	errno = 0;
	secs = strtod(arg, &end);
	if (end == arg || *end != '\0' || errno == ERANGE || !isfinite(secs) || secs < 0 ||
	    *arg == '-' || *arg == '+' || *arg == ' ')
		usage_error("%s: invalid number of seconds: '%s'", opt, arg);
	return secs;
}

/* ---- patterns and vmsplice: vmsplice, vmsplice-touser ------------------- */

void
pattern_parse(const char *opt, const char *arg, struct pattern *p)
{
	const char *colon = strchr(arg, ':');
	size_t name_len = colon ? (size_t)(colon - arg) : strlen(arg);
	char *end;

	memset(p, 0, sizeof(*p));
	if (strcmp(arg, "zero") == 0)
		p->kind = PAT_ZERO;
	else if (strcmp(arg, "ramp") == 0)
		p->kind = PAT_RAMP;
	else if (strcmp(arg, "seq") == 0)
		p->kind = PAT_SEQ;
	else if (strcmp(arg, "random") == 0)
		p->kind = PAT_RANDOM;
	else if (colon && name_len == 4 && strncmp(arg, "fill", 4) == 0) {
		unsigned long byte;

		errno = 0;
		byte = strtoul(colon + 1, &end, 0);
		if (colon[1] < '0' || colon[1] > '9' || *end != '\0' || errno || byte > 255)
			usage_error("%s: fill needs a byte from 0 to 255: '%s'", opt, arg);
		p->kind = PAT_FILL;
		p->byte = (unsigned char)byte;
	} else if (colon && name_len == 6 && strncmp(arg, "random", 6) == 0) {
		unsigned long long seed;

		errno = 0;
		seed = strtoull(colon + 1, &end, 0);
		if (colon[1] < '0' || colon[1] > '9' || *end != '\0' || errno)
			usage_error("%s: random needs a seed from 0 to 2^64-1: '%s'", opt, arg);
		p->kind = PAT_RANDOM;
		p->seed = seed;
	} else
		usage_error("%s: unknown pattern '%s' (one of %s)", opt, arg, PATTERN_NAMES);
}

const char *
pattern_label(const struct pattern *p)
{
	static char label[40];

	switch (p->kind) {
	case PAT_ZERO:
		return "zero";
	case PAT_RAMP:
		return "ramp";
	case PAT_SEQ:
		return "seq";
	case PAT_FILL:
		snprintf(label, sizeof(label), "fill:0x%02x", p->byte);
		return label;
	case PAT_RANDOM:
		snprintf(label, sizeof(label), "random:%llu", (unsigned long long)p->seed);
		return label;
	}
	return "?";
}

/*
 * The word at stream offset 8 * index, as a number whose little-endian
 * bytes are the stream's.  random is SplitMix64's output function applied
 * to seed + (index + 1) * golden gamma: a counter, so any block can be made
 * on its own, at a few cycles per word.
 */
static inline uint64_t
random_word(uint64_t seed, uint64_t index)
{
	uint64_t z = seed + (index + 1) * UINT64_C(0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline uint64_t
pattern_word(const struct pattern *p, uint64_t index)
{
	switch (p->kind) {
	case PAT_ZERO:
		return 0;
	case PAT_FILL:
		return p->byte * UINT64_C(0x0101010101010101);
	case PAT_RAMP:
		/* Bytes 8i..8i+7 mod 256 never wrap inside a word. */
		return UINT64_C(0x0706050403020100) +
		    ((index * 8) & 0xff) * UINT64_C(0x0101010101010101);
	case PAT_SEQ:
		return index * 8;
	case PAT_RANDOM:
		return random_word(p->seed, index);
	}
	return 0;
}

unsigned char
pattern_byte(const struct pattern *p, uint64_t offset)
{
	return (unsigned char)(pattern_word(p, offset / 8) >> (8 * (offset % 8)));
}

bool
pattern_repeats(const struct pattern *p, uint64_t period)
{
	return p->kind == PAT_ZERO || p->kind == PAT_FILL ||
	    (p->kind == PAT_RAMP && period % 256 == 0);
}

void
pattern_fill(const struct pattern *p, uint64_t offset, void *buf, size_t len)
{
	unsigned char *b = buf;

	if (p->kind == PAT_ZERO || p->kind == PAT_FILL) {
		memset(b, p->byte, len);
		return;
	}
	for (; len > 0 && offset % 8 != 0; len--)
		*b++ = pattern_byte(p, offset++);
	/* seq and random on their own: no switch per word. */
	if (p->kind == PAT_SEQ) {
		for (; len >= 8; len -= 8, b += 8, offset += 8) {
			uint64_t word = htole64(offset);

			memcpy(b, &word, 8);
		}
	} else if (p->kind == PAT_RANDOM) {
		for (; len >= 8; len -= 8, b += 8, offset += 8) {
			uint64_t word = htole64(random_word(p->seed, offset / 8));

			memcpy(b, &word, 8);
		}
	}
	for (uint64_t index = offset / 8; len >= 8; len -= 8, b += 8, offset += 8) {
		uint64_t word = htole64(pattern_word(p, index++));

		memcpy(b, &word, 8);
	}
	for (; len > 0; len--)
		*b++ = pattern_byte(p, offset++);
}

size_t
pattern_check(const struct pattern *p, uint64_t offset, const void *buf, size_t len)
{
	const unsigned char *b = buf;
	size_t i = 0;

	for (; i < len && (offset + i) % 8 != 0; i++)
		if (b[i] != pattern_byte(p, offset + i))
			return i;
	if (p->kind == PAT_SEQ) {
		for (; len - i >= 8; i += 8) {
			uint64_t word;

			memcpy(&word, b + i, 8);
			if (word != htole64(offset + i))
				break;
		}
	} else if (p->kind == PAT_RANDOM) {
		for (; len - i >= 8; i += 8) {
			uint64_t word;

			memcpy(&word, b + i, 8);
			if (word != htole64(random_word(p->seed, (offset + i) / 8)))
				break;
		}
	}
	for (uint64_t index = (offset + i) / 8; len - i >= 8; i += 8) {
		uint64_t word;

		memcpy(&word, b + i, 8);
		if (word != htole64(pattern_word(p, index++)))
			break;
	}
	for (; i < len; i++)
		if (b[i] != pattern_byte(p, offset + i))
			return i;
	return len;
}

int
vmsplice_all(int fd, const void *buf, size_t len, unsigned int flags, bool busy)
{
	const char *p = buf;

	while (len > 0) {
		struct iovec iov = { .iov_base = (void *)p, .iov_len = len };
		ssize_t n = vmsplice(fd, &iov, 1, flags | SPLICE_F_NONBLOCK);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			account(M_VMSPLICE, (uint64_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* A POLLOUT only promises one free slot: loop. */
			if (!busy && wait_fd(fd, POLLOUT) < 0)
				return -1;
			continue;
		}
		if (n == 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

ssize_t
vmsplice_read(int fd, void *buf, size_t len, bool nonblock)
{
	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = len };
		ssize_t n = vmsplice(fd, &iov, 1, nonblock ? SPLICE_F_NONBLOCK : 0);

		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			if (wait_fd(fd, POLLIN) < 0)
				return -1;
			continue;
		}
		return -1;
	}
}

/* ---- standard descriptors: splice-fromnet, splice-tonet ------------------ */

int
std_fds_fill(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int null_fd;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* The lowest free descriptor: fd itself. */
		null_fd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (null_fd < 0)
			return -1;
		if (null_fd != fd) {
			close(null_fd);
			errno = EBADF;
			return -1;
		}
	}
	return 0;
}
